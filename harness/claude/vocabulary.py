"""The words every layer uses for what a session step did: its outcome, why a tool was let
through or refused, and which Claude Code played it.

Each is a ``StrEnum``, so JSON, TOML and ``==`` against a plain string keep the word itself;
the word is declared once, here, with how it reads to a person.
"""

from __future__ import annotations

import enum


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
    "Engine",
    "Outcome",
    "Permission",
]
