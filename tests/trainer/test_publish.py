"""Participants submit to real git servers on loopback; the trainer reads the cohort back."""

from __future__ import annotations

import csv
import io
import json
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness.engine.progress import Progress
from harness.errors import ConfigError
from harness.trainer.cohort import CohortReader
from harness.trainer.publish import make_settings, pending_updates, submit
from harness.trainer.remote import RemoteError
from harness.workspace import Workspace
from tests.builders import run_cli
from tests.trainer.cohort_builder import (
    STEPS,
    SyntheticLabs,
    clone_participant,
    participant,
    tiny_workspace,
    walk,
)
from tests.trainer.servers import GitDaemon, SmartHttpServer, remote_refs


def passed_steps(progress: Progress) -> set[tuple[str, str]]:
    return {
        (lab, step)
        for lab, lp in progress.labs.items()
        for step, sp in lp.steps.items()
        if sp.passed
    }


def test_several_participants_submit_and_the_table_json_and_csv_are_right(
    tmp_path: Path,
    labs: SyntheticLabs,
    served: Path,
    daemon: GitDaemon,
    http: SmartHttpServer,
) -> None:
    # Three ways in to one room: git://, smart HTTP and a path on a shared disk.
    people = {
        "alice": (participant(tmp_path / "alice", labs, 0), daemon.url("room.git")),
        "bob": (participant(tmp_path / "bob", labs, 2), http.url("room.git")),
        "carol": (participant(tmp_path / "carol", labs, 5), str(served / "room.git")),
    }
    for name, (ws, url) in people.items():
        done = submit(ws, make_settings(url, name, "monday"))
        assert done.commit == ws.progress_head()
        assert not done.up_to_date
    refs = remote_refs(served / "room.git")
    assert refs == {
        f"refs/hooklab/cohorts/monday/{name}": ws.progress_head()
        for name, (ws, _) in people.items()
    }

    out = run_cli("trainer", "status", daemon.url("room.git"), "--cohort", "monday", "--json")
    assert out.code == 0, out
    data = json.loads(out.out)
    rows = {p["participant"]: p for p in data["participants"]}
    assert list(rows) == ["alice", "bob", "carol"]
    assert (rows["alice"]["current_lab"], rows["alice"]["current_step"]) == ("01-warmup", "notes")
    assert (rows["bob"]["current_lab"], rows["bob"]["current_step"]) == ("02-practice", "one")
    assert (rows["carol"]["current_lab"], rows["carol"]["current_step"]) == ("02-practice", None)
    assert {n: r["labs"]["01-warmup"]["completed_steps"] for n, r in rows.items()} == {
        "alice": 0,
        "bob": 2,
        "carol": 2,
    }
    assert {n: r["labs"]["02-practice"]["completed_steps"] for n, r in rows.items()} == {
        "alice": 0,
        "bob": 0,
        "carol": 3,
    }
    assert rows["bob"]["labs"]["01-warmup"]["complete"] is True
    assert rows["carol"]["labs"]["02-practice"]["passed"] == ["one", "two", "three"]
    assert rows["carol"]["stuck_for_seconds"] is None  # done: not stuck anywhere
    assert rows["alice"]["stuck_for_seconds"] >= 0
    rates = {(s["lab"], s["step"]): (s["passed"], s["of"]) for s in data["steps"]}
    assert rates[("01-warmup", "notes")] == (2, 3)
    assert rates[("02-practice", "three")] == (1, 3)

    out = run_cli("trainer", "status", http.url("room.git"), "--cohort", "monday", "--csv")
    assert out.code == 0, out
    table = list(csv.reader(io.StringIO(out.out)))
    assert table[0][:3] == ["participant", "01-warmup (of 2)", "02-practice (of 3)"]
    assert [row[:5] for row in table[1:]] == [
        ["alice", "0", "0", "01-warmup", "notes"],
        ["bob", "2", "0", "02-practice", "one"],
        ["carol", "2", "3", "02-practice", ""],
    ]

    out = run_cli("trainer", "status", str(served / "room.git"), "--cohort", "monday")
    assert out.code == 0, out
    lines = {line.split("│")[1].strip(): line for line in out.out.splitlines() if "│" in line}
    assert "01·notes" in lines["alice"]
    assert "02·one" in lines["bob"]
    assert "02 ✓ complete" in lines["carol"]
    assert "✓✓" in lines["carol"] and "3/3" not in lines["carol"]  # a complete lab reads ✓


def test_an_empty_cohort_names_the_cohorts_the_remote_has(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    submit(participant(tmp_path / "p", labs, 0), make_settings(daemon.url("room.git"), "p", "tue"))
    out = run_cli("trainer", "status", daemon.url("room.git"), "--cohort", "wed")
    assert out.code == 0, out
    assert "Nobody has submitted to cohort wed" in out.out
    assert "cohorts there: tue" in out.out


def test_a_passed_step_submits_on_its_own(
    tmp_path: Path, labs: SyntheticLabs, served: Path, daemon: GitDaemon
) -> None:
    ws = tiny_workspace(tmp_path / "ws")
    url = daemon.url("room.git")
    out = run_cli("init", str(ws.root), "--remote", url, "--participant", "dana", "--cohort", "r1")
    assert out.code == 0, out
    assert run_cli("start", "1", cwd=ws.root).code == 0
    assert run_cli("solve", "--apply", cwd=ws.root).code == 0
    out = run_cli("check", cwd=ws.root)
    assert out.code == 0, out
    assert "submitted to cohort r1 as dana" in out.out
    assert remote_refs(served / "room.git") == {
        "refs/hooklab/cohorts/r1/dana": Workspace(ws.root).progress_head()
    }
    # --json carries the submit's outcome instead of printing a line.
    out = run_cli("check", "--json", cwd=ws.root)
    assert json.loads(out.out)["submit"] == {
        "ok": True,
        "message": "submitted to cohort r1 as dana",
    }


def test_a_remote_that_goes_away_loses_nothing_and_submits_catch_up(
    tmp_path: Path, labs: SyntheticLabs, served: Path
) -> None:
    daemon = GitDaemon(served).start()
    url = daemon.url("room.git")
    workspaces = [tiny_workspace(tmp_path / f"p{i}") for i in range(3)]
    for i, ws in enumerate(workspaces):
        assert run_cli("init", str(ws.root), "--remote", url, "--participant", f"p{i}").code == 0
        walk(ws, labs, 1)
        assert run_cli("submit", cwd=ws.root).code == 0
    daemon.stop()  # the trainer's laptop goes to sleep

    for ws in workspaces:
        assert run_cli("solve", "--apply", cwd=ws.root).code == 0
        out = run_cli("check", cwd=ws.root)
        assert out.code == 0, out  # the step passed; the submit's failure is only a notice
        notice = [line for line in out.out.splitlines() if line.startswith("↑")]
        assert len(notice) == 1, out
        assert f"not submitted to {url}: connection refused" in notice[0]
        assert "update" in notice[0] and "pending" in notice[0] and "lab submit" in notice[0]
        out = run_cli("submit", cwd=ws.root)
        assert out.code == 1
        assert url in out.err and "nothing is lost" in out.err and "fix:" in out.err
        assert "Traceback" not in out.err
        assert run_cli("next", cwd=ws.root).code == 0

    back = GitDaemon(served, port=daemon.port).start()  # back, same address
    try:
        for ws in workspaces:
            out = run_cli("submit", "--json", cwd=ws.root)
            assert out.code == 0, out
            sent = json.loads(out.out)
            assert sent["updates"] >= 3  # the solve, the pass and the lab's completion
            assert sent["passed_steps"] == 2
        cohort = CohortReader(url, labs_root=labs.root).read()
        assert [m.name for m in cohort.members] == ["p0", "p1", "p2"]
        for member, ws in zip(cohort.members, workspaces, strict=True):
            assert member.commit == ws.progress_head()
            assert member.progress is not None
            assert passed_steps(member.progress) == {STEPS[0], STEPS[1]}
            assert member.lab_complete("01-warmup")
    finally:
        back.stop()


def test_a_stalled_remote_costs_the_check_only_the_short_timeout(
    tmp_path: Path, labs: SyntheticLabs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A listener that accepts and never answers: a remote behind a dead network link.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    url = f"git://127.0.0.1:{silent.getsockname()[1]}/room.git"
    monkeypatch.setenv("HOOKLAB_AUTO_SUBMIT_TIMEOUT", "0.5")
    try:
        ws = tiny_workspace(tmp_path / "ws")
        assert run_cli("init", str(ws.root), "--remote", url, "--participant", "eve").code == 0
        assert run_cli("start", "1", cwd=ws.root).code == 0
        assert run_cli("solve", "--apply", cwd=ws.root).code == 0
        out = run_cli("check", cwd=ws.root)
        assert out.code == 0, out
        assert f"not submitted to {url}: no answer after 0.5 s" in out.out
        assert Progress.load(Workspace(ws.root)).labs["01-warmup"].steps["notes"].passed
    finally:
        silent.close()


def test_fifty_participants_submitting_at_once_lose_nothing(
    tmp_path: Path, labs: SyntheticLabs, served: Path, daemon: GitDaemon, http: SmartHttpServer
) -> None:
    # Five real participant histories (0-4 passed steps), each copied ten times; a hint per
    # copy makes every participant's tip their own commit.
    templates = [participant(tmp_path / f"template{n}", labs, n) for n in range(5)]
    people = []
    for i in range(50):
        ws = clone_participant(templates[i % 5], tmp_path / f"p{i:02d}")
        assert run_cli("hint", cwd=ws.root).code == 0
        url = daemon.url("room.git") if i % 2 else http.url("room.git")
        people.append((f"p{i:02d}", ws, url, i % 5))
    start = threading.Barrier(len(people))

    def go(person: tuple[str, Workspace, str, int]) -> str:
        name, ws, url, _ = person
        start.wait()
        return submit(ws, make_settings(url, name, "big-room")).commit

    with ThreadPoolExecutor(max_workers=len(people)) as pool:
        commits = list(pool.map(go, people))

    refs = remote_refs(served / "room.git")
    assert len(refs) == 50
    for (name, ws, _, _), commit in zip(people, commits, strict=True):
        assert refs[f"refs/hooklab/cohorts/big-room/{name}"] == ws.progress_head() == commit
    cohort = CohortReader(daemon.url("room.git"), "big-room", labs_root=labs.root).read()
    assert len(cohort.members) == 50
    by_name = {m.name: m for m in cohort.members}
    for name, _, _, passes in people:
        progress = by_name[name].progress
        assert progress is not None, by_name[name].problem
        assert passed_steps(progress) == set(STEPS[:passes]), name
    assert sum(len(passed_steps(m.progress)) for m in cohort.members if m.progress) == 100


def test_another_history_under_the_same_name_is_refused_unless_forced(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon, served: Path
) -> None:
    url = daemon.url("room.git")
    first = participant(tmp_path / "laptop", labs, 1)
    submit(first, make_settings(url, "frank"))
    second = participant(tmp_path / "new-laptop", labs, 0)
    with pytest.raises(RemoteError) as info:
        submit(second, make_settings(url, "frank"))
    assert "already holds another workspace's record" in str(info.value)
    assert "lab init . --participant frank-2" in (info.value.fix or "")
    assert "--force" not in str(info.value) + (info.value.fix or "")  # maybe a classmate's
    assert remote_refs(served / "room.git")["refs/hooklab/cohorts/default/frank"] == (
        first.progress_head()
    )
    submit(second, make_settings(url, "frank"), force=True)
    refs = remote_refs(served / "room.git", "refs/hooklab/")
    assert refs["refs/hooklab/cohorts/default/frank"] == second.progress_head()
    # The record it replaced is kept beside it, under a name the trainer's table reads.
    kept = [ref for ref in refs if ref.startswith("refs/hooklab/replaced/default/frank/")]
    assert [refs[ref] for ref in kept] == [first.progress_head()]


@pytest.mark.parametrize(
    ("name", "field"),
    [("a/b", "--participant"), ("../x", "--participant"), ("-x", "--participant")],
)
def test_a_name_that_cannot_be_a_ref_is_refused_with_the_field(name: str, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        make_settings("/tmp/room.git", name)
    assert info.value.field == field
    assert "letters (accents welcome), digits, spaces" in (info.value.fix or "")


def test_submit_errors_name_the_remote_and_the_fix(tmp_path: Path, labs: SyntheticLabs) -> None:
    ws = participant(tmp_path / "ws", labs, 1)
    missing = tmp_path / "nowhere.git"
    out = run_cli("submit", "--remote", str(missing), "--participant", "gus", cwd=ws.root)
    assert out.code == 1
    said = " ".join(out.err.split())  # rich wraps long lines
    assert f"{missing}: there is no git repository at this path" in said
    assert f"fix: create it once for the room: git init --bare {missing}" in said
    out = run_cli("submit", cwd=ws.root)
    assert out.code == 1
    said = " ".join(out.err.split())
    assert "this workspace has no remote and no participant name" in said
    assert "lab init . --remote URL --participant NAME" in said
    out = run_cli("submit", "--remote", "git://127.0.0.1:1/x", "--participant", "gus", cwd=ws.root)
    assert out.code == 1 and "connection refused" in out.err


def test_a_fresh_workspace_submits_its_arrival(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    # The guide's smoke test (lab submit from a fresh workspace) works, and the trainer sees
    # who has arrived before anyone started a lab.
    ws = tiny_workspace(tmp_path / "ws")
    done = submit(ws, make_settings(daemon.url("room.git"), "hal"))
    assert done.passed_steps == 0 and done.commit == ws.progress_head()
    # The submission writes one record once: the arrival, naming who submits, and no more.
    arrival = ws.repo[done.commit.encode()]
    assert arrival.parents == [] and arrival.message.decode() == "arrived: submitting as hal"
    assert Progress.load(ws).submits_as == "hal"
    cohort = CohortReader(daemon.url("room.git"), labs_root=labs.root).read()
    (hal,) = cohort.members
    assert hal.progress is not None and hal.current == (None, None) and hal.problem is None


def test_a_push_dropped_without_an_answer_is_tried_once_more(
    tmp_path: Path, labs: SyntheticLabs, served: Path, http: SmartHttpServer
) -> None:
    assert http.httpd is not None
    ws = participant(tmp_path / "hana", labs, 1)
    http.httpd.drop_posts = 1
    head = submit(ws, make_settings(http.url("room.git"), "hana", "monday")).commit
    assert head == ws.progress_head()
    assert http.httpd.drop_posts == 0
    assert remote_refs(served / "room.git") == {"refs/hooklab/cohorts/monday/hana": head}

    other = participant(tmp_path / "ivo", labs, 2)
    http.httpd.drop_posts = 2  # dropped twice: named, nothing lost, and the next one catches up
    with pytest.raises(RemoteError) as dropped:
        submit(other, make_settings(http.url("room.git"), "ivo", "monday"))
    said = str(dropped.value)
    assert f"{http.url('room.git')}: the server closed the connection without an answer" in said
    assert "try again in a moment (lab submit)" in said
    assert list(remote_refs(served / "room.git")) == ["refs/hooklab/cohorts/monday/hana"]
    later = submit(other, make_settings(http.url("room.git"), "ivo", "monday"))
    assert later.commit == other.progress_head()
    assert remote_refs(served / "room.git")["refs/hooklab/cohorts/monday/ivo"] == later.commit


def test_progress_written_while_a_submit_pushes_is_kept_and_sent_next(
    tmp_path: Path, labs: SyntheticLabs, served: Path, daemon: GitDaemon,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """lab submit pushes a document naming the participant, staged; a lab command that
    writes progress during the push (here: at the moment the push starts, injected) keeps its
    document on top, and the next submit is a plain update of the same record."""
    import harness.trainer.publish as publish

    ws = participant(tmp_path / "ws", labs, 2)
    url = daemon.url("room.git")
    real_push = publish.push

    def push_while_a_check_writes(*args: object, **kwargs: object) -> bytes | None:
        document = ws.read_progress()
        document["step"] = "written meanwhile"
        ws.write_progress(document, "a lab command meanwhile")
        return real_push(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(publish, "push", push_while_a_check_writes)
    first = submit(ws, make_settings(url, "lee", "c"))
    monkeypatch.setattr(publish, "push", real_push)
    assert ws.read_progress()["step"] == "written meanwhile"  # nothing lost
    tip = ws.repo[ws.progress_head().encode()]  # type: ignore[union-attr]
    assert first.commit.encode() in tip.parents[1:]  # the pushed one hangs on the chain
    assert pending_updates(ws, make_settings(url, "lee", "c")) == 1  # only the one on top
    second = submit(ws, make_settings(url, "lee", "c"))  # not "name taken": it is ours
    assert second.updates == 1
    assert remote_refs(served / "room.git") == {"refs/hooklab/cohorts/c/lee": second.commit}
    assert not any("replaced" in ref for ref in remote_refs(served / "room.git", "refs/"))
