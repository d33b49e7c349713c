"""Issue 51, the walks of Labs 01–07 (walk-e) and 08–13 (walk-f) after round 6: each free pass
or "taken back" case they left open, tried as they wrote it, fails its check.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports, real git; each repro as the walker typed it (rm -rf, cp, touch, echo >>).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_free_passes import at_step
from tests.labs.test_free_passes_walk_f import MVNW, at_lab11_reports, reports_dir

# Where the checks kept the report runs they read, before round 7: a file the person owns.
OLD_MEMORY = ".git/hooklab-reports-seen"


def bring_back(ws: Workspace, kept: Path) -> None:
    """The walkers' copy: the kept reports over target/, touched to look new, and the
    checks' memory of what they read deleted (rm -rf .git/hooklab-reports-seen)."""
    shutil.rmtree(reports_dir(ws), ignore_errors=True)
    shutil.copytree(kept, reports_dir(ws))
    for path in reports_dir(ws).iterdir():
        path.touch()
    subprocess.run(["rm", "-rf", OLD_MEMORY], cwd=ws.root, check=True)


# ---- Lab 02 step 1 (walk-e): one real run kept aside, the memory deleted -------------------
RENAMED = ("### A1: Validation Errors", "### A1: Invalid Input")
UC003 = "docs/use_cases/UC-003-register-new-owner.md"


def rename_a1(ws: Workspace) -> None:
    spec = ws.root / UC003
    spec.write_text(spec.read_text().replace(*RENAMED))


@pytest.mark.maven
@pytest.mark.slow
def test_lab02_kept_reports_pass_neither_with_the_memory_file_deleted(
    workspace: Workspace, tmp_path: Path
) -> None:
    """walk-e: after one honest run, lab reset 1; the rename again; the kept red reports
    copied back and touched; rm -rf .git/hooklab-reports-seen; lab check: "Step 1 passed"."""
    runner = at_step(workspace, "2", "rename")
    rename_a1(workspace)
    subprocess.run(MVNW, cwd=workspace.root, check=False)  # red: the honest run of the step
    assert runner.check(record_failure=True).status is Status.PASS
    kept = tmp_path / "red2"
    shutil.copytree(reports_dir(workspace), kept)

    runner.reset("1")
    rename_a1(workspace)
    bring_back(workspace, kept)

    again = LabRunner(workspace)  # a new `lab check`: what it knows is in the progress record
    sensors = again.check().results[-1]
    assert sensors.status is Status.FAIL, sensors.message
    assert sensors.message.startswith(
        "the reports are byte for byte the ones of a run from before this step"
    ), sensors.message

    subprocess.run(MVNW, cwd=workspace.root, check=False)  # a new real run passes
    assert LabRunner(workspace).check().status is Status.PASS


# ---- Lab 11 step 2 (walk-f): one newline appended to each kept report ----------------------
@pytest.mark.maven
@pytest.mark.slow
def test_lab11_kept_reports_with_a_newline_and_no_memory_file_do_not_pass(
    workspace: Workspace, tmp_path: Path
) -> None:
    """walk-f's repro, with the memory file deleted as walk-e did: what a run measured (each
    case's name and time, the suite's time) is the same, so the bytes do not make it new;
    nor does an attribute written in another order."""
    runner = at_lab11_reports(workspace)
    kept = tmp_path / "walkf-sr"
    shutil.copytree(reports_dir(workspace), kept)
    runner.reset()
    bring_back(workspace, kept)
    for xml in reports_dir(workspace).glob("*.xml"):
        text = xml.read_text().replace('errors="0" skipped="0"', 'skipped="0" errors="0"', 1)
        xml.write_text(text + "\n")
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "reports.toml").write_text('q1 = "5"\nq2 = "c"\nq3 = "a"\n')

    sensors = LabRunner(workspace).check().results[0]

    assert sensors.status is Status.FAIL, sensors.message
    assert sensors.message.startswith(
        "the reports are those of a run from before this step, edited"
    ), sensors.message
    subprocess.run(MVNW, cwd=workspace.root, check=True)  # a real run passes
    assert LabRunner(workspace).check().status is Status.PASS
