"""A recorded session's model: the timeline of prompts, tool calls and stops, with what hooks
decided, and its extract (what progress and a submission keep of it).

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
from harness.claude.client_words import TOOL_USE_ERROR
from harness.claude.vocabulary import StepKind, Verdict, verdict
from harness.errors import HarnessError

# A call refused by a PreToolUse hook the transcript does not name (a JSON deny's result names
# none; 2.0.x records no hook progress): any hook's refusal of it is the same verdict.
UNNAMED_HOOK = "a PreToolUse hook"
TEXT_CAP = 4000  # characters of a prompt, result or feedback kept in the timeline
# Entries (prompts, tool calls, stops) a timeline extract keeps; a longer session's extract
# leaves the rest out and says so (Timeline.to_json). It goes into progress and to the trainer.
EXTRACT_ENTRY_CAP = 500
# Tools whose calls change the workspace: an extract keeps them before the read-only ones.
CHANGING_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "Bash"})

# Who refused a call, when not a hook or a rule: the auto mode classifier (its permission
# decision's reasonType, 2.1.332), or the person, who answered No to the client's prompt.
AUTO_MODE_CHECK = "auto mode's check"
USER = "the user"


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


# An interactive client (2.1.332) runs an agent in the background and has it end by calling
# SubagentHandback with its report: that entry (stop_reason tool_use) is a normal end.
HANDBACK = "handback"


class RecordedSessionError(HarnessError):
    """A transcript that cannot be read as a session at all (missing, empty, not JSON lines)."""


def _cap(text: str) -> str:
    return text if len(text) <= TEXT_CAP else text[:TEXT_CAP] + f" [… {len(text) - TEXT_CAP} more]"


def _text(content: Any) -> str:
    """The text of a message's content: a string, or text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b
        )
    return ""


@dataclass
class Prompt:
    """What the person typed, and whether a UserPromptSubmit hook let it through."""

    line: int
    text: str
    refused_by: str = ""  # a hook refused it (exit 2): Claude never saw it
    stopped: bool = False  # a hook said continue: false: the prompt stays, Claude does not answer
    feedback: str = ""  # what the refusing hook said

    kind = StepKind.PROMPT

    @property
    def verdict(self) -> str:
        """sent | refused by HOOK | stopped."""
        if self.refused_by:
            return verdict(Verdict.REFUSED_BY, [self.refused_by])
        return verdict(Verdict.STOPPED if self.stopped else Verdict.SENT)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": StepKind.PROMPT, "line": self.line, "text": _cap(self.text)}
        if self.refused_by or self.stopped:  # a plain prompt's extract stays as it was
            data.update(verdict=self.verdict, feedback=_cap(self.feedback))
        return data


@dataclass
class SubagentRun:
    """A subagent the session ran through the Agent tool, read from its own transcript."""

    agent_id: str
    agent_type: str
    prompt: str
    last_message: str = ""
    stop_reason: str | None = None  # the last assistant line's, in the agent's transcript
    transcript: Path | None = None
    status: str = ""  # the tool result's (completed, …)
    # A background agent (2.1.332): the line where the client recorded its end, the task
    # notification queued once its SubagentStop hooks had run; None for a foreground agent,
    # whose end is its tool result, or one the session did not see end.
    ended_line: int | None = None
    # The time of the last line of the agent's own transcript: its SubagentStop hooks ran after
    # it, often well before the client queued the notification (``ended_line``).
    ended_at: datetime | None = None

    @property
    def ended(self) -> str:
        """normally (end_turn), cut off (another stop_reason) or unknown (no transcript)."""
        if self.stop_reason in ("end_turn", HANDBACK):
            return "normally"
        if self.stop_reason:
            return f"cut off ({self.stop_reason})"
        return "unknown"

    def to_json(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "agent_type": self.agent_type,
            "prompt": _cap(self.prompt),
            "last_message": _cap(self.last_message),
            "stop_reason": self.stop_reason,
            "ended": self.ended,
            "status": self.status,
            # only a background agent's, so the extracts of other sessions stay as they were
            **({"ended_line": self.ended_line} if self.ended_line is not None else {}),
        }


@dataclass
class RecordedDecision:
    """What one hook decided at one point, as the transcript shows it."""

    line: int
    event: str
    hook: str  # the script's short name (hook_name), or "" when the transcript omits it
    decision: str  # a HookDecision, or the kind of another hook attachment
    text: str = ""
    tool_use_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "event": self.event,
            "hook": self.hook,
            "decision": self.decision,
            "text": _cap(self.text),
        }


@dataclass
class ToolCall:
    line: int  # the assistant line holding the tool_use
    use_id: str
    name: str
    input: dict[str, Any]
    result_line: int | None = None
    is_error: bool = False
    result_text: str = ""
    refused_by: str | None = None  # a PreToolUse hook that kept the tool from running
    denied: str | None = None  # a refusal by a permission rule or the user
    # Why the client's permission handling refused it, in its own words (2.1.332):
    # classifier:auto-mode:no-verdict (auto mode's check had no usable answer), user-rejected
    # (the person answered No), …; "" when none said.
    denial: str = ""
    reported_by: list[str] = field(default_factory=list)  # PostToolUse hooks that reported
    reported_text: list[str] = field(default_factory=list)
    subagent: SubagentRun | None = None

    kind = StepKind.TOOL

    @property
    def ran(self) -> bool:
        return self.result_line is not None and not self.refused_by and not self.denied

    @property
    def verdict(self) -> str:
        """ran | ran, reported by HOOK | refused by HOOK | denied | error | no result."""
        if self.result_line is None:
            return verdict(Verdict.NO_RESULT)
        if self.refused_by:
            return verdict(Verdict.REFUSED_BY, [self.refused_by])
        if self.denied:
            return verdict(Verdict.DENIED)
        if self.reported_by:
            return verdict(Verdict.REPORTED_BY, self.reported_by)
        if self.is_error and self.result_text.startswith(TOOL_USE_ERROR):
            return verdict(Verdict.ERROR)
        return verdict(Verdict.RAN)

    @property
    def feedback(self) -> str:
        """What the hooks told Claude about this call."""
        if self.refused_by:
            return self.result_text
        return "\n".join(self.reported_text)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": StepKind.TOOL,
            "line": self.line,
            "name": self.name,
            "input": {k: _cap(v) if isinstance(v, str) else v for k, v in self.input.items()},
            "verdict": self.verdict,
            "is_error": self.is_error,
            "result": _cap(self.result_text),
            "feedback": _cap(self.feedback),
        }
        if self.subagent is not None:
            data["subagent"] = self.subagent.to_json()
        if self.denied in (AUTO_MODE_CHECK, USER):  # only then: other extracts stay as they were
            data["denied_by"] = self.denied
            data["denial"] = self.denial
        return data


@dataclass
class StopAttempt:
    """Claude ending its turn (an ``end_turn`` answer): the Stop hooks let it end or not."""

    line: int
    last_message: str
    blocked_by: list[str] = field(default_factory=list)
    feedback: str = ""
    decided_line: int | None = None  # the stop_hook_summary or feedback line
    system_message: str = ""
    prevented_continuation: bool = False
    # Stop hooks that failed without blocking (exit 1, …): the turn ended all the same.
    failed: list[str] = field(default_factory=list)
    failure: str = ""

    kind = StepKind.STOP

    @property
    def blocked(self) -> bool:
        return bool(self.blocked_by) or bool(self.feedback)

    @property
    def verdict(self) -> str:
        if self.blocked:
            return verdict(Verdict.BLOCKED_BY, self.blocked_by)
        return verdict(Verdict.STOPPED if self.prevented_continuation else Verdict.ALLOWED)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": StepKind.STOP,
            "line": self.line,
            "verdict": self.verdict,
            "last_message": _cap(self.last_message),
            "feedback": _cap(self.feedback),
            "system_message": _cap(self.system_message),
        }
        if self.failed:
            data["failed_hooks"] = {"hooks": sorted(set(self.failed)), "said": _cap(self.failure)}
        return data


Entry = Prompt | ToolCall | StopAttempt


@dataclass
class Timeline:
    """One recorded session, in order: prompts, tool calls and stops, with what hooks decided."""

    path: Path
    session_id: str = ""
    cwd: str = ""
    client_version: str = ""
    started: datetime | None = None
    entries: list[Entry] = field(default_factory=list)
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


def _workspace_changing(entry: Entry) -> bool:
    if isinstance(entry, StopAttempt):
        return True
    return isinstance(entry, ToolCall) and (
        entry.subagent is not None or entry.name in CHANGING_TOOLS
    )


def _chosen(entries: list[Entry], keep: Collection[int]) -> list[int]:
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


def parse_time(text: str) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else None
