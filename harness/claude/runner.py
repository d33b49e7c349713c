"""Running hook commands: JSON on stdin, in parallel, each with its own timeout.

A hook's command line runs in ``/bin/sh -c`` (dash on Debian), as Claude Code (2.1.332) runs
it, not in bash: a bash-only construct on the command line fails there and here alike. The
JSON arrives on a Unix socket, as the client hands it over, not a pipe: a hook that can only
read pipes (``$(</dev/stdin)`` fails on a socket) must fail here as it fails there. Each hook
gets its own process group so a timeout can kill the whole tree (a hook that starts ``mvn``
must not leave it running). A timed-out hook's output is thrown away: it renders no decision.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.claude.settings import HookCommand

# What a run keeps of its stdout and stderr for display and transcripts. What Claude is sent is
# not cut: the real client passed 20,000 characters of stderr on whole.
OUTPUT_CAP = 100_000
_CUT_MARK = "\n[... output capped at 100,000 characters]"


def cap(text: str, limit: int = OUTPUT_CAP) -> str:
    """At most ``limit`` characters, keeping the head: hook messages lead with the reason."""
    if len(text) <= limit:
        return text
    return text[: limit - len(_CUT_MARK)] + _CUT_MARK


@dataclass(frozen=True)
class HookRun:
    """One hook process: what ran and what it said. ``exit_code`` is None when it timed out."""

    event: str
    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration: float
    started: float = 0.0  # time.monotonic() at start and end, to reason about overlap
    ended: float = 0.0

    def __repr__(self) -> str:
        status = "timed out" if self.timed_out else f"exit {self.exit_code}"
        first = self.stderr.strip().splitlines()[0] if self.stderr.strip() else ""
        tail = f", stderr={first[:60]!r}" if first else ""
        return f"<HookRun {self.event} {self.command!r} {status} in {self.duration:.2f}s{tail}>"

    def to_json(self) -> dict[str, object]:
        return {
            "event": self.event,
            "command": self.command,
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "duration": round(self.duration, 3),
        }


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _feed(sock: socket.socket, data: bytes) -> None:
    """Write the event and close our end, so the hook sees end-of-file after the JSON."""
    with contextlib.suppress(OSError), sock:  # a hook that exits without reading is no error
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)


def run_hook(
    event: str, hook: HookCommand, stdin: bytes, *, cwd: Path, env: Mapping[str, str]
) -> HookRun:
    started = time.monotonic()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        proc = subprocess.Popen(
            ["/bin/sh", "-c", hook.command],
            cwd=cwd,
            env=dict(env),
            stdin=theirs.fileno(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:  # no bash, or cwd gone: a non-blocking error like a missing script
        ours.close()
        theirs.close()
        ended = time.monotonic()
        return HookRun(
            event,
            hook.command,
            127,
            "",
            f"cannot start hook: {exc}",
            False,
            ended - started,
            started,
            ended,
        )
    theirs.close()
    # A thread writes, so a hook that reads nothing (or slowly) cannot stall the reading of
    # its output, whatever the size of the event.
    writer = threading.Thread(target=_feed, args=(ours, stdin), daemon=True)
    writer.start()
    try:
        out, err = proc.communicate(timeout=hook.timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        # A grandchild that left the group may still hold the pipes: do not wait for it.
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=5)
        ended = time.monotonic()
        return HookRun(event, hook.command, None, "", "", True, ended - started, started, ended)
    ended = time.monotonic()
    return HookRun(
        event,
        hook.command,
        proc.returncode,
        out.decode("utf-8", errors="replace"),
        err.decode("utf-8", errors="replace"),
        False,
        ended - started,
        started,
        ended,
    )


def run_hooks(
    event: str,
    hooks: Sequence[HookCommand],
    stdin: bytes,
    *,
    cwd: Path,
    env: Mapping[str, str],
) -> list[HookRun]:
    """Run every hook at the same time; results in the order of ``hooks``."""
    if len(hooks) == 1:  # no thread for the common case
        return [run_hook(event, hooks[0], stdin, cwd=cwd, env=env)]
    results: list[HookRun | None] = [None] * len(hooks)

    def work(i: int, hook: HookCommand) -> None:
        results[i] = run_hook(event, hook, stdin, cwd=cwd, env=env)

    threads = [threading.Thread(target=work, args=(i, h), daemon=True) for i, h in enumerate(hooks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [r for r in results if r is not None]


def start_async_hooks(
    event: str,
    hooks: Sequence[HookCommand],
    stdin: bytes,
    *,
    cwd: Path,
    env: Mapping[str, str],
) -> None:
    """Start hooks marked ``async``: they run on their own and decide nothing, as in Claude
    Code; each is still killed at its timeout."""
    for hook in hooks:
        threading.Thread(
            target=run_hook, args=(event, hook, stdin), kwargs={"cwd": cwd, "env": env}, daemon=True
        ).start()
