"""Reading real sessions: every transcript here was written by the real, pinned client in the
test (tests/recorded_sessions.py); tampered copies are made from those."""

from __future__ import annotations

import os
import pwd
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from harness.claude.client.install import PINNED_VERSION
from harness.claude.recorded import (
    Prompt,
    RecordedSessionError,
    StopAttempt,
    ToolCall,
    config_root,
    find_sessions,
    hook_name,
    hooks_in_feedback,
    read_session,
)
from tests.recorded_sessions import (
    AUDITOR,
    UC5,
    Played,
    copy_session,
    lines,
    write_lines,
)

Recorded = Callable[[str], Played]


def test_the_earned_done_session_reads_as_the_client_wrote_it(recorded: Recorded) -> None:
    played = recorded("earn-done")
    t = read_session(played.transcript)
    assert t.client_version == PINNED_VERSION
    assert t.session_id == played.transcript.stem
    assert Path(t.cwd) == played.workspace.resolve()
    assert t.started is not None and t.started.tzinfo is not None
    assert [p.text for p in t.prompts] == [
        "UC-005 (Add Visit) is implemented and tested. Set it to Done."
    ]
    kinds = [(type(e).__name__, getattr(e, "name", "")) for e in t.entries]
    assert kinds == [
        ("Prompt", ""),
        ("ToolCall", "Edit"),
        ("ToolCall", "Agent"),
        ("ToolCall", "Edit"),
        ("ToolCall", "Bash"),
        ("StopAttempt", ""),
    ]
    refused, agent, accepted, sensors = t.tool_calls
    assert refused.verdict == "refused by guard-spec-status.sh"
    assert refused.is_error and "coverage-check UC-005" in refused.feedback
    assert refused.input["file_path"].endswith(UC5)
    assert refused.input["new_string"] == "**Status:** Done"
    assert agent.subagent is not None
    assert agent.subagent.agent_type == AUDITOR
    assert agent.subagent.ended == "normally"
    assert agent.subagent.transcript is not None and agent.subagent.transcript.is_file()
    assert "covered" in agent.subagent.last_message
    assert accepted.verdict == "ran" and not accepted.is_error
    assert sensors.verdict == "ran" and sensors.input["command"] == "./mvnw -q test -Dgroups=sensor"
    assert [s.verdict for s in t.stops] == ["allowed"]
    assert t.turn_ends == t.stops and not t.blocked_stops
    assert [(d.event, d.hook, d.decision) for d in t.decisions] == [
        ("PreToolUse", "guard-spec-status.sh", "refused")
    ]
    assert t.warnings == []


def test_a_sed_report_and_a_blocked_stop_are_read(recorded: Recorded) -> None:
    t = read_session(recorded("sed-reported").transcript)
    sed, write = t.tool_calls
    assert sed.verdict == "ran, reported by check-spec-status.sh"
    assert "UC-002" in sed.feedback
    assert write.verdict == "ran"
    blocked, released = t.stops
    assert blocked.verdict == "blocked by require-sensors.sh"
    assert "./mvnw -q test -Dgroups=sensor" in blocked.feedback
    assert blocked.decided_line is not None and blocked.decided_line > blocked.line
    assert released.verdict == "allowed"
    # the hook let go on stop_hook_active and told the user so
    assert "without proof" in released.system_message
    events = {(d.event, d.decision) for d in t.decisions}
    assert ("PostToolUse", "reported") in events and ("Stop", "blocked") in events


def test_the_timeline_extract_leaves_out_what_was_sent_to_the_model(recorded: Recorded) -> None:
    t = read_session(recorded("earn-done").transcript)
    extract = str(t.to_json())
    raw = recorded("earn-done").transcript.read_text()
    assert "api-request" in raw and "osVersion" in raw
    assert "api-request" not in extract and "osVersion" not in extract
    assert t.digest() == read_session(recorded("earn-done").transcript).digest()
    assert t.digest() != read_session(recorded("no-audit").transcript).digest()


def test_sessions_are_found_by_their_cwd_newest_first(recorded: Recorded, tmp_path: Path) -> None:
    earn, sed = recorded("earn-done"), recorded("sed-reported")
    root = tmp_path / "claude"
    copy_session(earn, root)
    copy_session(sed, root)
    assert [s.session_id for s in find_sessions(earn.workspace, root=root)] == [
        earn.transcript.stem
    ]
    # Another workspace whose directory name folds to the same DIR is not taken for it.
    twin = earn.workspace.parent / "ws."
    twin.mkdir()
    assert find_sessions(twin, root=root) == []
    # newest first, and --after leaves out what started before
    later = copy_session(earn, root).with_name("later.jsonl")
    entries = lines(copy_session(earn, root))
    stamp = (datetime.now(UTC) + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    for entry in entries:
        if "timestamp" in entry:
            entry["timestamp"] = stamp
        if "sessionId" in entry:
            entry["sessionId"] = "later"
    write_lines(later, entries)
    found = find_sessions(earn.workspace, root=root)
    assert [s.session_id for s in found] == ["later", earn.transcript.stem]
    after = datetime.now(UTC)
    assert [s.session_id for s in find_sessions(earn.workspace, root=root, after=after)] == [
        "later"
    ]


def test_the_config_root_follows_claude_config_dir(tmp_path: Path) -> None:
    assert config_root({"CLAUDE_CONFIG_DIR": str(tmp_path)}) == tmp_path
    assert config_root({"HOME": str(tmp_path)}) == tmp_path / ".claude"
    # the tests' guard: the real ~/.claude is never where a test looks
    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert Path(os.environ["CLAUDE_CONFIG_DIR"]).resolve() != (real_home / ".claude").resolve()


def test_unknown_lines_and_a_cut_off_last_line_are_skipped(
    recorded: Recorded, tmp_path: Path
) -> None:
    played = recorded("no-audit")
    path = copy_session(played, tmp_path)
    entries = lines(path)
    entries.insert(3, {"type": "brand-new-kind", "payload": [1, 2]})
    entries.insert(5, {"no": "type"})
    write_lines(path, entries)
    with path.open("a") as fh:
        fh.write('{"type": "assistant", "message": {"content": [{"type": "tool_u')
    t = read_session(path)
    assert [c.verdict for c in t.tool_calls] == [
        "refused by guard-spec-status.sh",
        "refused by guard-spec-status.sh",
    ]
    assert t.other_types == {"brand-new-kind": 1, "(no type)": 1}
    assert t.truncated_last_line
    assert any("cut off" in w for w in t.warnings)
    assert any("brand-new-kind" in w for w in t.warnings)


def test_another_versions_transcript_is_read_as_far_as_it_goes(
    recorded: Recorded, tmp_path: Path
) -> None:
    path = copy_session(recorded("sed-reported"), tmp_path)
    entries = lines(path)
    for entry in entries:
        if "version" in entry:
            entry["version"] = "2.0.99"
    # an older client's shape: hook progress lines, no stop summary
    entries = [e for e in entries if e.get("subtype") != "stop_hook_summary"]
    entries.append(
        {
            "type": "progress",
            "data": {"type": "hook_progress", "hookEvent": "Stop"},
            "version": "2.0.99",
        }
    )
    write_lines(path, entries)
    t = read_session(path)
    assert t.client_version == "2.0.99"
    assert any("2.0.99" in w and PINNED_VERSION in w for w in t.warnings)
    assert t.stops[0].verdict == "blocked by require-sensors.sh"
    assert ("Stop", "ran") in {(d.event, d.decision) for d in t.decisions}


def test_entries_keep_their_transcript_lines(recorded: Recorded) -> None:
    played = recorded("earn-done")
    raw = played.transcript.read_text().splitlines()
    t = read_session(played.transcript)
    for entry in t.entries:
        text = raw[entry.line - 1]
        if isinstance(entry, Prompt):
            assert '"type": "user"' in text or '"type":"user"' in text
        elif isinstance(entry, ToolCall):
            assert entry.use_id in text and '"tool_use"' in text
        elif isinstance(entry, StopAttempt):
            assert '"end_turn"' in text


def test_hook_names_from_the_clients_messages() -> None:
    assert hook_name('"$CLAUDE_PROJECT_DIR/.claude/hooks/guard-spec-status.sh"') == (
        "guard-spec-status.sh"
    )
    assert hook_name('["$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh"]') == "x.sh"
    assert hook_name("jq -r .x") == "jq"
    # named by the script, not by the program that starts it nor a cut fragment
    assert hook_name("bash ${CLAUDE_PLUGIN_ROOT}/hooks/block-rm-rf.sh") == "block-rm-rf.sh"
    assert hook_name('cd "$CLAUDE_PROJECT_DIR" && ./scripts/check.py --fast') == "check.py"
    assert hook_name("python3 -m guards.fetch") == "guards.fetch"
    said = (
        'PostToolUse:Bash hook blocking error from command: ""$CLAUDE_PROJECT_DIR/.claude/'
        'hooks/check-spec-status.sh"": A Status line changed'
    )
    assert hooks_in_feedback(said) == ["check-spec-status.sh"]
    assert hooks_in_feedback("nothing to see") == []


def test_an_extract_past_the_cap_keeps_the_matched_entries_and_counts_the_rest() -> None:
    # A generated timeline: the size is the point, and no real session of this many calls
    # can be played in a test (tests/trainer/test_live_verify_capped.py pads a real one).
    from harness.claude.recorded import (
        EXTRACT_ENTRY_CAP,
        Prompt,
        StopAttempt,
        Timeline,
        ToolCall,
        from_extract,
    )

    timeline = Timeline(path=Path("generated.jsonl"), session_id="s")
    timeline.entries.append(Prompt(1, "go"))
    for n in range(1_200):  # reads and commands: the commands are kept before the reads
        name, tool_input = (
            ("Read", {"file_path": f"f{n}"}) if n % 2 else ("Bash", {"command": "ls"})
        )
        timeline.entries.append(ToolCall(2 + n, f"toolu_{n}", name, tool_input, result_line=3 + n))
    timeline.entries.append(StopAttempt(5_000, "done"))
    matched = [1, 1_000, 1_001]  # a read deep in the session, among what a step matched
    small = Timeline(path=Path("small.jsonl"), entries=timeline.entries[:10])
    assert "left_out" not in small.to_json() and "index" not in small.to_json()["entries"][0]

    extract = timeline.to_json(matched)
    kept = [e["index"] for e in extract["entries"]]
    assert len(kept) == EXTRACT_ENTRY_CAP and kept == sorted(kept)
    assert set(matched) | {len(timeline.entries) - 1} <= set(kept)  # and the stop
    assert extract["counts"]["entries"] == len(timeline.entries) == 1_202
    assert extract["left_out"]["entries"] == 1_202 - EXTRACT_ENTRY_CAP
    # the stop, then the commands fill the room the matched leave: 102 of 600 left out
    assert extract["left_out"]["workspace_changing"] == 102
    assert "702 of the session's 1202 entries were left out" in extract["warnings"][-1]
    assert timeline.digest(matched) != timeline.digest()  # the kept entries decide the digest
    back = from_extract(extract, Path("x"))
    assert (back.left_out, back.changing_left_out) == (702, 102)
    assert back.to_json()["left_out"]["entries"] == 702  # a re-read extract still says so


def test_a_line_nested_100000_levels_deep_is_skipped_and_named(
    recorded: Recorded, tmp_path: Path
) -> None:
    # The pinned client keeps a hook's deep JSON as a string (tests/differential cases
    # updated-input-deep-*), so a line this deep is hand-made or another version's: read as
    # far as it goes, never a RecursionError, and the extract of what was read serialises.
    import json

    played = recorded("no-audit")
    path = copy_session(played, tmp_path)
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    text = path.read_text().splitlines()
    text.insert(
        4,
        '{"type": "assistant", "message": {"content": [{"type": "tool_use", '
        '"id": "toolu_deep", "name": "Write", "input": {"x": ' + deep + "}}]}}",
    )
    path.write_text("\n".join(text) + "\n")
    t = read_session(path)
    assert t.too_deep == [5]
    assert any("nested too deep to read (line 5)" in w for w in t.warnings)
    assert [c.verdict for c in t.tool_calls] == ["refused by guard-spec-status.sh"] * 2
    assert json.loads(json.dumps(t.to_json()))["session_id"] == t.session_id
    only_deep = tmp_path / "deep.jsonl"
    only_deep.write_text(deep + "\n")
    with pytest.raises(RecordedSessionError, match="nested too deep"):
        read_session(only_deep)


def test_an_interactive_background_agent_that_handed_back_ended_normally() -> None:
    """A session of the interactive client (2.1.332, in tmux, auto mode): the Agent call
    launched the audit in the background ("Async agent launched successfully") and the agent
    ended by calling SubagentHandback with its report, which is how that client ends one."""
    from harness.claude.recorded import HANDBACK

    folder = Path(__file__).parent / "transcripts" / "claude-code-2.1.332-interactive"
    timeline = read_session(folder / "613b36ca-bd2c-4336-a49f-0b0a70ebb45e.jsonl")
    (call,) = timeline.tool_calls
    assert call.subagent is not None
    assert call.subagent.agent_type == "aiup-vaadin-jooq:uc-coverage"
    assert call.subagent.stop_reason == HANDBACK
    assert call.subagent.ended == "normally"
    assert call.subagent.last_message.startswith("# Coverage report: UC-005")
