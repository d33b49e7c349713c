"""lab replay: recorded sessions (played on the real client in the test) replayed against the
workspace's hooks on both engines; a changed hook or a tampered transcript shows where."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.claude.recorded import Timeline, read_session
from harness.engine.session_replay import NO_HOOK_RAN, ReplayReport, replay
from harness.workspace import Workspace
from tests.builders import run_cli
from tests.recorded_sessions import SESSIONS, Played, accepted_copy, copy_session

Recorded = Callable[[str], Played]
BOTH = ["emulator", "claude-code"]


def _workspace_copy(played: Played, tmp_path: Path) -> Path:
    """The session's workspace, copied: a test that changes a hook keeps the shared one."""
    root = tmp_path / "ws"
    shutil.copytree(played.workspace, root, symlinks=True)
    return root


@pytest.fixture(scope="module")
def replayed_on_both(recorded: Recorded) -> Callable[[str], tuple[Timeline, ReplayReport]]:
    """A recorded session's timeline and its replay on both engines, once per module: the
    replay of other-tools (5 s) is read by two tests."""
    done: dict[str, tuple[Timeline, ReplayReport]] = {}

    def get(name: str) -> tuple[Timeline, ReplayReport]:
        if name not in done:
            played = recorded(name)
            timeline = read_session(played.transcript)
            done[name] = (timeline, replay(timeline, played.workspace, engines=BOTH))
        return done[name]

    return get


@pytest.mark.maven
@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_every_recorded_session_replays_the_same_on_both_engines(
    replayed_on_both: Callable[[str], tuple[Timeline, ReplayReport]], name: str
) -> None:
    timeline, report = replayed_on_both(name)
    compared = [row for row in report.rows if row.compared]
    assert compared and len(compared) == len(timeline.tool_calls) + len(timeline.stops)
    assert report.agrees, report.describe_divergence()
    for row in compared:
        assert row.replayed == {"emulator": row.recorded, "claude-code": row.recorded}
        assert not row.unplayed  # every call of these sessions is played on both engines


def test_read_grep_glob_and_multiedit_get_a_row_with_both_verdicts(
    replayed_on_both: Callable[[str], tuple[Timeline, ReplayReport]],
) -> None:
    _timeline, report = replayed_on_both("other-tools")
    rows = {row.what.split()[0] + str(row.number): row for row in report.rows}
    assert [row.what.split()[0] for row in report.rows] == [
        "Read", "Grep", "Glob", "MultiEdit", "Read", "stop"
    ]  # fmt: skip
    assert report.agrees, report.describe_divergence()
    for row in report.rows:
        assert row.compared_on("emulator") and row.compared_on("claude-code"), row
    # The pinned client offers no Grep, Glob or MultiEdit: refused before any hook, so the
    # hooks cannot change them, and the row says so.
    for name in ("Grep2", "Glob3", "MultiEdit4"):
        assert rows[name].recorded == "error"
        assert rows[name].note == NO_HOOK_RAN
    # Read runs, and the match-all PostToolUse group (check-spec-status.sh) runs for it.
    assert rows["Read1"].recorded == rows["Read5"].recorded == "ran"
    assert rows["Read1"].note == "" and rows["Read1"].hooks_ran == {
        "emulator": True,
        "claude-code": True,
    }


def test_a_hook_that_refuses_reads_diverges_at_the_read(recorded: Recorded, tmp_path: Path) -> None:
    played = recorded("other-tools")
    root = _workspace_copy(played, tmp_path)
    settings_path = root / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text())
    refuse = root / ".claude" / "hooks" / "no-reads.sh"
    refuse.write_text("#!/usr/bin/env bash\necho 'no reading today' >&2\nexit 2\n")
    refuse.chmod(0o755)
    settings["hooks"].setdefault("PreToolUse", []).append(
        {"matcher": "Read", "hooks": [{"type": "command", "command": str(refuse)}]}
    )
    settings_path.write_text(json.dumps(settings))
    timeline = read_session(played.transcript)
    report = replay(timeline, root, engines=["emulator", "claude-code"])
    first = report.first_divergence
    assert first is not None
    row, _ = first
    assert (row.number, row.what.split()[0], row.recorded) == (1, "Read", "ran")
    assert row.replayed == {
        "emulator": "refused by no-reads.sh",
        "claude-code": "refused by no-reads.sh",
    }


def test_the_five_sessions_cover_blocks_a_refusal_a_subagent_and_a_sed(
    recorded: Recorded,
) -> None:
    verdicts = set()
    for name in SESSIONS:
        timeline = read_session(recorded(name).transcript)
        verdicts |= {call.verdict for call in timeline.tool_calls}
        verdicts |= {stop.verdict for stop in timeline.stops}
        verdicts |= {"subagent" for _ in timeline.subagents}
    assert {
        "blocked by require-sensors.sh",
        "refused by guard-spec-status.sh",
        "ran, reported by check-spec-status.sh",
        "subagent",
    } <= verdicts


def test_a_changed_hook_diverges_at_the_call_it_decides(recorded: Recorded, tmp_path: Path) -> None:
    played = recorded("no-audit")
    root = _workspace_copy(played, tmp_path)
    guard = root / ".claude" / "hooks" / "guard-spec-status.sh"
    # The hook author "relaxes" the guard: it lets every edit through.
    guard.write_text("#!/usr/bin/env bash\nexit 0\n" + guard.read_text())
    timeline = read_session(played.transcript)
    report = replay(timeline, root, engines=["emulator"])
    first = report.first_divergence
    assert first is not None
    row, engine = first
    assert (row.number, row.line, engine) == (1, timeline.tool_calls[0].line, "emulator")
    assert row.recorded == "refused by guard-spec-status.sh"
    # the edit now goes through, and the status check behind the guard reports it
    assert row.replayed[engine] == "ran, reported by check-spec-status.sh"
    assert f"transcript line {row.line}" in report.describe_divergence()


def test_replay_latest_finds_the_session_and_exits_1_on_a_divergence(
    recorded: Recorded, tmp_path: Path
) -> None:
    played = recorded("no-audit")
    root = _workspace_copy(played, tmp_path)
    config = Path(os.environ["CLAUDE_CONFIG_DIR"])
    transcript = copy_session(played, config)
    # the session's cwd is the shared workspace; point it at this copy
    text = transcript.read_text().replace(str(played.workspace.resolve()), str(root.resolve()))
    transcript.write_text(text)
    done = run_cli("replay", "--latest", "--json", cwd=root)
    assert done.code == 0, done
    data = json.loads(done.out)
    assert data["session_id"] == played.transcript.stem and data["agrees"] is True
    assert [r["recorded"] for r in data["rows"]][:2] == ["refused by guard-spec-status.sh"] * 2
    guard = root / ".claude" / "hooks" / "guard-spec-status.sh"
    guard.write_text("#!/usr/bin/env bash\nexit 0\n" + guard.read_text())
    done = run_cli("replay", "--latest", cwd=root)
    assert done.code == 1, done
    assert "First divergence" in done.out and "refused by guard-spec-status.sh" in done.out


def test_a_refusal_edited_to_look_accepted_fails_by_replay_naming_the_line(
    recorded: Recorded, tmp_path: Path
) -> None:
    played = recorded("no-audit")
    tampered, line = accepted_copy(played, tmp_path / "config")
    timeline = read_session(tampered)
    assert timeline.tool_calls[0].verdict == "ran"  # the copy claims the edit went through
    report = replay(timeline, played.workspace, engines=["emulator"])
    first = report.first_divergence
    assert first is not None
    assert first[0].recorded == "ran"
    assert first[0].replayed["emulator"] == "refused by guard-spec-status.sh"
    # the row names the tool_use line; the tampered line is its result, right after it
    assert timeline.tool_calls[0].result_line == line


def test_replay_needs_a_session(workspace: Workspace) -> None:
    done = run_cli("replay", cwd=workspace.root)
    assert done.code == 1 and "--latest" in done.err
    done = run_cli("replay", "--latest", cwd=workspace.root)
    assert done.code == 1 and "no Claude Code session" in done.err
    done = run_cli("replay", "--from", "nope", str(workspace.root / "x.jsonl"), cwd=workspace.root)
    assert done.code == 1 and "no such transcript" in done.err


def test_a_client_tool_hook_lab_does_not_play_says_whether_a_hook_selects_it(
    tmp_path: Path,
) -> None:
    from harness.claude.recorded import Timeline, ToolCall
    from harness.claude.settings import parse_settings
    from harness.engine.session_replay import plan

    timeline = Timeline(path=tmp_path / "t.jsonl", cwd=str(tmp_path))
    timeline.entries.append(ToolCall(3, "toolu_1", "ToolSearch", {"query": "cron"}, 4))
    timeline.entries.append(ToolCall(5, "toolu_2", "Read", {"file_path": "a.md"}, 6))
    only_edits = parse_settings(
        {"hooks": {"PreToolUse": [{"matcher": "Edit|Write", "hooks": [HOOK]}]}}, "settings"
    )
    every_tool = parse_settings({"hooks": {"PostToolUse": [{"hooks": [HOOK]}]}}, "settings")
    unselected = plan(timeline, tmp_path, only_edits)
    (search, read) = [p for p in unselected if p.row is not None]
    assert search.step is None and read.step is not None  # Read is played, ToolSearch is not
    assert search.row is not None and search.row.compared
    assert "no hook's matcher selects it, so the hooks cannot change it" in search.row.note
    (search, _) = [p for p in plan(timeline, tmp_path, every_tool) if p.row is not None]
    assert search.row is not None
    assert "a PostToolUse hook selects it, so the hooks could change it" in search.row.note


HOOK = {"type": "command", "command": "true"}


def test_the_start_state_leaves_out_build_output_written_after_the_session_began(
    workspace: Workspace,
) -> None:
    """Ignored build output from before the session began stays (the session saw it); what
    was built after it began (today's reports, a dist/ bundle) is left out and named, so a
    replay --from an older commit does not judge today's build."""
    from harness.engine.session_replay import resolve_start, start_state

    root = workspace.root
    old = root / "target" / "surefire-reports" / "TEST-old.xml"
    new = root / "target" / "surefire-reports" / "TEST-new.xml"
    bundle = root / "dist" / "app.js"
    for path in (old, new, bundle):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("built")
    (root / ".gitignore").write_text((root / ".gitignore").read_text() + "dist/\n")
    workspace.commit_all("ignore dist/")
    began = 1_700_000_000.0
    os.utime(old, (began - 60, began - 60))
    left_out: list[str] = []
    with start_state(root, resolve_start(root, None), started=began, left_out=left_out) as copy:
        assert (copy / "target/surefire-reports/TEST-old.xml").is_file()
        assert not (copy / "target/surefire-reports/TEST-new.xml").exists()
        assert not (copy / "dist/app.js").exists()
    assert "dist/ (1 file built after the session began): left out" in left_out
    assert any(line.startswith("target/ (") for line in left_out), left_out
    assert new.is_file() and bundle.is_file()  # the workspace itself is untouched


def test_replay_names_the_hooks_and_rules_the_client_would_never_run(
    recorded: Recorded, tmp_path: Path
) -> None:
    """The settings check (harness/claude/settings_check.py) runs before the replay: a deny
    rule the client says never matches changes no verdict, and is named."""
    played = recorded("no-audit")
    root = _workspace_copy(played, tmp_path)
    config = Path(os.environ["CLAUDE_CONFIG_DIR"])
    transcript = copy_session(played, config)
    text = transcript.read_text().replace(str(played.workspace.resolve()), str(root.resolve()))
    transcript.write_text(text)
    local = root / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"permissions": {"deny": ["Write(target/**)"]}}))
    done = run_cli("replay", "--latest", "--json", cwd=root)
    assert done.code == 0, done
    (warning,) = json.loads(done.out)["settings_warnings"]
    assert warning == {
        "file": ".claude/settings.local.json",
        "path": "permissions.deny[0]",
        "said": "Deny rule Write(target/**) never matches · use Edit(target/**)",
        "fix": "write Edit(target/**): an Edit rule covers every file-editing tool",
        "client": True,
    }
    done = run_cli("replay", "--latest", cwd=root)
    assert done.code == 0, done
    assert "warning: .claude/settings.local.json: permissions.deny[0]: Claude Code says:" in (
        done.err
    )


def test_a_confined_replay_gives_every_recorded_verdict_on_both_engines(
    recorded: Recorded, engine: str
) -> None:
    """In the jail (lab replay's default) the calls (edits, a sed through Bash, writes, the
    stops the Stop hook holds) give the verdicts they gave on the real client outside it."""
    from harness.jail import unavailable

    if unavailable() is not None:
        pytest.skip(str(unavailable()))
    played = recorded("no-audit")
    timeline = read_session(played.transcript)
    report = replay(timeline, played.workspace, engines=[engine], confine=True)
    assert [row for row in report.rows if row.compared]
    assert report.agrees, report.describe_divergence()


def _recorded(tmp_path: Path, calls: list[tuple[str, dict[str, object], str, bool]]) -> Path:
    """A transcript of one prompt and ``calls`` (tool, input, result, is_error), as the pinned
    client writes one, for a git repository at ``tmp_path / "ws"``."""
    root = tmp_path / "ws"
    head = {"cwd": str(root), "sessionId": "s1", "version": "2.1.332"}
    lines = [{**head, "type": "user", "message": {"role": "user", "content": "go"}}]
    for n, (tool, given, result, failed) in enumerate(calls, start=1):
        use = {"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": given}
        lines.append(
            {**head, "type": "assistant", "message": {"role": "assistant", "content": [use]}}
        )
        answer = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": result}
        answer["is_error"] = failed
        lines.append({**head, "type": "user", "message": {"role": "user", "content": [answer]}})
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return transcript


def _repository(tmp_path: Path, settings: dict[str, object], hooks: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    (root / ".claude" / "hooks").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    for name, body in hooks.items():
        (root / ".claude" / "hooks" / name).write_text(body)
        (root / ".claude" / "hooks" / name).chmod(0o755)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], [*git, "commit", "-qm", "s"]):
        subprocess.run(argv, cwd=root, check=True)
    return root


def test_a_webfetch_guard_replays_and_is_named_by_its_script(tmp_path: Path) -> None:
    """A WebFetch call is played (it fails offline, as on the client, once let through): the
    guard that refused it is named by its script, not by the ``bash`` that starts it."""
    command = 'bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/no-fetch.sh'
    hook = {"type": "command", "command": command}
    root = _repository(
        tmp_path,
        {"hooks": {"PreToolUse": [{"matcher": "WebFetch", "hooks": [hook]}]}},
        {"no-fetch.sh": "#!/bin/bash\necho 'no fetching' >&2\nexit 2\n"},
    )
    said = f"PreToolUse:WebFetch hook error: [{command}]: no fetching\n"
    transcript = _recorded(
        tmp_path, [("WebFetch", {"url": "https://example.com/", "prompt": "x"}, said, True)]
    )
    done = run_cli("replay", str(transcript), "--json", cwd=root)
    assert done.code == 0, done
    data = json.loads(done.out)
    (row,) = data["rows"]
    assert row["recorded"] == "refused by no-fetch.sh"
    assert row["replayed"] == {"emulator": "refused by no-fetch.sh"} and data["compared"] == 1


def test_a_replay_that_compared_nothing_says_so_and_exits_1(tmp_path: Path) -> None:
    hook = {"type": "command", "command": "true"}
    root = _repository(
        tmp_path, {"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [hook]}]}}, {}
    )
    transcript = _recorded(tmp_path, [("ToolSearch", {"query": "cron"}, "found none", False)])
    done = run_cli("replay", str(transcript), cwd=root)
    assert done.code == 1, done
    assert "Nothing was compared" in done.out and "nothing was compared" in done.err
    assert json.loads(run_cli("replay", str(transcript), "--json", cwd=root).out)["compared"] == 0
