"""Whether a transcript is a copy of another session's.

The client gives every entry it writes (a prompt, a reply, a tool result, a hook's note) a
fresh random ``uuid``; the pinned client 2.1.332 does, as every format in
tests/claude/transcripts. No two sessions it wrote share one, not even a session and its
subagents' files. Message and tool-use ids are no help: a scripted model (Hook Lab's tests, a
stand-in) numbers them alike in every session. So a transcript whose entries repeat those of
another session is that session copied, whatever its times, id and folder now say (walk-s:
a passed session copied, every time moved, a new id).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

# How much of an entry's uuid a ledger keeps: 48 random bits, enough to tell sessions apart.
FINGERPRINT = 12
# How many entries of a session a ledger keeps.
LEDGER_CAP = 200
_UUID = re.compile(rb'"uuid":"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"')
_SESSION = re.compile(rb'"sessionId":"([^"]+)"')


def entry_ids(path: Path) -> list[str]:
    """The ``uuid`` of each entry of the transcript at ``path``, in order."""
    ids: list[str] = []
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            for raw in lines:
                try:
                    entry = json.loads(raw)
                except json.JSONDecodeError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("uuid"), str):
                    ids.append(entry["uuid"])
    except OSError:
        return []
    return ids


def fingerprints(ids: Iterable[str]) -> list[str]:
    """What a ledger keeps of a session's entry ids (the first ``LEDGER_CAP``)."""
    return [i.replace("-", "")[:FINGERPRINT] for i in ids][:LEDGER_CAP]


def copied_from(path: Path, ids: Iterable[str], root: Path) -> str | None:
    """The session id of another transcript under ``root``/projects whose entries the one at
    ``path`` repeats (its entry ``ids``), newest first; None when there is none."""
    wanted = {i.encode() for i in ids}
    if not wanted:
        return None
    try:
        others = [p for p in (root / "projects").glob("*/*.jsonl") if p.resolve() != path.resolve()]
        others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    for other in others:
        try:
            data = other.read_bytes()
        except OSError:
            continue
        if wanted.intersection(_UUID.findall(data)):
            session = _SESSION.search(data)
            return session.group(1).decode(errors="replace") if session else other.stem
    return None
