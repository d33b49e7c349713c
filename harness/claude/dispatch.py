"""One event through its hooks: who runs, and what their exit codes and JSON mean.

Routing (Claude Code's documented behaviour):
- exit 0: success. Stdout starting with ``{`` is read as JSON; SessionStart and
  UserPromptSubmit turn plain stdout into context for Claude; for other events it only shows in
  the transcript view. Stdout that starts with ``{`` but does not parse is treated as plain
  output, and a note says so.
- exit 2: blocking. Stdout (and any JSON in it) is ignored; stderr goes where the event sends it
  (see ``EventOutcome``).
- any other code, 127 for a missing script included: non-blocking error, the first stderr line is
  shown in the transcript, nothing is decided.
- timed out: killed, output discarded, no decision, never blocking.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.claude.events import MATCH_FIELD, Event
from harness.claude.runner import HookRun, cap, run_hooks
from harness.claude.settings import Settings

# PreToolUse decisions, strongest first: one deny among many allows still denies.
DECISION_RANK = {"deny": 3, "defer": 2, "ask": 1, "allow": 0}
_DECISION_EVENTS = {Event.STOP, Event.SUBAGENT_STOP, Event.POST_TOOL_USE, Event.USER_PROMPT_SUBMIT}
_CONTEXT_EVENTS = {Event.SESSION_START, Event.USER_PROMPT_SUBMIT}


@dataclass
class EventOutcome:
    """What one event's hooks decided.

    ``blocked`` means, per event: PreToolUse — the tool call is refused (a deny decision or exit
    2; ``reason`` is what Claude sees); PostToolUse and PostToolUseFailure — ``reason`` is shown
    to Claude (the tool already ran); Stop/SubagentStop — (sub)agent keeps working with
    ``reason`` as its instruction; UserPromptSubmit — the prompt is erased and ``user_messages``
    are shown to the user. SessionStart never blocks; its exit-2 stderr lands in ``user_messages``.
    ``continue_`` False (JSON ``continue: false``) stops Claude altogether and wins over all.
    """

    event: Event
    runs: list[HookRun] = field(default_factory=list)
    blocked: bool = False
    block_reasons: list[str] = field(default_factory=list)
    permission_decision: str | None = None  # PreToolUse only: allow|deny|ask|defer
    permission_reason: str = ""
    continue_: bool = True
    stop_reason: str = ""
    system_messages: list[str] = field(default_factory=list)
    additional_context: list[str] = field(default_factory=list)
    user_messages: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # non-blocking, for the transcript
    output: list[str] = field(default_factory=list)  # plain stdout, transcript view only
    notes: list[str] = field(default_factory=list)  # simulator remarks (invalid JSON, timeouts)

    @property
    def stopped(self) -> bool:
        return not self.continue_

    @property
    def reason(self) -> str:
        return cap("\n".join(r for r in self.block_reasons if r))

    @property
    def system_message(self) -> str:
        return cap("\n".join(self.system_messages))

    def __repr__(self) -> str:
        verdict = (
            "stopped"
            if self.stopped
            else "blocked"
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


def _apply_json(
    out: EventOutcome, data: dict[str, Any], run: HookRun, decisions: list[tuple[str, str]]
) -> None:
    event = out.event
    if data.get("continue") is False:
        out.continue_ = False
        reason = data.get("stopReason")
        if isinstance(reason, str) and reason:
            out.stop_reason = cap(reason) if not out.stop_reason else out.stop_reason
    message = data.get("systemMessage")
    if isinstance(message, str) and message:
        out.system_messages.append(cap(message))
    decision = data.get("decision")
    reason = data.get("reason")
    reason_text = cap(reason) if isinstance(reason, str) else ""
    if decision is not None:
        if event in _DECISION_EVENTS and decision == "block":
            out.blocked = True
            if event is Event.USER_PROMPT_SUBMIT:
                out.user_messages.append(reason_text)
            else:
                out.block_reasons.append(reason_text)
        elif event is Event.PRE_TOOL_USE and decision in ("approve", "block"):
            # The older PreToolUse form; Claude Code still maps it to allow/deny.
            decisions.append(("allow" if decision == "approve" else "deny", reason_text))
        elif decision not in ("approve", "undefined"):
            out.notes.append(f"{run.command}: decision {decision!r} has no effect on {event.value}")
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict):
        named = specific.get("hookEventName")
        if named is not None and named != event.value:
            out.notes.append(
                f"{run.command}: hookSpecificOutput.hookEventName is {named!r}, "
                f"expected {event.value!r}; ignored"
            )
            return
        context = specific.get("additionalContext")
        if isinstance(context, str) and context:
            out.additional_context.append(cap(context))
        if event is Event.PRE_TOOL_USE and "permissionDecision" in specific:
            value = specific["permissionDecision"]
            why = specific.get("permissionDecisionReason")
            if value in DECISION_RANK:
                decisions.append((value, cap(why) if isinstance(why, str) else ""))
            else:
                out.notes.append(
                    f"{run.command}: permissionDecision {value!r} is not one of "
                    "allow, deny, ask, defer; ignored"
                )
        if "updatedInput" in specific:
            out.notes.append(
                f"{run.command}: updatedInput is not simulated; the tool input is left unchanged"
            )


def route(event: Event, runs: list[HookRun]) -> EventOutcome:
    """Turn finished hook runs into the event's outcome (no processes run here)."""
    out = EventOutcome(event)
    decisions: list[tuple[str, str]] = []
    for run in runs:
        if run.timed_out:
            out.notes.append(
                f"{run.command}: timed out after {run.duration:.1f} s; killed, "
                "output discarded, no decision"
            )
            continue
        if run.exit_code == 0:
            text = run.stdout
            if text.lstrip().startswith("{"):
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as exc:
                    out.notes.append(
                        f"{run.command}: stdout starts with '{{' but is not valid "
                        f"JSON ({exc.msg}); treated as plain output"
                    )
                else:
                    if isinstance(data, dict):
                        _apply_json(out, data, run, decisions)
                        continue
            if text.strip():
                target = out.additional_context if event in _CONTEXT_EVENTS else out.output
                target.append(cap(text.strip()))
        elif run.exit_code == 2:
            message = cap(run.stderr.strip())
            if event is Event.PRE_TOOL_USE:
                decisions.append(("deny", message))
            elif event is Event.SESSION_START:
                out.user_messages.append(message)
            elif event is Event.USER_PROMPT_SUBMIT:
                out.blocked = True
                out.user_messages.append(message)
            else:
                out.blocked = True
                out.block_reasons.append(message)
        else:
            line = _first_line(run.stderr) or f"exited with status {run.exit_code}"
            out.errors.append(cap(f"{event.value} hook error ({run.command}): {line}"))
    if decisions:
        winner = max(decisions, key=lambda d: DECISION_RANK[d[0]])[0]
        out.permission_decision = winner
        out.permission_reason = cap("\n".join(r for d, r in decisions if d == winner and r))
        if winner == "deny":
            out.blocked = True
            out.block_reasons.append(out.permission_reason)
    out.runs = [replace(r, stdout=cap(r.stdout), stderr=cap(r.stderr)) for r in runs]
    return out


def hook_env(project_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["CLAUDE_PROJECT_DIR"] = str(project_dir)
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
) -> EventOutcome:
    """Run the hooks ``settings`` registers for ``event`` with ``payload`` as JSON on stdin.

    ``cwd`` defaults to ``payload["cwd"]``, then ``project_dir``; ``env`` adds to (or overrides)
    the inherited environment, which always gets ``CLAUDE_PROJECT_DIR=project_dir``.
    """
    event = Event(event)
    body = dict(payload)
    body.setdefault("hook_event_name", event.value)
    field_name = MATCH_FIELD[event]
    value = None if field_name is None else str(body.get(field_name, ""))
    hooks = settings.commands_for(event, value)
    if not hooks:
        return EventOutcome(event)
    where = cwd or Path(str(body.get("cwd") or project_dir))
    stdin = json.dumps(body).encode()
    runs = run_hooks(event.value, hooks, stdin, cwd=where, env=hook_env(project_dir, env))
    return route(event, runs)
