"""Wrong quiz tries on this machine, for this user: the wait after one holds in every workspace.

A quiz's back-off (checks/quiz.py) counts the wrong tries in the workspace's progress. Two
loops went around it: a fresh ``lab init`` workspace per try (walk-j: Lab 09's five answers in
ten workspaces, 74 s), and the progress rolled back, ref and ``progress_tip`` alike (walk-i).
So each wrong try is also written here, outside every workspace, keyed by the quiz (its lab and
step); where this machine counts more wrong tries than the workspace, a check takes its count
and the later of the two times.

The file lives in the user's state folder: ``$HOOKLAB_STATE``, else
``$XDG_STATE_HOME/hooklab``, else ``~/.local/state/hooklab`` (never under ~/.claude). Removing
it resets the waits on this machine; the trainer still sees the tries each workspace counted.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

STATE_ENV = "HOOKLAB_STATE"
FILE_NAME = "quiz-tries.json"


def state_home() -> Path:
    explicit = os.environ.get(STATE_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_STATE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "state") / "hooklab"


@dataclass(frozen=True)
class Tried:
    """Wrong tries of one quiz on this machine, and when the last was made."""

    tries: int = 0
    at: float | None = None


def _path() -> Path:
    return state_home() / FILE_NAME


def _read() -> dict[str, dict[str, float]]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def quiz_key(lab_id: str, step_id: str) -> str:
    return f"{lab_id}/{step_id}"


def tried(key: str) -> Tried:
    """This machine's record of the quiz ``key`` (none: no wrong try yet)."""
    raw = _read().get(key)
    if not isinstance(raw, dict):
        return Tried()
    try:
        return Tried(int(raw.get("tries", 0)), float(raw["at"]) if raw.get("at") else None)
    except (TypeError, ValueError):
        return Tried()


def record_wrong(key: str) -> None:
    """One more wrong try of ``key``, now. A state folder that cannot be written (read-only
    home) leaves the workspace's own count to hold the wait."""
    data = _read()
    before = tried(key)
    data[key] = {"tries": before.tries + 1, "at": time.time()}
    path = _path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f".{FILE_NAME}.{os.getpid()}")
        scratch.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        scratch.replace(path)


def merged(tries: int, at: float | None, key: str) -> tuple[int, float | None]:
    """A workspace's (tries, last wrong try's time), or this machine's for the same quiz when
    it counts more: the workspace is then a new one, or its progress was set back."""
    here = tried(key)
    if here.tries <= tries:
        return tries, at
    times = [t for t in (at, here.at) if t is not None]
    return here.tries, max(times) if times else None
