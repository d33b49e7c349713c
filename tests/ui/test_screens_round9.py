"""Issue 51, "every failure names its cause and the next action" and "whole lines at 100
columns": the screens walks g and h left open (/work/helpers/walk-g, walk-h): a reset that put
the lab's solution in place of the person's own hook, a failed ``lab solve --apply`` blamed on
the machine, a live step's fix that misnamed the trouble, and the smaller wordings.

Real: the labs' own lab.toml, provisioned workspaces, the lab runner and the renderers a person
sees, screens at 80, 100 and 120 columns.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from harness.ui.lab_view import print_moved
from harness.ui.prose import print_prose
from harness.workspace import Workspace
from tests.builders import reach_step

WIDTHS = (80, 100, 120)


def shown(renderable: object, width: int) -> str:
    out = io.StringIO()
    print_prose(Console(file=out, width=width, no_color=True, color_system=None), renderable)
    return out.getvalue()


def console_at(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, no_color=True, color_system=None), out


def joined(screen: str) -> str:
    """The screen's words as one line: what it says, wherever it wrapped."""
    return " ".join(screen.split())


# ---- 1. lab reset keeps the person's own work of the steps they passed ----------------------

MINE = "# my own hook, written in step 2\n"


def test_lab07_reset_at_step3_keeps_the_persons_own_step2_hook(workspace: Workspace) -> None:
    """Walk g, Lab 07: ``lab reset`` at step 3 or 4 put the lab's reference hook, contract
    and settings in place of the person's own, and the screen said only "backed up". A reset
    puts back the start of THIS step: the person's step-2 hook as it passed, said on screen."""
    runner = reach_step(workspace, "7", "contract")
    runner.solve(apply=True)
    assert runner.check().status.value == "pass"
    runner.next()
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    runner.solve(apply=True)
    hook.write_text(hook.read_text() + MINE)
    assert runner.check().status.value == "pass"
    runner.next()
    assert runner.current()[1].id == "register"
    (workspace.root / ".claude" / "settings.json").write_text("{}\n")  # this step's work
    move = runner.reset()
    assert hook.read_text().endswith(MINE), hook.read_text()[-300:]
    assert (workspace.root / ".claude" / "settings.json").read_text() != "{}\n"
    for width in WIDTHS:
        console, out = console_at(width)
        print_moved(console, move)
        screen = out.getvalue()
        said = joined(screen)
        assert "step 3 is back as it began: steps 1 and 2 as you passed them" in said, screen
        assert "lab's solution" not in said, screen
        assert all(len(line) <= width for line in screen.splitlines()), screen
