"""A participant's workspace: a copy of the fixture in its own git repository.

Harness bookkeeping lives inside the git directory (``hooklab/``, ``refs/hooklab/``) so it
follows the repository, never shows up as a change, and cannot go stale beside it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dulwich.objects import Blob, Commit
from dulwich.repo import Repo

from harness.errors import HarnessError
from harness.workspace.fixture import DEFAULT_FIXTURE, SHIPPED, Fixture, get_fixture
from harness.workspace.snapshot import build_tree, make_commit, read_blob
from harness.workspace.worktree import Worktree

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


class Workspace(Worktree):
    """A participant's workspace: where it is, its meta and fixture, one command at a time,
    its progress chain; its files in git (head, changes, backups) are the Worktree's."""

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
