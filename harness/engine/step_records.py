"""What the lab runner keeps of a step in the progress record, and what a check reads back.

A pass keeps its claim with the evidence (the snapshot checked, the reports read, the live
session's start state, the result); a check starts from the step's record (when it was
entered, the claim a re-verification re-checks, the quiz tries); a reset keeps the person's
history of the step, not their work. lab_runner.py walks the steps and saves.
"""

from __future__ import annotations

import time
from typing import Any

from harness.claude.vocabulary import Provenance
from harness.engine import quiz_record
from harness.engine.context import PassedClaim, StepState
from harness.engine.manifest import Lab, Step
from harness.engine.progress import Progress, StepProgress, digest
from harness.engine.reverify import proofs_now
from harness.engine.step_results import StepRun, live_record
from harness.workspace import Workspace

LAB_REFS = "refs/hooklab/labs/"


def live_ref(lab: Lab, step: Step) -> str:
    """The ref of the state a live step began in: its session is replayed from there."""
    return f"{LAB_REFS}{lab.id}/live/{step.id}"


def check_state(
    ws: Workspace,
    progress: Progress,
    lab: Lab,
    step: Step,
    *,
    rebuild_evidence: bool,
    person: bool,
) -> tuple[StepState, bool]:
    """Where the step stands for a run of its checks, and whether it passed on the scripted
    session (re-verifying a live step checks what it passed on: the scripted session, or the
    recorded session it named, found again by its id and digest)."""
    mine = progress.lab_progress(lab.id).step(step.id)
    passed_on = (mine.passed or {}).get("evidence_kind") if rebuild_evidence else None
    ref = live_ref(lab, step)
    start_ref = ref if ref.encode() in ws.repo.refs else None
    claim = None
    if rebuild_evidence and mine.passed and mine.passed.get("session_id"):
        claim = PassedClaim(
            mine.passed["session_id"],
            mine.passed.get("timeline_digest"),
            mine.passed.get("evidence_commit"),
        )
        start_ref = mine.passed.get("live_start") or start_ref
    sessions = sum(c.name == "hook_session" for c in step.checks)
    # A quiz's wrong tries count on this machine too: a new workspace or a rolled-back
    # progress does not reset the wait (engine/quiz_record.py).
    quiz_tries, quiz_at = mine.quiz_tries, mine.quiz_tried_at
    if person:
        key = quiz_record.quiz_key(lab.id, step.id)
        quiz_tries, quiz_at = quiz_record.merged(quiz_tries, quiz_at, key)
    state = StepState(
        rebuild_evidence,
        mine.entered_at,
        start_ref,
        claim,
        sessions=sessions,
        quiz_tries=quiz_tries,
        quiz_tried_at=quiz_at,
        reports_seen=progress.reports_seen,
    )
    return state, passed_on == Provenance.SCRIPTED


def pass_record(
    ws: Workspace, lab: Lab, step: Step, run: StepRun, snapshot: str, engine: str
) -> dict[str, Any]:
    """A pass's claim with its evidence: the state checked (``snapshot``), the result, the
    reports read, committed on the snapshot (``evidence_commit``: None when none was read).
    ``engine``: the runner's, when no hook session says which it played on."""
    commit = ws.repo[snapshot.encode()]
    reports = {rel: data for r in run.results for rel, data in r.evidence.items()}
    live = live_record(run.results)
    parents = [snapshot]
    ref = live_ref(lab, step).encode()
    if live.get("session_id") and ref in ws.repo.refs:
        # The state the live session began in travels with the claim: a replay needs it.
        live["live_start"] = ws.repo.refs[ref].decode()
        parents.append(live["live_start"])
    evidence_commit = (
        ws.commit_files(reports, parents, f"hooklab {lab.id}: evidence for {step.id}")
        if reports
        else None
    )
    return {
        "commit": ws.head(),
        "tree": commit.tree.decode(),
        "snapshot": snapshot,
        "at": time.time(),
        # The engine a hook session really played on (a lab may pick the real client).
        "engine": next(
            (str(r.details["engine"]) for r in run.results if r.details.get("engine")),
            engine,
        ),
        "duration": round(run.duration, 3),
        **live,
        "result": {
            "status": run.status.value,
            "checks": [
                {"name": r.name, "status": r.status.value, "message": r.message}
                for r in run.results
            ],
        },
        "evidence": {rel: digest(data) for rel, data in sorted(reports.items())},
        "evidence_commit": evidence_commit,
        "proofs": proofs_now(ws),
    }


def history_of(old: StepProgress) -> StepProgress:
    """What a reset keeps of a step: the person's history, not their work. The help they had
    (hints, "with lab solve") and how they tried (failed checks, quiz tries) is the trainer's
    record; the quiz's wait after a wrong try stays too (checks/quiz.py). A reset then a typed
    copy of lab solve's answers must not read as a pass without help."""
    return StepProgress(
        hints=old.hints,
        solved_with_help=old.solved_with_help,
        failed_checks=old.failed_checks,
        failed_at=old.failed_at,
        quiz_tries=old.quiz_tries,
        quiz_tried_at=old.quiz_tried_at,
    )
