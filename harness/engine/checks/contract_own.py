"""Whether a contract is the person's own words: not the text of a script in the workspace, and
each part a line of its own that starts with its label, not a script's comment.

walk-p passed Lab 12 step 1 with the hook copied without its ``#!`` line (``tail -n +2``) and
with only the hook's ``#   Claim:`` comment lines grepped out of it: the four labels are in the
hook's header comment, so its text had the four parts. A contract is written before any code.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# Folders no hook lives in, and that are large: skipped when looking for scripts.
_SKIP = {".git", "node_modules", "target", "dist", "build", ".venv", ".mvn", ".idea"}
_MAX_BYTES = 256 * 1024


def _norm(line: str) -> str:
    return " ".join(line.split())


def _scripts(root: Path, rel: str) -> list[tuple[str, set[str]]]:
    """Each script in the workspace (a ``*.sh`` file or one that starts with ``#!``), as its
    path and its non-blank lines, whitespace collapsed."""
    found: list[tuple[str, set[str]]] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP)
        for name in sorted(files):
            path = Path(folder) / name
            where = path.relative_to(root).as_posix()
            if where == rel or path.is_symlink():
                continue
            try:
                if path.stat().st_size > _MAX_BYTES:
                    continue
                with path.open("rb") as head:
                    if not (name.endswith(".sh") or head.read(2) == b"#!"):
                        continue
                data = path.read_bytes()
            except OSError:
                continue
            lines = {_norm(line) for line in data.decode(errors="replace").splitlines()}
            found.append((where, lines - {""}))
    return found


def copied_script(root: Path, rel: str, text: str) -> tuple[str, list[str]] | None:
    """(the script, the contract's lines that are its lines) when most of the contract's
    non-blank lines (at least three) are lines of one script in the workspace; else None."""
    lines = [_norm(line) for line in text.splitlines() if line.strip()]
    if len(lines) < 3:
        return None
    best: tuple[str, list[str]] | None = None
    for where, theirs in _scripts(root, rel):
        same = [line for line in lines if line in theirs]
        most = len(same) >= 3 and 2 * len(same) >= len(lines)
        if most and (best is None or len(same) > len(best[1])):
            best = (where, same)
    return best


def commented_label(text: str, part: str) -> str | None:
    """The first line that has ``part:`` behind a ``#`` (a script's comment, ``#   Claim: …``),
    stripped; None without one."""
    label = re.compile(rf"^\s*#[\W_]*{re.escape(part)}\W*:", re.IGNORECASE)
    return next((line.strip() for line in text.splitlines() if label.match(line)), None)


def comment_said(part: str, line: str) -> str:
    """What to tell a person whose only ``part:`` line is a comment."""
    shown = line if len(line) <= 50 else line[:49] + "…"
    return (
        f"your {part}: line is a script's comment (“{shown}”), not a contract line: "
        f"start the line with {part}: itself, in your own words"
    )
