"""``lab trainer verify``: claims are re-checked from the submission alone, step by step."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.results import Status
from harness.trainer.claims import verify_participant
from harness.trainer.publish import make_settings, submit
from harness.workspace import Workspace
from tests.builders import run_cli
from tests.trainer.cohort_builder import GREEN_REPORT, REPORT_PATH, SyntheticLabs, participant
from tests.trainer.servers import GitDaemon

Document = dict[str, Any]


def hand_edit(ws: Workspace, edit: Callable[[Document], None]) -> None:
    """What a participant could do with git plumbing: commit an edited progress.json."""
    document = ws.read_progress()
    edit(document)
    ws.write_progress(document, "edited by hand")


def steps_of(document: Document, lab: str) -> dict[str, Any]:
    steps: dict[str, Any] = document["labs"][lab]["steps"]
    return steps


def verdicts(url: str, name: str, labs: SyntheticLabs) -> dict[str, tuple[Status, str]]:
    report = verify_participant(url, name, labs_root=labs.root)
    return {f"{v.lab}/{v.step}": (v.status, v.message) for v in report.verdicts}


def test_an_honest_submission_holds_step_by_step(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    ws = participant(tmp_path / "ws", labs, 5)
    submit(ws, make_settings(daemon.url("room.git"), "ida"))
    out = run_cli("trainer", "verify", daemon.url("room.git"), "ida", "--json")
    assert out.code == 0, out
    data = json.loads(out.out)
    assert data["ok"] is True and data["claimed"] == data["hold"] == 5
    assert [(s["lab"], s["step"], s["status"]) for s in data["steps"]] == [
        ("01-warmup", "notes", "pass"),
        ("01-warmup", "report", "pass"),
        ("02-practice", "one", "pass"),
        ("02-practice", "two", "pass"),
        ("02-practice", "three", "pass"),
    ]
    report_step = data["steps"][1]
    assert "1 report matches its digest" in report_step["message"]
    assert report_step["engine"] == "emulator"


def test_every_kind_of_hand_edit_fails_verify_and_names_the_step(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    ws = participant(tmp_path / "ws", labs, 5)

    def edit(document: Document) -> None:
        warmup, practice = steps_of(document, "01-warmup"), steps_of(document, "02-practice")
        warmup["report"]["passed"]["evidence"][REPORT_PATH] = "0" * 64
        # "two" claims the state "one" passed at: a real snapshot, but not of a solved "two".
        one = practice["one"]["passed"]
        for key in ("snapshot", "tree", "commit"):
            practice["two"]["passed"][key] = one[key]
        practice["one"]["passed"]["tree"] = "1" * 40
        del practice["three"]["passed"]["snapshot"]

    hand_edit(ws, edit)
    submit(ws, make_settings(daemon.url("room.git"), "jo"))
    found = verdicts(daemon.url("room.git"), "jo", labs)
    assert found["01-warmup/notes"][0] is Status.PASS
    assert found["01-warmup/report"] == (
        Status.FAIL,
        f"01-warmup step 2 (report): report {REPORT_PATH} does not match its recorded sha256 "
        f"(000000000000… recorded, {found['01-warmup/report'][1].split(', ')[1][:12]}… "
        "submitted): the evidence or the record was edited",
    )
    assert found["02-practice/one"][0] is Status.FAIL
    assert found["02-practice/one"][1].startswith("02-practice step 1 (one): the record says tree")
    assert "the progress record was edited" in found["02-practice/one"][1]
    assert found["02-practice/two"][0] is Status.FAIL
    assert found["02-practice/two"][1].startswith(
        "02-practice step 2 (two): does not pass at the submitted state: file"
    )
    assert found["02-practice/three"] == (
        Status.FAIL,
        "02-practice step 3 (three): claimed as passed without a verified state "
        "(no snapshot recorded)",
    )


def test_a_claim_without_its_evidence_fails_verify(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    ws = participant(tmp_path / "ws", labs, 2)

    def without_reports(doc: Document) -> None:
        # The record still cites the report, but points at a commit that does not hold it.
        passed = steps_of(doc, "01-warmup")["report"]["passed"]
        passed["evidence_commit"] = passed["snapshot"]

    hand_edit(ws, without_reports)
    submit(ws, make_settings(url, "kim"))
    found = verdicts(url, "kim", labs)
    assert found["01-warmup/report"] == (
        Status.FAIL,
        f"01-warmup step 2 (report): claimed without its evidence: report {REPORT_PATH} "
        "was not submitted",
    )
    assert found["01-warmup/notes"][0] is Status.PASS

    # The record cites nothing, though the check reads a report: the claim lacks evidence.
    other = participant(tmp_path / "other", labs, 2)
    hand_edit(other, lambda doc: steps_of(doc, "01-warmup")["report"]["passed"].update(evidence={}))
    submit(other, make_settings(url, "lee"))
    found = verdicts(url, "lee", labs)
    assert found["01-warmup/report"] == (
        Status.FAIL,
        "01-warmup step 2 (report): claimed without its evidence: the checks read "
        f"{REPORT_PATH}, which the claim does not carry",
    )


def test_a_claim_resting_on_a_leftover_report_fails_at_its_state(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    """The laptop's check judged a report left from an earlier run while the build was broken;
    verify runs the sensors again at the claimed state and the claim falls."""
    url = daemon.url("room.git")
    ws = participant(tmp_path / "ws", labs, 1)
    (ws.root / "src" / "BROKEN").write_text("the build breaks here\n")
    leftover = ws.root / REPORT_PATH
    leftover.parent.mkdir(parents=True)
    leftover.write_text(GREEN_REPORT)
    assert run_cli("check", cwd=ws.root).code == 0  # the laptop believed the old report
    submit(ws, make_settings(url, "max"))
    status, message = verdicts(url, "max", labs)["01-warmup/report"]
    assert status is Status.FAIL
    assert message.startswith(
        "01-warmup step 2 (report): does not pass at the submitted state: sensors "
        "ArchitectureTest: the build failed before any sensor ran"
    )


def test_verify_on_the_command_line_names_the_steps_and_exits_1(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    ws = participant(tmp_path / "ws", labs, 3)
    hand_edit(ws, lambda doc: steps_of(doc, "02-practice")["one"]["passed"].pop("snapshot"))
    submit(ws, make_settings(url, "ned", "tue"))
    out = run_cli("trainer", "verify", url, "ned", "--cohort", "tue")
    assert out.code == 1, out
    said = " ".join(out.out.split())
    assert "holds 01-warmup step 1 (notes)" in said
    assert (
        "does not hold 02-practice step 1 (one): claimed as passed without a verified state" in said
    )
    assert "ned: some claims do not hold (2/3 steps" in said
    out = run_cli("trainer", "verify", url, "nobody", "--cohort", "tue")
    assert out.code == 1
    assert "nobody submitted as 'nobody' in cohort tue" in " ".join(out.err.split())


def test_progress_from_before_format_2_is_read_submitted_and_judged(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    """A format 1 document: snapshots only under local refs, no evidence, no engine."""
    url = daemon.url("room.git")
    ws = participant(tmp_path / "ws", labs, 2)
    legacy = ws.read_progress()
    legacy["format"] = 1
    for lp in legacy["labs"].values():
        for sp in lp["steps"].values():
            sp.pop("entered_at", None)
            if sp["passed"]:
                sp["passed"] = {k: sp["passed"][k] for k in ("commit", "snapshot", "at")}
    legacy.pop("updated_at")
    # Rewrite the chain as format 1 wrote it: one commit, no anchors, no evidence.
    from harness.workspace.workspace import PROGRESS_REF

    del ws.repo.refs[PROGRESS_REF]
    ws.write_progress(legacy, "format 1 progress")
    snapshots = {sp["passed"]["snapshot"] for sp in steps_of(legacy, "01-warmup").values()}
    done = submit(ws, make_settings(url, "old"))
    # The submit writes one document, naming the participant it pushes as, with the verified
    # states as its other parents: on the format 1 commit, one record written once.
    tip = ws.repo[done.commit.encode()]
    assert tip.message.decode() == "submitting as old"
    assert ws.repo[tip.parents[0]].message.decode() == "format 1 progress"
    assert {p.decode() for p in tip.parents[1:]} == snapshots
    found = verdicts(url, "old", labs)
    assert found["01-warmup/notes"][0] is Status.PASS  # its snapshot travelled with the submit
    assert found["01-warmup/report"][0] is Status.FAIL
    assert "claimed without its evidence" in found["01-warmup/report"][1]


def test_a_progress_format_this_version_does_not_know_is_refused(
    tmp_path: Path, labs: SyntheticLabs
) -> None:
    ws = participant(tmp_path / "ws", labs, 0)
    hand_edit(ws, lambda doc: doc.update(format=3))
    out = run_cli("status", cwd=ws.root)
    assert out.code == 1
    said = " ".join(out.err.split())
    assert "refs/hooklab/progress: format: 3 is newer than this Hook Lab understands" in said
    assert "fix: upgrade Hook Lab" in said
    assert "Traceback" not in out.err
