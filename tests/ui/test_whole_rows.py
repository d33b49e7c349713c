"""What a person reads or copies is whole on one row of the terminal at 80, 100 and 120
columns, the terminal's own wrap included: a newcomer at 100 columns saw ``lab sensors
--no-run`` split a test id at the edge, Lab 04's verdict read ``→ al`` / ``lowed``, and Lab 13
step 4's command broke as ``tee answers/let-go.`` / ``json; echo $?``.

Real: the workspace, Maven, the bash hooks, ``lab`` in a tmux terminal. The screen is captured
without ``-J``: each row is what the terminal shows, so a text found in one row is not split.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.workspace import Workspace, provision
from tests.builders import command_screen
from tests.ui.test_terminal import shown_code

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

WIDTHS = (80, 100, 120)


def rows(socket: Path, cwd: Path, width: int, *args: str) -> list[str]:
    """The rows ``lab ARGS`` left in a ``width``-column terminal, as a person sees them."""
    command = " ".join([sys.executable, "-m", "harness", *args])
    return command_screen(socket, cwd, width, command, height=80, joined=False)


def assert_in_a_row(shown: list[str], width: int, *texts: str) -> None:
    assert all(len(row) <= width for row in shown)
    for text in texts:
        assert any(text in row for row in shown), (
            f"{text!r} is not whole in one row at {width} columns:\n" + "\n".join(shown)
        )


def test_lab_sensors_shows_each_failing_test_in_one_row(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Lab 02 step 1 solved: the sensors red. The package-long id (102 columns) was split."""
    runner = LabRunner(workspace)
    runner.start("2")
    runner.solve(apply=True)
    for width in WIDTHS:
        shown = rows(tmp_path / f"{width}.sock", workspace.root, width, "sensors", "--no-run")
        assert_in_a_row(
            shown,
            width,
            "UseCaseTraceabilityTest.everyAnnotationPointsAtAnExistingUseCaseAndScenario:",
            "UseCaseTraceabilityTest.everyScenarioOfADoneOrTestedUseCaseHasARunningTest:",
            # The annotation to paste into a test (walk e: "A1: Invalid" / "Input")").
            '@UseCase(id="UC-003", scenario="A1: Invalid Input")',
            '@UseCase(id="UC-003", scenario="A1: Validation Errors")',
        )


def test_lab04_verdict_of_a_long_command_is_whole(workspace: Workspace, tmp_path: Path) -> None:
    """Lab 04 step 3 with a sed whose pattern matches nothing: the command and its verdict,
    89 and 29 columns, each whole (together when they fit beside the row's indent)."""
    runner = LabRunner(workspace)
    runner.start("4")
    runner.goto("sed")
    runner.solve(apply=True)
    scenario = workspace.root / "scenarios" / "sed.toml"
    scenario.write_text(scenario.read_text().replace("Approved/", "Aproved/"))
    sed = (
        "sed -i 's/^\\*\\*Status:\\*\\* Aproved/**Status:** Done/' "
        "docs/use_cases/UC-002-edit-owner.md"
    )
    for width in WIDTHS:
        shown = rows(tmp_path / f"{width}.sock", workspace.root, width, "check")
        assert_in_a_row(shown, width, "→ allowed (expected blocked)")
        if width > len(sed):  # at 80 no row holds it: the terminal wraps it, copying keeps it
            assert_in_a_row(shown, width, sed)
    # Together only beside the row's indent: moved left to fit, the pair sat at column 0-2
    # under "⚙  2 bash" (walk e); each part whole under the row instead.
    assert all(row.index(sed) >= 6 for row in shown if sed in row), shown


def test_lab13_step4_commands_are_whole(tmp_path: Path) -> None:
    provision(tmp_path / "ws", fixture_name="node")
    runner = LabRunner(Workspace(tmp_path / "ws"))
    runner.start("13")
    runner.goto("let-go")
    code = shown_code([find_lab("13").step("let-go").instructions])
    assert "tee answers/let-go.json; echo $?" not in " ".join(code)
    for width in WIDTHS:
        shown = rows(tmp_path / f"{width}.sock", tmp_path / "ws", width, "status")
        assert_in_a_row(shown, width, *code)


def test_the_step_entry_notice_keeps_lab_restore_whole() -> None:
    """Lab 10 step 3 and Lab 13 step 3 replace a file of the person's on entry; the notice
    broke as ``(lab`` / ``restore 20261207-014757-before-setup …`` at 100 columns."""
    import io

    from rich.console import Console

    from harness.engine.step_results import Moved
    from harness.ui.lab_view import print_moved
    from harness.workspace import Backup

    lab = find_lab("10")
    name = "20261207-014757-before-setup"
    backup = Backup(f"refs/hooklab/backups/{name}", "0" * 40, "before setup", 0.0)
    for pad, width in ((n, w) for n in range(0, 40) for w in WIDTHS):
        # the notice's words fall on every column, as the files replaced differ
        replaced = (".claude/settings.json", "scripts/" + "x" * pad + ".sh")
        moved = Moved(lab, lab.steps[2], backup=backup, replaced=replaced)
        out = io.StringIO()
        print_moved(Console(file=out, width=width, no_color=True, highlight=False), moved)
        shown = out.getvalue().splitlines()
        notice = shown[: next(i for i, row in enumerate(shown) if row.startswith("╭"))]
        assert_in_a_row(notice, width, f"(lab restore {name}")
