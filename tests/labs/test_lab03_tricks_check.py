"""Lab 03, step 2: the quick check before the session looks at the scenario's real steps, so
comments that merely mention a trick cannot pass it."""

from __future__ import annotations

import shutil
from pathlib import Path

from harness.engine.context import CheckContext
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.workspace import Workspace

LAB = find_lab("3")
STEP = LAB.step("tricks")
TRICKS = "scenarios/tricks.toml"


def first_check(ws: Workspace) -> CheckResult:
    spec = STEP.checks[0]
    return spec.kind.run(CheckContext(ws, LAB.dir), spec.params)


def put(ws: Workspace, text: str) -> None:
    (ws.root / "scenarios").mkdir(exist_ok=True)
    (ws.root / TRICKS).write_text(text)


def test_comments_naming_every_trick_do_not_pass(workspace: Workspace) -> None:
    skeleton = (LAB.dir / "skeleton.toml").read_text()
    put(
        workspace,
        skeleton + "# later: > /dev/null, || true, -Dtest=X, touch the marker, background = true\n",
    )
    result = first_check(workspace)
    assert result.status is Status.FAIL, result
    found = result.found or ""
    assert "'/dev/null'" in found and "background = true" in found
    assert "'| tail'" not in found  # the skeleton really has that step


def test_the_solution_passes_and_a_missing_step_is_named(workspace: Workspace) -> None:
    shutil.copyfile(LAB.dir / "solution" / "tricks.toml", Path(workspace.root / "tricks.tmp"))
    put(workspace, (workspace.root / "tricks.tmp").read_text())
    assert first_check(workspace).status is Status.PASS
    without_touch = (
        (workspace.root / TRICKS)
        .read_text()
        .replace('command = "touch .git/aiup-sensors-ran"', 'command = "true"')
    )
    put(workspace, without_touch)
    result = first_check(workspace)
    assert result.status is Status.FAIL
    assert (result.found or "").strip() == "no bash step whose command contains 'touch'"


def test_a_scenario_that_is_not_valid_names_the_field(workspace: Workspace) -> None:
    put(workspace, '[[step]]\ndo = "bash"\n')
    result = first_check(workspace)
    assert result.status is Status.FAIL
    assert "step[0].command" in result.message and TRICKS in result.message
