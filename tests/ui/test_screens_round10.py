"""Issue 51, "every failure names its cause and the next action" and "whole lines at 100
columns": the screens walks i and j left open (/work/helpers/walk-i, walk-j): a lab's end that
sends a person back to a step without saying their files are a later step's, an async Stop
hook never named as the reason it cannot hold the turn, the live steps' scenario words, a raw
substring as a contract part, ``exit 0: exit 0 as expected``, and a command cut with "…".

Real: the labs' own lab.toml and checks, provisioned workspaces, the lab runner and the
renderers a person sees, screens at 80, 100 and 120 columns.
"""

from __future__ import annotations

import io

from rich.console import Console

from harness.engine.lab_runner import LabRunner
from harness.results import Status
from harness.ui.lab_view import print_moved
from harness.ui.prose import print_prose
from harness.workspace import Workspace
from tests.lines import joined

WIDTHS = (80, 100, 120)


def shown(renderable: object, width: int) -> str:
    out = io.StringIO()
    print_prose(Console(file=out, width=width, no_color=True, color_system=None), renderable)
    return out.getvalue()


def fits(screen: str, width: int) -> bool:
    return all(len(line) <= width for line in screen.splitlines())


# ---- 1. sent back by the lab's end: the files are a later step's, and lab reset is the way ---


def test_a_step_sent_back_at_the_labs_end_names_the_later_state_and_lab_reset(
    workspace: Workspace,
) -> None:
    """Walk i, Lab 03: ``lab next`` at the last step judged step 2 again, it failed, and the
    person was back at step 2 with the files as step 3 left them (the annotation put back);
    step 2's own edit then failed with "String to replace not found", and the screen said only
    "check it again". Real: Lab 06's check judged again at a state it does not hold at."""
    runner = LabRunner(workspace)
    runner.start("6")
    lab = runner.lab()
    before_the_change = runner._snapshot(lab, "verified/before-the-change")
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS
    record = runner.progress.lab_progress(lab.id).step("hook-change-held").passed
    assert record is not None
    record["snapshot"] = before_the_change
    moved = runner.complete(lab)
    assert moved.step is not None and moved.step.index == 0 and len(lab.steps) > 1
    last = len(lab.steps)
    for width in WIDTHS:
        out = io.StringIO()
        print_moved(Console(file=out, width=width, no_color=True, color_system=None), moved)
        screen = out.getvalue()
        said = joined(screen)
        assert "check it again" not in said, screen
        assert (
            f"back at step 1, but your files are still as step {last} left them, not as step 1 "
            "began: lab reset puts back step 1's start (your files are backed up first); then "
            "do step 1 again and lab check" in said
        ), screen
        assert said.index("it fails for what is named above") < said.index("back at step 1")
        assert any("lab reset" in line for line in screen.splitlines()), screen
        assert fits(screen, width), screen
    # The way on works: the reset puts step 1's start back, the person's files backed up.
    again = runner.reset()
    assert again.step is not None and again.step.index == 0 and again.backup is not None
