"""Notification in an interactive session, as a person meets it: plain ``claude`` in tmux
(tests/engine/terminal.py) in a project whose settings register a Notification hook that logs
its stdin, the scripted model on 127.0.0.1 asking for a Bash call that a PreToolUse hook sends
to the permission prompt, and nobody answering that prompt for a while.

Seen on 2.1.332: about 6 s after the prompt shows, Notification fires with
``notification_type: permission_prompt`` and the message "Claude needs your permission" (in
``-p`` with the stdio prompt tool the message names the tool: the differential case
notification-permission-prompt), with no ``title``, ``permission_mode`` or ``effort``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from tests.builders import (
    PERMISSION_NOTIFICATION_KEYS,
    log_permission_notifications,
    logged_inputs,
)
from tests.claude.hookproject import HookProject
from tests.conftest import require_real_client
from tests.engine.terminal import Terminal, fresh_home

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

ASK = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "ask",
        "permissionDecisionReason": "look at this first",
    }
}
AUTO_MODE_NOTICES = ("Enter to stay in auto mode", "Enter to continue · Esc to cancel")


def _project(root: Path, log: Path) -> None:
    project = HookProject(root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    log_permission_notifications(project, log)
    project.hook("PreToolUse", f"cat >/dev/null\necho '{json.dumps(ASK)}'", matcher="Bash")


def test_a_prompt_left_up_fires_notification_in_an_interactive_session(tmp_path: Path) -> None:
    require_real_client()
    root, log = tmp_path / "project", tmp_path / "notification.jsonl"
    _project(root, log)
    turns = [
        Reply.tool_use("toolu_1", "Bash", {"command": "echo hi > out.txt", "description": "hi"}),
        Reply.text("Done."),
    ]

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    with ScriptedApi(on_request=answer) as api:
        terminal = Terminal(root, fresh_home(tmp_path), tmp_path, api.base_url)
        try:
            terminal.claude("Write hi into out.txt.")
            terminal.wait("look at this first", timeout=120, enter_on=AUTO_MODE_NOTICES)
            shown = time.monotonic()
            assert not log.exists()  # not at once: the prompt has to wait
            while not log.exists() and time.monotonic() - shown < 30:
                time.sleep(0.2)
            waited = time.monotonic() - shown
            terminal.choose("Yes")
            terminal.quit_claude()
        finally:
            terminal.close()
            (tmp_path / "screens.txt").write_text(terminal.transcript())
    payloads = logged_inputs(log)
    assert len(payloads) == 1, payloads
    assert 3 < waited < 15, waited
    (payload,) = payloads
    assert list(payload) == PERMISSION_NOTIFICATION_KEYS
    assert payload["message"] == "Claude needs your permission"
    assert payload["notification_type"] == "permission_prompt"
    assert (root / "out.txt").read_text() == "hi\n"
