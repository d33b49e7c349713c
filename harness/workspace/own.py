"""A participant's own repository: any git repository with ``.claude/settings.json``, no
``lab init`` needed. ``lab simulate``, ``lab replay`` and ``lab verify-hook`` work there on a
throwaway copy (git directory included, so hooks that ask git see the same history), so the
repository's files are never changed."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.paths import scratch_mkdtemp
from harness.workspace.workspace import META_FILE

SETTINGS = Path(".claude") / "settings.json"


@dataclass(frozen=True)
class OwnRepository:
    root: Path  # the repository as it is, never changed
    copy: Path  # the throwaway copy the command works on

    def notice(self, command: str) -> str:
        return (
            f"{self.root} is not a Hook Lab workspace: {command} works on a throwaway copy "
            "of it; your files are not changed."
        )


def repository_root(start: Path) -> tuple[Path, bool] | None:
    """The git repository holding ``start`` and whether it is a Hook Lab workspace, or None."""
    here = start.resolve()
    for candidate in (here, *here.parents):
        git = candidate / ".git"
        if git.exists():
            return candidate, (git / META_FILE).is_file()
    return None


@contextlib.contextmanager
def own_repository(start: Path, command: str) -> Iterator[OwnRepository | None]:
    """None inside a Hook Lab workspace (the command works there as always); else a copy of
    the git repository holding ``start``, removed afterwards. A folder in no git repository,
    or a repository without ``.claude/settings.json``, is refused with the fix."""
    found = repository_root(start)
    if found is None:
        raise HarnessError(
            f"{start.resolve()} is not inside a git repository or a Hook Lab workspace",
            fix=f"cd into your project (a git repository with {SETTINGS}), "
            "or create a workspace: lab init DIR",
        )
    root, is_workspace = found
    if is_workspace:
        yield None
        return
    if not (root / SETTINGS).is_file():
        raise HarnessError(
            f"{root} has no {SETTINGS}: there are no hooks for {command} to play",
            fix=f"register your hooks in {root / SETTINGS}, or work in a Hook Lab workspace "
            "(lab init DIR)",
        )
    holder = scratch_mkdtemp("hooklab-own-")
    try:
        copy = holder / root.name
        shutil.copytree(root, copy, symlinks=True)
        yield OwnRepository(root, copy)
    finally:
        shutil.rmtree(holder, ignore_errors=True)
