"""A recorded session's model: the timeline of its entries (``entries.py``), the transcript
formats it was read as, and its extract (what progress and a submission keep of it).

The reader (``reader.py``) fills it from a transcript, ``extract.py`` from an extract.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.claude.client.install import PINNED_VERSION
from harness.claude.recorded.entries import (
    CHANGING_TOOLS,
    Prompt,
    RecordedDecision,
    StopAttempt,
    SubagentRun,
    TimelineEntry,
    ToolCall,
)
from harness.errors import HarnessError

# Entries (prompts, tool calls, stops) a timeline extract keeps; a longer session's extract
# leaves the rest out and says so (Timeline.to_json). It goes into progress and to the trainer.
EXTRACT_ENTRY_CAP = 500


@dataclass(frozen=True)
class TranscriptFormat:
    """How a range of client versions writes its transcripts, as Hook Lab has read them: the
    files the tests read (tests/claude/transcripts, made by tests/version_probe.py) were
    written by each version in ``read_on``."""

    name: str
    read_on: tuple[str, ...]
    unrecorded: str  # what these transcripts leave out, said in the timeline's warnings

    def covers(self, version: str) -> bool:
        """``version`` lies between the first and the last version read."""
        known = [_version_key(v) for v in self.read_on]
        key = _version_key(version)
        return bool(key) and min(known) <= key <= max(known)


def _version_key(version: str) -> tuple[int, ...]:
    """(2, 1, 39) for "2.1.39"; () for anything that is not a release number."""
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version.strip())
    return tuple(int(part) for part in match.groups()) if match else ()


FORMATS = (
    TranscriptFormat(
        "2.0.x",
        ("2.0.64", "2.0.76"),
        "what PostToolUse hooks reported (such a call reads ran), nor which PreToolUse hook "
        "refused a call when the client's message does not name it",
    ),
    TranscriptFormat(
        "2.1.1x–4x",
        ("2.1.14", "2.1.29", "2.1.38", "2.1.39", "2.1.42"),
        "what PostToolUse hooks reported (such a call reads ran), how a subagent ended, nor "
        "a turn's last Stop hook results when the session ended before the client wrote them",
    ),
    TranscriptFormat(
        "2.1.100",
        ("2.1.100",),
        "which PreToolUse hook refused a call when the client's message does not name it",
    ),
)


def transcript_format(version: str) -> TranscriptFormat | None:
    """The format Hook Lab reads a transcript of ``version`` as, or None for the pinned
    version and any it has not read."""
    return next((f for f in FORMATS if f.covers(version)), None)


class RecordedSessionError(HarnessError):
    """A transcript that cannot be read as a session at all (missing, empty, not JSON lines)."""


@dataclass
class Timeline:
    """One recorded session, in order: prompts, tool calls and stops, with what hooks decided."""

    path: Path
    session_id: str = ""
    cwd: str = ""
    client_version: str = ""
    started: datetime | None = None
    entries: list[TimelineEntry] = field(default_factory=list)
    decisions: list[RecordedDecision] = field(default_factory=list)
    lines: int = 0
    not_json: list[int] = field(default_factory=list)  # lines skipped as unreadable
    too_deep: list[int] = field(default_factory=list)  # JSON nested too deep to read; skipped
    truncated_last_line: bool = False
    other_types: dict[str, int] = field(default_factory=dict)  # unknown line types, counted
    # Hook Lab's scripted model answers with message ids msg_scripted_N (client/api.py): a
    # session whose every answer has one was played by Hook Lab, not by a person with a model.
    scripted_model: bool = False
    # A timeline read back from a capped extract: what the extract left out, and the whole
    # session's counts (from_extract).
    left_out: int = 0
    changing_left_out: int = 0
    decisions_left_out: int = 0
    recorded_counts: dict[str, int] = field(default_factory=dict)

    @property
    def prompts(self) -> list[Prompt]:
        return [e for e in self.entries if isinstance(e, Prompt)]

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [e for e in self.entries if isinstance(e, ToolCall)]

    @property
    def stops(self) -> list[StopAttempt]:
        return [e for e in self.entries if isinstance(e, StopAttempt)]

    @property
    def blocked_stops(self) -> list[StopAttempt]:
        return [s for s in self.stops if s.blocked]

    @property
    def turn_ends(self) -> list[StopAttempt]:
        return [s for s in self.stops if not s.blocked]

    @property
    def subagents(self) -> list[SubagentRun]:
        return [c.subagent for c in self.tool_calls if c.subagent is not None]

    @property
    def other_version(self) -> bool:
        return bool(self.client_version) and self.client_version != PINNED_VERSION

    @property
    def read_as(self) -> str:
        """The client version and the format it was read as, for a message: "Claude Code
        2.1.39, read as a 2.1.1x–4x transcript"."""
        version = f"Claude Code {self.client_version or 'unknown'}"
        known = transcript_format(self.client_version)
        if known is not None:
            return f"{version}, read as a {known.name} transcript"
        if self.other_version or not self.client_version:
            return f"{version}, read as far as it goes"
        return version

    @property
    def warnings(self) -> list[str]:
        said = []
        known = transcript_format(self.client_version)
        if known is not None:
            said.append(
                f"written by Claude Code {self.client_version}: read as a {known.name} "
                f"transcript, as Claude Code {', '.join(known.read_on)} wrote them; these do "
                f"not record {known.unrecorded}"
            )
        elif self.other_version:
            said.append(
                f"written by Claude Code {self.client_version}; Hook Lab knows the format of "
                f"{PINNED_VERSION}, so this was read as far as it goes"
            )
        elif not self.client_version:
            said.append("no client version in the transcript; read as far as it goes")
        if self.truncated_last_line:
            said.append(f"line {self.lines} is cut off (the session was still writing); skipped")
        bad = [n for n in self.not_json if not (self.truncated_last_line and n == self.lines)]
        if bad:
            shown = ", ".join(str(n) for n in bad[:5]) + (" …" if len(bad) > 5 else "")
            said.append(f"{len(bad)} lines are not JSON objects (line {shown}); skipped")
        if self.too_deep:
            shown = ", ".join(str(n) for n in self.too_deep[:5])
            said.append(
                f"{len(self.too_deep)} lines are JSON nested too deep to read (line {shown}); "
                "skipped"
            )
        if self.other_types:
            kinds = ", ".join(f"{k} ×{v}" for k, v in sorted(self.other_types.items())[:8])
            said.append(f"line types Hook Lab does not know, skipped: {kinds}")
        return said

    def to_json(self, keep: Collection[int] = ()) -> dict[str, Any]:
        """The extract: tool calls, verdicts and texts, capped. Never the raw lines, the API
        requests or the environment attachments.

        A session of more than ``EXTRACT_ENTRY_CAP`` entries keeps that many: the entries at
        the indexes in ``keep`` (those a step's expectations matched) always, then the stops,
        then the calls that change the workspace, then the rest, each group in order. The extract
        then says so: ``left_out`` counts what is missing, each kept entry names its
        ``index`` in the whole session, and ``counts`` are the whole session's."""
        chosen = _chosen(self.entries, keep)
        capped = len(chosen) < len(self.entries)
        entries = []
        for index in chosen:
            entry = self.entries[index]
            shown = entry.to_json()
            if capped:
                shown["index"] = index
            entries.append(shown)
        decisions = [d.to_json() for d in _decisions_for(self, chosen, capped)]
        data: dict[str, Any] = {
            "session_id": self.session_id,
            "cwd": self.cwd,
            "client_version": self.client_version,
            "started": self.started.isoformat() if self.started else None,
            "scripted_model": self.scripted_model,
            "entries": entries,
            "decisions": decisions,
            "warnings": self.warnings,
        }
        if capped or self.left_out:
            data["counts"] = self.counts if not self.left_out else self.recorded_counts
            left = set(range(len(self.entries))) - set(chosen)
            data["left_out"] = {
                "entries": self.left_out or len(left),
                # calls that change the workspace left out too (only past the cap's room for
                # them): a replay of the extract then cannot rebuild the session's states
                "workspace_changing": self.changing_left_out
                or sum(1 for i in left if _workspace_changing(self.entries[i])),
                "decisions": self.decisions_left_out or len(self.decisions) - len(decisions),
                "cap": EXTRACT_ENTRY_CAP,
                "kept": "the entries the step's expectations matched, then the stops, then the "
                "calls that change the workspace, then the rest, in order",
            }
            data["warnings"] = [*data["warnings"], left_out_warning(data)]
        return data

    @property
    def counts(self) -> dict[str, int]:
        """How many of each the whole session holds."""
        return {
            "entries": len(self.entries),
            "prompts": len(self.prompts),
            "tool_calls": len(self.tool_calls),
            "stops": len(self.stops),
            "blocked_stops": len(self.blocked_stops),
            "subagents": len(self.subagents),
            "decisions": len(self.decisions),
        }

    def digest(self, keep: Collection[int] = ()) -> str:
        """A digest of the extract, for progress records: the same session gives the same one."""
        return extract_digest(self.to_json(keep))


def _workspace_changing(entry: TimelineEntry) -> bool:
    if isinstance(entry, StopAttempt):
        return True
    return isinstance(entry, ToolCall) and (
        entry.subagent is not None or entry.name in CHANGING_TOOLS
    )


def _chosen(entries: list[TimelineEntry], keep: Collection[int]) -> list[int]:
    """The indexes of the entries an extract keeps, in order (see ``Timeline.to_json``)."""
    if len(entries) <= EXTRACT_ENTRY_CAP:
        return list(range(len(entries)))
    chosen = {i for i in keep if 0 <= i < len(entries)}
    for tier in ("stops", "changing", "rest"):
        for index, entry in enumerate(entries):
            if len(chosen) >= EXTRACT_ENTRY_CAP:
                return sorted(chosen)
            stop = isinstance(entry, StopAttempt)
            changing = _workspace_changing(entry) and not stop
            if {"stops": stop, "changing": changing, "rest": not (stop or changing)}[tier]:
                chosen.add(index)
    return sorted(chosen)


def _decisions_for(timeline: Timeline, chosen: list[int], capped: bool) -> list[RecordedDecision]:
    """The hook decisions an extract keeps: all of them, or, when entries were left out,
    those about the kept entries, at most ``EXTRACT_ENTRY_CAP``."""
    if not capped:
        return timeline.decisions
    use_ids, lines = set(), set()
    for index in chosen:
        entry = timeline.entries[index]
        if isinstance(entry, ToolCall):
            use_ids.add(entry.use_id)
            lines.add(entry.result_line)
        elif isinstance(entry, StopAttempt):
            lines.update((entry.line, entry.decided_line))
    kept = [
        d
        for d in timeline.decisions
        if (d.tool_use_id and d.tool_use_id in use_ids) or d.line in lines
    ]
    return kept[:EXTRACT_ENTRY_CAP]


def left_out_warning(extract: Mapping[str, Any]) -> str:
    """What an extract that left entries out says about it (in its warnings, and to a
    trainer)."""
    left = extract.get("left_out")
    counts = extract.get("counts")
    if not isinstance(left, Mapping) or not isinstance(counts, Mapping):
        return ""
    return (
        f"{left.get('entries')} of the session's {counts.get('entries')} entries were left out "
        f"of this extract (it keeps {left.get('cap')}: {left.get('kept')})"
    )


def extract_digest(extract: Mapping[str, Any]) -> str:
    """The digest of a timeline extract (``Timeline.to_json``), its warnings left out."""
    data = {k: v for k, v in extract.items() if k != "warnings"}
    canon = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canon.encode()).hexdigest()
