"""Provisioning: a new workspace from a fixture (copied, committed, its meta written last), or
an empty one for objects fetched from elsewhere; half a workspace is never left behind."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import __version__
from harness.errors import HarnessError
from harness.workspace.fixture import FIXTURE_FILE, Fixture, get_fixture, load_fixture
from harness.workspace.maven_found import META_KEY as MAVEN_KEY
from harness.workspace.maven_found import as_meta, maven_found, recorded, what_changed
from harness.workspace.snapshot import IDENTITY, worktree_files
from harness.workspace.workspace import BACKEND_FILE, Workspace, _meta_path, _write_meta

# Build output, caches and VCS data never belong in a fresh workspace.
SKIP_ON_COPY = {".git", "target", ".idea", ".vscode", "__pycache__"}


@dataclass(frozen=True)
class ProvisionResult:
    workspace: Workspace
    created: bool
    files: int
    # lab init again, when ./mvnw now runs another Maven (or java) than the one recorded:
    # (was, now), said aloud, since the record is what the checks trust (walk-o M).
    maven_recorded_again: tuple[str, str] | None = None
    # ...and what changed, one clause each (a path with new content reads the same as was
    # and now: its sha256 says it changed).
    maven_changes: tuple[str, ...] = ()


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
    from dulwich import porcelain  # 70 modules: only for git work

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
        # lab init again records the Maven ./mvnw runs now (the fix a foreign-Maven refusal
        # names for a Maven installed on purpose).
        was, now = recorded(ws.meta), maven_found(target)
        ws.update_meta({MAVEN_KEY: as_meta(now)})
        again: tuple[str, str] | None = None
        changes: tuple[str, ...] = ()
        if (
            was is not None
            and now is not None
            and not (was.same_program(now) and was.same_java(now))
        ):
            again = (f"{was.path} (java {was.java or '?'})", f"{now.path} (java {now.java or '?'})")
            changes = tuple(what_changed(was, now))
        return ProvisionResult(
            ws, created=False, files=0, maven_recorded_again=again, maven_changes=changes
        )
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
    from dulwich import porcelain  # 70 modules: only for git work

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
            # Which Maven ./mvnw runs (harness.workspace.maven_found): a check that relies on
            # a Maven run refuses another one found first on the PATH later.
            MAVEN_KEY: as_meta(maven_found(target)),
        },
    )
    return files
