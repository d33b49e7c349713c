"""A live step's session that is a copy of another: refused as that (walk-s, Lab 13 step 3).

A session passed once, copied with every time moved, a new id and the prompt history's lines
forged to match, read as a new session of the person's own. What a copy cannot change without
rewriting every entry is the entry ids the client drew (harness/claude/recorded/copies.py).
So a session is a copy when its entries repeat those of another transcript in the client's
folder, or of a session a live step already passed on: the progress record keeps those
(``Progress.sessions_used``), so deleting the original or a ``lab reset`` does not hide it.

The failure names the session it copies and what to do (a new session); it does not say what
gave the copy away: the screen is no recipe for the next forgery.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from harness.claude.recorded import Timeline
from harness.claude.recorded.copies import copied_from, entry_ids, fingerprints
from harness.claude.vocabulary import Provenance
from harness.engine.checks.live_evidence import participant_root
from harness.engine.context import CheckContext
from harness.engine.progress import Progress
from harness.errors import HarnessError
from harness.results import CheckResult


def _started(timeline: Timeline) -> str:
    return timeline.started.isoformat() if isinstance(timeline.started, datetime) else ""


def _used_before(
    ledger: Mapping[str, Any], session_id: str, started: str, ids: Sequence[str]
) -> str | None:
    """The session of the ledger whose entries this one repeats; the same session again (its
    id and first time alike: a check run twice, a session resumed) is no copy."""
    mine = set(fingerprints(ids))
    for used, record in ledger.items():
        if not isinstance(record, dict):
            continue
        if used == session_id and record.get("started") == started:
            continue
        kept = record.get("ids")
        if isinstance(kept, list) and mine.intersection(str(i) for i in kept):
            return used
    return None


def copy_of(ctx: CheckContext, timeline: Timeline) -> list[str]:
    """Why the person's session is a copy of another (empty: it is not)."""
    ids = entry_ids(timeline.path)
    if not ids:
        return []
    try:
        ledger = Progress.from_json(ctx.workspace.read_progress()).sessions_used
    except (HarnessError, ValueError, TypeError):  # the runner's to report, not this check's
        ledger = {}
    source = _used_before(ledger, timeline.session_id, _started(timeline), ids)
    if source is None:
        source = copied_from(timeline.path, ids, participant_root(ctx))
        already = ""
    else:
        already = ", a session a step already passed on"
    if source is None:
        return []
    return [
        f"session {timeline.session_id} is a copy of session {source}{already}: its entries "
        "are that session's, whatever its times and id say; a step passes on a session of "
        "its own"
    ]


def note_used(progress: Progress, results: Sequence[CheckResult]) -> None:
    """Keep in the progress record each session of the person's own a pass rests on."""
    from harness.claude.recorded import RecordedSessionError, read_session

    for result in results:
        details = result.details
        if details.get("evidence_kind") != Provenance.LIVE or not details.get("transcript"):
            continue
        try:
            timeline = read_session(details["transcript"])
        except (OSError, RecordedSessionError):
            continue
        progress.sessions_used[timeline.session_id] = {
            "started": _started(timeline),
            "ids": fingerprints(entry_ids(timeline.path)),
        }
