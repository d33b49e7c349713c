"""A participant's workspace: a copy of the fixture in its own git repository.

Harness bookkeeping lives inside the git directory (``hooklab/``, ``refs/hooklab/``) so it
follows the repository, never shows up as a change, and cannot go stale beside it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dulwich import porcelain
from dulwich.objects import Blob, Commit
from dulwich.repo import Repo

from harness import __version__
from harness.errors import HarnessError
from harness.workspace.fixture import (
    DEFAULT_FIXTURE,
    FIXTURE_FILE,
    SHIPPED,
    Fixture,
    get_fixture,
    load_fixture,
)
from harness.workspace.snapshot import (
    IDENTITY,
    build_tree,
    commit_snapshot,
    make_commit,
    read_blob,
    snapshot_tree,
    tree_files,
    worktree_files,
)

# Build output, caches and VCS data never belong in a fresh workspace.
SKIP_ON_COPY = {".git", "target", ".idea", ".vscode", "__pycache__"}
BACKUP_PREFIX = b"refs/hooklab/backups/"
PROGRESS_REF = b"refs/hooklab/progress"
PROGRESS_FILE = "progress.json"
META_FILE = "hooklab/workspace.json"
OPERATION_LOCK = "hooklab/operation.lock"
BACKEND_FILE = Path(".mvn") / "hooklab-backend"
IDENTITY_KEY = "workspace_id"  # in the meta: see Workspace.identity
CLOCK_KEY = "remote_clock_offset"  # in the meta: the last reading lab submit made


def fixture_dir(name: str | None = None) -> Path:
    """The folder of the fixture ``name`` (default: the PetClinic; $HOOKLAB_FIXTURE replaces
    it), its manifest checked."""
    return get_fixture(name).dir


class WorkspaceBusy(HarnessError):
    """Another lab command holds the workspace (``Workspace.operation``)."""


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


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.repo = Repo(str(self.root))

    # ---- locating ----------------------------------------------------------------------
    @classmethod
    def find(cls, start: Path | None = None) -> Workspace:
        """The workspace containing ``start`` (default: the current directory)."""
        here = (start or Path.cwd()).resolve()
        for candidate in (here, *here.parents):
            if (candidate / ".git").exists() and _meta_path(candidate).is_file():
                return cls(candidate)
        raise HarnessError(
            f"{here} is not inside a Hook Lab workspace",
            fix="cd into your workspace, or create one with: lab init DIR",
        )

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.controldir())

    @property
    def meta(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.git_dir / META_FILE).read_text())
        return data

    @property
    def fixture(self) -> Fixture:
        """The fixture this workspace was provisioned from (older workspaces: the PetClinic)."""
        return get_fixture(self.fixture_name)

    @property
    def fixture_name(self) -> str:
        name = self.meta.get("fixture_name")
        return name if isinstance(name, str) and name in SHIPPED else DEFAULT_FIXTURE

    @property
    def backend(self) -> str:
        path = self.root / BACKEND_FILE
        return path.read_text().strip() if path.is_file() else "local"

    def set_backend(self, name: str) -> None:
        path = self.root / BACKEND_FILE
        if name == "local":
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(name + "\n")
        meta = self.meta
        meta["backend"] = name
        _write_meta(self.git_dir, meta)

    # ---- one command at a time ----------------------------------------------------------
    @contextlib.contextmanager
    def operation(self, what: str) -> Iterator[None]:
        """Hold the workspace for one command that changes it.

        A second lab command is refused while one runs: two at once would interleave backups,
        rewinds and progress writes. When the command fails or is interrupted, lock files
        dulwich leaves behind (on a full disk it cannot remove its own) are removed, so the
        next command does not trip over them.
        """
        path = self.git_dir / OPERATION_LOCK
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 200).decode(errors="replace").strip() or "another command"
                raise WorkspaceBusy(
                    f"another lab command is working in this workspace ({holder})",
                    fix="wait until it has finished, then run this one again",
                ) from None
            with contextlib.suppress(OSError):  # a full disk must not stop the command here
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"lab {what}, pid {os.getpid()}".encode(), 0)
            ours = _git_lock_files(self.git_dir)
            try:
                yield
            except BaseException:
                for stale in _git_lock_files(self.git_dir) - ours:
                    stale.unlink(missing_ok=True)
                raise
        finally:
            os.close(fd)  # releases the lock

    # ---- state -------------------------------------------------------------------------
    def head(self) -> str | None:
        try:
            return self.repo.head().decode()
        except KeyError:
            return None

    def changed_files(self) -> list[str]:
        """Uncommitted changes (staged, unstaged, untracked; deletions included), sorted."""
        st = porcelain.status(self.repo, untracked_files="all")
        paths: set[str] = set()
        for group in st.staged.values():
            paths.update(_text(p) for p in group)
        paths.update(_text(p) for p in st.unstaged)
        paths.update(_text(p) for p in st.untracked)
        return sorted(paths)

    def commit_all(self, message: str) -> str:
        """Stage everything (deletions too) and commit: used by lab solves and setup steps."""
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

    @property
    def identity(self) -> str:
        """This workspace's own id, made once: its progress documents and snapshots carry it,
        so the trainer tells two workspaces apart even when they did the same thing in the
        same second, and sees a record replaced from another workspace."""
        found = self.meta.get(IDENTITY_KEY)
        if isinstance(found, str) and found:
            return found
        made = uuid.uuid4().hex[:16]
        self.update_meta({IDENTITY_KEY: made})
        return made

    def update_meta(self, changes: dict[str, Any]) -> None:
        """Merge ``changes`` into the workspace's meta (a key set to None is removed)."""
        meta = self.meta
        for key, value in changes.items():
            if value is None:
                meta.pop(key, None)
            else:
                meta[key] = value
        _write_meta(self.git_dir, meta)

    # ---- progress ----------------------------------------------------------------------
    def progress_head(self) -> str | None:
        try:
            return self.repo.refs[PROGRESS_REF].decode()
        except KeyError:
            return None

    def read_progress(self) -> dict[str, Any]:
        """The progress document: progress.json in a commit chain at refs/hooklab/progress."""
        head = self.progress_head()
        return progress_document(self.repo, head) if head else {}

    def write_progress(
        self,
        progress: dict[str, Any],
        message: str,
        *,
        anchors: Sequence[str] = (),
        submits_as: str | None = None,
        clock_offset: float | None = None,
        move: bool = True,
    ) -> str:
        """Commit a new progress document on top of the chain.

        ``anchors`` become extra parents, so whatever pushes the chain also carries those
        commits (the verified states and their evidence) while the chain's own trees stay one
        small file: a reader that fetches only the tip gets the whole document and nothing more.
        ``clock_offset``: a reading of the remote's clock lab submit just made (else the last
        one the meta keeps).
        """
        parents = [head.encode()] if (head := self.progress_head()) else []
        # Whose document this is: the workspace, and the name it submits as (lab submit
        # writes a new document when that name changes, before it pushes).
        submit = self.meta.get("submit")
        name = submits_as or (submit.get("participant") if isinstance(submit, dict) else None)
        whose: dict[str, Any] = {"id": self.identity, "submits_as": name}
        offset = clock_offset if clock_offset is not None else self.meta.get(CLOCK_KEY)
        if isinstance(offset, int | float):
            whose["clock_offset"] = offset  # the remote's clock minus this machine's
        progress = {**progress, "workspace": whose}
        blob = Blob.from_string(json.dumps(progress, indent=2, sort_keys=True).encode() + b"\n")
        self.repo.object_store.add_object(blob)
        tree = build_tree(self.repo, {PROGRESS_FILE: (0o100644, blob.id)})
        parents += [a.encode() for a in dict.fromkeys(anchors) if a.encode() not in parents]
        commit_id = make_commit(self.repo, tree, parents, message)
        if move:  # else staged: the caller moves the chain to it (lab submit, once pushed)
            self.repo.refs[PROGRESS_REF] = commit_id
        return commit_id.decode()

    def commit_files(self, files: Mapping[str, bytes], parents: Sequence[str], message: str) -> str:
        """A harness commit of exactly ``files`` (path -> content), outside any branch."""
        entries = {}
        for path, data in files.items():
            blob = Blob.from_string(data)
            self.repo.object_store.add_object(blob)
            entries[path] = (0o100644, blob.id)
        tree = build_tree(self.repo, entries)
        return make_commit(self.repo, tree, [p.encode() for p in parents], message).decode()

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r}, backend={self.backend!r})"


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


def progress_document(repo: Repo, commit_id: str) -> dict[str, Any]:
    """The progress.json of a progress commit, in any repository (a workspace, a cohort)."""
    commit = repo[commit_id.encode()]
    assert isinstance(commit, Commit)
    data = read_blob(repo, commit.tree, PROGRESS_FILE)
    if data is None:
        raise HarnessError(
            f"progress commit {commit_id[:12]} holds no {PROGRESS_FILE}",
            fix="this ref was not written by Hook Lab; check the remote and the ref name",
        )
    try:
        document: dict[str, Any] = json.loads(data)
    except ValueError as exc:
        raise HarnessError(
            f"{PROGRESS_FILE} in progress commit {commit_id[:12]} is not valid JSON ({exc})",
            fix="the progress record was edited by hand; lab status shows the last good one",
        ) from exc
    if not isinstance(document, dict):
        raise HarnessError(f"{PROGRESS_FILE} in progress commit {commit_id[:12]} is not an object")
    return document


# ---- provisioning --------------------------------------------------------------------------
@dataclass(frozen=True)
class ProvisionResult:
    workspace: Workspace
    created: bool
    files: int


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


def _git_lock_files(git_dir: Path) -> set[Path]:
    """git's ``*.lock`` files: refs, the index, loose objects (not our operation lock)."""
    return {
        path
        for path in git_dir.rglob("*.lock")
        if path.name != Path(OPERATION_LOCK).name and path.is_file()
    }


def _meta_path(root: Path) -> Path:
    git = root / ".git"
    return git / META_FILE


def _write_meta(git_dir: Path, meta: dict[str, Any]) -> None:
    path = git_dir / META_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)


def _copy_fixture(source: Path, target: Path, build_output: Sequence[str] = ()) -> int:
    count = 0
    for dirpath, dirnames, filenames in os.walk(source):
        rel = Path(dirpath).relative_to(source)
        skip = SKIP_ON_COPY | ({*build_output} if rel == Path() else set())
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        (target / rel).mkdir(parents=True, exist_ok=True)
        for name in filenames:
            if name.endswith((".pyc", ".class")) or (rel == Path() and name == FIXTURE_FILE):
                continue
            shutil.copy2(Path(dirpath) / name, target / rel / name)
            count += 1
    return count


def _has_git_identity() -> bool:
    from dulwich.config import StackedConfig

    config = StackedConfig.default()
    try:
        return bool(config.get((b"user",), b"email"))
    except KeyError:
        return False


def empty_workspace(target: Path, meta: dict[str, Any]) -> Workspace:
    """A workspace with no files and no commits yet, for objects fetched from elsewhere
    (re-verifying a participant's submission in a fresh place)."""
    target.mkdir(parents=True, exist_ok=True)
    if any(target.iterdir()):
        raise HarnessError(f"{target} is not empty", fix="pick a new directory")
    repo = porcelain.init(str(target))
    repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")
    _write_meta(Path(repo.controldir()), {"harness_version": __version__, **meta})
    return Workspace(target)


def provision(
    target: Path,
    *,
    backend: str | None = None,
    fixture: Path | None = None,
    fixture_name: str | None = None,
) -> ProvisionResult:
    """Create a workspace in ``target`` from the fixture ``fixture_name`` (default: the
    PetClinic) or the fixture folder ``fixture`` (backend default: local); on an existing
    workspace, change nothing but the backend, and that only when one is given.

    A directory holding anything else is refused untouched: it may be someone's work.
    """
    target = target.resolve()
    if target.exists() and not target.is_dir():
        raise HarnessError(
            f"{target} is a file, not a directory", fix="pick a new directory name: lab init DIR"
        )
    if target.is_dir() and _meta_path(target).is_file():
        ws = Workspace(target)
        if fixture_name is not None and ws.fixture_name != fixture_name:
            raise HarnessError(
                f"{target} is already a workspace of the {ws.fixture_name} fixture; "
                "nothing was changed",
                fix=f"pick a new directory for the {fixture_name} fixture: "
                f"lab init DIR --fixture {fixture_name}",
            )
        if backend is not None and ws.backend != backend:
            ws.set_backend(backend)
        return ProvisionResult(ws, created=False, files=0)
    backend = backend or "local"
    if target.is_dir() and any(target.iterdir()):
        raise HarnessError(
            f"{target} is not empty and is not a Hook Lab workspace; nothing was changed",
            fix="choose a new or empty directory: lab init DIR",
        )
    chosen = load_fixture(fixture) if fixture is not None else get_fixture(fixture_name)
    fresh_dir = not target.exists()
    target.mkdir(parents=True, exist_ok=True)
    try:
        files = _provision_into(target, chosen, backend)
    except BaseException:
        # Half a workspace (Ctrl-C, a full disk) would make the next `lab init` refuse the
        # directory as "not empty": take it away again, as it was before.
        if fresh_dir:
            shutil.rmtree(target, ignore_errors=True)
        else:
            for child in list(target.iterdir()):
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)
        raise
    return ProvisionResult(Workspace(target), created=True, files=files)


def _provision_into(target: Path, fixture: Fixture, backend: str) -> int:
    """Copy the fixture into ``target`` and commit it; the meta file, written last, makes it a
    workspace. Returns the number of files copied."""
    files = _copy_fixture(fixture.dir, target, fixture.build_output)
    if backend != "local":
        (target / BACKEND_FILE).parent.mkdir(parents=True, exist_ok=True)
        (target / BACKEND_FILE).write_text(backend + "\n")
    repo = porcelain.init(str(target))
    # The workshop material says "main"; dulwich would otherwise name the branch master.
    repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")
    if not _has_git_identity():
        # Participants commit in the labs; a machine without an identity would fail there.
        config = repo.get_config()
        config.set((b"user",), b"name", b"Workshop Participant")
        config.set((b"user",), b"email", b"participant@hooklab.invalid")
        config.write_to_path()
    porcelain.add(repo, paths=[str(target / p) for p in worktree_files(repo)])
    initial = porcelain.commit(
        repo,
        message=f"Provision the {fixture.name} workshop fixture".encode(),
        author=IDENTITY,
        committer=IDENTITY,
    )
    # One pack instead of a hundred loose objects in as many folders: a check copies the
    # workspace for each session it plays, and this halves the files each copy makes.
    repo.object_store.pack_loose_objects()
    _write_meta(
        Path(repo.controldir()),
        {
            "harness_version": __version__,
            "fixture": str(fixture.dir),
            "fixture_name": fixture.name,
            "backend": backend,
            "created": time.time(),
            "initial_commit": initial.decode(),
            "files": files,
        },
    )
    return files
