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
import select
import selectors
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


def _send_at_once(sock: socket.socket, data: bytes) -> int:
    """Send what the socket takes without waiting; how many bytes went."""
    sock.setblocking(False)
    try:
        return sock.send(data) if data else 0
    except (BlockingIOError, InterruptedError):
        return 0
    except OSError:  # the hook is gone already: the rest can go nowhere either
        return len(data)
    finally:
        sock.setblocking(True)


def _communicate(proc: subprocess.Popen[bytes], timeout: float) -> tuple[bytes, bytes]:
    """``proc.communicate(timeout=...)`` without its polling wait.

    With a timeout, Popen.wait polls with sleeps from half a millisecond up; a hook's pipes
    close a moment before it can be reaped, so every hook paid that sleep. Here the exit is
    awaited on a pidfd where the system has them. Raises TimeoutExpired like communicate.
    """
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout)
            for key, _events in selector.select(remaining):
                data = os.read(key.fd, 65536)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
    _wait_for_exit(proc, deadline, timeout)
    proc.stdout.close()
    proc.stderr.close()
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd])


def _wait_for_exit(proc: subprocess.Popen[bytes], deadline: float, timeout: float) -> None:
    remaining = max(0.0, deadline - time.monotonic())
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux, or an old kernel
        proc.wait(remaining)
        return
    try:
        readable, _, _ = select.select([pidfd], [], [], remaining)
    finally:
        os.close(pidfd)
    if not readable:
        raise subprocess.TimeoutExpired(proc.args, timeout)
    proc.wait()


def run_hook(
    event: str, hook: HookCommand, stdin: bytes, *, cwd: Path, env: Mapping[str, str]
) -> HookRun:
    started = time.monotonic()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # The shell form runs in /bin/sh as the client does; the exec form starts the command
        # itself (looked up on PATH, or relative to the cwd), its args passed as they are.
        argv = ["/bin/sh", "-c", hook.command] if hook.args is None else [hook.command, *hook.args]
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=theirs.fileno(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # Its own process group (not session: setsid made every hook ~2 ms slower).
            process_group=0,
        )
    except OSError as exc:  # no bash, or cwd gone: a non-blocking error like a missing script
        ours.close()
        theirs.close()
        ended = time.monotonic()
        return HookRun(
            event,
            hook.label,
            127,
            "",
            f"cannot start hook: {exc}",
            False,
            ended - started,
            started,
            ended,
        )
    theirs.close()
    # An event that fits in the socket's buffer goes in at once. A thread writes the rest, so a
    # hook that reads nothing (or slowly) cannot stall the reading of its output, whatever the
    # size of the event; starting one for every hook cost a fifth of a small hook's time.
    sent = _send_at_once(ours, stdin)
    if sent == len(stdin):
        _feed(ours, b"")
    else:
        threading.Thread(target=_feed, args=(ours, stdin[sent:]), daemon=True).start()
    try:
        out, err = _communicate(proc, hook.timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        # A grandchild that left the group may still hold the pipes: do not wait for it.
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=5)
        ended = time.monotonic()
        return HookRun(event, hook.label, None, "", "", True, ended - started, started, ended)
    ended = time.monotonic()
    return HookRun(
        event,
        hook.label,
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
