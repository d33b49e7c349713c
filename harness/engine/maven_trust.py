"""The Maven ``lab init`` records, told to the trainer when it may not be the machine's own.

A check trusts the mvn and java ``lab init`` recorded (harness/workspace/maven_found.py) and
refuses any other: a java wrapper first on the PATH that adds a class path to every run
(walk-o J) is refused. Running ``lab init`` again records whatever the PATH finds now, the
wrapper too (walk-q), and from then on it is trusted. That may be a Maven installed on
purpose, so it is not refused; but the record goes into the participant's progress, which
``lab submit`` carries to the trainer (harness/trainer/member.py shows it), whenever it
changes or looks foreign (outside the system's folders, a java that is a script).
"""

from __future__ import annotations

import time
from typing import Any

from harness.engine.progress import Progress
from harness.workspace import Workspace
from harness.workspace.maven_found import not_the_machines, recorded


def note_maven_record(ws: Workspace, again: tuple[str, str] | None) -> dict[str, Any] | None:
    """Record in ``ws``'s progress the Maven ``lab init`` just recorded, when it replaced
    another (``again``: was, now) or may not be the machine's own; the note, or None."""
    now = recorded(ws.meta)
    if now is None:
        return None
    why = not_the_machines(now)
    if not why and again is None:
        return None
    progress = Progress.load(ws)
    told = progress.maven_trusted[-1] if progress.maven_trusted else None
    key = {"mvn": now.resolved, "mvn_sha256": now.sha256, "java": now.java}
    if again is None and told is not None and all(told.get(k) == v for k, v in key.items()):
        return None  # the same record, already told
    note = {**key, "at": time.time(), "was": again[0] if again else None, "why": why}
    progress.maven_trusted.append(note)
    progress.save(ws, "lab init: the Maven and java the checks trust")
    return note


def in_words(note: dict[str, Any]) -> str:
    """One note as the trainer reads it."""
    said = f"lab init made the checks trust mvn {note.get('mvn')} (java {note.get('java') or '?'})"
    if note.get("was"):
        said += f" instead of {note['was']}"
    why = [str(w) for w in note.get("why") or []]
    return said + (f": {'; '.join(why)}" if why else "")
