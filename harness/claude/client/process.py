"""The real client as a process: started with its arguments, fed stream-json lines on stdin,
read line by line on stdout and stderr by two threads, ended like a closed terminal ends it.

Nothing here knows what a line means; ``reading.py`` reads them, ``driver.py`` plays the
scenario with both.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import proc
from harness.errors import HarnessError


def last_words(stderr_lines: Sequence[str]) -> str:
    """The client's last three lines on stderr, for an error that says why it stopped."""
    tail = [line for line in stderr_lines if line.strip()][-3:]
    return " / ".join(tail) if tail else "it printed nothing"


@dataclass
class Inbox:
    """Everything the client does, in arrival order: API requests and stream-json lines."""

    items: queue.Queue[tuple[str, Any]] = field(default_factory=queue.Queue)
    held: list[tuple[str, Any]] = field(default_factory=list)  # taken out, not yet handled

    def put(self, kind: str, item: Any) -> None:
        self.items.put((kind, item))

    def get(self, timeout: float) -> tuple[str, Any] | None:
        if self.held:
            return self.held.pop(0)
        try:
            return self.items.get(timeout=timeout)
        except queue.Empty:
            return None

    def hold(self, item: tuple[str, Any]) -> None:
        self.held.append(item)


class ClientProcess:
    """One run of the client. Its stdout lines (JSON objects) go to ``events`` and to the
    inbox as ``("event", line)``; its end arrives as ``("exit", self)``."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        inbox: Inbox,
        events: list[dict[str, Any]],
        stderr_lines: list[str],
    ) -> None:
        self.inbox = inbox
        self.events = events
        self.stderr_lines = stderr_lines
        try:
            self.popen = proc.start_group(argv, cwd=cwd, env=env, stdin=subprocess.PIPE)
        except OSError as exc:
            raise HarnessError(
                f"cannot start Claude Code ({argv[0]}): {exc.strerror}",
                fix="run lab doctor --fix to reinstall it",
            ) from None
        assert self.popen.stdout is not None and self.popen.stderr is not None  # both piped
        proc.read_lines(self.popen.stdout, self._heard, at_end=lambda: self.inbox.put("exit", self))
        self._stderr_reader = proc.read_lines(self.popen.stderr, self.stderr_lines.append)

    @property
    def running(self) -> bool:
        return self.popen.poll() is None

    def _heard(self, line: str) -> None:
        """One stdout line: a stream-json event, or something else the client printed (skipped)."""
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            return
        if isinstance(event, dict):
            self.events.append(event)
            self.inbox.put("event", event)

    def send(self, message: dict[str, Any]) -> None:
        if self.popen.stdin is None or not self.running:
            raise HarnessError(
                "Claude Code is not running in this session: " + self.last_words(),
                fix="start the scenario with a session_start step",
            )
        try:
            self.popen.stdin.write(json.dumps(message) + "\n")
            self.popen.stdin.flush()
        except OSError:
            raise HarnessError(
                "Claude Code stopped reading its input: " + self.last_words(),
                fix="see the client's stderr above; lab doctor checks the installation",
            ) from None

    def settle(self, timeout: float = 2.0) -> None:
        """Once the client has exited, let the stderr reader take in its last lines: the
        exit is seen on stdout, often before stderr is read to its end, and the kernel closes
        a dying process's pipes before its exit status can be reaped, so a client whose
        stdout just ended may still read as running for a moment: give it that moment."""
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return  # still running: its stderr has no end to wait for
        self._stderr_reader.join(timeout)

    def last_words(self) -> str:
        self.settle()
        return last_words(self.stderr_lines)

    def end(self, *, in_flight: bool) -> None:
        """Close its input and wait for it. An idle client exits on end of input; one in the
        middle of a turn would first run its Stop hooks against a model that no longer
        answers, so it is ended like a closed terminal would end it."""
        process = self.popen
        with contextlib.suppress(OSError):
            if process.stdin:
                process.stdin.close()
        proc.stop_group(process, grace=10, terminate=in_flight)
        # Drain what the reader threads still hold for this process.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            item = self.inbox.get(0.05)
            if item is None or (item[0] == "exit" and item[1] is self):
                break
