"""Throwaway copies of a workspace, so a check that acts (a simulated session runs tools for
real) never changes the participant's files."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def sandbox_copy(root: Path, *, with_git: bool = True) -> Iterator[Path]:
    """A copy of ``root`` (mtimes kept: report freshness depends on them), removed afterwards."""
    holder = Path(tempfile.mkdtemp(prefix="hooklab-sandbox-"))
    target = holder / root.name
    ignore = None if with_git else shutil.ignore_patterns(".git")
    try:
        shutil.copytree(root, target, symlinks=True, ignore=ignore)
        yield target
    finally:
        shutil.rmtree(holder, ignore_errors=True)


@contextmanager
def path_without(programs: Sequence[str]) -> Iterator[str]:
    """A PATH value with every program of the current PATH except ``programs``.

    Removing a directory from PATH would take bash and git with it; a directory of symlinks
    to everything else hides exactly the named programs.
    """
    holder = Path(tempfile.mkdtemp(prefix="hooklab-path-"))
    hidden = set(programs)
    try:
        for directory in os.environ.get("PATH", "").split(os.pathsep):
            if not directory or not os.path.isdir(directory):
                continue
            for name in os.listdir(directory):
                link = holder / name
                source = Path(directory) / name
                if name in hidden or link.exists() or not os.access(source, os.X_OK):
                    continue
                try:
                    link.symlink_to(source)
                except OSError:
                    continue
        yield str(holder)
    finally:
        shutil.rmtree(holder, ignore_errors=True)
