"""The client process's last words: what a client said on stderr before it died must reach
the error, however the end of its output and its exit interleave."""

from __future__ import annotations

from pathlib import Path

from harness.claude.client.process import ClientProcess, Inbox


def _dying_client(tmp_path: Path, body: str) -> ClientProcess:
    script = tmp_path / "claude"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    inbox = Inbox()
    process = ClientProcess(
        [str(script)], cwd=tmp_path, env={}, inbox=inbox, events=[], stderr_lines=[]
    )
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
