"""The pure reader of what the real client said, on the shapes the pinned client sends.

The shapes here are copied from the client's own output (stream-json lines and permission
requests seen on Claude Code 2.1.332); the end-to-end proof is the differential suite, which
reads them off the running client."""

from __future__ import annotations

from typing import Any

import pytest

from harness.claude.client.reading import (
    RECORDER_MARK,
    StepLog,
    hook_messages,
    read_prompt,
    read_stop_end,
)
from harness.claude.ladder import UNANSWERED_PROMPT
from harness.claude.vocabulary import Outcome, Permission


@pytest.mark.parametrize(
    ("reason_type", "auto_approve", "permission", "allow", "asked"),
    [
        ("rule", False, Permission.ASK_RULE, False, True),
        ("rule", True, Permission.ASK_RULE, True, True),
        ("hook", False, Permission.ASK, False, True),
        ("safetyCheck", True, Permission.ASK_SENSITIVE, True, True),
        ("", False, Permission.PROMPTED, True, False),  # the usual prompt: approved
        ("mode", False, Permission.PROMPTED, True, False),
    ],
)
def test_a_permission_prompt_and_its_answer(
    reason_type: str, auto_approve: bool, permission: Permission, allow: bool, asked: bool
) -> None:
    request = {
        "subtype": "can_use_tool",
        "decision_reason_type": reason_type,
        "decision_reason": "why",
        "input": {"command": "ls"},
    }
    read = read_prompt(request, auto_approve)
    assert (read.permission, read.allow, read.asked) == (permission, allow, asked)
    answer = read.response(request)
    if allow:
        assert answer == {"behavior": "allow", "updatedInput": {"command": "ls"}}
    else:
        assert answer == {"behavior": "deny", "message": UNANSWERED_PROMPT}


def hook_response(event: str, exit_code: int, stderr: str = "") -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "hook_response",
        "hook_event": event,
        "hook_name": event,
        "exit_code": exit_code,
        "stdout": "",
        "stderr": stderr,
        "outcome": "success" if exit_code == 0 else "error",
    }


def test_the_payload_recorder_is_not_one_of_the_projects_hooks() -> None:
    log = StepLog([hook_response("Stop", 0, RECORDER_MARK + "\n"), hook_response("Stop", 2, "no")])
    assert [(r.event, r.exit_code, r.stderr) for r in log.hook_runs()] == [("Stop", 2, "no")]


@pytest.mark.parametrize(
    ("events", "result", "outcome"),
    [
        ([], {"terminal_reason": "hook_stopped"}, Outcome.STOPPED),
        ([hook_response("Stop", 2, "no")], {}, Outcome.BLOCKED),
        (
            [{"subtype": "informational", "content": "blocked 9 consecutive times"}],
            {},
            Outcome.BLOCKED,
        ),
        ([hook_response("Stop", 0)], {}, Outcome.ALLOWED),
        ([hook_response("Stop", 0, RECORDER_MARK)], {}, Outcome.ALLOWED),
    ],
)
def test_how_a_stop_that_ended_the_turn_went(
    events: list[dict[str, Any]], result: dict[str, Any], outcome: Outcome
) -> None:
    assert read_stop_end(StepLog(events), result) is outcome


def test_hook_messages_lose_the_reminder_wrapping() -> None:
    text = (
        "<system-reminder>\nThe text below is the output of a hook\n"
        "Stop hook feedback:\nrun the sensors\n</system-reminder>"
    )
    assert hook_messages(text) == ["Stop hook feedback:\nrun the sensors"]
    assert hook_messages("an ordinary user message") == []
