"""A step's code blocks (the quiz templates a participant copies into answers/*.toml, the
commands to type) are shown whole in its box at 100 columns: walk41 saw Lab 11's quiz break
``(c)`` from ``BusinessRuleTraceabilityTest`` and ``(b) 5`` from ``(c) 7``.

Real: ``lab start 11`` as its own process on a provisioned workspace; the box of every other
step is the one ``lab`` prints, rendered at 100 columns.
"""

from __future__ import annotations

import io
import re

from rich.console import Console

from harness.engine.manifest import Step, lab_dirs, load_lab
from harness.ui.lab_view import step_panel
from harness.ui.prose import print_prose
from harness.workspace import Workspace
from tests.builders import run_lab_process

AT_100 = {"NO_COLOR": "1", "COLUMNS": "100"}  # a 100-column terminal, without colour


def code_lines(step: Step) -> list[str]:
    """The lines of the step's fenced blocks, runs of spaces made one."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", step.instructions, re.S)
    return [" ".join(x.split()) for block in blocks for x in block.splitlines() if x.strip()]


def shown(text: str) -> list[str]:
    """The rows of a box as a person reads them: its borders gone, runs of spaces made one."""
    return [" ".join(row.strip().strip("│").split()) for row in text.splitlines()]


def missing(step: Step, screen: str) -> list[str]:
    rows = shown(screen)
    return [line for line in code_lines(step) if not any(line in row for row in rows)]


def test_lab11_quiz_is_whole_on_lab_start(workspace: Workspace) -> None:
    out = run_lab_process(
        "start", "11", cwd=workspace.root, env={"NO_COLOR": "1", "COLUMNS": "100"}
    )
    assert out.returncode == 0, out.stdout + out.stderr
    step = load_lab(next(d for d in lab_dirs() if d.name.startswith("11-"))).steps[0]
    assert code_lines(step) and not missing(step, out.stdout), out.stdout


def test_every_step_shows_its_code_blocks_whole_at_100_columns() -> None:
    broken = []
    for folder in lab_dirs():
        lab = load_lab(folder)
        for step in lab.steps:
            screen = io.StringIO()
            print_prose(Console(file=screen, width=100, no_color=True), step_panel(lab, step))
            broken += [f"{lab.id} {step.id}: {x}" for x in missing(step, screen.getvalue())]
    assert not broken, "\n".join(broken)
