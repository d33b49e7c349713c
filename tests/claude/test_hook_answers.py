"""The emulator's answers to what 2.1.332 was seen doing (each has a differential case that
compares it with the real client): PreCompact exit 2, PermissionRequest decisions, async
hooks speaking on a later step, a prompt hook's "no" outside Stop, StopFailure not awaited,
Notification when a permission prompt is left up."""

from __future__ import annotations

import time
from pathlib import Path

from harness.claude.judge import Judgement
from tests.builders import (
    PERMISSION_NOTIFICATION_KEYS,
    log_permission_notifications,
    logged_inputs,
)
from tests.claude.hookproject import HookProject


def test_a_precompact_exit_2_blocks_the_compaction(project: HookProject, tmp_path: Path) -> None:
    after = tmp_path / "after.log"
    project.hook("PreCompact", "cat >/dev/null; echo 'keep it all' >&2; exit 2")
    project.hook("PostCompact", f'cat >> "{after}"')
    project.hook("SessionStart", f'cat >> "{after}"', matcher="compact")
    with project.session() as session:
        session.session_start()
        step = session.session_start("compact")
    assert step.outcome == "blocked" and not after.exists()
    assert step.user_message.startswith("Compaction blocked by PreCompact hook: [")
    assert step.user_message.endswith("]: keep it all")


def test_a_permission_request_hook_answers_the_prompt(project: HookProject) -> None:
    project.hook(
        "PermissionRequest",
        """
        case "$(jq -r .tool_input.command)" in
        *deny*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest",
                 "decision":{"behavior":"deny","message":"not here"}}}';;
        *) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest",
                 "decision":{"behavior":"allow"}}}';;
        esac
        """,
    )
    with project.session() as session:
        allowed = session.bash("echo allow > a.txt")
        denied = session.bash("echo deny > d.txt")
    assert (allowed.outcome, allowed.tool_ran) == ("allowed", True)
    assert (denied.outcome, denied.tool_ran, denied.feedback) == ("blocked", False, "not here")
    assert not (project.root / "d.txt").exists()


def test_an_async_hook_speaks_with_the_step_after_it_ended(project: HookProject) -> None:
    project.register(
        "PostToolUse",
        project.script(
            "cat >/dev/null; sleep 0.5\n"
            """echo '{"systemMessage":"late","hookSpecificOutput":"""
            """{"hookEventName":"PostToolUse","additionalContext":"later"}}'"""
        ),
        matcher="Bash",
    )
    project.hooks["PostToolUse"][0]["hooks"][0]["async"] = True
    project.save()
    with project.session() as session:
        first = session.bash("echo one")
        time.sleep(1.5)
        second = session.bash("echo two")
    assert (first.feedback, second.feedback) == ("", "late\nlater")


def test_a_prompt_hooks_no_on_user_prompt_submit_stops_the_turn(project: HookProject) -> None:
    project.hooks["UserPromptSubmit"] = [{"hooks": [{"type": "prompt", "prompt": "On topic?"}]}]
    project.save()
    with project.session() as session:
        session.judgement = Judgement(ok=False, reason="off topic")
        step = session.prompt("Tell me a joke.")
    assert (step.outcome, step.turn_ended) == ("stopped", True)
    assert step.user_message == "Operation stopped by hook: off topic"


def test_stop_failure_hooks_are_not_awaited(project: HookProject, tmp_path: Path) -> None:
    woke = tmp_path / "woke"
    project.hook("StopFailure", f'cat >/dev/null; sleep 2; touch "{woke}"')
    with project.session() as session:
        started = time.monotonic()
        session.subagent_stop("reviewer", "review it", "a long answer", "max_tokens")
        took = time.monotonic() - started
    assert took < 1.5 and not woke.exists()


def test_an_agent_hooks_no_on_pre_tool_use_refuses_and_the_turn_goes_on(
    project: HookProject,
) -> None:
    project.hooks["PreToolUse"] = [{"hooks": [{"type": "agent", "prompt": "Safe?"}]}]
    project.save()
    with project.session() as session:
        session.judgement = Judgement(ok=False, reason="not this one")
        step = session.bash("echo hi")
    assert (step.outcome, step.tool_ran, step.turn_ended) == ("blocked", False, False)
    assert (
        step.feedback
        == "PreToolUse:Bash hook error: Agent hook condition was not met: not this one"
    )


def test_a_permission_prompt_left_up_fires_notification(
    project: HookProject, tmp_path: Path
) -> None:
    """Observed on 2.1.332: a prompt unanswered for 6 s fires Notification, matched on its
    notification_type; a prompt a PermissionRequest hook answers never stays up."""
    seen, idle = tmp_path / "seen.log", tmp_path / "idle.log"
    log_permission_notifications(project, seen)
    project.hook("Notification", f'cat >> "{idle}"', matcher="idle_prompt", name="idle.sh")
    project.hook(
        "PermissionRequest",
        """
        case "$(jq -r .tool_input.command)" in
        *allow*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest",
                 "decision":{"behavior":"allow"}}}';;
        esac
        """,
    )
    with project.session() as session:
        session.bash("echo allow > a.txt")
        step = session.bash("echo hi > out.txt")
    assert (step.outcome, step.tool_ran) == ("allowed", True)
    payloads = logged_inputs(seen)
    assert len(payloads) == 1 and not idle.exists()
    assert list(payloads[0]) == PERMISSION_NOTIFICATION_KEYS
    assert payloads[0]["message"] == "Claude needs your permission to use Bash"
    assert payloads[0]["notification_type"] == "permission_prompt"
