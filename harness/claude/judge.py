"""What the model answers when a ``prompt`` or ``agent`` hook asks it to judge.

The pinned client (2.1.332) asks the model to judge a condition and reads ``{"ok": ...,
"reason": ...}`` back: a prompt hook's answer as JSON text (the request carries that schema
as its output format), an agent hook's through a ``StructuredOutput`` tool call. In a scripted
session the scenario says what the judge answers, step by step; both engines hand the same
answer over, the emulator to its own hook runner, the claude-code engine to the real client
through the scripted model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

NO_VERDICT_GIVEN = "the scenario gave the judge no verdict for this step"


@dataclass(frozen=True)
class Judgement:
    """The judge's answer: ``ok`` lets the event go on, ``False`` holds it with ``reason``."""

    ok: bool = True
    reason: str = NO_VERDICT_GIVEN

    def text(self) -> str:
        """The answer as the model writes it for a prompt hook."""
        return json.dumps({"ok": self.ok, "reason": self.reason})

    def tool_input(self) -> dict[str, object]:
        """The answer as an agent hook's StructuredOutput call carries it."""
        return {"ok": self.ok, "reason": self.reason}
