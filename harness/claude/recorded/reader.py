"""Reading a transcript: what the real Claude Code client wrote, into one typed timeline.

One JSON object a line (where the client keeps the files: ``finder.py``). The client's
phrases decoded here live in ``harness.claude.client_words``; the emulator's transcript
(``transcript.py``) writes the same lines for the same moments.

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

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.claude import client_words as words
from harness.claude.client_words import hook_name
from harness.claude.recorded.entries import (
    AUTO_MODE_CHECK,
    CHANGING_TOOLS,
    UNNAMED_HOOK,
    USER,
    Prompt,
    RecordedDecision,
    StopAttempt,
    SubagentRun,
    ToolCall,
    _cap,
    _text,
    parse_time,
)
from harness.claude.recorded.files import json_lines, read_agent
from harness.claude.recorded.model import (
    RecordedSessionError,
    Timeline,
)
from harness.claude.vocabulary import HookDecision

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
        for number, raw, complete in json_lines(path):
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


def _identify(t: Timeline, entry: dict[str, Any]) -> None:
    """The session's id, cwd, client version and start, from its first lines that say them."""
    if not t.session_id and isinstance(entry.get("sessionId"), str):
        t.session_id = entry["sessionId"]
    if not t.cwd and isinstance(entry.get("cwd"), str):
        t.cwd = entry["cwd"]
    if not t.client_version and isinstance(entry.get("version"), str):
        t.client_version = entry["version"][:40]
    if t.started is None and isinstance(entry.get("timestamp"), str):
        t.started = parse_time(entry["timestamp"])


def _message(entry: dict[str, Any]) -> dict[str, Any]:
    message = entry.get("message")
    return message if isinstance(message, dict) else {}


class _Reader:
    """Turns transcript lines into the timeline, one at a time.

    Clients before 2.1.332 write some lines late or not at all (see ``model.FORMATS``), so a line
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
        _identify(self.t, entry)
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
        found = words.TASK_DONE.search(str(entry.get("content") or ""))
        if found is None:
            return
        call = self.calls.get(found.group(1))
        if call is not None and call.subagent is not None and call.subagent.ended_line is None:
            call.subagent.ended_line = number

    def _decide(self, decision: RecordedDecision) -> None:
        self.t.decisions.append(decision)

    # -- prompts ---------------------------------------------------------------------------

    def _user(self, number: int, entry: dict[str, Any]) -> None:
        content = _message(entry).get("content")
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
        if text.startswith(words.PROMPT_STOPPED) and isinstance(last, Prompt):
            # continue: false from a UserPromptSubmit hook: a user line right after the prompt
            # (a plain one up to 2.1.4x, isMeta on 2.1.332). The prompt stays; no answer.
            last.stopped = True
            last.feedback = _cap(text.removeprefix(words.PROMPT_STOPPED).lstrip(": "))
            self._decide(
                RecordedDecision(number, "UserPromptSubmit", "", HookDecision.STOPPED, _cap(text))
            )
        elif entry.get("isMeta") is True:
            self._meta(number, text)
        elif text.startswith(words.INTERRUPTED):
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
        self._decide(
            RecordedDecision(number, "UserPromptSubmit", hook, HookDecision.REFUSED, _cap(said))
        )

    # -- stops -----------------------------------------------------------------------------

    def _meta(self, number: int, text: str) -> None:
        match = words.STOP_FEEDBACK.match(text)
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
        self._decide(RecordedDecision(number, "Stop", hook, HookDecision.BLOCKED, _cap(text)))

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
        # A prompt hook's info carries its promptText (2.1.332): it is named as one, not by
        # its prompt's first word, which the feedback line gave it.
        prompts = {
            hook_name(str(i["command"]))
            for i in (infos if isinstance(infos, list) else [])
            if isinstance(i, dict) and i.get("command") and i.get("promptText")
        }
        stop.blocked_by = [
            words.prompt_hook_label("Stop") if hook in prompts else hook for hook in stop.blocked_by
        ]
        failing = entry.get("failedHookErrorIndexes")
        failing = failing if isinstance(failing, list) else []
        errors = entry.get("hookErrors")
        failed_before = bool(stop.failed)  # 2.1.332 named them in attachments already
        for index, error in enumerate(errors if isinstance(errors, list) else []):
            text = str(error)
            if text.startswith(words.NON_BLOCKING) or index in failing:
                if not failed_before:
                    hook = next(iter(commands)) if len(commands) == 1 else "a Stop hook"
                    self._stop_failed(stop, number, hook, text)
                continue
            match = re.match(r"^\[(.+?)\]: ", text, re.S)
            hook = hook_name(match.group(1)) if match else ""
            hook = words.prompt_hook_label("Stop") if hook in prompts else hook
            if hook and hook not in stop.blocked_by:
                stop.blocked_by.append(hook)
            if not stop.feedback:
                stop.feedback = _cap(text)

    def _stop_failed(self, stop: StopAttempt, number: int, hook: str, text: str) -> None:
        """A Stop hook that failed without blocking (exit 1 and the like): the turn ended."""
        stop.failed.append(hook)
        stop.failure = _cap(f"{stop.failure}\n{text}" if stop.failure else text)
        self._decide(RecordedDecision(number, "Stop", hook, HookDecision.FAILED, _cap(text)))

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
        refusal = words.TOOL_REFUSAL.match(call.result_text)
        if refusal is not None:
            call.refused_by = hook_name(refusal.group(3))
        elif words.rejected(decision):
            if words.rejected_by_hook(decision):
                call.refused_by = UNNAMED_HOOK
            elif decision.get("reasonType") == words.CLASSIFIER:
                call.denied = AUTO_MODE_CHECK
            else:
                call.denied = str(decision.get("source") or "a rule")
        elif call.is_error and not decision:
            denial = words.PERMISSION_DENIAL.match(call.result_text)
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
            RecordedDecision(
                number,
                "PreToolUse",
                call.refused_by,
                HookDecision.REFUSED,
                call.result_text,
                call.use_id,
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
            read_agent(self.t.path, run)

    def _assistant(self, number: int, entry: dict[str, Any]) -> None:
        message = _message(entry)
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
            match = words.PROMPT_REFUSED.match(str(entry.get("content", "")))
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
        if kind == words.NON_BLOCKING_ATTACHMENT and event == "Stop":
            stop = self.awaiting[0] if self.awaiting else self.stop
            if stop is not None:
                said = str(attachment.get("stderr") or "")
                self._stop_failed(stop, number, hook or "a Stop hook", said)
                return
        decision = {
            words.BLOCKING_ATTACHMENT: HookDecision.REPORTED,
            words.SYSTEM_MESSAGE_ATTACHMENT: HookDecision.SAID,
            words.SUCCESS_ATTACHMENT: HookDecision.RAN,
            words.NON_BLOCKING_ATTACHMENT: HookDecision.FAILED,
        }.get(kind, kind.removeprefix("hook_"))
        if kind == words.BLOCKING_ATTACHMENT and event == "Stop":
            decision = HookDecision.BLOCKED
            stop = self.stop or self._orphan_stop(number)
            if hook:
                stop.blocked_by.append(hook)
            stop.feedback = stop.feedback or _cap(text)
        elif kind == words.BLOCKING_ATTACHMENT and use_id in self.calls:
            call = self.calls[use_id]
            call.reported_by.append(hook or "a hook")
            call.reported_text.append(_cap(f"{event}:{call.name} hook blocking error: {text}"))
        elif kind == words.SYSTEM_MESSAGE_ATTACHMENT and event == "Stop" and self.stop is not None:
            self.stop.system_message = _cap(text)
        self._decide(RecordedDecision(number, event, hook, decision, _cap(text), use_id))

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
        self._decide(RecordedDecision(number, event, hook, HookDecision.RAN, tool_use_id=use_id))

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
        none of a tool's own (``words.OWN_ERROR``), no PostToolUse hook ran on it, and a PreToolUse
        hook did (its progress line; a client without progress lines shows no hook at all, so
        there only the calls of the tools that change the workspace are read so)."""
        for call in self.t.tool_calls:
            if not call.is_error or call.refused_by or call.denied or call.result_line is None:
                continue
            hooks = sorted(set(self.pre_hooks.get(call.use_id, [])))
            if words.HOOK_DENIED.match(call.result_text) is None:
                if words.OWN_ERROR.search(call.result_text) or call.use_id in self.post_ran:
                    continue
                if self.progress_seen and not hooks:
                    continue
                if not self.progress_seen and call.name not in CHANGING_TOOLS:
                    continue
            call.refused_by = hooks[0] if len(hooks) == 1 else UNNAMED_HOOK
            self._refused(call.result_line, call)
