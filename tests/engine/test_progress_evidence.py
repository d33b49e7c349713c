"""Progress format 2: a passed step keeps its result, time, engine and the reports it read."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from dulwich.objects import Commit

from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.progress import Progress
from harness.workspace.snapshot import read_blob, tree_files
from tests.trainer.cohort_builder import REPORT_PATH, SyntheticLabs, tiny_workspace, walk


def test_a_passed_sensor_step_records_its_evidence_in_the_progress_commit(
    tmp_path: Path,
) -> None:
    labs = SyntheticLabs.write(tmp_path / "labs")
    ws = tiny_workspace(tmp_path / "ws")
    walk(ws, labs, 1)
    runner = LabRunner(
        ws, labs_root=labs.root, context=CheckContext(ws, ws.root, engine="claude-code")
    )
    runner.solve(apply=True)
    before = time.time()
    assert runner.check().status.value == "pass"

    record = Progress.load(ws).labs["01-warmup"].steps["report"].passed
    assert record is not None
    report = (ws.root / REPORT_PATH).read_bytes()
    assert record["evidence"] == {REPORT_PATH: hashlib.sha256(report).hexdigest()}
    assert record["engine"] == "claude-code"
    assert record["at"] >= before and record["duration"] >= 0
    assert record["result"]["status"] == "pass"
    assert [c["name"] for c in record["result"]["checks"]] == ["sensors ArchitectureTest"]

    head = ws.repo[ws.repo.refs[b"refs/hooklab/progress"]]
    assert isinstance(head, Commit)
    assert list(tree_files(ws.repo, head.tree)) == ["progress.json"]  # the tip stays small
    evidence = ws.repo[record["evidence_commit"].encode()]
    assert evidence.id in head.parents  # a push carries the evidence and, through it, the state
    assert read_blob(ws.repo, evidence.tree, REPORT_PATH) == report
    assert [p.decode() for p in evidence.parents] == [record["snapshot"]]
    snapshot = ws.repo[record["snapshot"].encode()]
    assert snapshot.tree.decode() == record["tree"]
    assert snapshot.parents[0].decode() == record["commit"] == ws.head()


def test_a_step_passed_again_keeps_the_evidence_of_its_latest_pass(tmp_path: Path) -> None:
    labs = SyntheticLabs.write(tmp_path / "labs")
    ws = tiny_workspace(tmp_path / "ws")
    runner = walk(ws, labs, 2)
    first = Progress.load(ws).labs["01-warmup"].steps["report"].passed
    assert first is not None
    # Back before the step of a completed lab: the claim stays until a new pass replaces it.
    runner.goto("report", lab_ref="01-warmup")
    assert Progress.load(ws).labs["01-warmup"].steps["report"].passed == first
    (ws.root / "README.md").write_text("# passed again, from another state\n")
    runner.solve(apply=True)
    assert runner.check().status.value == "pass"
    again = Progress.load(ws).labs["01-warmup"].steps["report"].passed
    assert again is not None
    assert again["evidence_commit"] != first["evidence_commit"]
    assert again["snapshot"] != first["snapshot"]


def test_format_1_progress_still_loads(tmp_path: Path) -> None:
    ws = tiny_workspace(tmp_path / "ws")
    ws.write_progress(
        {
            "format": 1,
            "lab": "01-warmup",
            "step": "report",
            "labs": {
                "01-warmup": {
                    "started_at": 100.0,
                    "start_commit": "a" * 40,
                    "start_snapshot": "b" * 40,
                    "completed_at": None,
                    "steps": {
                        "notes": {
                            "hints": 1,
                            "solved_with_help": False,
                            "passed": {"commit": "c" * 40, "snapshot": "d" * 40, "at": 150.0},
                        }
                    },
                }
            },
        },
        "format 1",
    )
    progress = Progress.load(ws)
    assert progress.format == 1
    notes = progress.labs["01-warmup"].steps["notes"]
    assert notes.passed == {"commit": "c" * 40, "snapshot": "d" * 40, "at": 150.0}
    assert notes.entered_at is None and progress.updated_at is None
    assert progress.to_json()["format"] == 2
