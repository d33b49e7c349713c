"""The entries of a recorded session's timeline: prompts, tool calls (with the subagents they
ran) and stops, and what a hook decided at one point."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.claude.client_words import TOOL_USE_ERROR
from harness.claude.vocabulary import StepKind, Verdict, verdict
from harness.schema import pick

# A call refused by a PreToolUse hook the transcript does not name (a JSON deny's result names
# none; 2.0.x records no hook progress): any hook's refusal of it is the same verdict.
UNNAMED_HOOK = "a PreToolUse hook"
TEXT_CAP = 4000  # characters of a prompt, result or feedback kept in the timeline
# Tools whose calls change the workspace: an extract keeps them before the read-only ones.
CHANGING_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "Bash"})

# Who refused a call, when not a hook or a rule: the auto mode classifier (its permission
# decision's reasonType, 2.1.332), or the person, who answered No to the client's prompt.
AUTO_MODE_CHECK = "auto mode's check"
USER = "the user"


# An interactive client (2.1.332) runs an agent in the background and has it end by calling
# SubagentHandback with its report: that entry (stop_reason tool_use) is a normal end.
HANDBACK = "handback"


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
            **pick(self, "agent_id agent_type"),
            "prompt": _cap(self.prompt),
            "last_message": _cap(self.last_message),
            **pick(self, "stop_reason ended status"),
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
            **pick(self, "line event hook decision"),
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


TimelineEntry = Prompt | ToolCall | StopAttempt


def parse_time(text: str) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else None
