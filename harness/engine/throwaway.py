"""Throwaway copies of a workspace, so a check that acts never changes the participant's files.

A simulated session runs its tools for real: in a copy."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from harness.maven.warm import relocate_compiler_inputs
from harness.paths import scratch_mkdtemp


@contextmanager
def sandbox_copy(
    root: Path,
    *,
    with_git: bool = True,
    leave_out: frozenset[str] = frozenset(),
    prefix: str = "hooklab-sandbox-",
) -> Iterator[Path]:
    """A copy of ``root`` (mtimes kept: report freshness depends on them), removed afterwards;
    without the entries of ``root`` named in ``leave_out`` (e.g. its build output)."""
    holder = scratch_mkdtemp(prefix)
    target = holder / root.name

    def ignore(folder: str, names: list[str]) -> set[str]:
        left = {n for n in names if n == ".git"} if not with_git else set()
        return left | (leave_out & set(names) if Path(folder) == root else set())

    try:
        shutil.copytree(root, target, symlinks=True, ignore=ignore)
        # The compiler's input lists name the workspace: in the copy they would read as
        # "sources changed", and every sensor run in the sandbox would recompile the module.
        for named in {str(root), str(root.resolve())}:  # as Maven may have seen it
            relocate_compiler_inputs(target, named, str(target))
        yield target
    finally:
        shutil.rmtree(holder, ignore_errors=True)


# One farm per PATH directory and hidden set, made once per process: symlinking a directory
# like /usr/bin costs about a second, and a lab's fail-open check hides the same programs on
# every run.
_FARMS: dict[tuple[str, frozenset[str]], str] = {}


def _farm(directory: str, hidden: frozenset[str]) -> str:
    """A directory of symlinks to every entry of ``directory`` except ``hidden``."""
    key = (os.path.realpath(directory), hidden)
    if key not in _FARMS:
        holder = str(scratch_mkdtemp("hooklab-path-"))
        atexit.register(shutil.rmtree, holder, True)
        for name in os.listdir(directory):
            if name not in hidden:
                with contextlib.suppress(OSError):
                    os.symlink(os.path.join(directory, name), os.path.join(holder, name))
        _FARMS[key] = holder
    return _FARMS[key]


@contextmanager
def path_without(programs: Sequence[str]) -> Iterator[str]:
    """A PATH value that finds every program of the current PATH except ``programs``.

    Removing a directory from PATH would take bash and git with it: a directory that holds a
    hidden program is replaced by a farm of symlinks to everything else in it; the other
    directories stay as they are.
    """
    hidden = frozenset(programs)
    entries: list[str] = []
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or not os.path.isdir(directory):
            continue
        if any(os.path.lexists(os.path.join(directory, name)) for name in hidden):
            entries.append(_farm(directory, hidden))
        else:
            entries.append(directory)
    yield os.pathsep.join(entries)
