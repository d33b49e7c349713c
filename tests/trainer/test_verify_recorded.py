"""``lab trainer verify ROOM NAME``: recorded like ``--all``, the record's flags named beside the
verdicts, and a second verify re-runs only the claims whose state changed.

Real git remotes on loopback (git daemon), the real sandbox (bubblewrap); the synthetic labs
of tests/trainer/cohort_builder.py (a stand-in mvnw).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from harness.trainer.publish import make_settings, submit
from harness.workspace import Workspace
from tests.builders import run_cli
from tests.trainer.cohort_builder import SyntheticLabs, participant
from tests.trainer.servers import GitDaemon
from tests.trainer.test_verify import hand_edit, steps_of


def status_of(url: str, name: str, cohort: str = "default") -> dict[str, Any]:
    out = run_cli("trainer", "status", url, "--cohort", cohort, "--json")
    assert out.code == 0, out
    found: dict[str, Any] = next(
        p for p in json.loads(out.out)["participants"] if p["participant"] == name
    )
    return found


def verify_json(url: str, name: str, *extra: str) -> dict[str, Any]:
    out = run_cli("trainer", "verify", url, name, "--json", *extra)
    assert out.code in (0, 1), out
    data: dict[str, Any] = json.loads(out.out)
    return data


def test_one_participants_verify_is_recorded_and_a_copy_is_named(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    ada = participant(tmp_path / "ada", labs, 2)
    done = submit(ada, make_settings(url, "ada"))
    # copycat holds ada's commit: pushed by hand under another name
    subprocess.run(
        ["git", "push", "-q", url, f"{done.commit}:refs/hooklab/cohorts/default/copycat"],
        cwd=ada.root,
        check=True,
        capture_output=True,
    )
    assert status_of(url, "ada")["verification"] == "unverified"
    out = run_cli("trainer", "verify", url, "copycat")
    said = " ".join(out.out.split())
    assert out.code == 0, out  # every claim holds: they are ada's claims
    assert "copycat: every claim holds, but the record is flagged (replaced, copy)" in said
    assert "flagged copy: the same submission as ada" in said
    assert "every claim holds (" not in said  # never alone over a record not their own

    data = verify_json(url, "copycat")
    assert data["ok"] is True
    assert [f["kind"] for f in data["flags"]] == ["replaced", "copy"]
    assert data["flags"][1]["text"] == "copy: the same submission as ada"
    # recorded: the dashboard shows the verdict with the flags
    copycat = status_of(url, "copycat")
    assert copycat["verification"] == "verified"
    assert copycat["verified"]["flags"][1]["text"] == "copy: the same submission as ada"
    assert [(s["lab"], s["step"], s["status"]) for s in copycat["verified"]["steps"]] == [
        ("01-warmup", "notes", "pass"),
        ("01-warmup", "report", "pass"),
    ]
    # ada's own verify, recorded too: the same submission under two names flags both, but
    # only copycat's record was made in another's workspace
    assert verify_json(url, "ada")["flags"] == [
        {"kind": "copy", "text": "copy: the same submission as copycat"}
    ]
    assert status_of(url, "ada")["verification"] == "verified"


def test_a_forged_progress_file_is_flagged_and_a_failed_check_says_why(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    ws = participant(tmp_path / "ws", labs, 3)

    def forge(document: dict[str, Any]) -> None:
        steps_of(document, "02-practice")["one"]["passed"]["tree"] = "1" * 40

    hand_edit(ws, forge)
    (ws.root / "src" / "BROKEN").write_text("the build breaks here\n")
    submit(ws, make_settings(url, "fay"))
    data = verify_json(url, "fay")
    assert data["ok"] is False
    forged = [f for f in data["flags"] if f["kind"] == "forged"]
    assert forged == [
        {
            "kind": "forged",
            "text": "forged: the progress file was edited by hand (1 claim rests on a record "
            "Hook Lab did not write: 02-practice step 1 (one))",
        }
    ]
    out = run_cli("trainer", "verify", url, "fay")
    assert "flagged forged: the progress file was edited by hand" in " ".join(out.out.split())
    steps = {f"{s['lab']}/{s['step']}": s for s in status_of(url, "fay")["verified"]["steps"]}
    assert steps["01-warmup/notes"]["status"] == "pass"
    one = steps["02-practice/one"]
    assert one["status"] == "fail" and "the progress record was edited" in one["why"]


def test_a_second_verify_re_runs_only_the_new_step(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    ws = participant(tmp_path / "ws", labs, 2)
    submit(ws, make_settings(url, "ida"))
    first = verify_json(url, "ida")
    assert (first["ok"], first["claimed"], first["reused"]) == (True, 2, 0)

    walk_on(ws, labs)
    submit(ws, make_settings(url, "ida"))
    assert status_of(url, "ida")["verification"] == "stale"
    again = verify_json(url, "ida")
    assert (again["ok"], again["claimed"], again["reused"]) == (True, 3, 2)
    assert [s["reused"] for s in again["steps"]] == [True, True, False]
    assert status_of(url, "ida")["verified"]["reused"] == 2

    fresh = verify_json(url, "ida", "--fresh")
    assert (fresh["ok"], fresh["reused"]) == (True, 0)


def walk_on(ws: Workspace, labs: SyntheticLabs) -> None:
    """One more step: 02-practice's first, with the real runner."""
    from harness.engine.lab_runner import LabRunner

    runner = LabRunner(ws, labs_root=labs.root)
    runner.solve(apply=True)
    assert runner.check().status.value == "pass"
    runner.next()
