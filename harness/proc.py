"""A subprocess run to completion goes through :func:`run`, so a missing executable or a
timeout is a result, not a traceback; and :func:`read_lines` is the one way to read a
long-running child's output as it comes.

The children that must be held while they run (the hooks, Claude Code, a streamed Maven, a
Bash tool call in the background) are started with ``subprocess.Popen`` where they are
driven (harness/claude/runner.py, client/process.py, tools.py, harness/maven/streaming.py);
the ones read as text go through :func:`start_group`; :func:`stop_group` and
:func:`kill_group` end a child's whole process group.
harness/maven/share.py runs as a shim on the standard library alone, so it calls
``subprocess`` itself.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """Drop terminal escape codes (Maven colours its output even with -q or -B)."""
    return _ANSI.sub("", text)


@dataclass(frozen=True)
class ProcResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float | None = None,
) -> ProcResult:
    """Run a command to completion. 127 for a missing executable, 124 for a timeout."""
    try:
        done = subprocess.run(
            [os.fspath(a) for a in argv],
            cwd=cwd,
            env=dict(env) if env is not None else None,
            input=stdin,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError as exc:
        return ProcResult(127, "", f"{argv[0]}: not found ({exc.strerror})")
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout if isinstance(exc.stdout, str) else ""
        return ProcResult(124, out, f"{argv[0]}: timed out after {timeout} s")
    return ProcResult(done.returncode, done.stdout, done.stderr)


def read_lines(
    stream: Iterable[str],
    on_line: Callable[[str], None],
    *,
    at_end: Callable[[], None] | None = None,
) -> threading.Thread:
    """Hand every line of ``stream`` (a child's text pipe), without its newline, to
    ``on_line`` on a daemon thread of its own, then call ``at_end``: a pipe nobody reads
    fills up and stalls the child, and a thread per pipe keeps the caller free to wait for
    something else (the child's other pipe, a request, a deadline)."""

    def pump() -> None:
        for line in stream:
            on_line(line.rstrip("\n"))
        if at_end is not None:
            at_end()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    return reader


def start_group(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None,
    stdin: int = subprocess.DEVNULL,
    stderr: int = subprocess.PIPE,
) -> subprocess.Popen[str]:
    """Start a child whose stdout is read as text, in a process group of its own: stopping
    the group stops whatever it started too (Maven under ./mvnw, a hook under the client).
    OSError when it cannot start; the caller says what that means."""
    return subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        errors="replace",
        start_new_session=True,
    )


def kill_group(child: subprocess.Popen[Any]) -> None:
    """SIGKILL ``child``'s whole process group; a group already gone is no error (nor one
    that now runs as another user, as a jailed child may)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)


def stop_group(child: subprocess.Popen[Any], *, grace: float, terminate: bool = True) -> None:
    """Ask ``child``'s process group to end (SIGTERM, unless ``terminate`` is False and the
    child ends by itself, e.g. on end of input); after ``grace`` seconds, kill it."""
    if terminate:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGTERM)
    try:
        child.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        kill_group(child)
        child.wait(timeout=grace)
