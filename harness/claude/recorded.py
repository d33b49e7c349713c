"""Recorded sessions: what the real Claude Code client wrote, read into one typed timeline.

The client keeps every session as JSON lines under ``$CLAUDE_CONFIG_DIR/projects`` (default
``~/.claude/projects``): ``<DIR>/<session-id>.jsonl``, DIR being the session's cwd with every
character but letters and digits turned into ``-`` (so two cwds can share a DIR: the ``cwd``
field decides), and a subagent's own file at ``<session-id>/subagents/agent-<id>.jsonl``.

Every shape read here was observed on the pinned client (2.1.332), run with the scripted model:
- ``user`` lines: the prompt (``message.content`` a string), or ``tool_result`` blocks with
  ``is_error`` and the text Claude was shown; a refused call reads ``PreToolUse:Edit hook
  error: [COMMAND]: STDERR`` and carries ``permissionDecision`` ``{decision: reject, source:
  hook}``; an ``isMeta`` line ``Stop hook feedback:\\n[COMMAND]: …`` is a blocked stop.
- ``assistant`` lines: ``tool_use`` blocks (name, input; the Agent tool's ``subagent_type``),
  or text with ``stop_reason: end_turn``, which is Claude ending its turn (the Stop event).
- ``system`` ``stop_hook_summary``: ``hookInfos``, ``hookErrors`` (``Failed with
  non-blocking status code: …`` for a hook that failed without blocking, also listed in
  ``failedHookErrorIndexes``), ``preventedContinuation``; ``informational`` ``UserPromptSubmit
  operation blocked by hook:`` with the original prompt, for a refused prompt.
- ``attachment`` lines of type ``hook_blocking_error`` (a PostToolUse report, with
  ``toolUseID``), ``hook_success``, ``hook_system_message`` and many others.
- bookkeeping: ``queue-operation``, ``last-prompt``, ``atis-latch``, ``tools-used``,
  ``api-request``, ``api-request-shape``, ``api-request-blob``, ``cost-state``.

Clients 2.0.64 to 2.1.42 (``FORMATS``; their files in tests/claude/transcripts/) write the same
turns with less: no ``permissionDecision`` (a JSON deny's result is its reason alone, or ``Hook
PreToolUse:TOOL denied this tool``), no hook attachments (no PostToolUse report at all), a
``continue: false`` prompt as a plain user line ``Operation stopped by hook: …``; 2.1.1x–4x
write no stop reason and their ``progress`` ``hook_progress`` lines (one per hook run, keyed by
the call's id) and stop summaries late, once the turn is over. 2.1.100 writes the pinned
version's lines but no ``permissionDecision``.

The format is not a promised interface, so reading is defensive: a line that is not JSON or of
an unknown type is counted and skipped, a cut-off last line is tolerated, and a transcript of
another client version is read as far as it goes with that version named.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.claude.client.install import PINNED_VERSION
from harness.claude.vocabulary import StepKind, Verdict, read_verdict, verdict
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
_HEAD_BYTES = 2_000_000  # how far into a file the finder looks for its cwd
KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "progress",
        "summary",
        "queue-operation",
        "last-prompt",
        "atis-latch",
        "tools-used",
        "api-request",
        "api-request-shape",
        "api-request-blob",
        "cost-state",
        "file-history-snapshot",
    }
)
_REFUSAL = re.compile(r"^(PreToolUse):([\w.:-]+) hook error: \[(.+?)\]: ", re.S)
_STOP_FEEDBACK = re.compile(r"^Stop hook feedback:\n(?:\[(.+?)\]: )?", re.S)
# A UserPromptSubmit refusal (exit 2), as a system line: the hook's words, then the prompt.
_PROMPT_REFUSED = re.compile(
    r"^UserPromptSubmit operation blocked by hook:\n(?:\[(.+?)\]: )?(.*?)\n*"
    r"Original prompt: (.*)$",
    re.S,
)
_INTERRUPTED = "[Request interrupted by user"  # after a No to a permission prompt, or Esc
_PROMPT_STOPPED = "Operation stopped by hook"  # a UserPromptSubmit hook's continue: false
_NON_BLOCKING = "Failed with non-blocking status code"  # a hook's exit 1 (or other non-2)
# A background agent's end as the client notes it for Claude (2.1.332): the call's id, ended.
_TASK_DONE = re.compile(r"<task-notification>.*?<tool-use-id>([^<]+)</tool-use-id>", re.S)
# Who refused a call, when not a hook or a rule: the auto mode classifier (its permission
# decision's reasonType, 2.1.332), or the person, who answered No to the client's prompt.
AUTO_MODE_CHECK = "auto mode's check"
USER = "the user"
_HOOK_DENIED = re.compile(r"^Hook PreToolUse:\S+ denied this tool")  # a reasonless JSON deny
# A tool's own failure, as clients 2.0.64 to 2.1.332 word it: a call that ended so was not
# refused by a hook, even when the client records no decision.
_OWN_ERROR = re.compile(
    r"^(?:<tool_use_error>|\[Request interrupted|InputValidationError|Exit code \d+$"
    r"|Command timed out)",
    re.M,
)
# The client's permission answers before 2.1.332 recorded the decision: the user's (group 1),
# or a rule's.
_DENIAL = re.compile(
    r"^(?:(Claude requested permissions to use |The user doesn't want to proceed)"
    r"|Permission to use .+ has been denied|MCP tool .+ has been denied)"
)


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


# Programs a hook command starts its script with: the script, not they, names the hook.
_RUNNERS = frozenset(
    {"bash", "sh", "zsh", "dash", "env", "exec", "python", "python3", "node", "bun", "deno"}
    | {"uv", "uvx", "npx", "ruby", "perl", "timeout", "cd", "&&", ";", "run"}
)
_SCRIPT_SUFFIXES = (".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl")


def hook_name(command: str) -> str:
    """The script a hook command runs, as a short name: ``"$CLAUDE_PROJECT_DIR/.claude/hooks/
    guard-spec-status.sh"``, ``["…/guard-spec-status.sh"]`` and ``bash ${CLAUDE_PLUGIN_ROOT}/
    hooks/guard-spec-status.sh`` all give guard-spec-status.sh. An inline command without a
    script is named by its first program (``jq``)."""
    text = command.strip().strip("[]").strip()
    words = [w.strip("\"'") for w in text.split()]
    words = [w for w in words if w]
    if not words:
        return command.strip()[:80]
    names = [w.rstrip("/").rsplit("/", 1)[-1] for w in words]
    scripts = [n for n in names if n.endswith(_SCRIPT_SUFFIXES)]
    if scripts:
        return scripts[0][:80]
    programs = [
        n
        for w, n in zip(words, names, strict=True)
        if n not in _RUNNERS and "$" not in w and not w.startswith("-")
    ]
    return (programs or names)[0][:80]


_FEEDBACK_HOOK = re.compile(
    r"(?:hook error: \[(.+?)\]: |hook blocking error from command: (.+?): |"
    r"hook feedback:\n\[(.+?)\]: )"
)


def hooks_in_feedback(text: str) -> list[str]:
    """The hooks a client message names: ``PreToolUse:Edit hook error: [CMD]: …``,
    ``PostToolUse:Bash hook blocking error from command: CMD: …``, ``Stop hook feedback:\n
    [CMD]: …``."""
    names = []
    for match in _FEEDBACK_HOOK.finditer(text):
        command = next(g for g in match.groups() if g)
        name = hook_name(command)
        if name not in names:
            names.append(name)
    return names


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
class HookDecision:
    """What one hook decided at one point, as the transcript shows it."""

    line: int
    event: str
    hook: str  # the script's short name (hook_name), or "" when the transcript omits it
    decision: str  # refused | reported | blocked | said | ran
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
        if self.is_error and self.result_text.startswith("<tool_use_error>"):
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
    decisions: list[HookDecision] = field(default_factory=list)
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


def _decisions_for(timeline: Timeline, chosen: list[int], capped: bool) -> list[HookDecision]:
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


def from_extract(extract: Mapping[str, Any], path: Path) -> Timeline:
    """A timeline back from its extract (what a submission carries instead of the transcript),
    complete enough to replay: prompts, calls with inputs and verdicts, stops."""
    t = Timeline(path=path)
    t.session_id = str(extract.get("session_id") or "")
    t.cwd = str(extract.get("cwd") or "")
    t.client_version = str(extract.get("client_version") or "")
    t.started = parse_time(str(extract.get("started") or ""))
    t.scripted_model = extract.get("scripted_model") is True
    left = extract.get("left_out")
    if isinstance(left, Mapping):
        t.left_out = _count(left.get("entries"))
        t.decisions_left_out = _count(left.get("decisions"))
        t.changing_left_out = _count(left.get("workspace_changing"))
        counts = extract.get("counts")
        if isinstance(counts, Mapping):
            t.recorded_counts = {str(k): _count(v) for k, v in counts.items()}
    entries = extract.get("entries")
    for raw in entries if isinstance(entries, list) else []:
        if not isinstance(raw, dict):
            continue
        line = int(raw.get("line") or 0)
        kind = raw.get("kind")
        if kind == StepKind.PROMPT:
            t.entries.append(_prompt_from_extract(raw, line))
        elif kind == StepKind.STOP:
            stop = StopAttempt(line, str(raw.get("last_message", "")))
            said = str(raw.get("verdict", ""))
            word, hooks = read_verdict(said)
            if word is Verdict.BLOCKED_BY:
                stop.blocked_by = hooks
                stop.feedback = str(raw.get("feedback", "")) or said
            stop.prevented_continuation = word is Verdict.STOPPED
            t.entries.append(stop)
        elif kind == StepKind.TOOL:
            t.entries.append(_call_from_extract(raw, line))
    return t


def _prompt_from_extract(raw: Mapping[str, Any], line: int) -> Prompt:
    prompt = Prompt(line, str(raw.get("text", "")), feedback=str(raw.get("feedback") or ""))
    word, hooks = read_verdict(str(raw.get("verdict") or ""))
    if word is Verdict.REFUSED_BY:
        prompt.refused_by = ", ".join(hooks)
    prompt.stopped = word is Verdict.STOPPED
    return prompt


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _call_from_extract(raw: Mapping[str, Any], line: int) -> ToolCall:
    tool_input = raw.get("input")
    call = ToolCall(
        line, "", str(raw.get("name", "")), dict(tool_input) if isinstance(tool_input, dict) else {}
    )
    word, hooks = read_verdict(str(raw.get("verdict", "")))
    call.result_line = None if word is Verdict.NO_RESULT else line + 1
    call.result_text = str(raw.get("result", ""))
    call.is_error = raw.get("is_error") is True
    if word is Verdict.REFUSED_BY:
        call.refused_by = ", ".join(hooks)
    elif word is Verdict.DENIED:
        by = raw.get("denied_by")
        call.denied = by if by in (AUTO_MODE_CHECK, USER) else "a rule"
        call.denial = str(raw.get("denial") or "")[:80]
    elif word is Verdict.REPORTED_BY:
        call.reported_by = hooks
        call.reported_text = [str(raw.get("feedback", ""))]
    agent = raw.get("subagent")
    if isinstance(agent, dict):
        call.subagent = SubagentRun(
            str(agent.get("agent_id", "")),
            str(agent.get("agent_type", "")),
            str(agent.get("prompt", "")),
            str(agent.get("last_message", "")),
            str(agent["stop_reason"]) if agent.get("stop_reason") else None,
            None,
            str(agent.get("status", "")),
        )
        ended = agent.get("ended_line")
        call.subagent.ended_line = ended if isinstance(ended, int) else None
    return call


# -- reading --------------------------------------------------------------------------------


def _lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """Each line with its number and whether it ended with a newline."""
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            yield number, raw, raw.endswith(b"\n")


def _json_object(raw: bytes) -> dict[str, Any] | None:
    """The line as a JSON object, or None for anything else (a torn line, an array)."""
    try:
        entry = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


def read_session(path: Path | str) -> Timeline:
    """The session in ``path`` as a timeline. Raises RecordedSessionError when the file is
    not a transcript at all; anything less is a warning on the timeline."""
    path = Path(path)
    if not path.is_file():
        raise RecordedSessionError(
            f"{path}: no such transcript",
            fix="name a session file (lab replay --latest finds this workspace's newest)",
        )
    timeline = Timeline(path=path)
    reader = _Reader(timeline)
    parsed = 0
    try:
        for number, raw, complete in _lines(path):
            timeline.lines = number
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
            except RecursionError:
                # Nested past Python's stack: the pinned client writes no such line (a hook's
                # deep JSON is kept as a string), and a value this deep could not be written
                # into an extract or a replay either, so the line is skipped and named.
                timeline.too_deep.append(number)
                continue
            except (json.JSONDecodeError, UnicodeDecodeError):
                timeline.not_json.append(number)
                if not complete:
                    timeline.truncated_last_line = True
                continue
            if not isinstance(entry, dict):
                timeline.not_json.append(number)
                continue
            parsed += 1
            reader.take(number, entry)
    except OSError as exc:
        raise RecordedSessionError(
            f"{path}: cannot read the transcript ({exc.strerror})",
            fix="check the file's permissions",
        ) from None
    if timeline.lines == 0:
        raise RecordedSessionError(
            f"{path}: the transcript is empty",
            fix="a session writes its transcript as it goes: ask Claude something first",
        )
    if parsed == 0 and timeline.too_deep:
        raise RecordedSessionError(
            f"{path}: every line is JSON nested too deep to read "
            f"(line {timeline.too_deep[0]} and on)",
            fix="name a session file the client wrote (one JSON object a line)",
        )
    if parsed == 0:
        raise RecordedSessionError(
            f"{path}: not a Claude Code transcript (no line is a JSON object)",
            fix="name a session file from ~/.claude/projects/ (one JSON object a line)",
        )
    reader.finish()
    return timeline


class _Reader:
    """Turns transcript lines into the timeline, one at a time.

    Clients before 2.1.332 write some lines late or not at all (see ``_FAMILIES``), so a line
    is placed by what it is, not only by where it stands: a stop summary goes to the oldest
    stop of the turn still waiting for one, a hook's progress to its call's id."""

    def __init__(self, timeline: Timeline) -> None:
        self.t = timeline
        self.answers = 0
        self.scripted_answers = 0
        self.calls: dict[str, ToolCall] = {}
        self.stop: StopAttempt | None = None  # the stop whose verdict is still coming
        self.awaiting: list[StopAttempt] = []  # this turn's stops without their summary yet
        # A text answer recorded without a stop reason (2.0.76 to 2.1.4x write none): a turn
        # end, unless a tool call of the same message follows it. Message id -> that stop.
        self.tentative: dict[str, StopAttempt] = {}
        self.pre_hooks: dict[str, list[str]] = {}  # call id -> PreToolUse hooks that ran on it
        self.post_ran: set[str] = set()  # calls a PostToolUse or PostToolUseFailure hook ran on
        self.progress_seen = False
        self.permission_decisions = False  # the client records who refused a call (2.1.332)
        self.times: list[tuple[int, datetime]] = []  # each line's number and time, in order

    def take(self, number: int, entry: dict[str, Any]) -> None:
        kind = entry.get("type")
        if not isinstance(kind, str) or kind not in KNOWN_TYPES:
            name = kind if isinstance(kind, str) else "(no type)"
            self.t.other_types[name[:40]] = self.t.other_types.get(name[:40], 0) + 1
            return
        if entry.get("isSidechain") is True:
            return  # a subagent's line inside the main file (other versions); its own file counts
        self._identity(entry)
        stamp = entry.get("timestamp")
        at = parse_time(stamp) if isinstance(stamp, str) else None
        if at is not None:
            self.times.append((number, at))
        handler = {
            "user": self._user,
            "assistant": self._assistant,
            "system": self._system,
            "attachment": self._attachment,
            "progress": self._progress,
            "queue-operation": self._queued,
        }.get(kind)
        if handler is not None:
            handler(number, entry)

    def _queued(self, number: int, entry: dict[str, Any]) -> None:
        """A task notification the client queued for Claude (2.1.332): a background agent has
        ended, its SubagentStop hooks run. Its first record (the queue's, the queued_command
        attachment's or the user line's, whichever comes first) is where the agent ended."""
        if entry.get("type") == "queue-operation" and entry.get("operation") != "enqueue":
            return
        found = _TASK_DONE.search(str(entry.get("content") or ""))
        if found is None:
            return
        call = self.calls.get(found.group(1))
        if call is not None and call.subagent is not None and call.subagent.ended_line is None:
            call.subagent.ended_line = number

    def _identity(self, entry: dict[str, Any]) -> None:
        t = self.t
        if not t.session_id and isinstance(entry.get("sessionId"), str):
            t.session_id = entry["sessionId"]
        if not t.cwd and isinstance(entry.get("cwd"), str):
            t.cwd = entry["cwd"]
        if not t.client_version and isinstance(entry.get("version"), str):
            t.client_version = entry["version"][:40]
        if t.started is None and isinstance(entry.get("timestamp"), str):
            t.started = parse_time(entry["timestamp"])

    def _message(self, entry: dict[str, Any]) -> dict[str, Any]:
        message = entry.get("message")
        return message if isinstance(message, dict) else {}

    def _decide(self, decision: HookDecision) -> None:
        self.t.decisions.append(decision)

    # -- prompts ---------------------------------------------------------------------------

    def _user(self, number: int, entry: dict[str, Any]) -> None:
        content = self._message(entry).get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        ):
            if "permissionDecision" in entry:
                self.permission_decisions = True
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self._result(number, entry, block)
            return
        text = _text(content)
        last = self.t.entries[-1] if self.t.entries else None
        if text.startswith(_PROMPT_STOPPED) and isinstance(last, Prompt):
            # continue: false from a UserPromptSubmit hook: a user line right after the prompt
            # (a plain one up to 2.1.4x, isMeta on 2.1.332). The prompt stays; no answer.
            last.stopped = True
            last.feedback = _cap(text.removeprefix(_PROMPT_STOPPED).lstrip(": "))
            self._decide(HookDecision(number, "UserPromptSubmit", "", "stopped", _cap(text)))
        elif entry.get("isMeta") is True:
            self._meta(number, text)
        elif text.startswith(_INTERRUPTED):
            return  # the client's note that the person stopped a call (2.1.332), not a prompt
        elif entry.get("promptSource") == "system":
            # the client's own line, as a prompt (2.1.332: a background task's notice)
            self._queued(number, {"content": text})
        elif text:
            self._prompt(Prompt(number, _cap(text)))

    def _prompt(self, prompt: Prompt) -> None:
        self.stop = None
        self.awaiting.clear()
        self.tentative.clear()
        self.t.entries.append(prompt)

    def _prompt_refused(self, number: int, match: re.Match[str]) -> None:
        """A UserPromptSubmit hook refused the prompt (exit 2): the client keeps a warning
        with the original prompt instead of the prompt (2.0.64 to 2.1.332)."""
        hook = hook_name(match.group(1)) if match.group(1) else "a UserPromptSubmit hook"
        said = match.group(2).strip()
        self._prompt(Prompt(number, _cap(match.group(3)), refused_by=hook, feedback=_cap(said)))
        self._decide(HookDecision(number, "UserPromptSubmit", hook, "refused", _cap(said)))

    # -- stops -----------------------------------------------------------------------------

    def _meta(self, number: int, text: str) -> None:
        match = _STOP_FEEDBACK.match(text)
        if match is None:
            return
        hook = hook_name(match.group(1)) if match.group(1) else ""
        stop = self.stop or self._orphan_stop(number)
        # Each blocking Stop hook gets a feedback line of its own (2.1.332): Claude is shown
        # them all, so the stop's feedback keeps them all.
        stop.feedback = _cap(f"{stop.feedback}\n{text}" if stop.feedback else text)
        if hook:
            stop.blocked_by.append(hook)
        stop.decided_line = number
        self._decide(HookDecision(number, "Stop", hook, "blocked", _cap(text)))

    def _orphan_stop(self, number: int) -> StopAttempt:
        """A stop verdict without the end_turn line before it (another version's order)."""
        stop = StopAttempt(number, "")
        self.t.entries.append(stop)
        self.stop = stop
        return stop

    def _turn_end(self, number: int, message: dict[str, Any], text: str) -> None:
        reason = message.get("stop_reason")
        message_id = str(message.get("id") or "")
        if reason is None and message_id in self.tentative:
            stop = self.tentative[message_id]  # one more text block of the same answer
            stop.last_message = _cap(f"{stop.last_message}\n{text}")
            return
        if reason != "end_turn" and not (reason is None and text.strip()):
            return
        if reason is None and message.get("model") == "<synthetic>":
            return  # the client's own stand-in answer (an API error), not Claude's
        self.stop = StopAttempt(number, _cap(text))
        self.t.entries.append(self.stop)
        self.awaiting.append(self.stop)
        if reason is None and message_id:
            self.tentative[message_id] = self.stop

    def _withdraw(self, stop: StopAttempt) -> None:
        """A tentative turn end that a tool call of the same answer followed: not a stop."""
        if stop.decided_line is not None:
            return
        self.t.entries = [e for e in self.t.entries if e is not stop]
        self.awaiting = [s for s in self.awaiting if s is not stop]
        if self.stop is stop:
            self.stop = None

    def _summary(self, number: int, entry: dict[str, Any]) -> None:
        """``stop_hook_summary``: what the Stop hooks did. Clients up to 2.1.4x write it late
        (after the answer the block asked for), so it goes to the oldest stop waiting."""
        stop = self.awaiting.pop(0) if self.awaiting else (self.stop or self._orphan_stop(number))
        stop.decided_line = stop.decided_line or number
        stop.prevented_continuation |= entry.get("preventedContinuation") is True
        infos = entry.get("hookInfos")
        commands = {
            hook_name(str(i["command"]))
            for i in (infos if isinstance(infos, list) else [])
            if isinstance(i, dict) and i.get("command")
        }
        failing = entry.get("failedHookErrorIndexes")
        failing = failing if isinstance(failing, list) else []
        errors = entry.get("hookErrors")
        failed_before = bool(stop.failed)  # 2.1.332 named them in attachments already
        for index, error in enumerate(errors if isinstance(errors, list) else []):
            text = str(error)
            if text.startswith(_NON_BLOCKING) or index in failing:
                if not failed_before:
                    hook = next(iter(commands)) if len(commands) == 1 else "a Stop hook"
                    self._stop_failed(stop, number, hook, text)
                continue
            match = re.match(r"^\[(.+?)\]: ", text, re.S)
            hook = hook_name(match.group(1)) if match else ""
            if hook and hook not in stop.blocked_by:
                stop.blocked_by.append(hook)
            if not stop.feedback:
                stop.feedback = _cap(text)

    def _stop_failed(self, stop: StopAttempt, number: int, hook: str, text: str) -> None:
        """A Stop hook that failed without blocking (exit 1 and the like): the turn ended."""
        stop.failed.append(hook)
        stop.failure = _cap(f"{stop.failure}\n{text}" if stop.failure else text)
        self._decide(HookDecision(number, "Stop", hook, "failed", _cap(text)))

    # -- tool calls ------------------------------------------------------------------------

    def _result(self, number: int, entry: dict[str, Any], block: dict[str, Any]) -> None:
        call = self.calls.get(str(block.get("tool_use_id", "")))
        if call is None:
            return
        call.result_line = number
        call.is_error = block.get("is_error") is True
        call.result_text = _cap(_text(block.get("content")))
        decision = entry.get("permissionDecision")
        decision = decision if isinstance(decision, dict) else {}
        refusal = _REFUSAL.match(call.result_text)
        if refusal is not None:
            call.refused_by = hook_name(refusal.group(3))
        elif decision.get("decision") == "reject":
            if decision.get("source") == "hook":
                call.refused_by = UNNAMED_HOOK
            elif decision.get("reasonType") == "classifier":
                call.denied = AUTO_MODE_CHECK
            else:
                call.denied = str(decision.get("source") or "a rule")
        elif call.is_error and not decision:
            denial = _DENIAL.match(call.result_text)
            if denial is not None:  # a permission answer, in the words of 2.0.64 to 2.1.4x
                call.denied = USER if denial.group(1) else "a rule"
            elif entry.get("toolDenialKind") == "user-rejected":  # 2.1.332, any wording
                call.denied = USER
        if call.denied:
            kind = decision.get("reasonCode") or entry.get("toolDenialKind")
            call.denial = str(kind)[:80] if kind else ""
        if call.refused_by:
            self._refused(number, call)
        if call.subagent is not None:
            self._agent_result(call, entry)

    def _refused(self, number: int, call: ToolCall) -> None:
        assert call.refused_by is not None
        self._decide(
            HookDecision(
                number, "PreToolUse", call.refused_by, "refused", call.result_text, call.use_id
            )
        )

    def _agent_result(self, call: ToolCall, entry: dict[str, Any]) -> None:
        run = call.subagent
        assert run is not None
        result = entry.get("toolUseResult")
        if isinstance(result, dict):
            run.agent_id = str(result.get("agentId") or run.agent_id)
            run.agent_type = str(result.get("agentType") or run.agent_type)
            run.status = str(result.get("status") or "")
            run.last_message = _cap(_text(result.get("content"))) or run.last_message
        if run.agent_id:
            _read_agent(self.t.path, run)

    def _assistant(self, number: int, entry: dict[str, Any]) -> None:
        message = self._message(entry)
        self.answers += 1
        if str(message.get("id", "")).startswith("msg_scripted_"):
            self.scripted_answers += 1
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        if uses and str(message.get("id") or "") in self.tentative:
            self._withdraw(self.tentative.pop(str(message.get("id"))))
        for block in uses:
            tool_input = block.get("input")
            call = ToolCall(
                number,
                str(block.get("id", "")),
                str(block.get("name", ""))[:80],
                dict(tool_input) if isinstance(tool_input, dict) else {},
            )
            if call.name in ("Agent", "Task") and isinstance(call.input.get("subagent_type"), str):
                call.subagent = SubagentRun(
                    "", call.input["subagent_type"], str(call.input.get("prompt", ""))
                )
            self.calls[call.use_id] = call
            self.t.entries.append(call)
            self.stop = None
        if not uses:
            self._turn_end(number, message, _text(content))

    # -- hooks -----------------------------------------------------------------------------

    def _system(self, number: int, entry: dict[str, Any]) -> None:
        subtype = entry.get("subtype")
        if subtype == "stop_hook_summary":
            self._summary(number, entry)
        elif subtype == "informational":
            match = _PROMPT_REFUSED.match(str(entry.get("content", "")))
            if match is not None:
                self._prompt_refused(number, match)

    def _attachment(self, number: int, entry: dict[str, Any]) -> None:
        attachment = entry.get("attachment")
        if not isinstance(attachment, dict):
            return
        kind = str(attachment.get("type", ""))
        if kind == "queued_command":
            self._queued(number, {"content": attachment.get("prompt")})
        if not kind.startswith("hook_"):
            return
        event = str(attachment.get("hookEvent") or str(attachment.get("hookName", "")))
        event = event.split(":", 1)[0]
        use_id = str(attachment.get("toolUseID", ""))
        blocking = attachment.get("blockingError")
        command = str(attachment.get("command", ""))
        text = str(attachment.get("content") or attachment.get("stdout") or "")
        if isinstance(blocking, dict):
            command = str(blocking.get("command") or command)
            text = str(blocking.get("blockingError") or text)
        hook = hook_name(command) if command else ""
        if kind == "hook_non_blocking_error" and event == "Stop":
            stop = self.awaiting[0] if self.awaiting else self.stop
            if stop is not None:
                said = str(attachment.get("stderr") or "")
                self._stop_failed(stop, number, hook or "a Stop hook", said)
                return
        decision = {
            "hook_blocking_error": "reported",
            "hook_system_message": "said",
            "hook_success": "ran",
            "hook_non_blocking_error": "failed",
        }.get(kind, kind.removeprefix("hook_"))
        if kind == "hook_blocking_error" and event == "Stop":
            decision = "blocked"
            stop = self.stop or self._orphan_stop(number)
            if hook:
                stop.blocked_by.append(hook)
            stop.feedback = stop.feedback or _cap(text)
        elif kind == "hook_blocking_error" and use_id in self.calls:
            call = self.calls[use_id]
            call.reported_by.append(hook or "a hook")
            call.reported_text.append(_cap(f"{event}:{call.name} hook blocking error: {text}"))
        elif kind == "hook_system_message" and event == "Stop" and self.stop is not None:
            self.stop.system_message = _cap(text)
        self._decide(HookDecision(number, event, hook, decision, _cap(text), use_id))

    def _progress(self, number: int, entry: dict[str, Any]) -> None:
        """``hook_progress`` (2.1.1x to 2.1.4x): a hook started, written once the turn is over,
        keyed by the call's id. The client's own hooks (command ``callback``) are left out."""
        data = entry.get("data")
        if not isinstance(data, dict) or data.get("type") != "hook_progress":
            return
        self.progress_seen = True
        event = str(data.get("hookEvent", ""))
        command = str(data.get("command") or "")
        use_id = str(entry.get("toolUseID") or entry.get("parentToolUseID") or "")
        if event in ("PostToolUse", "PostToolUseFailure"):
            self.post_ran.add(use_id)
        if command == "callback":
            return
        hook = hook_name(command) if command else ""
        if event == "PreToolUse" and hook:
            self.pre_hooks.setdefault(use_id, []).append(hook)
        self._decide(HookDecision(number, event, hook, "ran", tool_use_id=use_id))

    def finish(self) -> None:
        self.t.scripted_model = self.answers > 0 and self.answers == self.scripted_answers
        self._background_ends()
        if not self.permission_decisions:
            self._unnamed_refusals()
        self.t.decisions.sort(key=lambda d: d.line)

    def _background_ends(self) -> None:
        """A background agent ended when its own transcript did, not when the client queued
        its notification: a call Claude made after its SubagentStop hooks ran (a marker
        written) but before the notification comes after the end, one made while it still ran
        before it. The agent ended just before the first main line later than its own last
        one, where that is earlier than the notification: ``ended_line`` is the line before."""
        for call in self.t.tool_calls:
            run = call.subagent
            if run is None or run.ended_line is None or run.ended_at is None:
                continue
            ended_at = run.ended_at  # parse_time gives times with a zone only: comparable
            later = (n for n, at in self.times if n > call.line and at > ended_at)
            run.ended_line = min(run.ended_line, next(later, run.ended_line + 1) - 1)

    def _unnamed_refusals(self) -> None:
        """Calls a PreToolUse hook refused in words that do not say so: up to 2.1.4x, a JSON
        deny's result is its reason alone, or "Hook PreToolUse:TOOL denied this tool" when it
        gave none, with no record of the decision. Such a call is refused when its error is
        none of a tool's own (``_OWN_ERROR``), no PostToolUse hook ran on it, and a PreToolUse
        hook did (its progress line; a client without progress lines shows no hook at all, so
        there only the calls of the tools that change the workspace are read so)."""
        for call in self.t.tool_calls:
            if not call.is_error or call.refused_by or call.denied or call.result_line is None:
                continue
            hooks = sorted(set(self.pre_hooks.get(call.use_id, [])))
            if _HOOK_DENIED.match(call.result_text) is None:
                if _OWN_ERROR.search(call.result_text) or call.use_id in self.post_ran:
                    continue
                if self.progress_seen and not hooks:
                    continue
                if not self.progress_seen and call.name not in CHANGING_TOOLS:
                    continue
            call.refused_by = hooks[0] if len(hooks) == 1 else UNNAMED_HOOK
            self._refused(call.result_line, call)


def _handback(content: Any) -> str | None:
    """The report of a SubagentHandback call in an assistant entry's content, or None."""
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("name") == "SubagentHandback":
            given = block.get("input")
            message = given.get("message") if isinstance(given, dict) else None
            return str(message) if message is not None else ""
    return None


def _read_agent(main: Path, run: SubagentRun) -> None:
    """The subagent's own transcript: its assignment and how it ended. 2.1.x keep it in the
    session's folder, 2.0.x beside the session."""
    name = f"agent-{run.agent_id}.jsonl"
    places = (main.with_suffix("") / "subagents" / name, main.parent / name)
    path = next((p for p in places if p.is_file()), None)
    if path is None:
        return
    run.transcript = path
    try:
        for _, raw, _ in _lines(path):
            entry = _json_object(raw)
            if entry is None:
                continue
            stamp = entry.get("timestamp")
            at = parse_time(stamp) if isinstance(stamp, str) else None
            run.ended_at = at or run.ended_at
            message = entry.get("message")
            if not isinstance(message, dict):
                continue
            if entry.get("type") == "user" and not run.prompt:
                run.prompt = _cap(_text(message.get("content")))
            elif entry.get("type") == "assistant":
                reason = message.get("stop_reason")
                run.stop_reason = str(reason) if reason else run.stop_reason
                said = _text(message.get("content"))
                if said:
                    run.last_message = _cap(said)
                handed = _handback(message.get("content"))
                if handed is not None:
                    run.stop_reason, run.last_message = HANDBACK, _cap(handed)
    except OSError:
        return


def parse_time(text: str) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else None


# -- finding a workspace's sessions ---------------------------------------------------------


def config_root(env: Mapping[str, str] | None = None) -> Path:
    """Where the client keeps its state: ``CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    env = os.environ if env is None else env
    explicit = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    home = env.get("HOME", "").strip()
    return (Path(home) if home else Path.home()) / ".claude"


@dataclass(frozen=True)
class SessionFile:
    path: Path
    session_id: str
    cwd: str
    started: datetime | None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "session_id": self.session_id,
            "cwd": self.cwd,
            "started": self.started.isoformat() if self.started else None,
        }


def _head(path: Path) -> tuple[str, str, datetime | None]:
    """The cwd, session id and first timestamp, from the start of a transcript; no cwd for
    a subagent's file (2.0.x writes its warm-up turns beside the sessions, as
    ``agent-ID.jsonl`` whose lines are ``isSidechain``)."""
    cwd = session_id = ""
    started: datetime | None = None
    read = 0
    try:
        for _, raw, _ in _lines(path):
            read += len(raw)
            if read > _HEAD_BYTES:
                break
            entry = _json_object(raw)
            if entry is None:
                continue
            if entry.get("isSidechain") is True:
                return "", "", None
            if started is None and isinstance(entry.get("timestamp"), str):
                started = parse_time(entry["timestamp"])
            session_id = session_id or str(entry.get("sessionId") or "")
            if isinstance(entry.get("cwd"), str):
                cwd = entry["cwd"]
                break
    except OSError:
        pass
    return cwd, session_id, started


def find_sessions(
    workspace: Path | str,
    *,
    root: Path | None = None,
    after: datetime | None = None,
) -> list[SessionFile]:
    """The sessions whose cwd is ``workspace`` (or inside it), newest first; with ``after``,
    only those started after it."""
    workspace = Path(workspace).resolve()
    projects = (root or config_root()) / "projects"
    if not projects.is_dir():
        return []
    found = []
    for folder in projects.iterdir():
        if not folder.is_dir():
            continue
        for path in folder.glob("*.jsonl"):
            cwd, session_id, started = _head(path)
            if not cwd:
                continue
            where = Path(cwd)
            if where != workspace and workspace not in where.parents:
                continue
            if after is not None and (started is None or started <= after):
                continue
            found.append(SessionFile(path, session_id or path.stem, cwd, started))
    found.sort(
        key=lambda s: s.started.timestamp() if s.started else s.path.stat().st_mtime,
        reverse=True,
    )
    return found


__all__ = [
    "AUTO_MODE_CHECK",
    "FORMATS",
    "UNNAMED_HOOK",
    "USER",
    "Entry",
    "HookDecision",
    "Prompt",
    "RecordedSessionError",
    "SessionFile",
    "StopAttempt",
    "SubagentRun",
    "Timeline",
    "ToolCall",
    "TranscriptFormat",
    "config_root",
    "extract_digest",
    "find_sessions",
    "from_extract",
    "hook_name",
    "hooks_in_feedback",
    "read_session",
    "transcript_format",
]
