"""EmulatedSession: tools that act for real, permission rules, the stop loop, transcripts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from harness.claude import STOP_BLOCK_CAP
from harness.claude.ladder import DENIED_PATH
from tests.claude.hookproject import HookProject

ASK = (
    """echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", """
    """"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}'"""
)


def test_edit_allowed_changes_the_file_and_hooks_see_the_documented_input(
    project: HookProject, tmp_path: Path
) -> None:
    spec = project.file("docs/uc.md", "**Status:** Approved\n")
    seen = tmp_path / "seen.json"
    project.hook("PreToolUse", f'cat > "{seen}"', matcher="Edit|Write")
    with project.session() as session:
        step = session.edit("docs/uc.md", "Approved", "Done")
    assert (step.outcome, step.tool_ran) == ("allowed", True)
    assert spec.read_text() == "**Status:** Done\n"
    body = json.loads(seen.read_text())
    assert body["tool_name"] == "Edit"
    assert body["tool_input"] == {
        "file_path": str(spec),
        "old_string": "Approved",
        "new_string": "Done",
        "replace_all": False,
    }
    assert body["tool_use_id"].startswith("toolu_")
    assert body["cwd"] == str(project.root) and body["permission_mode"] == "default"
    assert body["session_id"] == session.session_id
    assert body["transcript_path"] == str(session.transcript_path)


def test_pretooluse_block_leaves_the_file_unchanged(project: HookProject) -> None:
    spec = project.file("docs/uc.md", "**Status:** Approved\n")
    project.hook(
        "PreToolUse", 'echo "audit first: coverage-check UC-003" >&2; exit 2', matcher="Edit|Write"
    )
    with project.session() as session:
        step = session.edit("docs/uc.md", "Approved", "Done")
    assert (step.outcome, step.tool_ran) == ("blocked", False)
    assert step.feedback == (
        "PreToolUse:Edit hook error: "
        '["$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"]: audit first: coverage-check UC-003\n'
    )
    assert spec.read_text() == "**Status:** Approved\n"


def test_deny_rule_refuses_before_any_hook_runs(project: HookProject, tmp_path: Path) -> None:
    report = project.file("target/surefire-reports/TEST-x.xml", "<old/>")
    ran = tmp_path / "hook-ran"
    project.hook("PreToolUse", f'touch "{ran}"')
    project.permit("deny", "Edit(target/**)")  # an Edit path rule covers Write too
    with project.session() as session:
        edit = session.edit("target/surefire-reports/TEST-x.xml", "<old/>", "<green/>")
        write = session.write("target/surefire-reports/TEST-y.xml", "<green/>")
    for step in (edit, write):
        assert (step.outcome, step.tool_ran, step.permission) == ("blocked", False, "deny-rule")
        assert step.feedback == DENIED_PATH and step.hooks == []
    assert report.read_text() == "<old/>"
    assert not (report.parent / "TEST-y.xml").exists()
    assert not ran.exists()


def test_deny_rule_on_bash(project: HookProject, tmp_path: Path) -> None:
    victim = project.file("build/keep.txt", "x")
    project.permit("deny", "Bash(rm -rf:*)")
    with project.session() as session:
        step = session.bash("rm -rf build")
    assert step.outcome == "blocked" and victim.exists()


def test_ask_is_recorded_and_the_tool_does_not_run(project: HookProject) -> None:
    project.hook("PreToolUse", ASK)
    with project.session() as session:
        step = session.write("new.txt", "x")
    assert (step.outcome, step.tool_ran, step.permission) == ("asked", False, "ask")
    assert step.user_message == "sure?"
    assert not (project.root / "new.txt").exists()


def test_ask_with_auto_approve_runs_the_tool(project: HookProject) -> None:
    project.hook("PreToolUse", ASK)
    with project.session(auto_approve=True) as session:
        step = session.write("new.txt", "x")
    assert (step.outcome, step.tool_ran) == ("asked", True)
    assert (project.root / "new.txt").read_text() == "x"


def test_allow_rule_is_recorded(project: HookProject) -> None:
    project.permit("allow", "Bash(echo:*)")
    with project.session() as session:
        allowed = session.bash("echo hi")
        prompted = session.bash("printf hi")
    assert allowed.permission == "allow-rule" and prompted.permission == "prompted"
    assert allowed.tool_response is not None and allowed.tool_response["stdout"] == "hi\n"


def test_edit_fails_like_claude_when_old_string_is_missing_or_ambiguous(
    project: HookProject,
) -> None:
    target = project.file("a.txt", "x x\n")
    project.hook("PreToolUse", "exit 0")
    with project.session() as session:
        missing = session.edit("a.txt", "y", "z")
        ambiguous = session.edit("a.txt", "x", "z")
        everywhere = session.edit("a.txt", "x", "z", replace_all=True)
    assert (missing.outcome, missing.tool_ran) == ("error", False)
    assert "String to replace not found in file." in missing.feedback
    assert "Found 2 matches of the string to replace, but replace_all is false" in (
        ambiguous.feedback
    )
    assert everywhere.outcome == "allowed" and target.read_text() == "z z\n"
    assert [h.event for h in everywhere.hooks] == ["PreToolUse"]
    assert missing.hooks == [] and ambiguous.hooks == []


def test_bash_runs_for_real_and_posttooluse_sees_the_response(
    project: HookProject, tmp_path: Path
) -> None:
    seen = tmp_path / "post.json"
    project.hook("PostToolUse", f'cat > "{seen}"', matcher="Bash")
    with project.session() as session:
        step = session.bash("echo out; echo err >&2; touch made.txt")
    assert step.tool_ran and (project.root / "made.txt").exists()
    body = json.loads(seen.read_text())
    assert body["hook_event_name"] == "PostToolUse"
    assert body["tool_response"] == {
        "stdout": "out\n",
        "stderr": "err\n",
        "interrupted": False,
        "isImage": False,
    }
    assert body["tool_input"]["command"].startswith("echo out")


def test_a_failing_bash_fires_posttoolusefailure_not_posttooluse(
    project: HookProject, tmp_path: Path
) -> None:
    post, failure = tmp_path / "post.json", tmp_path / "failure.json"
    project.hook("PostToolUse", f'cat > "{post}"', matcher="Bash")
    project.hook("PostToolUseFailure", f'cat > "{failure}"', matcher="Bash")
    with project.session() as session:
        step = session.bash("echo out; echo err >&2; touch made.txt; exit 3")
    assert step.tool_ran and (project.root / "made.txt").exists()
    assert "Exit code 3" in step.tool_result
    assert not post.exists()
    body = json.loads(failure.read_text())
    assert body["hook_event_name"] == "PostToolUseFailure"
    assert "Exit code 3" in body["error"] and body["is_interrupt"] is False
    assert "tool_response" not in body
    assert [h.event for h in step.hooks] == ["PostToolUseFailure"]


def test_posttoolusefailure_exit_2_is_shown_to_claude(project: HookProject) -> None:
    project.hook("PostToolUseFailure", 'echo "the sensors are red: read the report" >&2; exit 2')
    with project.session() as session:
        step = session.bash("exit 1")
    assert (step.outcome, step.tool_ran) == ("blocked", True)
    command = '"$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"'
    assert step.feedback == (
        f'PostToolUseFailure:Bash hook blocking error from command: "{command}": '
        f"[{command}]: the sensors are red: read the report\n"
    )


def test_bash_timeout_interrupts(project: HookProject) -> None:
    with project.session() as session:
        step = session.bash("sleep 20", timeout=0.5)
    assert step.tool_response is not None and step.tool_response["interrupted"] is True


def test_background_bash_returns_at_once_with_an_id(project: HookProject) -> None:
    with project.session() as session:
        step = session.bash("sleep 2; touch bg-done", background=True)
        assert step.tool_response is not None
        shell_id = step.tool_response["backgroundTaskId"]
        assert not (project.root / "bg-done").exists()
        assert session.background[shell_id].wait(10) == 0
    assert (project.root / "bg-done").exists()


def test_posttooluse_block_reports_to_claude_after_the_tool_ran(project: HookProject) -> None:
    project.hook("PostToolUse", 'echo "UC-003 Status changed to Done without audit" >&2; exit 2')
    with project.session() as session:
        step = session.bash("echo changed > spec.md")
    assert (step.outcome, step.tool_ran) == ("blocked", True)
    command = '"$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"'
    assert step.feedback == (
        f'PostToolUse:Bash hook blocking error from command: "{command}": '
        f"[{command}]: UC-003 Status changed to Done without audit\n"
    )
    assert (project.root / "spec.md").exists()


def test_continue_false_stops_before_the_tool(project: HookProject) -> None:
    project.hook("PreToolUse", """echo '{"continue": false, "stopReason": "halt"}'""")
    with project.session() as session:
        step = session.write("x.txt", "x")
    assert (step.outcome, step.tool_ran, step.turn_ended) == ("stopped", False, True)
    assert step.user_message == "halt"
    assert not (project.root / "x.txt").exists()


def test_prompt_blocked_by_exit2(project: HookProject) -> None:
    project.hook("UserPromptSubmit", 'echo "no" >&2; exit 2')
    with project.session() as session:
        step = session.prompt("hello")
    assert step.outcome == "blocked" and step.feedback == ""
    assert step.user_message == (
        "UserPromptSubmit operation blocked by hook:\n"
        '["$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"]: no\n\n\nOriginal prompt: hello'
    )
    entries = [json.loads(line) for line in session.transcript_path.read_text().splitlines()]
    assert not [e for e in entries if e["type"] == "user"]  # the prompt was erased


def test_session_start_stdout_becomes_context(project: HookProject) -> None:
    project.hook("SessionStart", "echo 'base: abc123'", matcher="startup|clear")
    with project.session() as session:
        started = session.session_start("startup")
        resumed = session.session_start("resume")
    assert started.additional_context == "base: abc123"
    assert resumed.hooks == []


# -- stop loop -------------------------------------------------------------------------------


def test_stop_hook_active_after_a_block_and_cleared_after_a_pass(
    project: HookProject, tmp_path: Path
) -> None:
    flag = tmp_path / "let-go"
    project.hook(
        "Stop",
        f"""
        input=$(cat)
        [ -e "{flag}" ] && exit 0
        echo "run the sensors" >&2; exit 2
    """,
    )
    with project.session() as session:
        first = session.stop("done")
        second = session.stop("done")
        flag.touch()
        third = session.stop("done")
        fourth = session.stop("done")
    assert (first.outcome, first.stop_hook_active, first.turn_ended) == ("blocked", False, False)
    assert first.feedback == (
        'Stop hook feedback:\n["$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"]: run the sensors\n'
    )
    assert (second.outcome, second.stop_hook_active) == ("blocked", True)
    assert (third.outcome, third.stop_hook_active, third.turn_ended) == ("allowed", True, True)
    assert fourth.stop_hook_active is False


def test_ninth_consecutive_block_is_overridden_and_a_prompt_resets(project: HookProject) -> None:
    """Claude Code (2.1.332) honours eight blocks in a row and overrides the ninth, telling
    Claude nothing of it (differential case stop-block-cap-nine)."""
    project.hook("Stop", 'echo "never" >&2; exit 2')
    with project.session() as session:
        steps = [session.stop() for _ in range(STOP_BLOCK_CAP)]
        assert [s.turn_ended for s in steps] == [False] * (STOP_BLOCK_CAP - 1) + [True]
        assert all(s.outcome == "blocked" for s in steps)
        assert steps[-1].notes[0].startswith("A hook blocked the turn from ending 9 consecutive")
        assert steps[-1].feedback == "" and steps[-2].feedback.startswith("Stop hook feedback:")
        after_cap = session.stop()
        assert after_cap.stop_hook_active is False and not after_cap.turn_ended
        for _ in range(3):
            session.stop()
        session.prompt("next task")
        again = [session.stop() for _ in range(STOP_BLOCK_CAP)]
    assert again[0].stop_hook_active is False
    assert [s.turn_ended for s in again].index(True) == STOP_BLOCK_CAP - 1


# -- subagents and transcripts ---------------------------------------------------------------


def test_subagent_stop_writes_the_agent_transcript(project: HookProject, tmp_path: Path) -> None:
    seen = tmp_path / "sub.json"
    project.hook("SubagentStop", f'cat > "{seen}"', matcher="aiup-vaadin-jooq:uc-coverage$")
    with project.session() as session:
        step = session.subagent_stop(
            "aiup-vaadin-jooq:uc-coverage",
            "coverage-check UC-003",
            "UC-003 fully covered",
        )
    assert step.outcome == "allowed" and len(step.hooks) == 1
    body = json.loads(seen.read_text())
    assert body["agent_type"] == "aiup-vaadin-jooq:uc-coverage"
    assert body["last_assistant_message"] == "UC-003 fully covered"
    assert body["stop_hook_active"] is False and body["agent_id"]
    lines = Path(body["agent_transcript_path"]).read_text().splitlines()
    assert json.loads(lines[0]) == {
        "type": "user",
        "message": {"role": "user", "content": "coverage-check UC-003"},
    }
    assert json.loads(lines[-1]) == {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "UC-003 fully covered"}],
            "stop_reason": "end_turn",
        },
    }


def test_a_subagent_cut_off_by_max_tokens_sends_no_subagent_stop(
    project: HookProject, tmp_path: Path
) -> None:
    """Observed on 2.1.332 (differential case subagent-max-tokens-stop-failure): the client
    ends such a subagent with an API error: StopFailure, no SubagentStop, the Agent call
    fails."""
    stopped = tmp_path / "stopped.json"
    failed = tmp_path / "failed.json"
    project.hook("SubagentStop", f'cat > "{stopped}"')
    project.hook("StopFailure", f'cat > "{failed}"')
    with project.session() as session:
        step = session.subagent_stop("reviewer", "review it", "a long answer", "max_tokens")
    assert step.outcome == "allowed" and not stopped.exists()
    assert step.tool_result.startswith("Agent terminated early due to an API error: API Error: ")
    for _ in range(100):  # the client does not wait for StopFailure hooks; nor does this
        if failed.is_file() and failed.read_text().endswith("}"):
            break
        time.sleep(0.1)
    body = json.loads(failed.read_text())
    assert (body["error"], body["agent_type"]) == ("max_output_tokens", "reviewer")
    assert "permission_mode" not in body and body["effort"] == {"level": "medium"}


def test_blocked_subagent_continues_with_stop_hook_active(project: HookProject) -> None:
    project.hook(
        "SubagentStop",
        """
        input=$(cat)
        case "$input" in *'"stop_hook_active":true'*) exit 0;; esac
        echo "cover BR-002" >&2; exit 2
    """,
    )
    with project.session() as session:
        first = session.subagent_stop("reviewer", "review", "ok")
        second = session.subagent_stop("reviewer", "review", "ok, BR-002 too")
    assert (first.outcome, first.feedback) == (
        "blocked",
        'Stop hook feedback:\n["$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"]: cover BR-002\n',
    )
    assert (second.outcome, second.stop_hook_active) == ("allowed", True)


def test_transcript_records_prompts_tools_and_a_hooks_refusal(project: HookProject) -> None:
    project.hook("PreToolUse", 'echo "nope" >&2; exit 2', matcher="Write")
    with project.session() as session:
        session.prompt("please write")
        session.write("x.txt", "x")
        session.bash("echo hi")
    entries = [json.loads(line) for line in session.transcript_path.read_text().splitlines()]
    kinds = [(e["type"], e.get("subtype")) for e in entries]
    assert kinds[0] == ("user", None) and entries[0]["message"]["content"] == "please write"
    blocks = [
        e["message"]["content"][0]
        for e in entries
        if e["type"] != "system" and isinstance(e["message"]["content"], list)
    ]
    assert [b["type"] for b in blocks] == ["tool_use", "tool_result", "tool_use", "tool_result"]
    refusal = 'PreToolUse:Write hook error: ["$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"]: nope\n'
    assert blocks[1]["is_error"] is True and blocks[1]["content"] == refusal
    assert blocks[3]["content"] == "hi"
    # the refusal is recorded as the pinned client records it: on the result's line
    (refused,) = [e for e in entries if "permissionDecision" in e]
    assert refused["message"]["content"][0] is blocks[1]
    assert refused["permissionDecision"] == {
        "decision": "reject",
        "source": "hook",
        "reasonType": "hook",
        "reasonCode": "hook:PreToolUse",
    }
    assert not str(session.transcript_path).startswith(str(project.root))


def test_step_outcome_repr_and_json(project: HookProject) -> None:
    project.hook("Stop", 'echo "why" >&2; exit 2')
    with project.session() as session:
        step = session.stop()
    assert repr(step) == (
        "<StepOutcome 1 stop blocked feedback="
        + repr('Stop hook feedback:\n["$CLAUDE_PROJECT_DIR/.claude/hooks/hook')
        + ">"
    )
    data = step.to_json()
    assert data["hooks"][0]["exit_code"] == 2 and data["stop_hook_active"] is False
    json.dumps(data)


def test_a_session_removes_the_transcript_folder_it_made_and_keeps_one_it_was_given(
    project: HookProject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.claude import EmulatedSession

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("HOOKLAB_SCRATCH", str(scratch))
    with EmulatedSession(project.root) as own:
        own.prompt("Look.")
        own.stop()
        assert own.transcript_path.is_file() and own.transcript_path.is_relative_to(scratch)
    assert list(scratch.iterdir()) == []  # it may sit in memory (/dev/shm): nothing is left

    given = tmp_path / "given"
    with EmulatedSession(project.root, transcript_dir=given) as kept:
        kept.prompt("Look.")
        kept.stop()
    assert kept.transcript_path.is_file() and kept.transcript_path.parent == given


def test_session_without_settings_file_is_a_clear_error(tmp_path: Path) -> None:
    from harness.claude import EmulatedSession
    from harness.errors import HarnessError

    with pytest.raises(HarnessError, match=r"settings\.json does not exist"):
        EmulatedSession(tmp_path)


def test_read_and_tools_the_client_lacks_answer_the_same_on_both_engines(
    engine: str, project: HookProject, tmp_path: Path
) -> None:
    from harness.claude.engines import open_session

    project.file("docs/uc.md", "# UC\n**Status:** Approved\n")
    seen = tmp_path / "seen.jsonl"
    project.hook("PostToolUse", f'cat >> "{seen}"; echo >> "{seen}"')
    with open_session(engine, project.root, transcript_dir=tmp_path / "t") as session:
        session.prompt("Look.")
        read = session.tool("Read", {"file_path": "docs/uc.md"})
        grep = session.tool("Grep", {"pattern": "Status"})
        multi = session.tool("MultiEdit", {"file_path": "docs/uc.md", "edits": []})
    assert (read.outcome, read.tool_ran) == ("allowed", True)
    assert read.tool_result == "1\t# UC\n2\t**Status:** Approved\n3\t"  # as 2.1.332 numbers it
    body = json.loads(seen.read_text().splitlines()[0])
    assert body["tool_name"] == "Read"
    assert body["tool_input"] == {"file_path": str(project.root / "docs/uc.md")}
    assert body["tool_response"]["file"]["numLines"] == 3
    assert grep.outcome == multi.outcome == "error"
    assert grep.feedback.startswith("<tool_use_error>Error: No such tool available: Grep.")
    assert (
        multi.feedback
        == "<tool_use_error>Error: No such tool available: MultiEdit</tool_use_error>"
    )
    assert (
        len([x for x in seen.read_text().splitlines() if x.strip()]) == 1
    )  # only Read's: none ran for Grep, MultiEdit


def test_websearch_and_an_mcp_tool_the_project_lacks_answer_the_steps_result_on_both_engines(
    engine: str, project: HookProject, tmp_path: Path
) -> None:
    """Nothing is searched and no server of the project's is needed: the scripted model
    answers the search, and Hook Lab's own MCP server (offered before the session starts)
    answers the MCP call, on the real client; the emulator gives the same to the hooks."""
    from harness.claude.engines import open_session

    seen = tmp_path / "seen.jsonl"
    project.hook("PostToolUse", f'cat >> "{seen}"; echo >> "{seen}"', matcher="Web.*|mcp__.*")
    with open_session(engine, project.root, transcript_dir=tmp_path / "t") as session:
        session.offer_tools(["mcp__github__create_issue"])
        session.prompt("Look.")
        search = session.tool("WebSearch", {"query": "hooks"}, "Hooks run commands.")
        issue = session.tool("mcp__github__create_issue", {"title": "bug"}, "issue 7")
        absent = session.tool("mcp__github__close_issue", {"number": 7}, "closed")
    assert (search.outcome, search.tool_ran, search.permission) == ("allowed", True, "prompted")
    assert search.tool_result.startswith('Web search results for query: "hooks"\n\nHooks run')
    assert (issue.tool_ran, issue.tool_result, issue.permission) == (True, "issue 7", "prompted")
    assert absent.outcome == "error"  # not offered: the client has no such tool
    assert "No such tool available: mcp__github__close_issue" in absent.feedback
    bodies = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert [b["tool_name"] for b in bodies] == ["WebSearch", "mcp__github__create_issue"]
    assert bodies[0]["tool_response"]["results"] == ["Hooks run commands."]
    assert bodies[1]["tool_response"] == [{"type": "text", "text": "issue 7"}]
    assert bodies[1]["mcp_server"] == {"name": "github", "source": "dynamic"}


@pytest.mark.parametrize(
    ("command", "unasked"),
    [
        ("ls -la", True),
        ("cat docs/uc.md", True),
        ("grep -n Status docs/uc.md", True),
        ("echo hi", True),
        ("cat a > b", False),
        ("ls | wc -l", False),
        ("echo $(rm -rf x)", False),
        ("touch b", False),
    ],
)
def test_a_lone_read_only_command_runs_unasked(command: str, unasked: bool) -> None:
    from harness.claude.tools import read_only_command

    assert read_only_command(command) is unasked


def test_a_tool_the_emulator_does_not_imitate_is_refused_naming_what_it_plays(
    project: HookProject,
) -> None:
    from harness.errors import HarnessError

    with project.session() as session, pytest.raises(HarnessError) as refused:
        session.tool("NotebookEdit", {"notebook_path": "nb.ipynb", "new_source": "x"})
    assert "does not play the NotebookEdit tool; it plays Read, WebFetch, WebSearch" in str(
        refused.value
    )
