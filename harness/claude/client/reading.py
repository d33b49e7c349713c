"""Reading what the real client said: its stream-json lines, the requests it sent the scripted
model and the permission prompts it raised, turned into the words of a ``StepOutcome``.

Pure: nothing here runs the client or waits for it (``process.py`` and ``session.py`` do).
The shapes read here were observed on the pinned client; a change there shows in the
differential suite first.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from harness.claude import client_words as words
from harness.claude import deepjson
from harness.claude.client.api import ApiRequest, blocks_text
from harness.claude.ladder import UNANSWERED_PROMPT
from harness.claude.runner import HookRun
from harness.claude.vocabulary import Outcome, Permission, PermissionDecision

# What the payload recorder writes on stderr, so its runs are told from the project's hooks.
RECORDER_MARK = "hooklab-payload-recorder"


def hook_messages(text: str) -> list[str]:
    """The hook messages in one text block the client sent, without its reminder wrapping."""
    body = words.REMINDER.sub("", text).strip()
    if body.startswith(words.PREAMBLE):
        body = body.split("\n", 1)[1] if "\n" in body else ""
    body = words.NUDGE.sub("", body).strip()
    return [body] if body and words.HOOK_MESSAGE.match(body) else []


def _woken_by(text: str) -> str:
    """The hook's words in a task notification that woke the model (an ``asyncRewake`` hook's
    exit 2, observed on 2.1.332): the client's framing and preamble left out, only the
    reminder it carries ("Stop hook blocking error from command ...: STDERR")."""
    if words.TASK_NOTIFICATION not in text or words.REMINDER_OPEN not in text:
        return ""
    body = text.split(words.REMINDER_OPEN, 1)[1]
    for end in words.REMINDER_CLOSE:
        body = body.split(end, 1)[0]
    return body.strip()


def hook_feedback(request: ApiRequest, *, after: ApiRequest, background: bool = False) -> list[str]:
    """The hook messages in what the client sent since the model's last turn. ``background``
    (the settings have async hooks): also what async hooks that ended said, which the client
    sends as a system message of its own (observed on 2.1.332)."""
    new = request.messages[len(after.messages) + 1 :]
    said: list[str] = []
    for message in new:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if not isinstance(block, dict) or block.get("type") != "text":
                continue
            text = str(block.get("text", ""))
            if background and message.get("role") == "system" and text.strip():
                said.append(_woken_by(text) or text.strip())
            else:
                said += hook_messages(text)
    return said


def subagent_start_context(request: ApiRequest) -> str:
    """What SubagentStart hooks added to a subagent's first request (observed on 2.1.332: a
    text block that opens with "SubagentStart hook additional context: TEXT", then a blank
    line and the client's own context)."""
    for message in request.messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            text = str(block.get("text", "")) if isinstance(block, dict) else ""
            if text.startswith(words.SUBAGENT_CONTEXT):
                return text.split("\n\n", 1)[0]
    return ""


def compact_blocked(record: StepLog) -> str:
    """What the client told the user when a PreCompact hook blocked /compact (its status
    line: ``compact_result: failed``, ``compact_error: "skipped: Compaction blocked by
    PreCompact hook: [CMD]: STDERR"``), or "" when nothing blocked it."""
    for event in record.events:
        error = str(event.get("compact_error") or "")
        if event.get("compact_result") == "failed" and words.COMPACT_BLOCKED in error:
            return error.removeprefix("skipped: ").strip()
    return ""


def is_recorder(event: dict[str, Any]) -> bool:
    """The payload recorder's own hook run (``ClaudeCodeSession._recorder_settings``), not
    one of the project's hooks."""
    return str(event.get("stderr", "")).strip() == RECORDER_MARK and event.get("exit_code") == 0


@dataclass
class StepLog:
    """What happened while one step ran."""

    events: list[dict[str, Any]] = field(default_factory=list)
    subagent_requests: list[tuple[str, ApiRequest]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    asked: bool = False
    ask_text: str = ""
    permission: Permission | None = None
    auto_approved: bool = False

    def hook_runs(self, event: str | None = None) -> list[HookRun]:
        runs = []
        for e in self.events:
            if e.get("subtype") != "hook_response" or is_recorder(e):
                continue
            if event is not None and e.get("hook_event") != event:
                continue
            code = e.get("exit_code")
            runs.append(
                HookRun(
                    str(e.get("hook_event", "")),
                    _not_run_command(str(e.get("stderr", ""))) or str(e.get("hook_name", "")),
                    int(code) if isinstance(code, int) else None,
                    str(e.get("stdout", "")),
                    str(e.get("stderr", "")),
                    e.get("outcome") == "cancelled",
                    0.0,
                )
            )
        return runs

    def plugin_errors(self) -> list[str]:
        """What the client said of each plugin it could not load (its init message's
        ``plugin_errors``): none of that plugin's hooks runs."""
        said = []
        for e in self.events:
            if e.get("subtype") != "init":
                continue
            for error in e.get("plugin_errors") or ():
                if isinstance(error, dict) and error.get("message"):
                    where = f"{error['path']}: " if error.get("path") else ""
                    said.append(f"Claude Code: {where}{error['message']}")
        return said

    def unanswered_hooks(self, skip_events: Collection[str] = ()) -> set[str]:
        """Ids of the hooks this step saw start and not yet answer, outside ``skip_events``."""
        started = {
            str(e["hook_id"])
            for e in self.events
            if e.get("subtype") == "hook_started"
            and e.get("hook_id")
            and e.get("hook_event") not in skip_events
        }
        return started - {
            str(e.get("hook_id")) for e in self.events if e.get("subtype") == "hook_response"
        }

    def tool_result_event(self, use_id: str) -> dict[str, Any] | None:
        for e in self.events:
            if e.get("type") != "user":
                continue
            content = (e.get("message") or {}).get("content")
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("tool_use_id") == use_id for b in content
            ):
                return e
        return None

    def system_messages(self) -> str:
        """What hooks told the user (``systemMessage`` JSON), from the hook runs' stdout."""
        said = []
        for run in self.hook_runs():
            text = run.stdout.strip()
            if not text.startswith("{"):
                continue
            with contextlib.suppress(json.JSONDecodeError):
                data = deepjson.loads(text)  # a hook's JSON: any depth
                if isinstance(data, dict) and isinstance(data.get("systemMessage"), str):
                    said.append(data["systemMessage"])
        return "\n".join(said)

    def prompt_stopped(self) -> bool:
        """A UserPromptSubmit hook stopped the turn and kept the prompt (2.1.332 says so in
        its notice: ``prompt_submit_outcome.kind: stopped_by_hook``)."""
        return any(
            (e.get("prompt_submit_outcome") or {}).get("kind") == "stopped_by_hook"
            for e in self.events
            if e.get("subtype") == "informational"
        )

    def informational(self, containing: str = "") -> list[str]:
        """The client's informational lines (hook notices, the stop cap), optionally only
        those that contain ``containing``."""
        return [
            str(e["content"])
            for e in self.events
            if e.get("subtype") == "informational"
            and e.get("content")
            and containing in str(e["content"])
        ]


def _not_run_command(stderr: str) -> str:
    """The command of a hook the client did not run, as its message names it
    (``Failed to run: ... Command: bash ${CLAUDE_PLUGIN_ROOT}/x.sh``); "" for any other."""
    head, found, command = stderr.strip().rpartition(" Command: ")
    return command if found and head.startswith(words.NOT_RUN) else ""


def failed_hooks(runs: list[HookRun]) -> list[str]:
    """The client's own words for each hook that failed without blocking (an exit other than
    0 and 2, or a hook it did not run: ``Failed to run: ...``), as the emulator words them.
    The client names the hook by its event and matched value only."""
    errors = []
    for run in runs:
        if run.timed_out or run.exit_code in (None, 0, 2) or run.kind != "command":
            continue
        said = next((line.strip() for line in run.stderr.splitlines() if line.strip()), "")
        said = said or f"exited with status {run.exit_code}"
        errors.append(words.hook_failure(run.event, run.command, said))
    return errors


def metas(event: dict[str, Any] | None) -> list[dict[str, Any]]:
    metas = (event or {}).get("tool_result_meta")
    return [m for m in metas if isinstance(m, dict)] if isinstance(metas, list) else []


def ran(event: dict[str, Any]) -> bool:
    """Whether the tool really ran: the client marks a call it refused before running
    (``non_execution_kind``, a rejected permission decision); an input the tool itself
    rejected carries no permission record at all."""
    found = metas(event)
    if not found:
        return False
    for meta in found:
        if meta.get("non_execution_kind"):
            return False
        if words.rejected(meta.get("permission_decision")):
            return False
    return True


NOT_RUN = (words.TOOL_USE_ERROR, words.PERMISSION_DENIED, UNANSWERED_PROMPT)


def ran_by_text(text: str, is_error: bool) -> bool:
    """Whether the tool ran, judged from its result alone (when the client's result line did
    not come): a refusal reads as a hook error, an input error or a permission denial."""
    if not is_error:
        return True
    return not (text.startswith(NOT_RUN) or words.first_line_has(text, words.HOOK_ERROR))


def input_error(event: dict[str, Any] | None, text: str) -> bool:
    """The tool rejected its input (no permission record at all), e.g. an Edit whose
    old_string is not in the file."""
    if event is not None:
        return not metas(event)
    return text.startswith(words.TOOL_USE_ERROR) and "permission settings" not in text


def refusal(event: dict[str, Any] | None) -> Permission | None:
    for meta in metas(event):
        decision = meta.get("permission_decision")
        if words.rejected(decision):
            hook = words.rejected_by_hook(decision)
            return Permission.HOOK_DENY if hook else Permission.DENY_RULE
    return None


def tool_result(request: ApiRequest, use_id: str) -> dict[str, Any] | None:
    for message in reversed(request.messages):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and block.get("tool_use_id") == use_id
            ):
                return block
    return None


def first_text(request: ApiRequest) -> str:
    blocks = request.last_user_blocks()
    return blocks_text(blocks)[:300] if blocks else "(no message)"


# Why the client raises a permission prompt (``decision_reason_type``) -> who asks.
_ASKING = {
    "rule": Permission.ASK_RULE,
    "hook": Permission.ASK,
    "safetyCheck": Permission.ASK_SENSITIVE,
}


@dataclass(frozen=True)
class PromptRead:
    """A permission prompt the client raised, and the simulated user's answer to it."""

    permission: Permission
    allow: bool
    asked: bool  # a real question (a rule, a hook, a sensitive path), not the usual prompt
    ask_text: str = ""

    def response(self, request: dict[str, Any]) -> dict[str, Any]:
        """The control response's body for the client."""
        if self.allow:
            given = request.get("input") or {}
            return {"behavior": PermissionDecision.ALLOW, "updatedInput": given}
        return {"behavior": PermissionDecision.DENY, "message": UNANSWERED_PROMPT}


def read_prompt(request: dict[str, Any], auto_approve: bool) -> PromptRead:
    """A ``can_use_tool`` request: an ask is answered as the scenario says (``auto_approve``);
    the usual prompt for a tool without an allow rule is approved."""
    asking = _ASKING.get(str(request.get("decision_reason_type") or ""))
    if asking is None:
        return PromptRead(Permission.PROMPTED, allow=True, asked=False)
    return PromptRead(asking, auto_approve, True, str(request.get("decision_reason") or ""))


@dataclass
class ToolRead:
    """What a tool call did, read from the client: the ``StepOutcome`` fields of a tool step."""

    outcome: Outcome
    tool_ran: bool
    permission: Permission | None
    auto_approved: bool = False
    feedback: str = ""
    user_message: str = ""
    additional_context: str = ""
    tool_result: str = ""
    tool_response: dict[str, Any] | None = None
    errors: list[str] = field(default_factory=list)


def read_tool(
    record: StepLog,
    use_id: str,
    *,
    before: ApiRequest,
    after: ApiRequest,
    auto_approve: bool,
    background: bool = False,
) -> ToolRead:
    """The tool call ``use_id`` as the client reports it: the result it sent the model in
    ``after`` (the request that followed ``before``), its stream-json result line and the
    permission prompt it raised on the way."""
    event = record.tool_result_event(use_id)
    block = tool_result(after, use_id)
    text = blocks_text(block.get("content")) if block else ""
    is_error = bool(block.get("is_error")) if block else False
    did_run = ran(event) if event is not None else ran_by_text(text, is_error)
    read = ToolRead(
        Outcome.ALLOWED, did_run, record.permission, record.auto_approved, tool_result=text
    )
    if event is not None and isinstance(event.get("tool_use_result"), dict):
        read.tool_response = event["tool_use_result"]
    said = hook_feedback(after, after=before)
    late = [m for m in hook_feedback(after, after=before, background=background) if m not in said]
    context = [m for m in said if words.first_line_has(m, words.ADDITIONAL_CONTEXT)]
    read.additional_context = "\n".join(context)
    if not did_run:
        read.feedback = text
        if record.asked and not auto_approve:
            read.outcome, read.user_message = Outcome.ASKED, record.ask_text
        elif input_error(event, text):
            read.outcome = Outcome.ERROR
        else:
            read.outcome = Outcome.BLOCKED
            refused_by = refusal(event)
            if refused_by is not None:
                read.permission, read.auto_approved = refused_by, False
    else:
        read.feedback = "\n".join(said + late)  # what async hooks said decides nothing here
        if any(words.first_line_has(m, words.BLOCKING) for m in said):
            read.outcome = Outcome.BLOCKED
        elif record.asked:
            read.outcome = Outcome.ASKED
    # A tool that ran and failed (a command exiting 1) is the tool's failure, in its result:
    # no hook error (the emulator reads it so too).
    return read


def read_stop_end(record: StepLog, result: dict[str, Any]) -> Outcome:
    """How a stop that ended the turn went: a hook stopped the session, a hook blocked and
    the client overrode it (its cap, or the block came too late), or it simply ended."""
    if result.get("terminal_reason") == "hook_stopped":
        return Outcome.STOPPED
    capped = bool(record.informational("consecutive times"))
    if capped or any(r.exit_code == 2 for r in record.hook_runs("Stop")):
        return Outcome.BLOCKED
    return Outcome.ALLOWED
