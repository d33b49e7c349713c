"""How long the simulated user of the real client leaves a permission prompt up.

Until the Notification it fires has been answered: the pinned client prints no line for a
Notification hook's run, so a user listening for one never heard it and waited out the hooks'
whole timeout; here the answer must be recognised (the step's note) and the hook's run be
over when the user answers. And no longer than the PermissionRequest hooks need: once they
answered without a decision, nobody else will answer it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.claude.client.turns import NOTIFIED, permission_decided
from harness.claude.engines import open_session
from tests.builders import logged_inputs
from tests.claude.hookproject import HookProject
from tests.conftest import require_real_client


def test_the_user_answers_once_the_notification_hooks_have_answered(tmp_path: Path) -> None:
    require_real_client()
    project = HookProject(tmp_path / "project")
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    seen, idle = tmp_path / "seen.log", tmp_path / "idle.log"
    project.hook("Notification", f'cat >> "{idle}"', matcher="idle_prompt", name="idle.sh")
    # Quick hooks, no sleep, no script, one whose shell gives way to cat (exec): the driver
    # reads each one's end in the client's debug log, where 2.1.332 writes it as the hook
    # ends. (Watching the client's children for the command every 20 ms missed them, and the
    # wait ran out.)
    project.register("Notification", f'exec cat >> "{seen}"', matcher="permission_prompt")
    project.register("Notification", "true", matcher="permission_prompt")
    with open_session("claude-code", project.root, transcript_dir=tmp_path / "t") as session:
        step = session.bash("echo hi > out.txt")
        assert (step.outcome, step.tool_ran) == ("allowed", True)
        assert NOTIFIED in step.notes, step.notes  # heard, not waited out
        payloads = logged_inputs(seen)  # its run is over before the user answered
        assert [p["notification_type"] for p in payloads] == ["permission_prompt"]
    assert not idle.exists()


@pytest.mark.parametrize(
    ("answer", "decided"),
    [
        ({"exit_code": 0, "stdout": ""}, False),  # passed: the prompt stays up
        ({"exit_code": 1, "stdout": "", "stderr": "oops"}, False),  # an error is no answer
        ({"exit_code": 0, "stdout": '{"continue": true}'}, False),
        ({"exit_code": 0, "stdout": "not json"}, False),
        ({"exit_code": 2, "stderr": "no"}, True),  # deny
        (
            {
                "exit_code": 0,
                "stdout": '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", '
                '"decision": {"behavior": "allow"}}}\n',
            },
            True,
        ),
    ],
)
def test_a_permission_request_hook_that_passes_leaves_the_prompt_to_the_user(
    answer: dict[str, object], decided: bool
) -> None:
    """The user answers a prompt at once when the PermissionRequest hooks have answered
    without a decision (they waited 2 s for a withdrawal that never comes: 18 of a guard's
    20 cases did), and waits for the client's withdrawal when one decided."""
    line = {"type": "system", "subtype": "hook_response", "hook_event": "PermissionRequest"}
    assert permission_decided({**line, **answer}) is decided
