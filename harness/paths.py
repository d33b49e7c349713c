"""Where the workshop's own folders and its cache are, and paths a user's file gives.

The labs and the fixture ship inside the package (``harness/_bundled/``, mapped there from the
repository's top-level ``labs/`` and ``petclinic_fixture/`` when the wheel is built); in a
checkout (an editable install) they are the repository's own folders.

Paths a user's file (a manifest, a scenario) gives must stay inside their folder: checked
twice, the text when the file is loaded (absolute, ``..``), and the resolved path when it is
used (a symlink can lead out of a folder that the text stays in).
"""

from __future__ import annotations

import functools
import importlib.resources
import os
import tempfile
from pathlib import Path, PurePosixPath, PureWindowsPath

# The repository when harness/ is imported from a checkout; in an installed wheel this is
# site-packages, which never has our pyproject.toml.
CHECKOUT_ROOT = Path(__file__).resolve().parents[1]
BUNDLED = "_bundled"


def in_checkout() -> bool:
    """Whether harness/ runs from a Hook Lab checkout (not from an installed wheel)."""
    pyproject = CHECKOUT_ROOT / "pyproject.toml"
    return pyproject.is_file() and 'name = "hooklab"' in pyproject.read_text(encoding="utf-8")


def bundled_dir(name: str, override_env: str | None) -> Path:
    """The shipped folder ``name`` (``labs``, ``petclinic_fixture``): ``$override_env`` if
    set, else the package data, else the checkout's own folder.

    The result may not exist (a broken install); the caller names what is missing.
    """
    override = os.environ.get(override_env) if override_env else None
    if override:
        return Path(override)
    # A wheel is unpacked on disk, so this is a real folder (hooks and Maven need real files).
    data = Path(str(importlib.resources.files("harness").joinpath(BUNDLED, name)))
    if data.is_dir() or not in_checkout():
        return data
    return CHECKOUT_ROOT / name


def cache_home() -> Path:
    """Hook Lab's cache outside the repository (the pinned client, compiled fixtures, lab
    timings, the lint session's actionlint): $HOOKLAB_CACHE, else $XDG_CACHE_HOME/hooklab,
    else ~/.cache/hooklab."""
    explicit = os.environ.get("HOOKLAB_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "hooklab"


# Throwaway folders on a memory-backed file system only while it has this much room left.
SCRATCH_MIN_FREE = 512 * 1024 * 1024


def scratch_dir() -> str | None:
    """The folder for throwaway copies of a workspace and the sessions played in them:
    $HOOKLAB_SCRATCH, else $TMPDIR when it is set, else Linux's memory-backed /dev/shm when
    programs may run from it and it has room, else None (the system's temp folder).

    A check copies the workspace (some 300 files) for each session it plays, runs hooks and
    Maven in the copy and removes it after. On a disk file system such as ext4, allocating
    and freeing that many inodes over and over costs more kernel time than the copying."""
    for name in ("HOOKLAB_SCRATCH", "TMPDIR"):
        chosen = os.environ.get(name)
        if chosen:
            return chosen
    return memory_backed_tmp()


@functools.cache
def memory_backed_tmp(candidate: str = "/dev/shm", min_free: int = SCRATCH_MIN_FREE) -> str | None:
    """``candidate`` when it is a writable file system programs may run from, with at least
    ``min_free`` bytes free, else None."""
    try:
        fs = os.statvfs(candidate)
    except OSError:
        return None  # macOS and others: no such folder
    if (
        fs.f_flag & (os.ST_RDONLY | getattr(os, "ST_NOEXEC", 0))
        or fs.f_bavail * fs.f_frsize < min_free
    ):
        return None  # hooks and Maven's wrapper must run from the copies
    if not os.access(candidate, os.W_OK | os.X_OK):
        return None
    return candidate


def scratch_mkdtemp(prefix: str) -> Path:
    """A new throwaway folder in :func:`scratch_dir`; the caller removes it."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=scratch_dir()))


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
