"""A participant's own repository: any git repository with ``.claude/settings.json``, no
``lab init`` needed. ``lab simulate``, ``lab replay`` and ``lab verify-hook`` work there on a
throwaway copy (git directory included, so hooks that ask git see the same history); their
tool calls run in a jail where that copy is the only writable folder (harness/jail.py)."""

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
    root: Path  # the repository (or folder) as it is, never changed
    copy: Path  # the throwaway copy of ``root`` the command works on
    project: Path  # the project the command was pointed at, inside ``copy``

    def notice(self, command: str) -> str:
        return (
            f"{self.root} is not a Hook Lab workspace: {command} works on a throwaway copy of it."
        )

    def in_copy(self, path: Path) -> Path:
        """``path`` (absolute, or relative to the current directory) as the copy holds it;
        a path outside the repository stays as it is."""
        try:
            return self.copy / path.resolve().relative_to(self.root)
        except ValueError:
            return path


def repository_root(start: Path) -> tuple[Path, bool] | None:
    """The git repository holding ``start`` and whether it is a Hook Lab workspace, or None."""
    here = start.resolve()
    for candidate in (here, *here.parents):
        git = candidate / ".git"
        if git.exists():
            return candidate, (git / META_FILE).is_file()
    return None


@contextlib.contextmanager
def own_repository(
    project: Path, command: str, *, need_settings: bool = True
) -> Iterator[OwnRepository | None]:
    """None inside a Hook Lab workspace (the command works there as always); else a copy of
    the git repository holding ``project`` (of ``project`` itself outside any repository),
    removed afterwards. ``need_settings``: a project without ``.claude/settings.json`` is
    refused with the fix."""
    project = project.resolve()
    found = repository_root(project)
    if found is not None and found[1]:
        yield None
        return
    if need_settings and not (project / SETTINGS).is_file():
        raise HarnessError(
            f"{project} has no {SETTINGS}: there are no hooks for {command} to play",
            fix=f"register your hooks in {project / SETTINGS}, or work in a Hook Lab "
            "workspace (lab init DIR)",
        )
    root = found[0] if found is not None else project
    holder = scratch_mkdtemp("hooklab-own-")
    try:
        copy = holder / (root.name or "repository")
        shutil.copytree(root, copy, symlinks=True)
        yield OwnRepository(root, copy, copy / project.relative_to(root))
    finally:
        shutil.rmtree(holder, ignore_errors=True)
