"""Paths, commands and test names are shown whole at 60, 80, 100 and 120 columns: in
``lab verify-hook``'s checks, ``lab simulate``'s steps, ``lab check``'s event list and verdicts,
and the failures under ``lab sensors``' table. Before, each was cut: a table folded
``…/domain/Pet.jav`` / ``a``, a step's command ended in ``… docs/use_cases…``, a verdict named
``(edit …/UC005AddVisitTest.):`` and a test name broke as ``…PointsAtAnExistingU`` /
``seCaseAndScenario``.

Real: the workspace, Maven and the bash hooks, ``lab`` in a tmux terminal. ``capture-pane -J``
joins what the terminal wrapped by itself; a break the program printed stays, so a text found
whole in the joined screen is one a person can copy whole.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.workspace import Workspace
from tests.builders import command_screen

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

WIDTHS = (60, 80, 100, 120)


def joined_screen(socket: Path, cwd: Path, width: int, command: str, timeout: float = 300) -> str:
    """What ``command`` printed in a ``width``-column terminal, the terminal's own wraps joined
    and runs of spaces made one (a table's padding is not what is tested here)."""
    rows = command_screen(socket, cwd, width, command, timeout=timeout)
    return "\n".join(" ".join(row.split()) for row in rows)


def lab(*args: str) -> str:
    return " ".join([sys.executable, "-m", "harness", *args])


def assert_whole(screen: str, width: int, *texts: str) -> None:
    """Each of ``texts`` on one line, or (a command wider than the terminal) over lines the
    shell joins: each but the last ends in `` \\`` (harness/ui/prose.py), no word cut."""
    shell = screen.replace(" \\\n", " ")
    for text in texts:
        assert any(text in row for row in shell.splitlines()), (
            f"{text!r} is not whole on one line at {width} columns:\n{screen}"
        )


PET = "src/main/java/ai/unifiedprocess/petclinic/domain/Pet.java"


def test_verify_hook_keeps_paths_whole(workspace: Workspace, tmp_path: Path) -> None:
    """Lab 07's own command; at a width where the table would fold a path, a list instead."""
    runner = LabRunner(workspace)
    runner.start("7")
    runner.goto("write-hook")
    runner.solve(apply=True)
    command = lab(
        "verify-hook scripts/check-before-stop.sh --break 'rm -rf target/surefire-reports'",
        "--fix './mvnw -q test -Dgroups=sensor' --stale 'touch",
        f"{PET}'",
    )
    for width in WIDTHS:
        screen = joined_screen(tmp_path / f"{width}.sock", workspace.root, width, command)
        assert "PASS all 9 checks pass" in screen, screen
        assert_whole(
            screen,
            width,
            PET,
            "./mvnw -q test -Dgroups=sensor",
            '"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh"',
        )
        # The systemMessage is quoted whole, not cut inside its command (``-Dgr…``).
        assert "-Dgr…" not in screen, screen


def test_lab_simulate_shows_a_long_command_whole(workspace: Workspace, tmp_path: Path) -> None:
    runner = LabRunner(workspace)
    runner.start("4")
    runner.goto("3")
    runner.solve(apply=True)
    sed = (
        "sed -i 's/^\\*\\*Status:\\*\\* Approved/**Status:** Done/' "
        "docs/use_cases/UC-002-edit-owner.md"
    )
    for width in WIDTHS:
        screen = joined_screen(
            tmp_path / f"{width}.sock", workspace.root, width, lab("simulate scenarios/sed.toml")
        )
        assert "all 1 expectations met" in screen, screen
        assert_whole(screen, width, sed)


def test_lab_check_names_commands_and_paths_whole(workspace: Workspace, tmp_path: Path) -> None:
    """Lab 03 step 2 solved, but for a wrong prediction on the edit: the verdict names the
    step's file whole, and the event list shows the long wait loop whole."""
    runner = LabRunner(workspace)
    runner.start("3")
    runner.goto("tricks")
    runner.solve(apply=True)
    tricks = workspace.root / "scenarios" / "tricks.toml"
    edit = 'file = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"\n'
    text = tricks.read_text()
    assert edit in text
    tricks.write_text(text.replace(edit, edit + 'expect = "blocked"\n'))
    loop = (
        "for i in $(seq 450); do [ -f target/surefire-reports/TEST-ai.unifiedprocess.petclinic."
        "UseCaseTraceabilityTest.xml ] && break; sleep 0.2; done; for i in $(seq 300); do "
        'pgrep -f "multiModuleProjectDirectory=$PWD" >/dev/null || break; sleep 0.2; done'
    )
    for width in WIDTHS:
        screen = joined_screen(tmp_path / f"{width}.sock", workspace.root, width, lab("check"))
        assert "✘ FAIL tricks.toml" in screen, screen
        # What the hooks did, not the sandbox's JSON they were given (cut at 800 characters).
        assert "event: {" not in screen, screen
        assert "(the JSON each hook was given: lab check --json)" in screen, screen
        assert_whole(
            screen,
            width,
            "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java):",
            loop,
        )


def test_lab_sensors_names_failing_tests_whole(workspace: Workspace, tmp_path: Path) -> None:
    """Lab 02 step 1 solved: the flow renamed, the sensors red, three annotations dangling."""
    runner = LabRunner(workspace)
    runner.start("2")
    runner.solve(apply=True)
    for width in WIDTHS:
        screen = joined_screen(
            tmp_path / f"{width}.sock", workspace.root, width, lab("sensors --no-run")
        )
        assert_whole(
            screen,
            width,
            "UseCaseTraceabilityTest.everyAnnotationPointsAtAnExistingUseCaseAndScenario:",
            "UC003RegisterOwnerTest.rejectsTelephoneWithAnythingButUpToTenDigits:",
            "(docs/use_cases/UC-003-register-new-owner.md",
        )
