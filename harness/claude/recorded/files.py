"""The transcript's files: a file's lines as JSON objects, and a subagent's own file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.claude.recorded.entries import (
    HANDBACK,
    SubagentRun,
    _cap,
    _text,
    parse_time,
)


def json_lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """Each line with its number and whether it ended with a newline."""
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            yield number, raw, raw.endswith(b"\n")


def json_object(raw: bytes) -> dict[str, Any] | None:
    """The line as a JSON object, or None for anything else (a torn line, an array)."""
    try:
        entry = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


def _handback(content: Any) -> str | None:
    """The report of a SubagentHandback call in an assistant entry's content, or None."""
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("name") == "SubagentHandback":
            given = block.get("input")
            message = given.get("message") if isinstance(given, dict) else None
            return str(message) if message is not None else ""
    return None


def read_agent(main: Path, run: SubagentRun) -> None:
    """The subagent's own transcript: its assignment and how it ended. 2.1.x keep it in the
    session's folder, 2.0.x beside the session."""
    name = f"agent-{run.agent_id}.jsonl"
    places = (main.with_suffix("") / "subagents" / name, main.parent / name)
    path = next((p for p in places if p.is_file()), None)
    if path is None:
        return
    run.transcript = path
    try:
        for _, raw, _ in json_lines(path):
            entry = json_object(raw)
            if entry is None:
                continue
            stamp = entry.get("timestamp")
            at = parse_time(stamp) if isinstance(stamp, str) else None
            run.ended_at = at or run.ended_at
            message = entry.get("message")
            if not isinstance(message, dict):
                continue
            if entry.get("type") == "user" and not run.prompt:
                run.prompt = _cap(_text(message.get("content")))
            elif entry.get("type") == "assistant":
                reason = message.get("stop_reason")
                run.stop_reason = str(reason) if reason else run.stop_reason
                said = _text(message.get("content"))
                if said:
                    run.last_message = _cap(said)
                handed = _handback(message.get("content"))
                if handed is not None:
                    run.stop_reason, run.last_message = HANDBACK, _cap(handed)
    except OSError:
        return
