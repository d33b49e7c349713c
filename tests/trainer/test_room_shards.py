"""A room verified in slices: ``lab trainer verify --all --shard I/N --push`` run as separate
processes (one per machine, as CI runners run them: each its own state folder, its own runner
name) against a real ``git daemon`` on loopback, merged by ``lab trainer status`` and the page
on a machine that judged nothing itself, equal to one ``verify --all``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.trainer.publish import make_settings, submit
from harness.trainer.room_shards import RoomShard, parse_shard, push_verdicts
from harness.trainer.verified import ParticipantVerdict
from tests.builders import run_cli
from tests.trainer.cohort_builder import SyntheticLabs, clone_participant, participant
from tests.trainer.servers import GitDaemon, remote_refs

SHARDS = 3
KEY = "room-key-for-the-tests-0123456789abcdef"


def _room(tmp_path: Path, labs: SyntheticLabs, url: str) -> list[str]:
    """Seven honest participants and one whose record was edited (its claim does not hold)."""
    template = participant(tmp_path / "template", labs, 3)
    names = ["ada", "bob", "cy", "dee", "eve", "fay", "gus"]
    for name in names:
        submit(clone_participant(template, tmp_path / name), make_settings(url, name, "v"))
    forger = participant(tmp_path / "fred", labs, 3)  # a workspace of its own: no copy
    document = forger.read_progress()
    step = document["labs"]["02-practice"]["steps"]["one"]["passed"]
    step["snapshot"] = document["labs"]["02-practice"]["start_snapshot"]
    step.pop("tree", None)
    forger.write_progress(document, "edited by hand")
    submit(forger, make_settings(url, "fred", "v"))
    return [*names, "fred"]


def _machine(tmp_path: Path, name: str) -> dict[str, str]:
    """The environment of one machine: a state folder of its own, its runner's name, the
    room's verdict key (a repository secret on GitHub)."""
    return {
        **os.environ,
        "XDG_STATE_HOME": str(tmp_path / name),
        "HOOKLAB_RUNNER": name,
        "HOOKLAB_VERDICT_KEY": KEY,
    }


def _verify(url: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness", "trainer", "verify", url, "--all", "--cohort", "v",
            "--jobs", "1", "--json", *extra]  # fmt: skip


def test_shards_run_as_processes_merge_in_the_room_equal_to_one_verify_all(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = daemon.url("room.git")
    names = _room(tmp_path, labs, url)
    whole = subprocess.run(
        _verify(url), env=_machine(tmp_path, "laptop"), capture_output=True, text=True
    )
    assert whole.returncode == 1, whole.stderr  # fred's claim does not hold
    alone = {v["participant"]: v for v in json.loads(whole.stdout)["participants"]}
    assert {n: v["state"] for n, v in alone.items()} == {
        **{n: "verified" for n in names if n != "fred"},
        "fred": "failed",
    }
    # The slices at once, each on its "runner": no state folder shared, only the room.
    shards = {
        i: subprocess.Popen(
            _verify(url, "--shard", f"{i}/{SHARDS}", "--push"),
            env=_machine(tmp_path, f"runner-{i}"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(1, SHARDS + 1)
    }
    slices = {}
    for i, child in shards.items():
        out, err = child.communicate(timeout=600)
        said = json.loads(out)
        assert said["shard"] == f"{i}/{SHARDS}" and said["pushed"], err
        slices[i] = {v["participant"] for v in said["participants"]}
        assert slices[i] == set(RoomShard(i, SHARDS).pick(names))
    assert sorted(n for s in slices.values() for n in s) == sorted(names)  # each name once
    assert len([s for s in slices.values() if s]) >= 2  # really split (8 names, 3 slices)
    # One ref a participant, each pushed by its own slice: nothing for the pushes to clash on.
    refs = remote_refs(daemon.base / "room.git", "refs/hooklab/verified/")
    assert sorted(refs) == sorted(f"refs/hooklab/verified/v/{n}" for n in names)

    # The trainer's machine judged nothing: status reads the runners' verdicts from the room.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "trainer"))
    monkeypatch.setenv("HOOKLAB_RUNNER", "trainer")
    monkeypatch.setenv("HOOKLAB_VERDICT_KEY", KEY)
    status = run_cli("trainer", "status", url, "--cohort", "v", "--json")
    rows = {p["participant"]: p for p in json.loads(status.out)["participants"]}
    assert {n: r["verification"] for n, r in rows.items()} == {
        n: v["state"] for n, v in alone.items()
    }
    for i, held in slices.items():
        for name in held:
            assert rows[name]["verified"]["runner"] == f"runner-{i}"
            assert rows[name]["verified"]["failed"] == alone[name]["failed"]
            assert rows[name]["verified"]["hold"] == alone[name]["hold"]
    fred_runner = rows["fred"]["verified"]["runner"]
    assert rows["fred"]["needs_help"]["kind"] == "verify failed"
    assert rows["fred"]["needs_help"]["text"].endswith(f"(on {fred_runner})")
    page = tmp_path / "room.html"
    assert run_cli("trainer", "report", url, "--cohort", "v", "--html", str(page)).code == 0
    html = page.read_text()
    for i, held in slices.items():
        for name in held:
            state = alone[name]["state"]
            cell = rf'<tr[^>]*data-participant="{name}".*?data-verified="{state}"[^>]*'
            assert re.search(rf'{cell}data-runner="runner-{i}"', html, re.S), name
    assert html.count("<small>on runner-") == len(names)


def test_a_shard_run_again_moves_its_refs_forward_and_leaves_the_others(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    names = _room(tmp_path, labs, url)
    env = _machine(tmp_path, "runner")
    for i in (1, 2):
        subprocess.run(_verify(url, "--shard", f"{i}/2", "--push"), env=env, capture_output=True)
    repo = daemon.base / "room.git"
    before = remote_refs(repo, "refs/hooklab/verified/")
    assert len(before) == len(names)
    subprocess.run(_verify(url, "--shard", "1/2", "--push"), env=env, capture_output=True)
    after = remote_refs(repo, "refs/hooklab/verified/")
    first = {f"refs/hooklab/verified/v/{n}" for n in RoomShard(1, 2).pick(names)}
    for ref, sha in after.items():
        if ref in first:
            assert sha != before[ref]
            # a fast-forward: the verdict it replaces is its parent
            parent = subprocess.run(
                ["git", "--git-dir", str(repo), "rev-parse", f"{sha}^"],
                capture_output=True, text=True, check=True,
            ).stdout.strip()  # fmt: skip
            assert parent == before[ref]
        else:
            assert sha == before[ref]


def test_a_verdict_pushed_without_the_rooms_key_is_not_trusted(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Participants can push to the room: fred's claim does not hold, and a "verified" verdict
    he pushes himself (signed with a key of his own) does not make it hold."""
    url = daemon.url("room.git")
    _room(tmp_path, labs, url)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "fred-laptop"))
    monkeypatch.setenv("HOOKLAB_VERDICT_KEY", "fred's own key")
    status = run_cli("trainer", "status", url, "--cohort", "v", "--json")
    fred = next(p for p in json.loads(status.out)["participants"] if p["participant"] == "fred")
    forged = ParticipantVerdict(
        "fred", fred["commit"], "verified", 3, 3, at=time.time(), runner="CI"
    )
    push_verdicts(url, "v", [forged])
    # He reads his forgery back under his key; the trainer, with the room's, does not.
    rows = json.loads(run_cli("trainer", "status", url, "--cohort", "v", "--json").out)
    mine = next(p for p in rows["participants"] if p["participant"] == "fred")
    assert mine["verification"] == "verified"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "trainer"))
    monkeypatch.setenv("HOOKLAB_VERDICT_KEY", KEY)
    rows = json.loads(run_cli("trainer", "status", url, "--cohort", "v", "--json").out)
    fred = next(p for p in rows["participants"] if p["participant"] == "fred")
    assert fred["verification"] == "unverified" and fred["verified"] is None
    # No key at all: no verdict from the room is read, and --push refuses before verifying.
    monkeypatch.delenv("HOOKLAB_VERDICT_KEY")
    rows = json.loads(run_cli("trainer", "status", url, "--cohort", "v", "--json").out)
    assert {p["verification"] for p in rows["participants"]} == {"unverified"}
    monkeypatch.setenv("COLUMNS", "200")
    out = run_cli("trainer", "verify", url, "--all", "--cohort", "v", "--push")
    assert out.code == 1 and "no verdict key is set here" in " ".join(out.err.split())
    assert "gh secret set HOOKLAB_VERDICT_KEY" in " ".join(out.err.split())
    assert "Verifying" not in out.err + out.out


def test_a_slice_is_drawn_from_the_name_so_a_newcomer_moves_nobody() -> None:
    room = [f"participant-{i:03d}" for i in range(200)]
    slices = [RoomShard(i, 4).pick(room) for i in range(1, 5)]
    assert sorted(n for s in slices for n in s) == sorted(room)
    assert all(30 <= len(s) <= 70 for s in slices), [len(s) for s in slices]
    grown = [*room[:100], "zoë", *room[100:]]  # a newcomer, not at the end of the list
    assert [[n for n in RoomShard(i, 4).pick(grown) if n != "zoë"] for i in range(1, 5)] == slices
    # the name as submit keys it
    assert RoomShard(1, 4).holds("Zoë") == RoomShard(1, 4).holds("zoë")
    assert parse_shard("2/4") == RoomShard(2, 4)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--all", "--shard", "0/4"], "e.g. --shard 1/4"),
        (["--all", "--shard", "5/4"], "1 ≤ I ≤ N"),
        (["--all", "--shard", "two"], "give I/N"),
        (["--all", "--shard", "1/0"], "give I/N"),
        (["--shard", "1/4"], "--shard goes with --all: lab trainer verify ROOM --all --shard 1/4"),
        (["ada", "--push"], "--push goes with --all"),
    ],
)
def test_a_bad_shard_is_a_usage_error_that_names_the_fix(
    tmp_path: Path, argv: list[str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    out = run_cli("trainer", "verify", str(tmp_path / "room.git"), *argv)
    assert out.code == 2, out
    assert said in " ".join(out.err.split()), out.err
    assert "Traceback" not in out.err
