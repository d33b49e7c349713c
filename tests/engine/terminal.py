"""A participant's terminal for the tests (harness/claude/client/terminal.py, 100 columns):
a shell in which the tests type what a participant types (``lab start 11``,
``./mvnw test -Dgroups=sensor``, ``claude``, ``lab check``) and read what the screen shows.

The shell's environment holds only what a participant's has: a HOME (whose ``.claude.json``
says onboarding is done, as after a first run), a PATH with ``lab`` and the pinned ``claude``
on it, the model's address and a key. Two variables are the test suite's own plumbing, not a
participant's: ``HOOKLAB_CACHE`` (where the pinned client and the shared Maven cache already
are, as on a machine that ran ``lab init``) and ``PYTHONPATH`` (this tree's harness as the
installed ``lab``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.claude.client import terminal as person
from harness.claude.client.install import find_client
from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.claude.client.terminal import WIDTH, fresh_home

__all__ = ["WIDTH", "Terminal", "fresh_home", "kept_terminal", "play_session"]


class Terminal(person.Terminal):
    """A bash in tmux at ``cwd`` with a participant's environment and ``lab`` on the PATH."""

    def __init__(self, cwd: Path, home: Path, folder: Path, base_url: str) -> None:
        client = find_client()
        assert client is not None
        path = os.pathsep.join(
            [str(Path(sys.executable).parent), str(client.path.parent), "/usr/bin", "/bin"]
        )
        env = {
            "HOME": str(home),
            "PATH": path,
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "hooklab-dummy-key",
            "HOOKLAB_CACHE": os.environ["HOOKLAB_CACHE"],
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        }
        for name in ("HOOKLAB_LABS", "HOOKLAB_SCRATCH"):
            if name in os.environ:
                env[name] = os.environ[name]
        super().__init__(cwd, env, folder)


@contextmanager
def kept_terminal(root: Path, home: Path, folder: Path, base_url: str) -> Iterator[Terminal]:
    """The person's terminal, closed at the end; every screen kept in ``screens.txt``."""
    terminal = Terminal(root, home, folder, base_url)
    try:
        yield terminal
    finally:
        terminal.close()
        (folder / "screens.txt").write_text(terminal.transcript())


def play_session(
    terminal: Terminal, prompt: str, until: str, *, ready: str | None = None, wait: float = 300
) -> None:
    """Plain ``claude``, the step's prompt, the session's last words on screen, ``/exit``."""
    terminal.claude(prompt, ready=ready)
    # Auto mode's notice about a model reached through 127.0.0.1: Enter goes on in auto
    # mode, whose check the model (here the scripted one) then answers.
    terminal.wait(until, timeout=wait, enter_on=AUTO_MODE_NOTICES)
    terminal.quit_claude()
