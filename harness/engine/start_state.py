"""A recorded session's start state: a throwaway copy of the workspace whose files are those
of the commit the session began from, with the hooks as they are now (``.claude/`` and the
hook scripts the settings run from elsewhere), and without the build output written since.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from harness import proc
from harness.claude.settings import Settings, load_settings
from harness.engine.throwaway import sandbox_copy
from harness.errors import HarnessError
from harness.maven.warm import restore_cached


def resolve_start(root: Path, rev: str | None) -> str:
    """The commit the session started from: ``rev``, else HEAD."""
    wanted = rev or "HEAD"
    done = proc.run(["git", "rev-parse", "--verify", "--quiet", f"{wanted}^{{commit}}"], cwd=root)
    if done.returncode != 0:
        raise HarnessError(
            f"--from {wanted}: no such commit in {root}",
            fix="name a commit, branch or ref (git log --oneline, lab backups)",
        )
    return done.stdout.strip()


def _head_of(root: Path, commit: str) -> str:
    """The commit HEAD was at in ``commit``'s state. A worktree snapshot (a live step's start,
    a backup: made by Hook Lab, the worktree's files over HEAD) had its uncommitted changes
    uncommitted, and the hooks count those as changed: HEAD was its parent. Any other commit
    is HEAD itself."""
    from dulwich.objects import Commit

    from harness.workspace import Workspace
    from harness.workspace.snapshot import IDENTITY

    found = Workspace(root).repo[commit.encode()]
    if (
        isinstance(found, Commit)
        and found.committer == IDENTITY
        and found.message.startswith(b"hooklab ")
        and len(found.parents) == 1
    ):
        parent: bytes = found.parents[0]
        return parent.decode()
    return commit


_HOOK_PATH = re.compile(r"""(?:\$\{?CLAUDE_PROJECT_DIR\}?/|(?:^|[\s"'])\./)([^\s"';|&]+)""")


def hook_files(root: Path) -> list[str]:
    """The files outside ``.claude/`` that the workspace's settings run as hooks
    (``$CLAUDE_PROJECT_DIR/scripts/x.sh``, ``./scripts/x.sh``), relative, as on disk now."""
    found: set[str] = set()
    for groups in hook_settings(root).hooks.values():
        for group in groups:
            for hook in group.hooks:
                for rel in _HOOK_PATH.findall(getattr(hook, "command", "") or ""):
                    path = root / rel
                    if not rel.startswith(".claude/") and path.is_file() and root in path.parents:
                        found.add(rel)
    return sorted(found)


def _hooks_now(root: Path, commit: str, copy: Path) -> list[str]:
    """Copy the hook scripts outside ``.claude/`` as they are on disk now (uncommitted and
    untracked included) into the copy; each that differs from ``commit`` is named."""
    from harness.workspace import Workspace
    from harness.workspace.snapshot import read_blob

    repo = Workspace(root).repo
    tree = repo[commit.encode()].tree
    differs = []
    for rel in hook_files(root):
        now = (root / rel).read_bytes()
        target = copy / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
        then = read_blob(repo, tree, rel)
        if then != now:
            said = "not in the start commit" if then is None else "changed since the start commit"
            differs.append(f"{rel} ({said}): played as it is on disk now")
    return differs


def _drop_later_output(copy: Path, started: float) -> list[str]:
    """Remove the ignored build output (reports, dist/, classes) written after the session
    began: the session did not see it, and a replay that kept it would judge today's build.
    Named by top folder; what the session did see (older output) stays."""
    done = proc.run(["git", "status", "--ignored", "--porcelain", "-z"], cwd=copy)
    entries = [e for e in done.stdout.split("\0") if e]
    dropped: dict[str, int] = {}
    for entry in entries:
        if not entry.startswith("!! "):
            continue
        rel = entry[3:].rstrip("/")
        top = copy / rel
        files = [top] if top.is_file() else [p for p in top.rglob("*") if p.is_file()]
        for path in files:
            if path.is_symlink() or path.stat().st_mtime <= started:
                continue
            path.unlink()
            name = rel.split("/")[0] + ("/" if "/" in rel or top.is_dir() else "")
            dropped[name] = dropped.get(name, 0) + 1
    return [
        f"{name} ({n} file{'s' if n > 1 else ''} built after the session began): left out"
        for name, n in sorted(dropped.items())
    ]


@contextlib.contextmanager
def start_state(
    root: Path,
    commit: str,
    hooks_now: list[str] | None = None,
    *,
    started: float | None = None,
    left_out: list[str] | None = None,
) -> Iterator[Path]:
    """A throwaway copy of the workspace whose files are those of ``commit`` (every file the
    commit holds is written anew, so reports from before are older than all of them; compiled
    classes come from the cache when the commit's sources are the fixture's, else stay as
    they are), with the hooks as they are now: the workspace's ``.claude/`` replaces the
    commit's."""
    from harness.workspace import Workspace

    with sandbox_copy(root) as copy:
        proc.run(["git", "reset", "-q", "--hard", _head_of(root, commit)], cwd=copy)
        Workspace(copy).restore_commit(commit, rewrite_all=True)
        if started is not None:
            dropped = _drop_later_output(copy, started)
            if left_out is not None:
                left_out[:] = dropped
        # Compiled anew, newer than the files, when the commit's sources are the fixture's
        # (the reports keep their age): else the session's first sensor run compiles them all.
        restore_cached(copy)
        shutil.rmtree(copy / ".claude", ignore_errors=True)
        if (root / ".claude").is_dir():
            shutil.copytree(root / ".claude", copy / ".claude", symlinks=True)
        # The hooks the settings run from outside .claude/ (Lab 07's scripts/) are the
        # participant's work in progress, uncommitted: as on disk now, like .claude/.
        differs = _hooks_now(root, commit, copy)
        if hooks_now is not None:
            hooks_now[:] = differs
        yield copy


def hook_settings(copy: Path, plugin_dirs: Sequence[Path] = ()) -> Settings:
    """The hooks a copy has; none where the settings are broken (the engines say why)."""
    try:
        return load_settings(copy, plugin_dirs)
    except HarnessError:
        return Settings()  # settings the engines will refuse themselves, with their message


__all__ = ["hook_files", "hook_settings", "resolve_start", "start_state"]
