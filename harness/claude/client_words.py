"""The client's words: how Claude Code phrases what hooks did, in one place.

The live reader (``client/reading.py``, the stream and the requests the pinned client sends)
and the transcript reader (``recorded/``) both decode these texts, and the emulator's
transcript (``transcript.py``) writes them back in the client's lines. Every phrase here was
read in files real clients wrote: the transcripts in tests/claude/transcripts/ (2.0.64 to
2.1.332) and the sessions the tests play on the pinned client (tests/recorded_sessions.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# -- what a refused call reads ---------------------------------------------------------------

# A PreToolUse hook's exit 2, as the tool's error result: ``PreToolUse:Edit hook error:
# [COMMAND]: STDERR``.
TOOL_REFUSAL = re.compile(r"^(PreToolUse):([\w.:-]+) hook error: \[(.+?)\]: ", re.S)
# A reasonless JSON deny, as clients up to 2.1.4x word its result.
HOOK_DENIED = re.compile(r"^Hook PreToolUse:\S+ denied this tool")
# The tool rejected its input (or the client refused it before running it): the result opens
# with this tag.
TOOL_USE_ERROR = "<tool_use_error>"
# A tool's own failure, as clients 2.0.64 to 2.1.332 word it: a call that ended so was not
# refused by a hook, even when the client records no decision.
OWN_ERROR = re.compile(
    r"^(?:<tool_use_error>|\[Request interrupted|InputValidationError|Exit code \d+$"
    r"|Command timed out)",
    re.M,
)
# The client's permission answers before 2.1.332 recorded the decision: the user's (group 1),
# or a rule's.
PERMISSION_DENIAL = re.compile(
    r"^(?:(Claude requested permissions to use |The user doesn't want to proceed)"
    r"|Permission to use .+ has been denied|MCP tool .+ has been denied)"
)
PERMISSION_DENIED = "Permission to use "  # a rule's refusal, as the result opens
INTERRUPTED = "[Request interrupted by user"  # after a No to a permission prompt, or Esc

# The permission decision the client records with a refused call (2.1.332: the transcript's
# ``permissionDecision``, the stream's ``tool_result_meta[].permission_decision``):
# ``{"decision": "reject", "source": "hook", "reasonType": "hook", "reasonCode":
# "hook:PreToolUse"}`` when a PreToolUse hook refused it.
REJECT = "reject"
HOOK_SOURCE = "hook"
CLASSIFIER = "classifier"  # reasonType of auto mode's check


def rejected(decision: object) -> bool:
    """The client's permission decision refused the call."""
    return isinstance(decision, Mapping) and decision.get("decision") == REJECT


def rejected_by_hook(decision: object) -> bool:
    """The client's permission decision says a hook refused the call."""
    return (
        rejected(decision)
        and isinstance(decision, Mapping)
        and (decision.get("source") == HOOK_SOURCE)
    )


def hook_rejection(event: str = "PreToolUse") -> dict[str, str]:
    """The decision the pinned client records for a call a hook refused."""
    return {
        "decision": REJECT,
        "source": HOOK_SOURCE,
        "reasonType": HOOK_SOURCE,
        "reasonCode": f"hook:{event}",
    }


# -- stops and prompts -----------------------------------------------------------------------

STOP_FEEDBACK_HEAD = "Stop hook feedback:\n"
STOP_FEEDBACK = re.compile(r"^Stop hook feedback:\n(?:\[(.+?)\]: )?", re.S)
# A UserPromptSubmit refusal (exit 2), as a system line: the hook's words, then the prompt.
PROMPT_REFUSED = re.compile(
    r"^UserPromptSubmit operation blocked by hook:\n(?:\[(.+?)\]: )?(.*?)\n*"
    r"Original prompt: (.*)$",
    re.S,
)
PROMPT_STOPPED = "Operation stopped by hook"  # a UserPromptSubmit hook's continue: false
NON_BLOCKING = "Failed with non-blocking status code"  # a hook's exit 1 (or other non-2)
# A background agent's end as the client notes it for Claude (2.1.332): the call's id, ended.
TASK_DONE = re.compile(r"<task-notification>.*?<tool-use-id>([^<]+)</tool-use-id>", re.S)
# A PostToolUse (or other) exit 2, as Claude reads it: ``PostToolUse:Write hook blocking error
# from command: "COMMAND": [COMMAND]: STDERR``.
BLOCKING_ERROR = re.compile(
    r'^(?P<label>[\w.:-]+) hook blocking error from command: "(?P<command>.*?)": ', re.M
)

# A hook that failed without blocking (an exit other than 0 and 2, or not run), as Claude Code
# names it to the user: by its event and command.
HOOK_FAILURE = re.compile(r"^(?P<event>\w+) hook error \((?P<command>.+?)\): (?P<said>.*)$", re.S)


def hook_failure(event: str, command: str, said: str) -> str:
    """A non-blocking hook failure in the words ``HOOK_FAILURE`` reads."""
    return f"{event} hook error ({command}): {said}"


# The transcript's attachment types for what hooks did (2.1.100 to 2.1.332).
BLOCKING_ATTACHMENT = "hook_blocking_error"  # exit 2: a report (PostToolUse), a held stop
SYSTEM_MESSAGE_ATTACHMENT = "hook_system_message"  # a hook's systemMessage
SUCCESS_ATTACHMENT = "hook_success"
NON_BLOCKING_ATTACHMENT = "hook_non_blocking_error"  # a failure that did not block


# -- hook messages as they reach the model (the requests the client sends) -------------------

REMINDER = re.compile(r"</?system-reminder>")
REMINDER_OPEN = "<system-reminder>"
REMINDER_CLOSE = ("</system-reminder>", "&lt;/system-reminder&gt;")  # as sent, or escaped
TASK_NOTIFICATION = "<task-notification>"  # a background task's end, told to the model
# The client's nudge after a long turn (seen on 2.1.332 on a loaded machine, after a hook's
# message in the same block): the model is reminded to report, no hook said it.
NUDGE = re.compile(r"\s*The user hasn't heard from you in a while\..*\Z", re.DOTALL)
PREAMBLE = "The text below is the output of a hook"
# Messages the client writes for hooks, as they reach the model.
HOOK_MESSAGE = re.compile(
    r"^(?:(?:PreToolUse|PostToolUse|PostToolUseFailure|Stop|SubagentStop|UserPromptSubmit|"
    r"SessionStart)(?::[\w.:-]+)? hook (?:error|blocking error|additional context|success)"
    r"|Stop hook feedback:|SubagentStop hook feedback:)"
)
HOOK_ERROR = " hook error: "  # on a message's first line: a PreToolUse refusal
BLOCKING = " hook blocking error "  # on a message's first line: a blocking report
ADDITIONAL_CONTEXT = " hook additional context: "
SUBAGENT_CONTEXT = "SubagentStart hook additional context: "
COMPACT_BLOCKED = "Compaction blocked by PreCompact hook"  # a /compact a hook refused
NOT_RUN = "Failed to run: "  # a hook the client did not run; its message ends " Command: CMD"

# -- naming the hook a message speaks of -----------------------------------------------------

# Programs a hook command starts its script with: the script, not they, names the hook.
_RUNNERS = frozenset(
    {"bash", "sh", "zsh", "dash", "env", "exec", "python", "python3", "node", "bun", "deno"}
    | {"uv", "uvx", "npx", "ruby", "perl", "timeout", "cd", "&&", ";", "run"}
)
_SCRIPT_SUFFIXES = (".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl")


def prompt_hook_label(event: str) -> str:
    """A prompt hook's name in a verdict (``blocked by the prompt hook on Stop``): the client
    writes its prompt where a command hook's command goes (``[Did the tests run? $ARGUMENTS]:
    reason``), and :func:`hook_name` of that is the prompt's first word ("blocked by Did")."""
    return f"the prompt hook on {event}"


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


def first_line_has(message: str, words: str) -> bool:
    return words in message.split("\n", 1)[0]
