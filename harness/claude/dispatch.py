"""One event through its hooks: who runs, and what their exit codes and JSON mean.

Routing, as real Claude Code (2.1.332) does it, observed by the differential suite:
- exit 2: blocking. Stdout (and any JSON in it) is ignored; stderr goes where the event sends
  it, prefixed the client's way (``PreToolUse:Edit hook error: [COMMAND]: STDERR``,
  ``Stop hook feedback:\n[COMMAND]: STDERR``, ...).
- any other exit code: stdout that starts with ``{`` is read as JSON (so ``decision: block``
  with exit 1 still blocks); a ``hookSpecificOutput`` without ``hookEventName`` makes the whole
  answer invalid (no decision). Plain stdout is context for SessionStart and UserPromptSubmit
  and only shows in the transcript view otherwise. A non-zero exit without JSON is a
  non-blocking error.
- timed out: killed, output discarded, no decision, never blocking.
``messages`` holds exactly what Claude is sent, in the client's wording; ``block_reasons``
keeps the hooks' own words.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.claude import deepjson
from harness.claude.client_env import client_hook_variables
from harness.claude.events import MATCH_FIELD, TOOL_EVENTS, UNAWAITED, Event
from harness.claude.runner import (
    BackgroundHook,
    HookRun,
    Judge,
    cap,
    run_hooks,
    start_async_hooks,
)
from harness.claude.settings import AGENT_TYPE, MODEL_TYPES, Settings
from harness.claude.vocabulary import BlockDecision, Outcome, PermissionDecision

# PreToolUse decisions, strongest first: one deny among many allows still denies.
DECISION_RANK = {
    PermissionDecision.DENY: 3,
    PermissionDecision.DEFER: 2,
    PermissionDecision.ASK: 1,
    PermissionDecision.ALLOW: 0,
}
# The PreToolUse hooks' decisions so far: (decision, reason, what Claude is told).
_Decisions = list[tuple[PermissionDecision, str, str]]
# The older PreToolUse form, as the client reads it.
_OLDER_FORM = {
    BlockDecision.APPROVE: PermissionDecision.ALLOW,
    BlockDecision.BLOCK: PermissionDecision.DENY,
}
_DECISION_EVENTS = {
    Event.STOP,
    Event.SUBAGENT_STOP,
    Event.POST_TOOL_USE,
    Event.POST_TOOL_USE_FAILURE,
    Event.USER_PROMPT_SUBMIT,
}
_CONTEXT_EVENTS = {Event.SESSION_START, Event.USER_PROMPT_SUBMIT}
_STOP_EVENTS = {Event.STOP, Event.SUBAGENT_STOP}
# Events whose exit 2 only shows the user its stderr (the client's own description of each).
_USER_ONLY_EVENTS = {
    Event.SESSION_START,
    Event.SESSION_END,
    Event.SUBAGENT_START,
    Event.PERMISSION_REQUEST,
    Event.POST_COMPACT,
    Event.STOP_FAILURE,
    Event.NOTIFICATION,  # the client's code drops the answer (2.1.332; exit 2 not observed)
}
DENIED_BY_HOOK = "Permission denied by PermissionRequest hook"  # a deny without a message
NO_VERDICT = "A hook gave no usable answer, so it didn't check this action."
TOO_LATE = "A hook didn't answer in time, so it didn't check this action."


@dataclass
class EventOutcome:
    """What one event's hooks decided.

    ``blocked`` means, per event: PreToolUse — the tool call is refused (a deny decision or exit
    2); PostToolUse and PostToolUseFailure — a message goes to Claude (the tool already ran);
    Stop/SubagentStop — (sub)agent keeps working with the messages as its instruction (an
    ``additionalContext`` keeps it working too); UserPromptSubmit — the prompt is erased and
    ``user_messages`` are shown to the user. SessionStart never blocks; its exit-2 stderr lands
    in ``user_messages``. ``continue_`` False (JSON ``continue: false``) stops Claude
    altogether and wins over all. ``messages`` are what Claude is sent, word for word.
    """

    event: Event
    label: str = ""  # "PreToolUse:Edit", "Stop": how the client names the event in messages
    runs: list[HookRun] = field(default_factory=list)
    blocked: bool = False
    block_reasons: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    # PreToolUse: allow|deny|ask|defer; PermissionRequest: its decision.behavior, allow|deny
    permission_decision: PermissionDecision | None = None
    updated_input: dict[str, Any] | None = None  # PreToolUse only: the tool input to run with
    permission_reason: str = ""
    continue_: bool = True
    stop_reason: str = ""
    system_messages: list[str] = field(default_factory=list)
    additional_context: list[str] = field(default_factory=list)
    user_messages: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # non-blocking, for the transcript
    output: list[str] = field(default_factory=list)  # plain stdout, transcript view only
    notes: list[str] = field(
        default_factory=list
    )  # what the client says of a hook (invalid JSON, timeouts)
    background: list[BackgroundHook] = field(default_factory=list)  # async hooks, running

    @property
    def stopped(self) -> bool:
        return not self.continue_

    @property
    def reason(self) -> str:
        return cap("\n".join(r for r in self.block_reasons if r))

    @property
    def message(self) -> str:
        """Everything Claude is sent for this event, as one text: each message on lines of
        its own (the client keeps a message's final newline and adds none after it)."""
        if not self.messages:
            return ""
        head = [m if m.endswith("\n") else m + "\n" for m in self.messages[:-1]]
        return "".join(head) + self.messages[-1]

    @property
    def system_message(self) -> str:
        return cap("\n".join(self.system_messages))

    def __repr__(self) -> str:
        verdict = (
            Outcome.STOPPED
            if self.stopped
            else Outcome.BLOCKED
            if self.blocked
            else self.permission_decision or "ok"
        )
        hooks = ", ".join(
            f"{r.command!r}:{'timeout' if r.timed_out else r.exit_code}" for r in self.runs
        )
        return f"<EventOutcome {self.event.value} {verdict} [{hooks}]>"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _stderr_message(out: EventOutcome, run: HookRun) -> str:
    """A blocking exit 2 as the client words it for Claude."""
    # An agent hook's "no" is told in its own words, without the hook's name (2.1.332).
    said = run.stderr if run.kind == AGENT_TYPE else f"[{run.command}]: {run.stderr}"
    if out.event is Event.PRE_TOOL_USE:
        return f"{out.label} hook error: {said}"
    if out.event in _STOP_EVENTS:
        return f"Stop hook feedback:\n{said}"
    return f'{out.label} hook blocking error from command: "{run.command}": {said}'


def _apply_json(
    out: EventOutcome,
    data: dict[str, Any],
    run: HookRun,
    decisions: _Decisions,
) -> None:
    """A hook's JSON answer, field by field in the order the client reads them."""
    event = out.event
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("hookEventName") != event.value:
        # The client rejects the whole answer: no decision, no message.
        named = specific.get("hookEventName")
        out.notes.append(
            f"{run.command}: hookSpecificOutput "
            + ("has no hookEventName" if named is None else f"names {named!r}, not {event.value!r}")
            + f"; {NO_VERDICT}"
        )
        return
    if data.get("continue") is False:
        out.continue_ = False
        reason = data.get("stopReason")
        if isinstance(reason, str) and reason and not out.stop_reason:
            out.stop_reason = reason
    message = data.get("systemMessage")
    if isinstance(message, str) and message:
        out.system_messages.append(message)
    if data.get("decision") is not None:
        reason = data.get("reason")
        _apply_decision(
            out, data["decision"], reason if isinstance(reason, str) else "", run, decisions
        )
    if isinstance(specific, dict):
        _apply_specific(out, specific, run, decisions)


def _apply_decision(
    out: EventOutcome,
    decision: object,
    reason: str,
    run: HookRun,
    decisions: _Decisions,
) -> None:
    """The top-level ``decision`` field: ``block`` where the event takes it, the older
    PreToolUse ``approve``/``block``."""
    event = out.event
    blocking = f'{out.label} hook blocking error from command: "{run.command}": ' + reason
    if event in _DECISION_EVENTS and decision == BlockDecision.BLOCK:
        out.blocked = True
        if event is Event.USER_PROMPT_SUBMIT:
            out.user_messages.append(f"{out.label} operation blocked by hook:\n{reason}")
            return
        out.block_reasons.append(reason)
        if event in _STOP_EVENTS:
            out.messages.append(f"Stop hook feedback:\n{reason}")
        out.messages.append(blocking)
    elif event is Event.PRE_TOOL_USE and isinstance(decision, str) and decision in _OLDER_FORM:
        # The older PreToolUse form; Claude Code still maps it to allow/deny.
        decisions.append((_OLDER_FORM[BlockDecision(decision)], reason, reason))
    elif decision not in (BlockDecision.APPROVE, "undefined"):
        out.notes.append(f"{run.command}: decision {decision!r} has no effect on {event.value}")


def _apply_specific(
    out: EventOutcome,
    specific: dict[str, Any],
    run: HookRun,
    decisions: _Decisions,
) -> None:
    """``hookSpecificOutput`` that names this event: context, PreToolUse's decision and
    rewritten input."""
    event = out.event
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        out.additional_context.append(context)
        if event in _STOP_EVENTS:
            out.blocked = True  # the client keeps the turn going with the context
            out.messages.append(f"{out.label} hook additional context: {context}")
        elif event not in _CONTEXT_EVENTS:
            out.messages.append(f"{out.label} hook additional context: {context}")
    if event is Event.PERMISSION_REQUEST:
        _apply_permission_answer(out, specific.get("decision"), run)
    if event is not Event.PRE_TOOL_USE:
        return
    if "permissionDecision" in specific:
        value = specific["permissionDecision"]
        why = specific.get("permissionDecisionReason")
        if value in DECISION_RANK:
            text = why if isinstance(why, str) else ""
            decisions.append((PermissionDecision(value), text, text))
        else:
            out.notes.append(
                f"{run.command}: permissionDecision {value!r} is not one of "
                "allow, deny, ask, defer; ignored"
            )
    if "updatedInput" in specific:
        # The client runs the tool with it, whole (not merged), with or without a decision.
        updated = specific["updatedInput"]
        if isinstance(updated, dict):
            out.updated_input = updated
        else:
            out.notes.append(f"{run.command}: updatedInput is not an object; ignored")


def _apply_permission_answer(out: EventOutcome, decision: Any, run: HookRun) -> None:
    """A PermissionRequest hook's ``decision``: ``behavior`` allow or deny answers the prompt
    for the user (observed on 2.1.332: the client withdraws its prompt); Claude reads a deny's
    ``message`` (without one, "Permission denied by PermissionRequest hook") as the tool's error.
    A deny wins over an allow."""
    behavior = decision.get("behavior") if isinstance(decision, dict) else None
    if behavior not in (PermissionDecision.ALLOW, PermissionDecision.DENY):
        if decision is not None:
            out.notes.append(f"{run.command}: decision.behavior {behavior!r} is not allow or deny")
        return
    assert isinstance(decision, dict)
    if out.permission_decision == PermissionDecision.DENY:
        return
    message = decision.get("message")
    out.permission_decision = PermissionDecision(behavior)
    out.permission_reason = message if isinstance(message, str) and message else DENIED_BY_HOOK


def _model_said_no(out: EventOutcome, run: HookRun, decisions: _Decisions) -> None:
    """A prompt or agent hook's "no" (``ok: false``), as observed on 2.1.332: on Stop and
    SubagentStop a block with its reason. A prompt hook's on PreToolUse refuses the call like
    an exit 2 and ends the turn too (``hook_stopped``); on UserPromptSubmit it keeps the prompt
    and stops the turn ("Operation stopped by hook: REASON"). An agent hook's "no" is an exit 2
    on both (the call refused, the prompt erased; the turn goes on). Elsewhere routed as an
    exit 2 (not observed)."""
    if run.kind == AGENT_TYPE:
        _apply_exit2(out, run, decisions)
        return
    if out.event is Event.USER_PROMPT_SUBMIT:
        out.continue_ = False
        out.stop_reason = out.stop_reason or f"Operation stopped by hook: {run.stderr.strip()}"
        return
    _apply_exit2(out, run, decisions)
    if out.event is Event.PRE_TOOL_USE:
        out.continue_ = False


def _apply_exit2(out: EventOutcome, run: HookRun, decisions: _Decisions) -> None:
    """A blocking exit 2, routed where the event sends its stderr."""
    event, said = out.event, run.stderr.strip()
    # An agent hook's "no" is told in its own words, without the hook's name (2.1.332).
    named = run.stderr if run.kind == AGENT_TYPE else f"[{run.command}]: {run.stderr}"
    if event is Event.PRE_TOOL_USE:
        decisions.append((PermissionDecision.DENY, said, named))
        return
    out.block_reasons.append(said)
    if event is Event.POST_TOOL_BATCH:
        # The client's own words: "Exit code 2 - stop the agentic loop (stderr shown to user
        # only)"; observed on 2.1.332: the turn ends after the tool ran.
        out.continue_ = False
        out.user_messages.append(said)
    elif event in _USER_ONLY_EVENTS:
        out.user_messages.append(said)
    elif event is Event.PRE_COMPACT:
        # Observed on 2.1.332: no summary is asked for, no PostCompact, no SessionStart.
        out.blocked = True
        out.user_messages.append(f"Compaction blocked by PreCompact hook: [{run.command}]: {said}")
    elif event is Event.USER_PROMPT_SUBMIT:
        out.blocked = True
        named = said if run.kind == AGENT_TYPE else f"[{run.command}]: {said}"
        out.user_messages.append(f"{out.label} operation blocked by hook:\n{named}")
    else:
        out.blocked = True
        out.messages.append(_stderr_message(out, run))


def _json_of(text: str) -> dict[str, Any] | None:
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = deepjson.loads(text)  # any depth: the real client's JSON.parse reads it
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def route(event: Event, runs: list[HookRun], tool_name: str | None = None) -> EventOutcome:
    """Turn finished hook runs into the event's outcome (no processes run here)."""
    label = f"{event.value}:{tool_name}" if tool_name and event in TOOL_EVENTS else event.value
    out = EventOutcome(event, label)
    decisions: _Decisions = []
    for run in runs:
        if run.timed_out:
            out.notes.append(f"{run.command}: timed out after {run.duration:.1f} s; {TOO_LATE}")
            continue
        if run.kind in MODEL_TYPES:
            out.notes.append(f"{run.kind} hook {run.command!r}: the model answered {run.stdout}")
        if run.exit_code == 2 and run.kind in MODEL_TYPES:
            _model_said_no(out, run, decisions)
            continue
        if run.exit_code == 2 and run.kind != "http":
            _apply_exit2(out, run, decisions)
            continue
        data = None if run.kind in MODEL_TYPES else _json_of(run.stdout)
        if data is not None:
            _apply_json(out, data, run, decisions)
            continue
        if run.kind in MODEL_TYPES and run.succeeded:
            continue  # the model said yes: nothing to route
        if run.succeeded:
            text = run.stdout.strip()
            if text:
                target = out.additional_context if event in _CONTEXT_EVENTS else out.output
                target.append(text)
            if run.stdout.lstrip().startswith("{"):
                out.notes.append(f"{run.command}: stdout starts with '{{' but is not valid JSON")
        else:
            said = "answered" if run.kind == "http" else "exited with status"
            line = _first_line(run.stderr) or f"{said} {run.exit_code}"
            out.errors.append(f"{event.value} hook error ({run.command}): {line}")
    if decisions:
        winner = max(decisions, key=lambda d: DECISION_RANK[d[0]])[0]
        out.permission_decision = winner
        chosen = [(reason, said) for d, reason, said in decisions if d == winner]
        out.permission_reason = "\n".join(reason for reason, _ in chosen if reason)
        if winner == PermissionDecision.DENY:
            out.blocked = True
            out.block_reasons.append(out.permission_reason)
            out.messages += [f"{label} hook error: {said}" for _, said in chosen]
    out.runs = [replace(r, stdout=cap(r.stdout), stderr=cap(r.stderr)) for r in runs]
    return out


def hook_env(
    project_dir: Path,
    extra: Mapping[str, str] | None = None,
    inherit: Mapping[str, str] | None = None,
    session_id: str = "",
) -> dict[str, str]:
    """A hook's environment: the inherited one, what the client adds to every hook (its
    session's id when known, else one made up), then ``extra``."""
    env = dict(os.environ if inherit is None else inherit)
    env.update(client_hook_variables(project_dir, session_id or str(uuid.uuid4())))
    if extra:
        env.update(extra)
    return env


def dispatch(
    event: Event | str,
    payload: Mapping[str, Any],
    settings: Settings,
    project_dir: Path,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    judge: Judge | None = None,
    inherit: Mapping[str, str] | None = None,
) -> EventOutcome:
    """Run the hooks ``settings`` registers for ``event`` with ``payload`` as JSON on stdin.

    ``cwd`` defaults to ``payload["cwd"]``, then ``project_dir``; ``env`` adds to (or overrides)
    the inherited environment (``inherit``, default this process's: a confined session's is
    its allow-list), which always gets ``CLAUDE_PROJECT_DIR=project_dir``. Hooks
    marked ``async``, and every hook of an event the client does not wait for (StopFailure),
    are started and left to run: they decide nothing. ``judge`` answers
    for the model when a prompt or agent hook asks it.
    """
    event = Event(event)
    body = dict(payload)
    body.setdefault("hook_event_name", event.value)
    field_name = MATCH_FIELD[event]
    value = None if field_name is None else str(body.get(field_name, ""))
    tool_name = str(body["tool_name"]) if event in TOOL_EVENTS and "tool_name" in body else None
    raw_input = body.get("tool_input")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    hooks = [
        hook
        for hook in settings.commands_for(event, value)
        if hook.condition is None
        or (tool_name is not None and hook.condition.covers(tool_name, tool_input, project_dir))
    ]
    if not hooks:
        return EventOutcome(event, f"{event.value}:{tool_name}" if tool_name else event.value)
    where = cwd or Path(str(body.get("cwd") or project_dir))
    stdin = json.dumps(body, separators=(",", ":")).encode()  # compact, as the client sends it
    environment = hook_env(project_dir, env, inherit, str(body.get("session_id") or ""))
    unawaited = event in UNAWAITED  # the client does not wait for any hook of the event
    waited = [h for h in hooks if not (h.run_async or unawaited)]
    started = [h for h in hooks if h.run_async or unawaited]
    background = start_async_hooks(event.value, started, stdin, cwd=where, env=environment)
    runs = run_hooks(event.value, waited, stdin, cwd=where, env=environment, judge=judge)
    out = route(event, runs, tool_name)
    for running in background:  # the same objects: their threads fill in ``run``
        running.label = out.label
    out.background = [b for b in background if b.hook.run_async]
    return out


def async_output(background: BackgroundHook) -> str:
    """What an ``async`` hook that has ended tells Claude with its next request (observed on
    2.1.332, exit 0 or 2 alike): its JSON's ``systemMessage`` and ``additionalContext``, one
    per line, in a text block of their own. Its stderr and plain stdout reach no one, but an
    ``asyncRewake`` hook's exit 2 wakes the model with its stderr, in a task notification the
    client frames as "Stop hook blocking error from command "EVENT:TOOL": STDERR"."""
    run = background.run
    if run is None:
        return ""
    if background.hook.rewake and run.exit_code == 2:
        return f'Stop hook blocking error from command "{background.label}": {run.stderr.strip()}'
    said = _json_of(run.stdout) or {}
    specific = said.get("hookSpecificOutput")
    context = specific.get("additionalContext") if isinstance(specific, dict) else None
    parts = (said.get("systemMessage"), context)
    return "\n".join(part for part in parts if isinstance(part, str) and part)
