"""A live step through a real remote: a participant's session on the real, pinned client (the
scripted model answers), ``lab check`` passes Lab 11 step 4 as live, ``lab submit`` pushes to a
bare repository served by a real git daemon on loopback, and the trainer reads it back.

What travels is the timeline's extract, never the transcript: every object the remote holds
is read with git itself and searched for what the transcript carries and the extract must not.
``lab trainer verify`` replays the submitted timeline from the start snapshot the claim pushed;
a forged verdict in the pushed timeline fails, naming the step and the transcript line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.claude.recorded import TEXT_CAP, extract_digest
from harness.engine.checks.live_session import TIMELINE_FILE
from harness.engine.lab_runner import LabRunner
from harness.engine.progress import digest
from harness.workspace import Workspace
from harness.workspace.snapshot import read_blob
from tests.builders import run_cli
from tests.conftest import require_real_client
from tests.recorded_sessions import Played, lines, play
from tests.trainer.servers import GitDaemon, bare_repo

LAB, STEP = "11-try-it-yourself", "earn-done"
COHORT = "live"
# Line types and attachments the client records that hold what was sent to the model or what
# it says about the participant's machine: none of it may leave the workspace. (The
# `instructions` attachment renders the workspace's own CLAUDE.md, which the snapshot of the
# workspace carries anyway, so its text proves nothing here.)
PRIVATE_TYPES = {"api-request", "api-request-blob", "api-request-shape"}
PRIVATE_ATTACHMENTS = {"environment", "session_context"}


@dataclass(frozen=True)
class Room:
    url: str
    bare: Path
    played: Played


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory, _compiled_template: Path) -> Iterator[Room]:
    """Ada at Lab 11 step 4 has asked Claude Code to set UC-005 to Done (refused, audited,
    accepted, sensors, stop), passed the step as live and submitted it."""
    require_real_client()
    base = tmp_path_factory.mktemp("live-room")
    served = base / "served"
    served.mkdir()
    bare = bare_repo(served / "room.git")
    root = base / "ws"
    shutil.copytree(_compiled_template, root, symlinks=True)
    runner = LabRunner(Workspace(root))
    runner.start(LAB)
    runner.goto(STEP)
    played = play("earn-done", root, base / "ada-claude")
    with GitDaemon(served) as daemon, pytest.MonkeyPatch.context() as env:
        env.setenv("CLAUDE_CONFIG_DIR", str(played.config_dir))
        checked = run_cli("check", "--json", cwd=root)
        assert checked.code == 0, checked
        url = daemon.url("room.git")
        sent = run_cli(
            "submit", "--remote", url, "--participant", "ada", "--cohort", COHORT, cwd=root
        )
        assert sent.code == 0, sent
        assert "With 1 live step: its session timeline" in " ".join(sent.out.split()), sent
        # The trainer's machine has no transcript of anyone's: only what was pushed.
        env.setenv("CLAUDE_CONFIG_DIR", str(base / "trainer-claude"))
        yield Room(url, bare, played)


def pushed_blobs(bare: Path) -> dict[str, bytes]:
    """Every blob the remote holds, read with git itself (not with the code under test)."""
    listed = subprocess.run(
        ["git", "--git-dir", str(bare), "cat-file", "--batch-all-objects", "--batch-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    ids = [
        line.split()[0]
        for line in listed
        if line.endswith(tuple("0123456789")) and " blob " in line
    ]
    out = subprocess.run(
        ["git", "--git-dir", str(bare), "cat-file", "--batch"],
        input="".join(f"{i}\n" for i in ids).encode(),
        capture_output=True,
        check=True,
    ).stdout
    blobs: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        header_end = out.index(b"\n", pos)
        sha, _kind, size = out[pos:header_end].decode().split()
        start = header_end + 1
        blobs[sha] = out[start : start + int(size)]
        pos = start + int(size) + 1
    return blobs


def private_needles(transcript: Path) -> dict[str, str]:
    """Strings only the raw transcript holds: each line's uuid, what was sent to the model and
    the environment attachments' text (a needle -> where it comes from)."""
    needles: dict[str, str] = {}
    for number, entry in enumerate(lines(transcript), start=1):
        kind = str(entry.get("type"))
        attachment = entry.get("attachment") if isinstance(entry.get("attachment"), dict) else {}
        if entry.get("uuid"):
            needles[str(entry["uuid"])] = f"line {number} ({kind}) uuid"
        if kind in PRIVATE_TYPES:
            needles[kind] = f"line {number}: a {kind} line"
        if attachment.get("type") in PRIVATE_ATTACHMENTS:
            for rendered in entry.get("rendered") or []:
                text = str(rendered.get("content", "")) if isinstance(rendered, dict) else ""
                for said in text.splitlines():
                    if len(said.strip()) > 24:  # a distinctive line of the attachment's text
                        needles[said.strip()] = f"line {number}: {attachment['type']} attachment"
    return needles


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.maven
@pytest.mark.slow
def test_submit_sends_the_timeline_extract_never_the_transcript(room: Room) -> None:
    transcript = room.played.transcript.read_text()
    needles = private_needles(room.played.transcript)
    # The transcript does hold all of these: otherwise the test below proves nothing.
    assert "api-request" in transcript and "osVersion" in transcript
    assert any("environment attachment" in where for where in needles.values())
    assert sum("uuid" in where for where in needles.values()) > 10

    blobs = pushed_blobs(room.bare)
    timelines = [b for b in blobs.values() if b'"entries"' in b and b'"decisions"' in b]
    assert len(timelines) == 1, "the claim carries exactly one timeline extract"
    extract = json.loads(timelines[0])
    assert extract["session_id"] == room.played.transcript.stem
    assert extract["client_version"] == "2.1.332"
    calls = [e for e in extract["entries"] if e["kind"] == "tool"]
    assert [c["verdict"] for c in calls][:2] == ["refused by guard-spec-status.sh", "ran"]
    # texts are capped
    assert max(len(s) for s in _strings(extract)) <= TEXT_CAP + 40
    for sha, data in blobs.items():
        text = data.decode("utf-8", errors="replace")
        leaked = [where for needle, where in needles.items() if needle in text]
        assert not leaked, f"blob {sha[:12]} carries the transcript's {leaked[:3]}"
        assert "osVersion" not in text and "OS Version:" not in text, sha
    # nor is the transcript itself anywhere in it, line by line
    raw_lines = {line for line in transcript.splitlines() if len(line) > 40}
    for data in blobs.values():
        assert not raw_lines & set(data.decode("utf-8", errors="replace").splitlines())


@pytest.mark.maven
@pytest.mark.slow
def test_the_trainer_sees_the_live_mark_and_verify_replays_the_timeline(
    room: Room, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status = run_cli("trainer", "status", room.url, "--cohort", COHORT, "--json")
    assert status.code == 0, status
    ada = json.loads(status.out)["participants"][0]
    assert ada["labs"][LAB]["evidence"] == {STEP: "live"}
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "220")
    table = run_cli("trainer", "status", room.url, "--cohort", COHORT)
    assert table.code == 0, table
    row = next(line for line in table.out.splitlines() if line.startswith("│ ada "))
    assert "11·4 live · 2.1.332" in row, table.out
    page = tmp_path / "room.html"
    made = run_cli("trainer", "report", room.url, "--cohort", COHORT, "--html", str(page))
    assert made.code == 0, made
    html = page.read_text()
    assert f'data-step="{STEP}" data-state="passed" data-evidence="live"' in html

    verified = run_cli("trainer", "verify", room.url, "ada", "--cohort", COHORT, "--json")
    assert verified.code == 0, verified
    report = json.loads(verified.out)
    assert report["ok"] is True
    (step,) = report["steps"]
    assert (step["step"], step["status"]) == (STEP, "pass")
    assert "live session" in step["message"] and "replays" in step["message"], step["message"]
    assert "2.1.332" in step["message"]


def forge(ws: Workspace, *, consistent: bool) -> int:
    """What a participant could do with git plumbing: turn the refused Edit in the claim's
    timeline into one that ran. ``consistent``: also rewrite every digest the record keeps, so
    only a replay can tell. Returns the transcript line of the forged call."""
    document = ws.read_progress()
    record = document["labs"][LAB]["steps"][STEP]["passed"]
    evidence = ws.repo[record["evidence_commit"].encode()]
    data = read_blob(ws.repo, evidence.tree, TIMELINE_FILE)
    assert data is not None
    extract = json.loads(data)
    refused = next(
        e for e in extract["entries"] if str(e.get("verdict", "")).startswith("refused by")
    )
    refused.update(verdict="ran", is_error=False, feedback="", result="The file was updated.")
    forged = json.dumps(extract, sort_keys=True, indent=1).encode()
    assert set(record["evidence"]) == {TIMELINE_FILE}  # the evidence commit holds only it
    parents = [p.decode() for p in evidence.parents]  # the snapshot and the live start
    commit = ws.commit_files({TIMELINE_FILE: forged}, parents, "forged evidence")
    record["evidence_commit"] = commit
    if consistent:
        record["evidence"][TIMELINE_FILE] = digest(forged)
        record["timeline_digest"] = extract_digest(extract)
    ws.write_progress(document, "edited by hand", anchors=[commit])
    return int(refused["line"])


@pytest.mark.maven
@pytest.mark.slow
@pytest.mark.parametrize("consistent", [True, False], ids=["digests-rewritten", "blob-only"])
def test_a_forged_verdict_in_the_pushed_timeline_fails_verify_naming_step_and_line(
    room: Room, tmp_path: Path, consistent: bool
) -> None:
    root = tmp_path / "forger"
    shutil.copytree(room.played.workspace, root, symlinks=True)
    ws = Workspace(root)
    line = forge(ws, consistent=consistent)
    name = f"eve-{'all' if consistent else 'blob'}"
    sent = run_cli(
        "submit", "--remote", room.url, "--participant", name, "--cohort", COHORT, cwd=root
    )
    assert sent.code == 0, sent

    verified = run_cli("trainer", "verify", room.url, name, "--cohort", COHORT, "--json")
    assert verified.code == 1, verified
    (step,) = json.loads(verified.out)["steps"]
    assert step["status"] == "fail"
    message = step["message"]
    assert message.startswith(f"{LAB} step 4 ({STEP})"), message
    assert f"transcript line {line} " in message, message
    assert "recorded 'ran'" in message and "'refused by guard-spec-status.sh'" in message
    if not consistent:
        assert "sha256" in message or "digest" in message, message
