"""A live step passed on a long session: its timeline extract is capped (EXTRACT_ENTRY_CAP),
says so, keeps the entries the step's expectations matched and the counts, and still passes
``lab trainer verify``; a forged verdict in the capped extract still fails it.

The session is the real client's (``earn-done``, played on the pinned client with the
scripted model), padded with generated calls: the size is the point here, and no real
session of thousands of calls can be played in a test. The padding copies the shape of the
transcript's own lines and is a call the pinned client really answers that way (Glob, which
it does not offer: "No such tool available", no hook runs; tests/claude/test_claude_session.py
observes it on the client), so the padded session replays the same.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.claude.recorded import EXTRACT_ENTRY_CAP, read_session
from harness.claude.tools import no_such_tool
from harness.engine.checks.live_session import TIMELINE_FILE
from harness.engine.lab_runner import LabRunner
from harness.workspace import Workspace
from harness.workspace.snapshot import read_blob
from tests.builders import run_cli
from tests.conftest import require_real_client
from tests.recorded_sessions import lines, play, write_lines
from tests.trainer.servers import GitDaemon, bare_repo
from tests.trainer.test_live_verify import COHORT, LAB, STEP, Room, forge

PADDING = 2_000  # generated calls: four times the cap


def pad(transcript: Path, calls: int) -> None:
    """``calls`` generated Glob calls (a tool_use line and its result each), inserted right
    after the session's first prompt."""
    entries = lines(transcript)
    first_use = next(
        n
        for n, e in enumerate(entries)
        if e.get("type") == "assistant"
        and any(b.get("type") == "tool_use" for b in e["message"]["content"])
    )
    result = next(
        e
        for e in entries[first_use:]
        if e.get("type") == "user" and isinstance(e["message"]["content"], list)
    )
    said = no_such_tool("Glob")
    padding: list[dict[str, Any]] = []
    for n in range(calls):
        use_id = f"toolu_generated_{n:05d}"
        use = json.loads(json.dumps(entries[first_use]))
        use["uuid"] = f"generated-use-{n}"
        use["message"]["content"] = [
            {"type": "tool_use", "id": use_id, "name": "Glob", "input": {"pattern": f"*{n}"}}
        ]
        answer = json.loads(json.dumps(result))
        answer["uuid"] = f"generated-result-{n}"
        answer["message"]["content"] = [
            {
                "type": "tool_result",
                "content": f"<tool_use_error>{said}</tool_use_error>",
                "is_error": True,
                "tool_use_id": use_id,
            }
        ]
        answer["toolUseResult"] = said
        answer.pop("permissionDecision", None)
        padding += [use, answer]
    write_lines(transcript, entries[:first_use] + padding + entries[first_use:])


@pytest.fixture(scope="module")
def long_room(tmp_path_factory: pytest.TempPathFactory, _compiled_template: Path) -> Iterator[Room]:
    """Ada passed Lab 11 step 4 live on a session of over two thousand calls, and submitted."""
    require_real_client()
    base = tmp_path_factory.mktemp("long-room")
    served = base / "served"
    served.mkdir()
    bare = bare_repo(served / "room.git")
    root = base / "ws"
    shutil.copytree(_compiled_template, root, symlinks=True)
    runner = LabRunner(Workspace(root))
    runner.start(LAB)
    runner.goto(STEP)
    played = play("earn-done", root, base / "ada-claude")
    pad(played.transcript, PADDING)
    with GitDaemon(served) as daemon, pytest.MonkeyPatch.context() as env:
        env.setenv("CLAUDE_CONFIG_DIR", str(played.config_dir))
        checked = run_cli("check", "--json", cwd=root)
        assert checked.code == 0, checked
        url = daemon.url("room.git")
        sent = run_cli(
            "submit", "--remote", url, "--participant", "ada", "--cohort", COHORT, cwd=root
        )
        assert sent.code == 0, sent
        env.setenv("CLAUDE_CONFIG_DIR", str(base / "trainer-claude"))
        yield Room(url, bare, played)


def _claimed_extract(ws: Workspace) -> tuple[dict[str, Any], dict[str, Any]]:
    record = ws.read_progress()["labs"][LAB]["steps"][STEP]["passed"]
    evidence = ws.repo[record["evidence_commit"].encode()]
    data = read_blob(ws.repo, evidence.tree, TIMELINE_FILE)
    assert data is not None
    return record, json.loads(data)


@pytest.mark.maven
@pytest.mark.slow
def test_a_long_sessions_extract_is_capped_keeps_the_matched_entries_and_says_so(
    long_room: Room,
) -> None:
    timeline = read_session(long_room.played.transcript)
    total = len(timeline.entries)
    assert len(timeline.tool_calls) > PADDING > EXTRACT_ENTRY_CAP
    record, extract = _claimed_extract(Workspace(long_room.played.workspace))
    assert len(extract["entries"]) == EXTRACT_ENTRY_CAP
    assert extract["counts"]["entries"] == total
    assert extract["counts"]["tool_calls"] == len(timeline.tool_calls)
    assert extract["left_out"]["entries"] == total - EXTRACT_ENTRY_CAP
    assert record["timeline_left_out"] == total - EXTRACT_ENTRY_CAP
    assert any("were left out of this extract" in w for w in extract["warnings"])
    # every entry the step's expectations matched is kept: refused, audited, accepted,
    # sensors, stop, each with its place in the whole session
    kept = {e["index"]: e for e in extract["entries"]}
    real = [
        i for i, e in enumerate(timeline.entries) if "generated" not in getattr(e, "use_id", "")
    ]
    assert set(real) <= set(kept)
    verdicts = [kept[i].get("verdict") for i in real if kept[i]["kind"] != "prompt"]
    assert verdicts[:2] == ["refused by guard-spec-status.sh", "ran"]
    assert verdicts[-1] == "allowed"


@pytest.mark.maven
@pytest.mark.slow
def test_verify_passes_a_capped_extract_and_tells_the_trainer_entries_were_left_out(
    long_room: Room,
) -> None:
    status = run_cli("trainer", "status", long_room.url, "--cohort", COHORT, "--json")
    assert status.code == 0, status
    ada = json.loads(status.out)["participants"][0]
    left_out = ada["labs"][LAB]["timeline_left_out"][STEP]
    assert left_out > PADDING - EXTRACT_ENTRY_CAP
    verified = run_cli("trainer", "verify", long_room.url, "ada", "--cohort", COHORT, "--json")
    assert verified.code == 0, verified
    (step,) = json.loads(verified.out)["steps"]
    assert step["status"] == "pass", step
    assert f"{left_out} of the session's" in step["message"], step["message"]
    assert "were left out" in step["message"]


@pytest.mark.maven
@pytest.mark.slow
def test_a_forged_verdict_in_a_capped_extract_still_fails_verify(
    long_room: Room, tmp_path: Path
) -> None:
    root = tmp_path / "forger"
    shutil.copytree(long_room.played.workspace, root, symlinks=True)
    line = forge(Workspace(root), consistent=True)
    sent = run_cli(
        "submit", "--remote", long_room.url, "--participant", "eve", "--cohort", COHORT, cwd=root
    )
    assert sent.code == 0, sent
    verified = run_cli("trainer", "verify", long_room.url, "eve", "--cohort", COHORT, "--json")
    assert verified.code == 1, verified
    (step,) = json.loads(verified.out)["steps"]
    assert step["status"] == "fail"
    assert f"transcript line {line} " in step["message"], step["message"]
