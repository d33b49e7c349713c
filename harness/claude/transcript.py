"""Session transcripts as JSON lines, written as the session goes.

The main transcript follows Claude Code's shape closely enough for hooks that read it
(``type`` user/assistant/system, ``message`` with ``role`` and ``content``; tool uses and tool
results as content blocks). A subagent's transcript is written in exactly the two-line form the
fixture's hooks rely on: the assignment as the first user entry, the last assistant message with
its ``stop_reason`` as the last entry.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


class Transcript:
    def __init__(self, path: Path, session_id: str, cwd: Path) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self._parent: str | None = None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def __repr__(self) -> str:
        return f"<Transcript {self.path}>"

    def append(self, kind: str, **fields: Any) -> None:
        entry_id = str(uuid.uuid4())
        entry = {
            "type": kind,
            "uuid": entry_id,
            "parentUuid": self._parent,
            "sessionId": self.session_id,
            "cwd": str(self.cwd),
            "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
            **fields,
        }
        self._parent = entry_id
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")

    def user(self, text: str) -> None:
        self.append("user", message={"role": "user", "content": text})

    def assistant_text(self, text: str) -> None:
        self.append(
            "assistant", message={"role": "assistant", "content": [{"type": "text", "text": text}]}
        )

    def tool_use(self, tool_use_id: str, name: str, tool_input: dict[str, Any]) -> None:
        self.append(
            "assistant",
            message={
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}
                ],
            },
        )

    def tool_result(self, tool_use_id: str, content: str, *, is_error: bool) -> None:
        self.append(
            "user",
            message={
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_use_id,
                        "content": content,
                        "is_error": is_error,
                    }
                ],
            },
        )

    def hook_note(self, event: str, kind: str, text: str) -> None:
        """Hook feedback: ``kind`` is who sees it (claude, user, error, context, system)."""
        self.append("system", subtype="hook_feedback", hookEvent=event, audience=kind, content=text)


def write_agent_transcript(path: Path, prompt: str, last_message: str, stop_reason: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    first = {"type": "user", "message": {"role": "user", "content": prompt}}
    last = {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": last_message}],
            "stop_reason": stop_reason,
        },
    }
    path.write_text(json.dumps(first) + "\n" + json.dumps(last) + "\n", encoding="utf-8")
