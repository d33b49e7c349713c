"""The words every layer shares, each declared once: what a session step did (what kind
of step it was, its outcome, why a tool was let through or refused, how a replay reads it, and
which Claude Code played it); what a hook decided; the phases of ``lab dev check``; and the
trainer's words for a participant: how their claims were verified, why they need the trainer,
and what passed a live step.

Each is a ``StrEnum``, so JSON, TOML and ``==`` against a plain string keep the word itself;
the word is declared once, here, with how it reads to a person.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable


class StepKind(enum.StrEnum):
    """What a session step does (a scenario's ``do``; a recorded timeline entry's ``kind``)."""

    SESSION_START = "session_start"
    PROMPT = "prompt"
    EDIT = "edit"
    WRITE = "write"
    BASH = "bash"
    TOOL = "tool"  # any other tool, named by the step
    SUBAGENT_STOP = "subagent_stop"
    STOP = "stop"


STEP_KINDS: tuple[str, ...] = tuple(StepKind)


class Outcome(enum.StrEnum):
    """What one step did, as Claude and the user would see it."""

    ALLOWED = "allowed"  # went through
    BLOCKED = "blocked"  # refused by a rule or hook, or a PostToolUse hook reported back
    ASKED = "asked"  # the user is asked (an ask/defer decision, an ask rule, a sensitive path)
    STOPPED = "stopped"  # a hook said continue: false
    ERROR = "error"  # the tool rejected its input; no hook ran

    @property
    def meaning(self) -> str:
        return _OUTCOME_MEANINGS[self]


_OUTCOME_MEANINGS = {
    Outcome.ALLOWED: "went through",
    Outcome.BLOCKED: "refused by a rule or a hook",
    Outcome.ASKED: "the user was asked",
    Outcome.STOPPED: "a hook ended the session (continue: false)",
    Outcome.ERROR: "the tool rejected its input",
}
OUTCOMES: tuple[str, ...] = tuple(Outcome)


class Verdict(enum.StrEnum):
    """How one tool call, stop or prompt ended, in the words a replay compares: the recorded side
    (a transcript) and the replayed side (an engine) must say the same for the same thing.
    The ``*_BY`` words are followed by the hooks, as :func:`verdict` writes them."""

    RAN = "ran"
    REPORTED_BY = "ran, reported by"  # it ran, and a PostToolUse hook reported back
    REFUSED_BY = "refused by"  # a PreToolUse hook kept it from running
    DENIED = "denied"  # a permission rule or the user refused it
    ERROR = "error"  # the tool rejected its input
    ASKED = "asked"  # the user was asked (a replay cannot answer)
    NO_RESULT = "no result"  # the transcript holds no result for the call
    BLOCKED_BY = "blocked by"  # a Stop hook held the turn open
    ALLOWED = "allowed"  # the turn ended
    STOPPED = "stopped"  # a Stop or UserPromptSubmit hook ended the session (continue: false)
    SENT = "sent"  # a prompt reached Claude: no UserPromptSubmit hook refused or stopped it


_BY = (Verdict.REPORTED_BY, Verdict.REFUSED_BY, Verdict.BLOCKED_BY)


def verdict(word: Verdict, hooks: Iterable[str] = ()) -> str:
    """The verdict as a replay shows it: ``refused by a.sh, b.sh`` (hooks sorted, each once;
    "a hook" when none is known), or the word itself."""
    if word not in _BY:
        return word.value
    return f"{word.value} {', '.join(sorted(set(hooks))) or 'a hook'}"


def read_verdict(text: str) -> tuple[Verdict | None, list[str]]:
    """A verdict :func:`verdict` wrote, as its word and hooks; ``None`` for any other text."""
    for word in _BY:
        if text.startswith(f"{word.value} "):
            return word, text.removeprefix(f"{word.value} ").split(", ")
    try:
        return Verdict(text), []
    except ValueError:
        return None, []


class Permission(enum.StrEnum):
    """Why a tool call was let through, asked about or refused (the first rule that held)."""

    DENY_RULE = "deny-rule"  # a permissions.deny rule
    HOOK_DENY = "hook-deny"  # a PreToolUse hook denied
    HOOK_STOP = "hook-stop"  # a PreToolUse hook said continue: false
    HOOK_INPUT = "hook-input"  # a hook's updatedInput failed the tool's schema
    ASK = "ask"  # a PreToolUse hook asked
    DEFER = "defer"  # a PreToolUse hook deferred to the usual prompt
    ASK_RULE = "ask-rule"  # a permissions.ask rule
    ASK_SENSITIVE = "ask-sensitive"  # a write into .claude/ or .git/
    HOOK_ALLOW = "hook-allow"  # a PreToolUse hook allowed
    ALLOW_RULE = "allow-rule"  # a permissions.allow rule
    PROMPTED = "prompted"  # no rule: the usual prompt, which the simulated user approves

    def shown(self, auto_approved: bool = False) -> str:
        """How the permission reads in a step's facts and JSON."""
        return f"{self.value}, auto-approved" if auto_approved else self.value


class Engine(enum.StrEnum):
    """The Claude Code a scripted session plays on."""

    EMULATOR = "emulator"  # the embedded runtime in harness/claude
    CLAUDE_CODE = "claude-code"  # the real, pinned client

    @property
    def label(self) -> str:
        """The engine as a sentence names it: "playing a session on the emulator"."""
        return "real Claude Code" if self is Engine.CLAUDE_CODE else "the emulator"


class PermissionDecision(enum.StrEnum):
    """A PreToolUse hook's ``permissionDecision`` (and a permission rule's kind, and a
    PermissionRequest hook's ``behavior``), as the hooks' JSON words it."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"
    DEFER = "defer"  # to the usual prompt


class BlockDecision(enum.StrEnum):
    """A hook's top-level ``decision``: ``block`` where the event takes it; PreToolUse's older
    ``approve``/``block`` (the client maps them to allow/deny)."""

    BLOCK = "block"
    APPROVE = "approve"


class DevPhase(enum.StrEnum):
    """The phases ``lab dev check`` walks each step through."""

    SETUP = "setup"  # the step's setup actions
    BEFORE = "before"  # every check before solving: must fail
    SOLVE = "solve"  # the solve actions
    AFTER = "after"  # every check after solving: must pass
    HOLLOW = "hollow"  # the hollowed solution: must fail


class VerifyState(enum.StrEnum):
    """How a participant's claims stand with ``lab trainer verify``."""

    VERIFIED = "verified"  # every claim holds
    FAILED = "failed"  # a claim does not hold
    NOT_JUDGED = "not judged"  # the trainer's machine could not judge
    UNVERIFIED = "unverified"  # never verified
    STALE = "stale"  # verified, then submitted again
    VERIFYING = "verifying"  # status --watch at work on the submission


class MemberState(enum.StrEnum):
    """Why a participant needs the trainer, most urgent first (the order is the urgency)."""

    PROBLEM = "unreadable"
    REPLACED = "replaced"
    DELETED = "deleted"
    COPY = "copy"
    DISPROVED = "verify failed"
    STUCK = "stuck"
    IDLE = "idle"
    ABSENT = "not arrived"

    @property
    def urgency(self) -> int:
        return list(MemberState).index(self)


class Provenance(enum.StrEnum):
    """Which evidence passed a live step, as progress records it."""

    LIVE = "live"  # the participant's own Claude Code session, replayed
    SCRIPTED = "scripted"  # the scripted session (lab check --scripted)
    PLAYED = "played by Hook Lab"  # Hook Lab played it on the pinned client (lab solve)


AUTO = "auto"  # an engine choice, not an engine: the real client when installed
BOTH = "both"  # lab dev check --engine both: the emulator, then the real client, compared
ENGINES: tuple[str, ...] = tuple(Engine)
ENGINE_CHOICES: tuple[str, ...] = (*ENGINES, AUTO)

__all__ = [
    "AUTO",
    "BOTH",
    "ENGINES",
    "ENGINE_CHOICES",
    "OUTCOMES",
    "STEP_KINDS",
    "BlockDecision",
    "DevPhase",
    "Engine",
    "MemberState",
    "Outcome",
    "Permission",
    "PermissionDecision",
    "Provenance",
    "StepKind",
    "Verdict",
    "VerifyState",
    "read_verdict",
    "verdict",
]


class HookDecision(enum.StrEnum):
    """What one hook decided at one point of a recorded session, as its transcript shows it."""

    REFUSED = "refused"  # a PreToolUse or UserPromptSubmit hook refused the call or prompt
    REPORTED = "reported"  # a PostToolUse hook reported back (exit 2) after the tool ran
    BLOCKED = "blocked"  # a Stop hook held the turn open
    SAID = "said"  # a hook told the user something (systemMessage)
    RAN = "ran"  # a hook ran and decided nothing the transcript shows
    FAILED = "failed"  # a hook failed without blocking (exit 1, not run)
    STOPPED = "stopped"  # a hook said continue: false


__all__ += ["HookDecision"]
