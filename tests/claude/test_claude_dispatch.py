"""dispatch(): real bash hooks fed real JSON; exit codes, JSON output, timeouts, parallelism."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from harness.claude import OUTPUT_CAP, Event
from harness.claude.dispatch import dispatch
from tests.claude.hookproject import HookProject


def payload(event: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": "",
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def pre(tool: str = "Edit", **tool_input: Any) -> dict[str, Any]:
    return payload(
        "PreToolUse",
        tool_name=tool,
        tool_input=tool_input or {"file_path": "/x"},
        tool_use_id="toolu_1",
    )


def fire(project: HookProject, event: str, body: dict[str, Any]) -> Any:
    body = {**body, "cwd": body.get("cwd") or str(project.root)}
    return dispatch(event, body, project.settings(), project.root)


# -- exit 2 routing per event ----------------------------------------------------------------


def test_pretooluse_exit2_denies_with_stderr_as_reason(project: HookProject) -> None:
    project.hook("PreToolUse", 'echo "ignored stdout"; echo "status needs an audit" >&2; exit 2')
    out = fire(project, "PreToolUse", pre())
    assert out.blocked
    assert out.permission_decision == "deny"
    assert out.reason == "status needs an audit"


def test_posttooluse_exit2_shows_stderr_to_claude(project: HookProject) -> None:
    project.hook("PostToolUse", 'echo "UC-003 changed to Done" >&2; exit 2')
    out = fire(
        project,
        "PostToolUse",
        payload(
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "sed"},
            tool_response={"stdout": "", "stderr": "", "interrupted": False},
        ),
    )
    assert out.blocked and out.reason == "UC-003 changed to Done"
    assert out.permission_decision is None


def test_stop_exit2_is_the_instruction_for_claude(project: HookProject) -> None:
    project.hook("Stop", 'echo "run ./mvnw -q test -Dgroups=sensor" >&2; exit 2')
    out = fire(
        project, "Stop", payload("Stop", stop_hook_active=False, last_assistant_message="done")
    )
    assert out.blocked and out.reason == "run ./mvnw -q test -Dgroups=sensor"


def test_subagentstop_exit2_keeps_the_subagent_working(project: HookProject) -> None:
    project.hook("SubagentStop", 'echo "cover BR-002 too" >&2; exit 2')
    body = payload(
        "SubagentStop",
        agent_type="x",
        agent_id="a1",
        agent_transcript_path="/t",
        stop_hook_active=False,
    )
    out = fire(project, "SubagentStop", body)
    assert out.blocked and out.reason == "cover BR-002 too"


def test_userpromptsubmit_exit2_erases_prompt_and_tells_only_the_user(project: HookProject) -> None:
    project.hook("UserPromptSubmit", 'echo "no secrets in prompts" >&2; exit 2')
    out = fire(project, "UserPromptSubmit", payload("UserPromptSubmit", prompt="key=abc"))
    assert out.blocked
    assert out.user_messages == [
        "UserPromptSubmit operation blocked by hook:\n"
        '["$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"]: no secrets in prompts'
    ]
    assert out.messages == []  # nothing goes to Claude


def test_sessionstart_exit2_only_tells_the_user(project: HookProject) -> None:
    project.hook("SessionStart", 'echo "could not snapshot" >&2; exit 2')
    out = fire(project, "SessionStart", payload("SessionStart", source="startup"))
    assert not out.blocked
    assert out.user_messages == ["could not snapshot"]


# -- non-blocking errors and timeouts --------------------------------------------------------


@pytest.mark.parametrize("event", ["PreToolUse", "Stop"])
def test_exit1_is_a_non_blocking_error_with_the_first_stderr_line(
    project: HookProject, event: str
) -> None:
    project.hook(event, 'echo "first line" >&2; echo "second line" >&2; exit 1')
    body = pre() if event == "PreToolUse" else payload("Stop", stop_hook_active=False)
    out = fire(project, event, body)
    assert not out.blocked and out.permission_decision is None
    assert len(out.errors) == 1
    assert out.errors[0].endswith(": first line")


def test_missing_script_127_does_not_block(project: HookProject) -> None:
    project.register("PreToolUse", '"$CLAUDE_PROJECT_DIR/.claude/hooks/nope.sh"')
    out = fire(project, "PreToolUse", pre())
    assert out.runs[0].exit_code == 127
    assert not out.blocked
    assert out.errors[0].endswith("nope.sh: not found")  # /bin/sh's words


def test_hanging_hook_is_killed_at_its_timeout_without_blocking(
    project: HookProject, tmp_path: Path
) -> None:
    marker = tmp_path / "child-survived"
    pid_file = tmp_path / "child.pid"
    # The background child must die with the group too, or it would write the marker.
    project.hook(
        "Stop",
        f'(echo "$BASHPID" > "{pid_file}"; sleep 3; touch "{marker}") & '
        'echo "blocked" >&2; sleep 30; exit 2',
        timeout=1,
    )
    started = time.monotonic()
    out = fire(project, "Stop", payload("Stop", stop_hook_active=False))
    elapsed = time.monotonic() - started
    assert out.runs[0].timed_out and out.runs[0].exit_code is None
    assert not out.blocked and out.reason == ""
    assert out.runs[0].stderr == ""  # output discarded
    assert elapsed < 10
    # Not a 3.5 s sleep for the marker: the child is gone (or a zombie) once the group is
    # killed; one that survived would still be running its sleep, and then write the marker.
    if not pid_file.exists():  # killed before it said its pid (a loaded machine): the marker
        time.sleep(3.5)  # is then the only witness, as before
    else:
        assert not _running(int(pid_file.read_text())), "the hook's background child survived"
    assert not marker.exists()


def _running(pid: int, settle: float = 2.0) -> bool:
    """Whether ``pid`` still runs (a zombie does not), given ``settle`` s for a signal sent to
    its group to land."""
    deadline = time.monotonic() + settle
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state in ("Z", "X") or time.monotonic() > deadline:
            return state not in ("Z", "X")
        time.sleep(0.05)


# -- JSON output -----------------------------------------------------------------------------


def decision_hook(decision: str, reason: str) -> str:
    doc = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }
    return f"echo '{json.dumps(doc)}'"


@pytest.mark.parametrize(
    ("decisions", "winner"),
    [
        (["allow", "deny"], "deny"),
        (["allow", "ask", "defer"], "defer"),
        (["ask", "allow"], "ask"),
        (["allow", "allow"], "allow"),
        (["defer", "deny", "ask"], "deny"),
    ],
)
def test_permission_decision_precedence(
    project: HookProject, decisions: list[str], winner: str
) -> None:
    for i, decision in enumerate(decisions):
        project.hook("PreToolUse", decision_hook(decision, f"{decision} #{i}"))
    out = fire(project, "PreToolUse", pre())
    assert out.permission_decision == winner
    assert out.blocked is (winner == "deny")
    assert winner in out.permission_reason


def test_continue_false_wins_over_a_block(project: HookProject) -> None:
    project.hook("Stop", """echo '{"decision": "block", "reason": "keep going"}'""")
    project.hook("Stop", """echo '{"continue": false, "stopReason": "budget spent"}'""")
    out = fire(project, "Stop", payload("Stop", stop_hook_active=False))
    assert out.stopped and out.stop_reason == "budget spent"


def test_json_block_system_message_and_context(project: HookProject) -> None:
    project.hook(
        "PostToolUse",
        """echo '{"decision": "block", "reason": "lint failed",
      "systemMessage": "heads up", "hookSpecificOutput": {"hookEventName": "PostToolUse",
      "additionalContext": "see lint.log"}}'""",
    )
    out = fire(project, "PostToolUse", payload("PostToolUse", tool_name="Write"))
    assert out.blocked and out.reason == "lint failed"
    assert out.system_messages == ["heads up"]
    assert out.additional_context == ["see lint.log"]


def test_plain_stdout_is_context_only_for_sessionstart_and_prompt(project: HookProject) -> None:
    project.hook("UserPromptSubmit", "echo 'branch: main'")
    project.hook("Stop", "echo 'all good'")
    prompt = fire(project, "UserPromptSubmit", payload("UserPromptSubmit", prompt="hi"))
    stop = fire(project, "Stop", payload("Stop", stop_hook_active=False))
    assert prompt.additional_context == ["branch: main"]
    assert stop.additional_context == [] and stop.output == ["all good"]


def test_invalid_json_is_plain_output_with_a_note(project: HookProject) -> None:
    project.hook("SessionStart", "echo '{not json'")
    out = fire(project, "SessionStart", payload("SessionStart", source="startup"))
    assert out.additional_context == ["{not json"]
    assert "is not valid JSON" in out.notes[0]


def test_exit2_ignores_json_on_stdout(project: HookProject) -> None:
    project.hook("Stop", """echo '{"continue": false}'; echo "reason" >&2; exit 2""")
    out = fire(project, "Stop", payload("Stop", stop_hook_active=False))
    assert out.blocked and not out.stopped


def test_what_claude_is_sent_is_not_cut_but_the_run_record_is(project: HookProject) -> None:
    """The real client passed 20,000 characters of stderr on whole (differential case
    pretooluse-long-stderr-reaches-claude-whole); only the kept run record is capped."""
    project.hook("Stop", "head -c 125000 /dev/zero | tr '\\0' x >&2; exit 2")
    out = fire(project, "Stop", payload("Stop", stop_hook_active=False))
    assert len(out.reason) == OUTPUT_CAP
    assert out.reason.endswith("100,000 characters]")
    assert out.messages[0].count("x") == 125000
    assert len(out.runs[0].stderr) == OUTPUT_CAP


# -- matchers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matcher", "tool", "runs"),
    [
        ("Edit|Write", "Edit", True),
        ("Edit|Write", "MultiEdit", False),
        ("Edit, Write", "Write", True),
        ("Edit.*", "MultiEdit", True),  # a regex, searched anywhere in the name
        ("^Edit$", "MultiEdit", False),
        ("mcp__.*", "mcp__github__create_issue", True),
        ("mcp__.*", "Bash", False),
        ("*", "Anything", True),
        ("", "Anything", True),
        ("Bash", "BashOutput", False),
    ],
)
def test_tool_matchers(project: HookProject, matcher: str, tool: str, runs: bool) -> None:
    project.hook("PreToolUse", "exit 0", matcher=matcher)
    out = fire(project, "PreToolUse", pre(tool))
    assert bool(out.runs) is runs


def test_stop_and_prompt_ignore_matchers(project: HookProject) -> None:
    project.hook("Stop", "exit 0", matcher="NeverMatches")
    project.hook("UserPromptSubmit", "exit 0", matcher="NeverMatches")
    assert fire(project, "Stop", payload("Stop", stop_hook_active=False)).runs
    assert fire(project, "UserPromptSubmit", payload("UserPromptSubmit", prompt="x")).runs


def test_subagentstop_matches_agent_type_and_sessionstart_source(project: HookProject) -> None:
    project.hook("SubagentStop", "exit 0", matcher="aiup-vaadin-jooq:uc-coverage$")
    project.hook("SessionStart", "exit 0", matcher="startup|clear")
    hit = fire(
        project, "SubagentStop", payload("SubagentStop", agent_type="aiup-vaadin-jooq:uc-coverage")
    )
    miss = fire(
        project,
        "SubagentStop",
        payload("SubagentStop", agent_type="aiup-vaadin-jooq:uc-coverage-x"),
    )
    assert hit.runs and not miss.runs
    assert fire(project, "SessionStart", payload("SessionStart", source="clear")).runs
    assert not fire(project, "SessionStart", payload("SessionStart", source="resume")).runs


# -- execution -------------------------------------------------------------------------------


def test_matching_hooks_run_truly_in_parallel(project: HookProject, tmp_path: Path) -> None:
    stamps = tmp_path / "stamps"
    stamps.mkdir()
    for name in ("a", "b", "c"):
        project.hook(
            "Stop",
            f"""
            date +%s.%N > "{stamps}/{name}.start"
            sleep 0.5
            date +%s.%N > "{stamps}/{name}.end"
        """,
        )
    out = fire(project, "Stop", payload("Stop", stop_hook_active=False))
    assert len(out.runs) == 3
    spans = [
        (float((stamps / f"{n}.start").read_text()), float((stamps / f"{n}.end").read_text()))
        for n in ("a", "b", "c")
    ]
    # Every pair overlaps: each starts before the other ends.
    for s1, e1 in spans:
        for s2, e2 in spans:
            assert s1 < e2 and s2 < e1


def test_identical_commands_run_once(project: HookProject, tmp_path: Path) -> None:
    counter = tmp_path / "count"
    command = project.script(f'echo x >> "{counter}"')
    project.register("PostToolUse", command, matcher="Bash")
    project.register("PostToolUse", command)  # same string, another group
    out = fire(project, "PostToolUse", payload("PostToolUse", tool_name="Bash"))
    assert len(out.runs) == 1
    assert counter.read_text() == "x\n"


def test_environment_and_cwd(project: HookProject, tmp_path: Path) -> None:
    sub = project.root / "sub"
    sub.mkdir()
    dump = tmp_path / "env.txt"
    project.hook(
        "Stop",
        f"""
        input=$(cat)
        {{ echo "$CLAUDE_PROJECT_DIR"; pwd; echo "$input"; }} > "{dump}"
    """,
    )
    dispatch(
        Event.STOP,
        payload("Stop", stop_hook_active=True, cwd=str(sub)),
        project.settings(),
        project.root,
    )
    project_dir, cwd, stdin = dump.read_text().splitlines()
    assert project_dir == str(project.root)
    assert cwd == str(sub)
    body = json.loads(stdin)
    assert body["hook_event_name"] == "Stop" and body["stop_hook_active"] is True


def test_hooks_read_their_event_from_a_socket_as_in_claude_code(project: HookProject) -> None:
    """Claude Code (2.1.332) hands a hook its stdin as a Unix socket. A hook that can only read
    pipes must fail here as it fails there, or every test would pass for a dead hook."""
    project.hook(
        "Stop",
        """
        [ -S /dev/stdin ] && echo "socket" >&2
        input=$(</dev/stdin) || { echo "cannot open stdin" >&2; exit 2; }
        exit 0
    """,
    )
    out = fire(project, "Stop", payload("Stop", stop_hook_active=False))
    assert out.blocked
    assert out.reason.splitlines()[0] == "socket"
    assert "cannot open stdin" in out.reason


def test_no_matching_hooks_is_an_empty_outcome(project: HookProject) -> None:
    out = fire(project, "Stop", payload("Stop"))
    assert out.runs == [] and not out.blocked and not out.stopped
    assert repr(out) == "<EventOutcome Stop ok []>"
