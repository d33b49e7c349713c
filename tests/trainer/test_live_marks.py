"""trainer status --json tells live and scripted steps apart, from the passed records."""

from __future__ import annotations

from harness.engine.progress import LabProgress, Progress, StepProgress
from harness.trainer.cohort import Cohort, LabColumn, Member, StepColumn


def _member(name: str, kind: str | None) -> Member:
    record = {"commit": "c", "snapshot": "s", "at": 2.0}
    if kind:
        record |= {"evidence_kind": kind, "session_id": "abc", "client_version": "2.1.332"}
    progress = Progress(
        lab="11-try-it-yourself",
        step=None,
        labs={
            "11-try-it-yourself": LabProgress(
                started_at=1.0,
                steps={"earn-done": StepProgress(passed=record), "quiz": StepProgress()},
            )
        },
    )
    return Member(name, f"refs/x/{name}", "c" * 40, progress, 2.0)


def test_status_json_marks_live_and_scripted_steps() -> None:
    column = LabColumn(
        "11-try-it-yourself",
        "Try it",
        (
            StepColumn("11-try-it-yourself", "earn-done", "Earn Done"),
            StepColumn("11-try-it-yourself", "quiz", "Quiz"),
        ),
    )
    members = [_member("ada", "live"), _member("bob", "scripted"), _member("cy", None)]
    data = Cohort("git://x", "c", members, [column]).to_json()
    marks = {
        p["participant"]: p["labs"]["11-try-it-yourself"]["evidence"] for p in data["participants"]
    }
    assert marks == {"ada": {"earn-done": "live"}, "bob": {"earn-done": "scripted"}, "cy": {}}
