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
    ASK_NOTE,
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
        self.marker = root / ".git" / "aiup-coverage-checked" / "UC-005"
        spec = str(root / UC5)
        edit = {"file_path": spec, "old_string": APPROVED, "new_string": DONE}
        agent = {"description": "audit UC-005", "prompt": AUDIT_PROMPT, "subagent_type": AUDITOR}
        bash = {"command": SENSORS, "description": "run the sensors", "timeout": 300000}
        self.edit_again = Reply.tool_use("toolu_3", "Edit", edit)  # after the audit's report
        self.turns: list[Reply] = [
            Reply.tool_use("toolu_1", "Edit", edit),
            Reply.tool_use("toolu_2", "Agent", agent),
            Reply.text("The audit runs; I wait for its report."),
            self.edit_again,
            Reply.tool_use("toolu_4", "Bash", bash),
            Reply.text("UC-005 is Done: audited, and all five sensors are green."),
        ]

    def answer(self, request: ApiRequest) -> None:
        if AUDIT_PROMPT in json.dumps(request.messages[:1]):
            handback = {"message": AUDIT_REPORT}
            ScriptedApi.answer(request, Reply.tool_use("toolu_h", "SubagentHandback", handback))
        else:
            turn = self.turns.pop(0) if self.turns else Reply.text("Done.")
            if turn is self.edit_again:
                self._think()
            ScriptedApi.answer(request, turn)

    def _think(self) -> None:
        """A real model takes seconds before it answers the handback; the client runs the
        background agent's SubagentStop hook (which writes the audit marker) beside that turn.
        Answered at once, the Edit met the guard 0.1 s before the marker was written (seen on
        2.1.332 in a full run): wait for it as long as a model would think, at most 5 s."""
        deadline = time.monotonic() + 5
        while not self.marker.is_file() and time.monotonic() < deadline:
            time.sleep(0.05)


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


class _Terminal:
    """The client in tmux, started as a person starts it, with the scripted model behind it."""

    def __init__(self, root: Path, home: Path, socket: Path, base_url: str) -> None:
        client = find_client()
        assert client is not None
        self.socket = socket
        env = {
            "HOME": str(home),
            "PATH": os.environ["PATH"],
            "TERM": "xterm-256color",
            "ANTHROPIC_BASE_URL": base_url,
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

    def screen(self) -> str:
        return tmux(self.socket, "capture-pane", "-p", "-t", "p", check=False)

    def keys(self, *sent: str) -> None:
        for key in sent:
            tmux(self.socket, "send-keys", "-t", "p", key)
            time.sleep(0.3)

    def wait(self, text: str, timeout: float = 60.0) -> None:
        _wait_for(self.screen, text, timeout)

    def trust_and_type(self, prompt: str) -> None:
        """Trust the folder, accept the key, type the step's prompt."""
        # A dialog takes keys a moment after it is drawn: a Down sent at once is lost, and
        # Enter then answers "No, exit".
        self.wait("Yes, I trust this folder")
        time.sleep(1.5)
        self.keys("Down", "Enter")
        self.wait("Do you want to use this API key?")
        time.sleep(1.5)
        self.keys("Up", "Enter")
        self.wait("auto mode on")
        time.sleep(2)  # the prompt box takes keys a moment after it is drawn
        tmux(self.socket, "send-keys", "-t", "p", "-l", prompt)
        self.wait(prompt[:40])
        self.keys("Enter")

    def exit(self) -> None:
        tmux(self.socket, "send-keys", "-t", "p", "-l", "/exit")
        self.keys("Enter")
        time.sleep(2)
        tmux(self.socket, "kill-server", check=False)


def _fresh_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text('{"hasCompletedOnboarding": true}')
    return home


def _passes_live(root: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    done = run_cli("check", "--json", cwd=root)
    assert done.code == 0, done
    (check,) = json.loads(done.out)["checks"]
    assert "(your own session, Claude Code 2.1.332, replayed)" in check["message"]


def test_the_interactive_client_passes_lab_11_step_4_live(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    home = _fresh_home(tmp_path)
    model = _Model(root)
    with ScriptedApi(on_request=model.answer) as api:
        terminal = _Terminal(root, home, tmp_path / "tmux.sock", api.base_url)
        try:
            terminal.trust_and_type(ASK_DONE)
            terminal.wait("Enter to stay in auto mode")
            time.sleep(1.5)
            terminal.keys("Enter")  # stay in auto mode
            terminal.wait("Do you want to proceed?")
            time.sleep(1.5)
            terminal.keys("Down", "Enter")  # Yes: launch the audit agent
            terminal.wait("all five sensors are green", timeout=300)
        finally:
            terminal.exit()
    assert (root / ".git" / "aiup-coverage-checked" / "UC-005").is_file()
    _passes_live(root, home, monkeypatch)


@pytest.fixture(scope="module")
def lab_07_at_step_four(workspace_at_step: ReachStep) -> Path:
    return workspace_at_step("07-own-stop-hook", "your-session")


def test_the_interactive_client_passes_lab_07_step_4_live(
    lab_07_at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The participant's own Stop hook (scripts/, uncommitted) holds the first stop with its
    reason and lets the second go; the live check's replay agrees."""
    root = copy_workspace_into(lab_07_at_step_four, tmp_path)
    home = _fresh_home(tmp_path)
    turns = [
        Reply.tool_use(
            "toolu_1",
            "Write",
            {"file_path": str(root / "NOTES.md"), "content": "Tried in lab 07.\n"},
        ),
        Reply.text("Done: NOTES.md has the line."),
        Reply.text("Done: NOTES.md has the line."),
    ]

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    with ScriptedApi(on_request=answer) as api:
        terminal = _Terminal(root, home, tmp_path / "tmux.sock", api.base_url)
        try:
            terminal.trust_and_type(ASK_NOTE)
            terminal.wait("Stop says:", timeout=120)
        finally:
            terminal.exit()
    _passes_live(root, home, monkeypatch)
