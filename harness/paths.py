"""Paths a user's file (a manifest, a scenario) gives: they must stay inside their folder.

Checked twice: the text when the file is loaded (absolute, ``..``), and the resolved path when
it is used (a symlink can lead out of a folder that the text stays in).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath


def escape_problem(value: str, folder: str) -> str | None:
    """Why ``value`` cannot name a file inside ``folder`` (e.g. "the workspace"), or None."""
    if PurePosixPath(value).is_absolute() or PureWindowsPath(value).drive:
        return f"{value!r} is an absolute path; name the file relative to {folder}"
    if ".." in PurePosixPath(value.replace("\\", "/")).parts:
        return f"{value!r} leads out of {folder} ('..')"
    return None


def inside(folder: Path, rel: str | Path) -> Path:
    """``folder / rel`` resolved (symlinks followed); ValueError when that leaves ``folder``."""
    base = folder.resolve()
    target = (base / rel).resolve()
    if target != base and base not in target.parents:
        raise ValueError(f"{str(rel)!r} leads out of {base} (through a symlink or '..')")
    return target
