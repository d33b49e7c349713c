"""A workspace's files in git: HEAD, the uncommitted changes, a commit of everything, and
the backups under refs/hooklab/backups/ with the ways back (restore, rewind, put_back). A
rewind or restore writes only the files that differ: mtimes are Maven's staleness test."""

from __future__ import annotations

import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from dulwich.objects import Blob, Commit
from dulwich.repo import Repo

from harness.errors import HarnessError
from harness.workspace.snapshot import (
    IDENTITY,
    commit_snapshot,
    snapshot_tree,
    tree_files,
    worktree_files,
)

BACKUP_PREFIX = b"refs/hooklab/backups/"


@dataclass(frozen=True)
class Backup:
    ref: str
    commit: str
    reason: str
    created: float

    @property
    def name(self) -> str:
        return self.ref.removeprefix(BACKUP_PREFIX.decode())

    @property
    def restore_hint(self) -> str:
        return f"lab restore {self.name}   (or: git checkout {self.ref} -- .)"


class Worktree:
    """The git side of a Workspace (its base class): ``root`` and ``repo`` are the
    workspace's."""

    root: Path
    repo: Repo

    # ---- state -------------------------------------------------------------------------
    def head(self) -> str | None:
        try:
            return self.repo.head().decode()
        except KeyError:
            return None

    def changed_files(self) -> list[str]:
        """Uncommitted changes (staged, unstaged, untracked; deletions included), sorted."""
        from dulwich import porcelain  # 70 modules: only for git work

        st = porcelain.status(self.repo, untracked_files="all")
        paths: set[str] = set()
        for group in st.staged.values():
            paths.update(_text(p) for p in group)
        paths.update(_text(p) for p in st.unstaged)
        paths.update(_text(p) for p in st.untracked)
        return sorted(paths)

    def commit_all(self, message: str) -> str:
        """Stage everything (deletions too) and commit: used by lab solves and setup steps."""
        from dulwich import porcelain  # 70 modules: only for git work

        porcelain.add(self.repo, paths=[str(self.root / p) for p in worktree_files(self.repo)])
        st = porcelain.status(self.repo, untracked_files="no")
        for deleted in st.unstaged:
            path = _text(deleted)
            if not (self.root / path).exists():
                porcelain.remove(self.repo, paths=[str(self.root / path)], cached=True)
        return porcelain.commit(
            self.repo, message=message.encode(), author=IDENTITY, committer=IDENTITY
        ).decode()

    # ---- backups -----------------------------------------------------------------------
    def backup(self, reason: str, *, action: str | None = None) -> Backup:
        """Snapshot the whole worktree (untracked included) under refs/hooklab/backups/.

        The name is the time and, given an ``action`` (reset, goto, solve…), ``before-ACTION``:
        short enough to type, and one name per action. ``reason`` is kept in the commit.
        """
        head = self.head()
        parents = [head.encode()] if head else []
        commit_id = commit_snapshot(self.repo, f"hooklab backup: {reason}", parents)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        name = f"{stamp}-{backup_slug(f'before {action}' if action else reason)}"
        ref = BACKUP_PREFIX + name.encode()
        n = 1
        while ref in self.repo.refs:
            n += 1
            ref = BACKUP_PREFIX + f"{name}-{n}".encode()
        self.repo.refs[ref] = commit_id
        commit = self.repo[commit_id]
        return Backup(ref.decode(), commit_id.decode(), reason, commit.commit_time)

    def backups(self) -> list[Backup]:
        found = []
        for ref in self.repo.refs.allkeys():
            if not ref.startswith(BACKUP_PREFIX):
                continue
            commit = self.repo[self.repo.refs[ref]]
            assert isinstance(commit, Commit)
            reason = commit.message.decode().removeprefix("hooklab backup: ").strip()
            found.append(Backup(ref.decode(), commit.id.decode(), reason, commit.commit_time))
        return sorted(found, key=lambda b: (b.created, b.ref))

    def find_backup(self, name: str) -> Backup:
        for backup in self.backups():
            if name in (backup.name, backup.ref, backup.commit):
                return backup
        known = ", ".join(b.name for b in self.backups()[-5:]) or "none yet"
        raise HarnessError(f"no backup named {name!r}", fix=f"pick one of: {known}")

    def restore_tree(self, tree_id: bytes, *, rewrite_all: bool = False) -> None:
        """Make the worktree's non-ignored files exactly those of ``tree_id``. A file that
        already is what the tree holds is left alone, mtime and all, as git's checkout does:
        rewritten, every source would read as changed to Maven and the next run would compile
        the module again. ``rewrite_all`` writes every file anew (all newer than any report)."""
        wanted = tree_files(self.repo, tree_id)
        for rel in worktree_files(self.repo):
            if rel not in wanted:
                (self.root / rel).unlink()
        for rel, (mode, sha) in wanted.items():
            path = self.root / rel
            blob = self.repo.object_store[sha]
            assert isinstance(blob, Blob)
            if not rewrite_all and _holds(path, mode, blob.data):
                continue
            if path.is_symlink() or path.exists():
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            if mode == 0o120000:
                path.symlink_to(blob.data.decode())
            else:
                path.write_bytes(blob.data)
                path.chmod(0o755 if mode & 0o111 else 0o644)
        _prune_empty_dirs(self.root)

    def restore(self, name: str) -> tuple[Backup, Backup]:
        """Bring a backup back; the current state is backed up first, so nothing is lost."""
        target = self.find_backup(name)
        safety = self.backup(f"before restoring {target.name}", action="restore")
        commit = self.repo[target.commit.encode()]
        assert isinstance(commit, Commit)
        self.restore_tree(commit.tree)
        return target, safety

    def rewind(self, commit_id: str, reason: str, *, action: str | None = None) -> Backup | None:
        """Put the branch, the index and the worktree back at ``commit_id``.

        Anything that differs from it (edits, new files, later commits) is backed up first,
        so a rewind never loses work; None when there was nothing to keep.
        """
        from dulwich import porcelain  # 70 modules: only for git work

        differs = self.head() != commit_id or bool(self.changed_files())
        backup = self.backup(reason, action=action) if differs else None
        porcelain.reset(self.repo, "hard", commit_id.encode())
        commit = self.repo[commit_id.encode()]
        assert isinstance(commit, Commit)
        self.restore_tree(commit.tree)  # reset --hard leaves untracked files behind
        return backup

    def put_back(self, backup: Backup | None, head: str | None) -> None:
        """Undo a command cut short: HEAD at ``head``, the files as ``backup`` holds them
        (without a backup, as ``head`` holds them: the worktree was clean)."""
        from dulwich import porcelain  # 70 modules: only for git work

        if head is not None:
            porcelain.reset(self.repo, "hard", head.encode())
        if backup is not None:
            self.restore_commit(backup.commit)
        elif head is not None:
            self.restore_commit(head)

    def restore_commit(self, commit_id: str, *, rewrite_all: bool = False) -> None:
        commit = self.repo[commit_id.encode()]
        assert isinstance(commit, Commit)
        self.restore_tree(commit.tree, rewrite_all=rewrite_all)

    def snapshot_tree_id(self) -> str:
        return snapshot_tree(self.repo).decode()


def backup_slug(text: str, limit: int = 40) -> str:
    """``text`` as lowercase words joined by dashes, cut after a whole word within ``limit``."""
    words = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()
    slug = ""
    for word in words:
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > limit:
            break
        slug = longer
    return slug or (words[0][:limit] if words else "backup")


def _text(path: object) -> str:
    return path.decode() if isinstance(path, bytes) else str(path)


def _holds(path: Path, mode: int, data: bytes) -> bool:
    """True when ``path`` already is the blob: the same link target, or a regular file with
    the same bytes and the same executable bit."""
    if mode == 0o120000:
        return path.is_symlink() and os.readlink(path).encode() == data
    if path.is_symlink() or not path.is_file():
        return False
    executable = bool(path.stat().st_mode & 0o111)
    return executable == bool(mode & 0o111) and path.read_bytes() == data


def _prune_empty_dirs(root: Path) -> None:
    for dirpath, _dirnames, _filenames in os.walk(root, topdown=False):
        path = Path(dirpath)
        if path == root or ".git" in path.relative_to(root).parts:
            continue
        if not any(path.iterdir()):
            path.rmdir()
