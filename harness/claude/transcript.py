"""Session transcripts as JSON lines, written as the session goes.

The emulator writes the lines the pinned client (2.1.332) writes for the same moments, so the
one transcript reader (``recorded/``) reads both alike:
- the prompt as a ``user`` line; Claude's answers as ``assistant`` lines (``tool_use`` blocks,
  or text with ``stop_reason: end_turn`` when it ends its turn), with the scripted model's
  message ids (``msg_scripted_N``): the emulator is Hook Lab playing, not a person;
- a tool's result as a ``user`` line of ``tool_result`` blocks; a call a PreToolUse hook refused
  carries the client's ``permissionDecision`` (``client_words.hook_rejection``);
- a blocked stop as an ``isMeta`` ``user`` line ``Stop hook feedback:\\n[COMMAND]: …``, one per
  feedback;
- a PostToolUse report as a ``hook_blocking_error`` attachment keyed by the call's id; a hook's
  ``systemMessage`` as a ``hook_system_message`` attachment; a hook that failed without
  blocking as a ``hook_non_blocking_error`` attachment (``Failed with non-blocking status
  code: …``);
- a refused prompt as an ``informational`` ``system`` line (``UserPromptSubmit operation
  blocked by hook:``, then ``Original prompt: …``).
Each shape is one read in a real client's transcript (tests/claude/transcripts/, and the
sessions tests/recorded_sessions.py plays on the pinned client). What the emulator knows of a
moment whose line no real transcript has shown (what a person is asked, a SessionStart or
PreCompact message, an async hook's late words, a subagent's feedback) is not written.

A subagent's transcript is written in exactly the two-line form the fixture's hooks rely on:
the assignment as the first user entry, the last assistant message with its ``stop_reason``
as the last entry.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from itertools import count
from pathlib import Path
from typing import Any

from harness.claude import client_words as words

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"})
_FEEDBACK_START = re.compile(r"^(?=Stop hook feedback:\n)", re.M)
# Who a hook note is for (``Transcript.hook_note``'s ``kind``), as the emulator names them.
CLAUDE, USER, SYSTEM, FAILURE = "claude", "user", "system", "error"


class Transcript:
    def __init__(self, path: Path, session_id: str, cwd: Path) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self._parent: str | None = None
        self._answers = count(1)
        self._call_id = ""  # the latest tool call's id: hook lines about a call carry it
        self._refused_by_hook = False  # the coming tool result is a PreToolUse hook's refusal
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

    def _answer(self, block: dict[str, Any], stop_reason: str) -> None:
        message = {
            "id": f"msg_scripted_{next(self._answers)}",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop_reason,
        }
        self.append("assistant", message=message)

    def assistant_text(self, text: str) -> None:
        """Claude ending its turn with ``text``."""
        self._answer({"type": "text", "text": text}, "end_turn")

    def tool_use(self, tool_use_id: str, name: str, tool_input: dict[str, Any]) -> None:
        self._call_id = tool_use_id
        block = {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}
        self._answer(block, "tool_use")

    def tool_result(self, tool_use_id: str, content: str, *, is_error: bool) -> None:
        block = {
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": content,
            "is_error": is_error,
        }
        fields: dict[str, Any] = {"message": {"role": "user", "content": [block]}}
        if self._refused_by_hook:
            fields["permissionDecision"] = words.hook_rejection()
            self._refused_by_hook = False
        self.append("user", **fields)

    def hook_note(self, event: str, kind: str, text: str) -> None:
        """What hooks said at ``event``; ``kind`` is who was told (claude, user, error, system,
        subagent). Written as the client's own line for that moment, or not at all (see the
        module's doc)."""
        if kind == FAILURE:
            self._failure(event, text)
        elif kind == SYSTEM:
            self._attachment(words.SYSTEM_MESSAGE_ATTACHMENT, event, content=text)
        elif kind == CLAUDE and event == "PreToolUse":
            self._refused_by_hook = True  # the result line that follows says the rest
        elif kind == CLAUDE and event == "Stop":
            for feedback in filter(None, _FEEDBACK_START.split(text)):
                self.append(
                    "user",
                    message={"role": "user", "content": feedback},
                    isMeta=True,
                    rowSource="hook",
                    hookText=True,
                )
        elif kind == CLAUDE and event in _TOOL_EVENTS:
            self._reports(text)
        elif kind == USER and event == "UserPromptSubmit":
            self.append("system", subtype="informational", content=text, level="warning")

    def _attachment(self, kind: str, event: str, name: str = "", **fields: Any) -> None:
        use_id = self._call_id if event in _TOOL_EVENTS else str(uuid.uuid4())
        head = {"type": kind, "hookName": name or event, "toolUseID": use_id, "hookEvent": event}
        self.append("attachment", attachment={**head, **fields})

    def _reports(self, text: str) -> None:
        """The blocking reports in what PostToolUse hooks told Claude, one attachment each."""
        found = list(words.BLOCKING_ERROR.finditer(text))
        for at, match in enumerate(found):
            end = found[at + 1].start() if at + 1 < len(found) else len(text)
            said = text[match.end() : end]
            label = match["label"]
            self._attachment(
                words.BLOCKING_ATTACHMENT,
                label.split(":", 1)[0],
                name=label,  # the client names a tool event's hook with the tool: PostToolUse:Bash
                blockingError={"blockingError": said, "command": match["command"]},
            )

    def _failure(self, event: str, text: str) -> None:
        """A hook that failed without blocking, as the client records it."""
        match = words.HOOK_FAILURE.match(text)
        command, said = (match["command"], match["said"]) if match else ("", text)
        self._attachment(
            words.NON_BLOCKING_ATTACHMENT,
            event,
            stderr=f"{words.NON_BLOCKING}: {said}",
            stdout="",
            command=command,
        )


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
