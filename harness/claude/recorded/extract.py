"""A timeline back from its extract (what a submission carries instead of the transcript)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.claude.recorded.entries import (
    AUTO_MODE_CHECK,
    USER,
    Prompt,
    StopAttempt,
    SubagentRun,
    ToolCall,
    parse_time,
)
from harness.claude.recorded.model import (
    Timeline,
)
from harness.claude.vocabulary import StepKind, Verdict, read_verdict


def from_extract(extract: Mapping[str, Any], path: Path) -> Timeline:
    """A timeline back from its extract (what a submission carries instead of the transcript),
    complete enough to replay: prompts, calls with inputs and verdicts, stops."""
    t = Timeline(path=path)
    t.session_id = str(extract.get("session_id") or "")
    t.cwd = str(extract.get("cwd") or "")
    t.client_version = str(extract.get("client_version") or "")
    t.started = parse_time(str(extract.get("started") or ""))
    t.scripted_model = extract.get("scripted_model") is True
    left = extract.get("left_out")
    if isinstance(left, Mapping):
        t.left_out = _count(left.get("entries"))
        t.decisions_left_out = _count(left.get("decisions"))
        t.changing_left_out = _count(left.get("workspace_changing"))
        counts = extract.get("counts")
        if isinstance(counts, Mapping):
            t.recorded_counts = {str(k): _count(v) for k, v in counts.items()}
    entries = extract.get("entries")
    for raw in entries if isinstance(entries, list) else []:
        if not isinstance(raw, dict):
            continue
        line = int(raw.get("line") or 0)
        kind = raw.get("kind")
        if kind == StepKind.PROMPT:
            t.entries.append(_prompt_from_extract(raw, line))
        elif kind == StepKind.STOP:
            stop = StopAttempt(line, str(raw.get("last_message", "")))
            said = str(raw.get("verdict", ""))
            word, hooks = read_verdict(said)
            if word is Verdict.BLOCKED_BY:
                stop.blocked_by = hooks
                stop.feedback = str(raw.get("feedback", "")) or said
            stop.prevented_continuation = word is Verdict.STOPPED
            t.entries.append(stop)
        elif kind == StepKind.TOOL:
            t.entries.append(_call_from_extract(raw, line))
    return t


def _prompt_from_extract(raw: Mapping[str, Any], line: int) -> Prompt:
    prompt = Prompt(line, str(raw.get("text", "")), feedback=str(raw.get("feedback") or ""))
    word, hooks = read_verdict(str(raw.get("verdict") or ""))
    if word is Verdict.REFUSED_BY:
        prompt.refused_by = ", ".join(hooks)
    prompt.stopped = word is Verdict.STOPPED
    return prompt


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _call_from_extract(raw: Mapping[str, Any], line: int) -> ToolCall:
    tool_input = raw.get("input")
    call = ToolCall(
        line, "", str(raw.get("name", "")), dict(tool_input) if isinstance(tool_input, dict) else {}
    )
    word, hooks = read_verdict(str(raw.get("verdict", "")))
    call.result_line = None if word is Verdict.NO_RESULT else line + 1
    call.result_text = str(raw.get("result", ""))
    call.is_error = raw.get("is_error") is True
    if word is Verdict.REFUSED_BY:
        call.refused_by = ", ".join(hooks)
    elif word is Verdict.DENIED:
        by = raw.get("denied_by")
        call.denied = by if by in (AUTO_MODE_CHECK, USER) else "a rule"
        call.denial = str(raw.get("denial") or "")[:80]
    elif word is Verdict.REPORTED_BY:
        call.reported_by = hooks
        call.reported_text = [str(raw.get("feedback", ""))]
    agent = raw.get("subagent")
    if isinstance(agent, dict):
        call.subagent = SubagentRun(
            str(agent.get("agent_id", "")),
            str(agent.get("agent_type", "")),
            str(agent.get("prompt", "")),
            str(agent.get("last_message", "")),
            str(agent["stop_reason"]) if agent.get("stop_reason") else None,
            None,
            str(agent.get("status", "")),
        )
        ended = agent.get("ended_line")
        call.subagent.ended_line = ended if isinstance(ended, int) else None
    return call
