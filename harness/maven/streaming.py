"""Run a process, stream its output line by line, keep a capped tail, stop it cleanly."""

from __future__ import annotations

import collections
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.maven.backend import MavenRun, OutputSink
from harness.proc import start_group, stop_group

TAIL_LINES = 200
STOP_GRACE = 5  # seconds Maven has to end on SIGTERM before it is killed


def run_streaming(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    on_output: OutputSink | None = None,
    timeout: float | None = None,
) -> MavenRun:
    """Run ``argv``; 127 when the program is missing, 124 on timeout, 130 on Ctrl-C.

    The child runs in its own process group so a timeout or Ctrl-C stops Maven's whole tree,
    not just the wrapper script.
    """
    started = time.monotonic()
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    try:
        proc = start_group(argv, cwd=cwd, env=env, stderr=subprocess.STDOUT)
    except (FileNotFoundError, PermissionError) as exc:
        return MavenRun(tuple(argv), 127, f"{argv[0]}: {exc.strerror}", 0.0)
    # A watchdog, not a check between lines: a Maven that hangs silently prints nothing, so a
    # deadline looked at only when a line arrives would never fire.
    timed_out = threading.Event()

    def stop_at_deadline() -> None:
        timed_out.set()
        stop_group(proc, grace=STOP_GRACE)

    watchdog = None if timeout is None else threading.Timer(timeout, stop_at_deadline)
    if watchdog is not None:
        watchdog.daemon = True
        watchdog.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            tail.append(line.rstrip("\n"))
            if on_output is not None:
                on_output(line.rstrip("\n"))
        code = proc.wait()
    except KeyboardInterrupt:
        stop_group(proc, grace=STOP_GRACE)
        raise
    finally:
        if watchdog is not None:
            watchdog.cancel()
    if timed_out.is_set():
        tail.append(f"[stopped after {timeout} s]")
        return MavenRun(tuple(argv), 124, "\n".join(tail), time.monotonic() - started)
    return MavenRun(tuple(argv), code, "\n".join(tail), time.monotonic() - started)
