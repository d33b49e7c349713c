"""Finding a workspace's sessions.

The client keeps every session as JSON lines under ``$CLAUDE_CONFIG_DIR/projects`` (default
``~/.claude/projects``): ``<DIR>/<session-id>.jsonl``, DIR being the session's cwd with every
character but letters and digits turned into ``-`` (so two cwds can share a DIR: the ``cwd``
field decides), and a subagent's own file at ``<session-id>/subagents/agent-<id>.jsonl``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.claude.recorded.entries import (
    parse_time,
)
from harness.claude.recorded.files import json_lines, json_object

_HEAD_BYTES = 2_000_000  # how far into a file the finder looks for its cwd


def config_root(env: Mapping[str, str] | None = None) -> Path:
    """Where the client keeps its state: ``CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    env = os.environ if env is None else env
    explicit = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    home = env.get("HOME", "").strip()
    return (Path(home) if home else Path.home()) / ".claude"


@dataclass(frozen=True)
class SessionFile:
    path: Path
    session_id: str
    cwd: str
    started: datetime | None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "session_id": self.session_id,
            "cwd": self.cwd,
            "started": self.started.isoformat() if self.started else None,
        }


def _head(path: Path) -> tuple[str, str, datetime | None]:
    """The cwd, session id and first timestamp, from the start of a transcript; no cwd for
    a subagent's file (2.0.x writes its warm-up turns beside the sessions, as
    ``agent-ID.jsonl`` whose lines are ``isSidechain``)."""
    cwd = session_id = ""
    started: datetime | None = None
    read = 0
    try:
        for _, raw, _ in json_lines(path):
            read += len(raw)
            if read > _HEAD_BYTES:
                break
            entry = json_object(raw)
            if entry is None:
                continue
            if entry.get("isSidechain") is True:
                return "", "", None
            if started is None and isinstance(entry.get("timestamp"), str):
                started = parse_time(entry["timestamp"])
            session_id = session_id or str(entry.get("sessionId") or "")
            if isinstance(entry.get("cwd"), str):
                cwd = entry["cwd"]
                break
    except OSError:
        pass
    return cwd, session_id, started


def find_sessions(
    workspace: Path | str,
    *,
    root: Path | None = None,
    after: datetime | None = None,
) -> list[SessionFile]:
    """The sessions whose cwd is ``workspace`` (or inside it), newest first; with ``after``,
    only those started after it."""
    workspace = Path(workspace).resolve()
    projects = (root or config_root()) / "projects"
    if not projects.is_dir():
        return []
    found = []
    for folder in projects.iterdir():
        if not folder.is_dir():
            continue
        for path in folder.glob("*.jsonl"):
            cwd, session_id, started = _head(path)
            if not cwd:
                continue
            where = Path(cwd)
            if where != workspace and workspace not in where.parents:
                continue
            if after is not None and (started is None or started <= after):
                continue
            found.append(SessionFile(path, session_id or path.stem, cwd, started))
    found.sort(
        key=lambda s: s.started.timestamp() if s.started else s.path.stat().st_mtime,
        reverse=True,
    )
    return found
