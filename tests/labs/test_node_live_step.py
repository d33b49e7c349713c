"""Lab 13 step 3, the Russian seed's "step 3 of the full cycle", taken as a person takes it: plain
`claude` in the workspace root, interactive, in a terminal (tmux here), with nothing the step
does not tell them to do. Then `lab check` passes the step on that very session.

What stands in for the person's own setup: the pinned client is the `claude` on their PATH, and
their model is the scripted Messages API on 127.0.0.1 (ANTHROPIC_BASE_URL and a dummy key, as a
gateway user has them; the client asks whether to use that key, and the person says yes). Their
home has only a finished onboarding (`.claude.json`), as anyone's who ran Claude Code before.
The folder's trust dialog is answered as a person answers it: "Yes, I trust this folder"."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from harness.claude.client.api import Reply, ScriptedApi
from harness.engine.manifest import find_lab
from harness.workspace import Workspace
from tests.builders import run_lab_process, tmux
from tests.conftest import require_real_client

pytestmark = [pytest.mark.slow]

LAB = "13-full-cycle"
STEP = "held-live"


def _person(tmp_path: Path) -> tuple[Path, Path]:
    """A home that ran Claude Code before, and a PATH folder whose claude is the pinned one."""
    from harness.claude.client.install import find_client

    require_real_client()
    client = find_client()
    assert client is not None
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text('{"hasCompletedOnboarding": true}')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(client.path)
    return home, bin_dir


def _env(home: Path, bin_dir: Path) -> dict[str, str]:
    """The person's environment: their HOME, their PATH; no CLAUDE_CONFIG_DIR (tests set one)."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", NO_COLOR="1")
    return env


def _at_step_three(tmp_path: Path, env: dict[str, str]) -> Path:
    """A node workspace in lab 13 at step 3, walked as a person walks it."""
    assert run_lab_process("init", "ws", "--fixture", "node", cwd=tmp_path, env=env).returncode == 0
    ws = tmp_path / "ws"
    for argv in (["start", "13"], *[["solve", "--apply"], ["check"], ["next"]] * 2):
        done = run_lab_process(*argv, cwd=ws, env=env)
        assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-2000:])
    assert "dist/missing.js" in (ws / "scripts" / "check-before-stop.sh").read_text()
    return ws


def _answer_menus(socket: Path) -> str:
    """The screen, after choosing "Yes" in a dialog that shows one (trust, the API key)."""
    screen = tmux(socket, "capture-pane", "-p", "-t", "claude")
    chosen = [line for line in screen.splitlines() if "❯" in line]
    if "Enter to confirm" in screen and chosen:
        key = "Enter" if "Yes" in chosen[0] else "Down"
        tmux(socket, "send-keys", "-t", "claude", key)
    return screen


README_LINE = "printf '%s\\n' 'Run npm start to see the total.' >> README.md"


def _session(
    ws: Path, env: dict[str, str], socket: Path, prompt: str, command: str = README_LINE
) -> list[str]:
    """Plain `claude` in the workspace root; the person types the step's prompt; the model
    adds the line, then says it is done twice (held by the hook, then let go). Returns what
    Claude was sent."""
    sent: list[str] = []
    with ScriptedApi() as api:
        person = {**env, "ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-dummy"}
        exports = [f"{k}={v}" for k, v in person.items() if k in ("HOME", "PATH", "NO_COLOR")]
        exports += [f"ANTHROPIC_BASE_URL={api.base_url}", "ANTHROPIC_API_KEY=sk-dummy"]
        tmux(socket, "new-session", "-d", "-s", "claude", "-x", "160", "-y", "50", "-c", str(ws),
             "env", "-u", "CLAUDE_CONFIG_DIR", *exports, "claude")  # fmt: skip
        replies = [
            # The small change the step asks for (a session with no change does not pass).
            Reply.tool_use("toolu_readme", "Bash", {"command": command}),
            Reply.text("Done: the line is in README.md."),
            Reply.text("The hook asks for dist/missing.js, which the build never writes."),
        ]
        typed, deadline = False, time.monotonic() + 180
        while replies and time.monotonic() < deadline:
            screen = _answer_menus(socket)
            if not typed and "auto mode on" in screen:
                tmux(socket, "send-keys", "-t", "claude", "-l", prompt)
                time.sleep(0.5)
                tmux(socket, "send-keys", "-t", "claude", "Enter")
                typed = True
            request = api.next_request(0.5)
            if request is not None:
                sent.append(json.dumps(request.messages[-1]))
                api.answer(request, replies.pop(0))
        assert not replies, "the session did not get that far:\n" + screen
        # The turn ends after the hook lets go; the transcript is on disk before the prompt
        # comes back.
        while time.monotonic() < deadline and "Stop says" not in _answer_menus(socket):
            time.sleep(0.5)
        tmux(socket, "kill-server", check=False)
    return sent


def _lab_check(ws: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``lab check --json`` typed in the person's shell (no CLAUDE_CONFIG_DIR), after the
    session."""
    return run_lab_process("check", "--json", cwd=ws, env=env, unset=["CLAUDE_CONFIG_DIR"])


def test_a_plain_claude_session_held_by_the_hook_passes_step_three_live(tmp_path: Path) -> None:
    home, bin_dir = _person(tmp_path)
    env = _env(home, bin_dir)
    ws = _at_step_three(tmp_path, env)
    step = find_lab(LAB).step(STEP)
    prompt = step.checks[0].typed.prompt
    sent = _session(ws, env, tmp_path / "tmux.sock", prompt)
    assert any("Stop check blocked" in text for text in sent), sent
    transcripts = list((home / ".claude" / "projects").rglob("*.jsonl"))
    assert transcripts, "the client wrote no transcript into the person's ~/.claude"
    done = _lab_check(ws, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    record = Workspace(ws).read_progress()["labs"][LAB]["steps"][STEP]["passed"]
    assert record["evidence_kind"] == "live"
    assert record["session_id"] == transcripts[0].stem


def test_a_session_that_only_echoes_the_line_does_not_pass_step_three(tmp_path: Path) -> None:
    """walk-j: Claude echoes the line (README.md unchanged); the hook holds the stop all the
    same, and the step passed on it."""
    home, bin_dir = _person(tmp_path)
    env = _env(home, bin_dir)
    ws = _at_step_three(tmp_path, env)
    prompt = find_lab(LAB).step(STEP).checks[0].typed.prompt
    _session(ws, env, tmp_path / "tmux.sock", prompt, "echo 'Run npm start to see the total.'")
    done = _lab_check(ws, env)
    assert done.returncode == 1, done.stdout[-3000:]
    said = json.loads(done.stdout)["checks"][0]
    assert "'README.md'" in said["expected"], said
    assert "your session made no change" in said["details"]["fix"], said
