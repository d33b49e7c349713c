"""Whether a transcript is shaped the way the client writes one, or was written by hand.

A transcript the client wrote carries what a quick hand-written one lacks: each answer of
the model with its API message id (``msg_…``) and its token usage, the client's own lines
around the conversation and, on the pinned client (2.1.332), a ``promptId`` on every prompt
the person typed and its ``attachment`` and ``last-prompt`` lines. A real
transcript copied from elsewhere and rewritten with care has all of these: this tells a
hand-made session from a real one, not one real session from another (the replay, the
hooks' own state and the trainer's verify do what more can be done).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The client's own lines every transcript of the pinned client holds.
# (interactive and headless, claude -p, alike).
PINNED_LINES = {
    "attachment": "no attachment line (the context the client adds to a prompt)",
    "last-prompt": "no last-prompt line, which the client writes after each prompt",
}
PINNED = "2.1.332"


def _lines(path: Path) -> list[dict[str, Any]]:
    entries = []
    with path.open(encoding="utf-8", errors="replace") as stream:
        for raw in stream:
            try:
                entry = json.loads(raw)
            except json.JSONDecodeError:
                continue  # the reader says what a line it cannot read is
            if isinstance(entry, dict):
                entries.append(entry)
    return entries


def _typed_prompt(entry: dict[str, Any]) -> bool:
    message = entry.get("message")
    return (
        entry.get("type") == "user"
        and isinstance(message, dict)
        and isinstance(message.get("content"), str)
        and not entry.get("isMeta")
        and entry.get("promptSource", "typed") == "typed"
    )


def not_the_clients(path: Path, version: str | None) -> list[str]:
    """What in ``path`` a transcript the client wrote would have, in a person's words
    (empty: shaped as the client writes it). ``version``: the client version it claims."""
    entries = _lines(path)
    missing: list[str] = []
    for number, entry in enumerate(entries, 1):
        message = entry.get("message")
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            continue
        if not str(message.get("id", "")).startswith("msg_"):
            missing.append(f"the answer at line {number} has no message id from the model's API")
        elif not isinstance(message.get("usage"), dict):
            missing.append(f"the answer at line {number} has no token usage from the model's API")
        if missing:
            break
    if version == PINNED:
        kinds = {entry.get("type") for entry in entries}
        missing += [what for kind, what in PINNED_LINES.items() if kind not in kinds]
        if any(_typed_prompt(e) and not e.get("promptId") for e in entries):
            missing.append("a prompt the person typed has no promptId")
    return missing


__all__ = ["PINNED", "not_the_clients"]
