"""Hook event names: which ones Claude Code knows, which the simulator runs, what each matches."""

from __future__ import annotations

import enum

from harness.errors import HarnessError


class Event(enum.StrEnum):
    """The events the simulator dispatches. Values are the names used in settings and payloads."""

    SESSION_START = "SessionStart"
    USER_PROMPT_SUBMIT = "UserPromptSubmit"
    PRE_TOOL_USE = "PreToolUse"
    POST_TOOL_USE = "PostToolUse"
    POST_TOOL_USE_FAILURE = "PostToolUseFailure"  # instead of PostToolUse when the tool failed
    SUBAGENT_STOP = "SubagentStop"
    STOP = "Stop"
    # Observed firing in a scripted session on 2.1.332, and dispatched here too:
    SESSION_END = "SessionEnd"  # the session ends (the client exits, or a new one starts)
    SUBAGENT_START = "SubagentStart"  # a subagent starts, after the Agent call's PreToolUse
    PERMISSION_REQUEST = "PermissionRequest"  # a permission prompt is about to be shown
    POST_TOOL_BATCH = "PostToolBatch"  # the model's tool calls of one turn have all answered
    PRE_COMPACT = "PreCompact"  # /compact, before the conversation is summarised
    POST_COMPACT = "PostCompact"  # /compact, with the summary
    STOP_FAILURE = "StopFailure"  # a (sub)agent's turn ended by an API error (max_tokens)


# Every event name the pinned client (2.1.332) knows, in its own order (its list of hook
# events, read from the client). A settings file may register any of them; the simulator
# dispatches those in ``Event``, and the others are named in a warning. A name outside this
# list is one Claude Code loads and never runs.
CLIENT_EVENTS: tuple[str, ...] = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
)
KNOWN_EVENTS: frozenset[str] = frozenset(CLIENT_EVENTS)

# The payload field a matcher is compared with; None means the event ignores matchers.
MATCH_FIELD: dict[Event, str | None] = {
    Event.SESSION_START: "source",
    Event.USER_PROMPT_SUBMIT: None,
    Event.PRE_TOOL_USE: "tool_name",
    Event.POST_TOOL_USE: "tool_name",
    Event.POST_TOOL_USE_FAILURE: "tool_name",
    Event.SUBAGENT_STOP: "agent_type",
    Event.STOP: None,
    Event.SESSION_END: "reason",
    Event.SUBAGENT_START: "agent_type",
    Event.PERMISSION_REQUEST: "tool_name",
    Event.POST_TOOL_BATCH: None,
    Event.PRE_COMPACT: "trigger",
    Event.POST_COMPACT: "trigger",
    Event.STOP_FAILURE: "error",
}
# Events whose JSON carries no permission_mode and no effort (they come outside a model turn).
OUTSIDE_TURN = frozenset(
    {Event.SESSION_END, Event.SUBAGENT_START, Event.PRE_COMPACT, Event.POST_COMPACT}
)

# Events whose hooks the client starts and does not wait for, as if each were ``async``
# (observed on 2.1.332: with a StopFailure hook sleeping, the Stop hook ran 70 ms after it
# started, and the session ended with it still asleep). They decide nothing.
UNAWAITED = frozenset({Event.STOP_FAILURE})

# "fork": a session forked from another (--fork-session), which the client also names.
SESSION_START_SOURCES = ("startup", "resume", "clear", "compact", "fork")


def check_start_source(source: str) -> None:
    """Refuse a SessionStart ``source`` Claude Code never sends, before the session acts."""
    if source not in SESSION_START_SOURCES:
        raise HarnessError(
            f"session_start source {source!r} is not one of " + ", ".join(SESSION_START_SOURCES),
            fix="use startup, resume, clear, compact or fork",
        )


# Events about one tool call: the client names them "Event:Tool" in what Claude is sent.
TOOL_EVENTS = frozenset({Event.PRE_TOOL_USE, Event.POST_TOOL_USE, Event.POST_TOOL_USE_FAILURE})
