"""The client process's last words: what a client said on stderr before it died must reach
the error, however the end of its output and its exit interleave. The stand-ins make the race
happen every time; the last test has the real, pinned client die at its start."""

from __future__ import annotations

import os
from pathlib import Path

from harness.claude.client.install import find_client
from harness.claude.client.process import ClientProcess, Inbox
from tests.conftest import require_real_client


def _dying_client(tmp_path: Path, body: str) -> ClientProcess:
    script = tmp_path / "claude"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return _started([str(script)], tmp_path, {})


def _started(argv: list[str], cwd: Path, env: dict[str, str]) -> ClientProcess:
    """A client process, once its stdout has ended."""
    inbox = Inbox()
    process = ClientProcess(argv, cwd=cwd, env=env, inbox=inbox, events=[], stderr_lines=[])
    item = inbox.get(10.0)
    assert item is not None and item[0] == "exit", item  # stdout ended
    return process


def test_last_words_wait_for_a_client_whose_stdout_ended_before_it_exited(
    tmp_path: Path,
) -> None:
    # The end of stdout is the harness's sign of death, but a dying process closes its pipes
    # before its exit can be reaped: here stdout ends, then its last line reaches stderr.
    process = _dying_client(
        tmp_path, "exec 1>&-\nsleep 0.3\necho 'cannot find module' >&2\nexit 3\n"
    )
    assert process.last_words() == "cannot find module"
    assert not process.running


def test_last_words_of_a_silent_client_say_so(tmp_path: Path) -> None:
    process = _dying_client(tmp_path, "exit 3\n")
    assert process.last_words() == "it printed nothing"


def test_the_real_clients_last_words_at_start_reach_the_error(tmp_path: Path) -> None:
    require_real_client()
    client = find_client()
    assert client is not None
    home = tmp_path / "home"  # never the real ~/.claude
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }
    process = _started([str(client.path), "--no-such-option"], tmp_path, env)
    assert process.last_words() == "error: unknown option '--no-such-option'"
    assert process.popen.returncode == 1
