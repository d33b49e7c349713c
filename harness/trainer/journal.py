"""What the trainer's machine has seen of a cohort: when each submission first appeared, what
that says about each laptop's clock, and records that were replaced or deleted.

A laptop's clock can be off by minutes; the trainer's own clock and its observations are what
the trainer can trust. A submission the trainer first sees at ``seen`` was saved no later than
that, so the laptop's error (trainer's clock minus the laptop's) is at most ``seen - stamp``;
when a read before it (at ``before``) did not have it yet, the push came after ``before``, and
an automatic submit pushes the moment it saves, so the error is at least ``before - stamp``.
Each observation narrows the interval; a time is corrected only when the interval leaves no
room for the laptop being right (within a tolerance), and never to later than ``seen``.

The journal is kept on the trainer's machine (``$XDG_STATE_HOME/hooklab/trainer``), one file
per remote and cohort, so a second ``lab trainer status`` knows what the first one saw.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Clock differences below this are noise (a read interval, a slow push): left uncorrected.
CLOCK_TOLERANCE = 60.0


def state_home() -> Path:
    xdg = os.environ.get("XDG_STATE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "state") / "hooklab"


def journal_path(url: str, cohort: str) -> Path:
    key = hashlib.sha256(f"{url}\n{cohort}".encode()).hexdigest()[:20]
    return state_home() / "trainer" / f"{key}.json"


@dataclass(frozen=True)
class ClockBounds:
    """The interval a laptop's clock error lies in, as far as the trainer has seen."""

    low: float = -math.inf
    high: float = math.inf

    def narrow(self, low: float, high: float) -> ClockBounds:
        lo, hi = max(self.low, low), min(self.high, high)
        if lo > hi:  # the laptop's clock was set meanwhile: the newest observation holds
            return ClockBounds(low, high)
        return ClockBounds(lo, hi)

    def offset_given(self, claimed: float | None) -> float:
        """The offset, or (when what the trainer saw leaves the laptop's clock possibly
        right) the laptop's own reading of the remote's clock, kept within what the trainer
        saw: the first read of a slow laptop has nothing else to correct it by."""
        own = self.offset
        if own or claimed is None or abs(claimed) <= CLOCK_TOLERANCE:
            return own
        return min(max(claimed, self.low), self.high)

    @property
    def offset(self) -> float:
        """Seconds to add to the laptop's times: 0 while its clock may be right."""
        if self.low > CLOCK_TOLERANCE:
            return self.low
        if self.high < -CLOCK_TOLERANCE:
            return self.high
        return 0.0

    def to_json(self) -> list[float | None]:
        return [None if math.isinf(v) else v for v in (self.low, self.high)]

    @classmethod
    def from_json(cls, raw: Any) -> ClockBounds:
        if not isinstance(raw, list) or len(raw) != 2:
            return cls()
        low, high = (
            float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None
            for v in raw
        )
        return cls(-math.inf if low is None else low, math.inf if high is None else high)


@dataclass
class Entry:
    """One participant's ref as last seen."""

    commit: str
    seen: float  # the trainer's clock when this commit first appeared
    bounds: ClockBounds = field(default_factory=ClockBounds)
    labs: dict[str, float] = field(default_factory=dict)  # lab -> started_at: whose history
    replaced: str | None = None  # sticky: what the trainer was told once
    deleted: str | None = None
    workspace: str | None = None  # the id of the workspace the record came from

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "seen": self.seen,
            "bounds": self.bounds.to_json(),
            "labs": self.labs,
            "replaced": self.replaced,
            "deleted": self.deleted,
            "workspace": self.workspace,
        }

    @classmethod
    def from_json(cls, raw: Any) -> Entry | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("commit"), str):
            return None
        seen = raw.get("seen")
        labs: dict[str, Any] = raw["labs"] if isinstance(raw.get("labs"), dict) else {}
        return cls(
            raw["commit"],
            float(seen) if isinstance(seen, int | float) else 0.0,
            ClockBounds.from_json(raw.get("bounds")),
            {str(k): float(v) for k, v in labs.items() if isinstance(v, int | float)},
            raw.get("replaced") if isinstance(raw.get("replaced"), str) else None,
            raw.get("deleted") if isinstance(raw.get("deleted"), str) else None,
            raw.get("workspace") if isinstance(raw.get("workspace"), str) else None,
        )


@dataclass
class Journal:
    """Every ref of one cohort the trainer has seen, and when the last read was."""

    path: Path | None  # None: kept in memory only
    last_read: float | None = None
    entries: dict[str, Entry] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None) -> Journal:
        if path is None:
            return cls(None)
        try:
            raw = json.loads(path.read_text())
        except (OSError, ValueError):
            return cls(path)  # none yet, or unreadable: start afresh, never fail a read
        if not isinstance(raw, dict):
            return cls(path)
        entries = {
            ref: entry
            for ref, value in (raw.get("entries") or {}).items()
            if (entry := Entry.from_json(value)) is not None
        }
        last = raw.get("last_read")
        return cls(path, float(last) if isinstance(last, int | float) else None, entries)

    def save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            data = {
                "last_read": self.last_read,
                "entries": {ref: e.to_json() for ref, e in self.entries.items()},
            }
            tmp.write_text(json.dumps(data, indent=1))
            tmp.replace(self.path)
        except OSError:
            pass  # a read-only home loses the memory, not the view

    def observe(
        self,
        ref: str,
        commit: str,
        stamp: float | None,
        labs: dict[str, float],
        now: float,
        workspace: str | None = None,
    ) -> Entry:
        """Record that ``ref`` holds ``commit`` (saved at ``stamp`` on the laptop's clock, in
        the workspace ``workspace``)."""
        entry = self.entries.get(ref)
        if entry is not None and entry.commit == commit and entry.deleted is None:
            return entry
        bounds = entry.bounds if entry is not None else ClockBounds()
        if stamp:
            low = self.last_read - stamp if self.last_read is not None else -math.inf
            bounds = bounds.narrow(low, now - stamp)
        replaced = entry.replaced if entry is not None else None
        if entry is not None and entry.workspace and workspace and entry.workspace != workspace:
            # One workspace keeps one id: another id under the name is another laptop's record.
            replaced = (
                f"record replaced from another workspace (was {entry.commit[:12]}, workspace "
                f"{entry.workspace[:8]}; now {workspace[:8]})"
            )
        elif entry is not None and _other_history(entry.labs, labs):
            replaced = (
                f"record replaced by another history (was {entry.commit[:12]}); "
                "lab trainer verify shows whose work it is now"
            )
        known = workspace or (entry.workspace if entry is not None else None)
        fresh = Entry(commit, now, bounds, labs, replaced, workspace=known)
        self.entries[ref] = fresh
        return fresh

    def vanished(self, present: set[str], now: float, when: str) -> list[tuple[str, Entry]]:
        """Refs seen before and gone now: marked deleted (once), returned every read."""
        gone = []
        for ref, entry in self.entries.items():
            if ref in present:
                continue
            if entry.deleted is None:
                entry.deleted = (
                    f"record deleted from the remote (seen until {when}, commit "
                    f"{entry.commit[:12]})"
                )
            gone.append((ref, entry))
        return gone


def _other_history(before: dict[str, float], after: dict[str, float]) -> bool:
    """One workspace never changes when it started a lab, nor forgets a lab it started."""
    return any(lab not in after or abs(after[lab] - at) > 1e-3 for lab, at in before.items())
