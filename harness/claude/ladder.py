"""The permission ladder of one tool call, as a pure function of what is known about it.

Claude Code's order (2.1.332, each rung observed by the differential suite): a ``deny`` rule
refuses a file tool before any hook; then the PreToolUse hooks have their say: ``continue:
false`` stops, a hook's ``deny`` refuses, a command ``deny`` rule refuses after the hooks, a
hook's ``updatedInput`` must pass the tool's schema and its input check; then the user is asked
(a hook's ``ask``/``defer``, an ``ask`` rule, a write into ``.claude/`` or ``.git/``) unless
the simulated user approves; else a hook's ``allow``, an ``allow`` rule or the usual prompt,
which the simulated user approves, lets the tool run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.claude.sensitive import sensitive_message
from harness.claude.vocabulary import Outcome, Permission, PermissionDecision

FILE_TOOLS = ("Edit", "Write")
# What Claude is told when a permission prompt stays unanswered (the scenario did not set
# auto_approve); the claude-code engine answers the real prompt with the same words.
UNANSWERED_PROMPT = "The user did not answer the permission prompt; the tool did not run."
DENIED_PATH = (
    "<tool_use_error>File is in a directory that is denied by your permission settings."
    "</tool_use_error>"
)
HOOK_STOPPED = "Stopped by a PreToolUse hook (continue: false)."


@dataclass(frozen=True)
class HookSay:
    """What the PreToolUse hooks said about the call, and what came of a rewrite."""

    stopped: bool = False
    decision: str | None = None  # allow | deny | ask | defer, as the hooks' JSON words it
    message: str = ""  # what a deny tells Claude
    reason: str = ""  # an ask's prompt text
    input_problems: tuple[str, ...] = ()  # an updatedInput that failed the tool's schema
    input_error: str = ""  # an updatedInput the tool's own input check rejected


@dataclass(frozen=True)
class CallFacts:
    """The facts the ladder reads; ``rule`` is ``Permissions.check``'s kind."""

    tool: str
    detail: str  # the command or file, as the ask rule's prompt names it
    command: str = ""  # a Bash call's command, for a deny rule's message
    rule: str = "none"  # deny | ask | allow | none
    sensitive: Path | None = None  # a write into .claude/ or .git/
    auto_approve: bool = False
    unasked: bool = False  # a read-only call the client runs without its usual prompt


ToolCall = CallFacts  # the old name, for branches in flight (recorded.ToolCall is a call)


@dataclass(frozen=True)
class Decision:
    """Where the call ends up. ``runs``: the tool runs (its outcome then depends on what it
    and the PostToolUse hooks do); else ``outcome`` with ``feedback`` for Claude."""

    runs: bool
    permission: Permission | None
    outcome: Outcome = Outcome.ALLOWED
    feedback: str = ""
    prompt: str = ""  # what the user is asked
    asked: bool = False
    auto_approved: bool = False
    turn_ended: bool = False


def _refused(outcome: Outcome, feedback: str, permission: Permission | None) -> Decision:
    return Decision(False, permission, outcome, feedback, turn_ended=outcome is Outcome.STOPPED)


def input_rejected(problem: str, permission: Permission | None = None) -> Decision:
    """The tool itself rejected its input (no hook is told): Claude reads the tool's error."""
    return _refused(Outcome.ERROR, f"<tool_use_error>{problem}</tool_use_error>", permission)


def decide(call: CallFacts, hooks: HookSay | None) -> Decision | None:
    """The ladder for ``call``. ``hooks`` is None before the PreToolUse hooks ran: the answer
    is then a refusal, or None for "ask the hooks first"."""
    if hooks is None:
        if call.rule == PermissionDecision.DENY and call.tool in FILE_TOOLS:
            return _refused(Outcome.BLOCKED, DENIED_PATH, Permission.DENY_RULE)
        return None
    if hooks.stopped:  # a prompt hook's "no" also refuses the call: the client records that
        return _refused(Outcome.STOPPED, hooks.message or HOOK_STOPPED, Permission.HOOK_STOP)
    if hooks.decision == PermissionDecision.DENY:
        return _refused(Outcome.BLOCKED, hooks.message, Permission.HOOK_DENY)
    if call.rule == PermissionDecision.DENY:
        denied = f"Permission to use {call.tool} with command {call.command} has been denied."
        return _refused(Outcome.BLOCKED, denied, Permission.DENY_RULE)
    if hooks.input_problems:
        return _refused(
            Outcome.BLOCKED,
            _rewrite_refused(call.tool, hooks.input_problems),
            Permission.HOOK_INPUT,
        )
    if hooks.input_error:
        return input_rejected(hooks.input_error)
    asking = _asking(call, hooks)
    if asking is not None:
        permission, prompt = asking
        if not call.auto_approve:
            return Decision(False, permission, Outcome.ASKED, UNANSWERED_PROMPT, prompt, asked=True)
        return Decision(True, permission, Outcome.ASKED, asked=True, auto_approved=True)
    if hooks.decision == PermissionDecision.ALLOW:
        return Decision(True, Permission.HOOK_ALLOW)
    if call.rule == PermissionDecision.ALLOW:
        return Decision(True, Permission.ALLOW_RULE)
    if call.unasked:  # Read in the project, `ls`, `cat`: no prompt, no permission to show
        return Decision(True, None)
    return Decision(True, Permission.PROMPTED)  # the simulated user approves the usual prompt


def _asking(call: CallFacts, hooks: HookSay) -> tuple[Permission, str] | None:
    """Who asks the user and what they are shown, or None when nobody asks."""
    if hooks.decision in (PermissionDecision.ASK, PermissionDecision.DEFER):
        return Permission(hooks.decision), hooks.reason
    if call.rule == PermissionDecision.ASK:
        return Permission.ASK_RULE, f"Claude wants to use {call.tool}: {call.detail}"
    if call.sensitive is not None:  # after the hooks, whatever the rules say
        return Permission.ASK_SENSITIVE, sensitive_message(call.sensitive)
    return None


def _rewrite_refused(tool: str, problems: tuple[str, ...]) -> str:
    """The client's words for a hook's updatedInput that fails the tool's schema."""
    plural = "s" if len(problems) > 1 else ""
    return (
        f"PreToolUse hook for {tool} returned updatedInput that failed schema validation: "
        f"{tool} failed due to the following issue{plural}:\n" + "\n".join(problems) + "\n"
        "The tool input from the model was valid; the hook's rewrite of it was not."
    )
