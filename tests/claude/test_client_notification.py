"""The simulated user of the real client leaves a permission prompt up until the Notification
it fires has been answered. The pinned client prints no line for a Notification hook's run, so
a user listening for one never heard it and waited out the hooks' whole timeout: here the
answer must be recognised (the step's note) and the hook's run be over when the user
answers."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.claude.client.turns import NOTIFIED
from harness.claude.engines import open_session
from tests.builders import log_permission_notifications, logged_inputs
from tests.claude.hookproject import HookProject
from tests.conftest import require_real_client


def test_the_user_answers_once_the_notification_hooks_have_answered(tmp_path: Path) -> None:
    require_real_client()
    project = HookProject(tmp_path / "project")
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    seen, idle = tmp_path / "seen.log", tmp_path / "idle.log"
    log_permission_notifications(project, seen)
    project.hook("Notification", f'cat >> "{idle}"', matcher="idle_prompt", name="idle.sh")
    with open_session("claude-code", project.root, transcript_dir=tmp_path / "t") as session:
        step = session.bash("echo hi > out.txt")
        assert (step.outcome, step.tool_ran) == ("allowed", True)
        assert NOTIFIED in step.notes, step.notes  # heard, not waited out
        payloads = logged_inputs(seen)  # its run is over before the user answered
        assert [p["notification_type"] for p in payloads] == ["permission_prompt"]
    assert not idle.exists()
