"""Lab 11 step 4 as a person takes it: the interactive client, in tmux, started as the step says
(``claude`` in the workspace root, no flags), a fresh HOME holding only what a first run leaves
(onboarding done), the folder's trust and the dummy key accepted on screen, auto mode as the
client sets it. The model is Hook Lab's scripted one on 127.0.0.1 (``ANTHROPIC_BASE_URL``),
answering as a model would: it tries Done, runs the audit agent, waits for its report, sets
Done again, runs the sensors and ends. Then ``lab check`` passes the step as live.

Seen on 2.1.332 here: through a base URL that is not Anthropic's, auto mode cannot check
actions and asks before the agent's launch; the agent runs in the background and ends by
handing its report back (SubagentHandback).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.install import find_client
from tests.builders import run_cli, tmux
from tests.engine.live_steps import ReachStep
from tests.recorded_sessions import (
    APPROVED,
    ASK_DONE,
    AUDIT_PROMPT,
    AUDIT_REPORT,
    AUDITOR,
    DONE,
    SENSORS,
    UC5,
    copy_workspace_into,
)

pytestmark = [
    pytest.mark.maven,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]


class _Model:
    """The scripted model: the main loop's turns in order; the audit agent hands back its
    report (what the interactive client tells an agent to do)."""

    def __init__(self, root: Path) -> None:
        spec = str(root / UC5)
        edit = {"file_path": spec, "old_string": APPROVED, "new_string": DONE}
        agent = {"description": "audit UC-005", "prompt": AUDIT_PROMPT, "subagent_type": AUDITOR}
        bash = {"command": SENSORS, "description": "run the sensors", "timeout": 300000}
        self.turns: list[Reply] = [
            Reply.tool_use("toolu_1", "Edit", edit),
            Reply.tool_use("toolu_2", "Agent", agent),
            Reply.text("The audit runs; I wait for its report."),
            Reply.tool_use("toolu_3", "Edit", edit),
            Reply.tool_use("toolu_4", "Bash", bash),
            Reply.text("UC-005 is Done: audited, and all five sensors are green."),
        ]

    def answer(self, request: ApiRequest) -> None:
        if AUDIT_PROMPT in json.dumps(request.messages[:1]):
            handback = {"message": AUDIT_REPORT}
            ScriptedApi.answer(request, Reply.tool_use("toolu_h", "SubagentHandback", handback))
        else:
            ScriptedApi.answer(request, self.turns.pop(0) if self.turns else Reply.text("Done."))


def _wait_for(screen: Callable[[], str], text: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    shown = ""
    while time.monotonic() < deadline:
        shown = screen()
        if text in shown:
            return shown
        time.sleep(0.3)
    raise AssertionError(f"{text!r} did not appear; the screen:\n{shown}")


@pytest.fixture(scope="module")
def at_step_four(workspace_at_step: ReachStep) -> Path:
    return workspace_at_step("11-try-it-yourself", "earn-done")


def test_the_interactive_client_passes_lab_11_step_4_live(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = find_client()
    assert client is not None
    root = copy_workspace_into(at_step_four, tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text('{"hasCompletedOnboarding": true}')
    socket = tmp_path / "tmux.sock"
    model = _Model(root)
    with ScriptedApi(on_request=model.answer) as api:
        env = {
            "HOME": str(home),
            "PATH": os.environ["PATH"],
            "TERM": "xterm-256color",
            "ANTHROPIC_BASE_URL": api.base_url,
            "ANTHROPIC_API_KEY": "hooklab-dummy-key",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        command = "env -i " + " ".join(f"{k}='{v}'" for k, v in env.items()) + f" {client.path}"
        tmux(
            socket,
            "new-session",
            "-d",
            "-s",
            "p",
            "-x",
            "150",
            "-y",
            "60",
            "-c",
            str(root),
            command,
        )

        def screen() -> str:
            return tmux(socket, "capture-pane", "-p", "-t", "p", check=False)

        def keys(*sent: str) -> None:
            for key in sent:
                tmux(socket, "send-keys", "-t", "p", key)
                time.sleep(0.3)

        try:
            _wait_for(screen, "Yes, I trust this folder")
            keys("Down", "Enter")
            _wait_for(screen, "Do you want to use this API key?")
            keys("Up", "Enter")
            _wait_for(screen, "auto mode on")
            time.sleep(2)  # the prompt box takes keys a moment after it is drawn
            tmux(socket, "send-keys", "-t", "p", "-l", ASK_DONE)
            _wait_for(screen, ASK_DONE[:40])
            keys("Enter")
            _wait_for(screen, "Auto mode can't check actions in this session")
            keys("Enter")  # stay in auto mode
            _wait_for(screen, "Do you want to proceed?")
            keys("Down", "Enter")  # Yes: launch the audit agent
            _wait_for(screen, "all five sensors are green", timeout=300)
            tmux(socket, "send-keys", "-t", "p", "-l", "/exit")
            keys("Enter")
            time.sleep(2)
        finally:
            tmux(socket, "kill-server", check=False)
    assert (root / ".git" / "aiup-coverage-checked" / "UC-005").is_file()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    done = run_cli("check", "--json", cwd=root)
    assert done.code == 0, done
    (check,) = json.loads(done.out)["checks"]
    assert "(your own session, Claude Code 2.1.332, replayed)" in check["message"]
