"""The part of a long line a failure is about, for a check's ``found:``: a settings.json
compacted to one line is 1,600 characters, and a person needs the one hook entry that matched,
not the line (nor a file's head)."""

from __future__ import annotations

import re

ROOM = 100  # what found: shows at most of one line
# A whole entry may be a little wider: the row keeps a JSON object on one line, to copy.
ENTRY_ROOM = 120
CUT = "…"


def excerpt(line: str, needle: str | None, room: int = ROOM) -> str:
    """``line`` whole when it is short; else the innermost JSON object or array around
    ``needle`` (the matching entry) when it fits ``ENTRY_ROOM``; else a window around the match, cut
    at a space or a JSON comma and marked ``…`` on each side cut."""
    line = line.strip()
    if len(line) <= room:
        return line
    at = line.lower().find(needle.lower()) if needle else -1
    if at < 0:
        at = 0
    end = at + len(needle or "")
    for start, stop in _enclosing(line, at, end):
        if stop - start <= max(room, ENTRY_ROOM):
            return line[start:stop]  # a whole entry, not a cut: no marks, copied as it is
    return _window(line, at, end, room)


def _enclosing(line: str, at: int, end: int) -> list[tuple[int, int]]:
    """The bracketed spans (``{…}``, ``[…]``) holding ``line[at:end]``, innermost first.
    Brackets inside JSON strings do not count."""
    opened: list[int] = []
    spans: list[tuple[int, int]] = []
    quoted = escaped = False
    for i, char in enumerate(line):
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
            continue
        if char == '"':
            quoted = True
        elif char in "{[":
            opened.append(i)
        elif char in "}]" and opened:
            start = opened.pop()
            if start <= at and i + 1 >= end:
                spans.append((start, i + 1))
    return sorted(spans, key=lambda span: span[1] - span[0])


_BREAK = re.compile(r"[ ,]")


def _window(line: str, at: int, end: int, room: int) -> str:
    """About ``room`` characters around the match, a third before it, each cut side moved in
    to the next space or comma so no word or JSON value is split."""
    width = room - 2 * len(CUT)
    start = max(0, min(at - width // 3, len(line) - width))
    stop = min(len(line), start + width)
    if start > 0:
        found = _BREAK.search(line, start, at)
        start = found.end() if found else start
    if stop < len(line):
        breaks = [m.start() for m in _BREAK.finditer(line, max(end, start), stop)]
        stop = breaks[-1] + (line[breaks[-1]] == ",") if breaks else stop
    return _marked(line, start, stop)


def _marked(line: str, start: int, stop: int) -> str:
    head = CUT if start > 0 else ""
    tail = CUT if stop < len(line) else ""
    return head + line[start:stop].strip() + tail
