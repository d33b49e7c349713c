"""A participant's workspace in the middle of a lab, and the proof that it came through a fault
as it was: every file, HEAD, the progress ref and every backup ref.

The proof reads with real git, not with the harness, so a harness bug cannot hide itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness.engine.lab_runner import LabRunner
from harness.workspace import Workspace

PROGRESS_REF = "refs/hooklab/progress"
BACKUPS = "refs/hooklab/backups/"
# The participant's own work, uncommitted: an edited spec (under docs/, so the Stop hook holds
# the turn for it) and a new file.
EDITED = "docs/use_cases/UC-002-edit-owner.md"
NOTES = "notes/ideas.md"


def prepare(ws: Workspace) -> Workspace:
    """Lab 09 started (progress exists), the participant's edits made, one backup taken."""
    LabRunner(ws).start("9")
    with (ws.root / EDITED).open("a") as fh:
        fh.write("\nA sentence the participant added.\n")
    (ws.root / NOTES).parent.mkdir(parents=True, exist_ok=True)
    (ws.root / NOTES).write_text("Things to try after the workshop.\n")
    ws.backup("the participant's own backup")
    return ws


@dataclass(frozen=True)
class State:
    files: dict[str, str]  # path -> mode and sha256 of every file outside .git and target/
    head: str
    refs: dict[str, str]  # refs/hooklab/* -> commit
    # The progress document without what a failed check adds (its count and time, which the
    # trainer's stuck view reads): a failing check may record that it failed, nothing else.
    progress: str | None

    @property
    def backups(self) -> dict[str, str]:
        return {r: c for r, c in self.refs.items() if r.startswith(BACKUPS)}


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_DIR")}
    return subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=check
    )


def files_of(root: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        if rel_dir == Path("."):
            dirnames[:] = [d for d in dirnames if d not in {".git", "target"}]
        for name in filenames:
            path = Path(dirpath) / name
            mode = "link" if path.is_symlink() else oct(path.stat().st_mode & 0o777)
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            found[str(rel_dir / name)] = f"{mode} {hashlib.sha256(data).hexdigest()}"
    return found


def state(root: Path) -> State:
    refs = git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/hooklab/")
    return State(
        files_of(root),
        git(root, "rev-parse", "HEAD").stdout.strip(),
        dict(line.split(" ", 1) for line in refs.stdout.splitlines()),  # type: ignore[misc]
        progress_without_failures(root),
    )


FAILURE_FIELDS = ("failed_checks", "failed_at", "quiz_tries", "quiz_tried_at")


def progress_without_failures(root: Path) -> str | None:
    shown = git(root, "show", f"{PROGRESS_REF}:progress.json", check=False)
    if shown.returncode != 0:
        return None

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in FAILURE_FIELDS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    document = json.loads(shown.stdout)
    # updated_at moves with any write of the document, a failure's too.
    if isinstance(document, dict):
        document.pop("updated_at", None)
    return json.dumps(strip(document), sort_keys=True)


def assert_intact(
    before: State,
    root: Path,
    *,
    new_backups: bool = False,
    agent_edits: Mapping[str, str] | None = None,
) -> None:
    """Everything of ``before`` is still there, unchanged; the repository is whole.

    ``new_backups``: the command under test may add backups (never change or drop one).
    ``agent_edits``: files the simulated agent itself changed, with the text it wrote.
    """
    __tracebackhide__ = True  # a failure points at the test that called it
    after = state(root)
    expected = dict(before.files)
    for rel, text in (agent_edits or {}).items():
        mode = before.files[rel].split(" ", 1)[0]
        expected[rel] = f"{mode} {hashlib.sha256(text.encode()).hexdigest()}"
    changed = sorted(
        p for p in expected.keys() | after.files.keys() if expected.get(p) != after.files.get(p)
    )
    assert not changed, f"files changed: {changed}"
    assert after.head == before.head, "HEAD moved"
    assert after.progress == before.progress, "the progress changed (beyond a failed check)"
    for ref, commit in before.backups.items():
        assert after.backups.get(ref) == commit, f"backup {ref} changed or vanished"
    if not new_backups:
        assert after.backups == before.backups, "a backup appeared"
    fsck = git(root, "fsck", "--connectivity-only", "--no-dangling", check=False)
    assert fsck.returncode == 0, f"git fsck: {fsck.stdout}{fsck.stderr}"


def backup_holds(root: Path, ref: str, rel: str, text: str) -> bool:
    """The backup at ``ref`` holds file ``rel`` and it contains ``text``."""
    shown = git(root, "show", f"{ref}:{rel}", check=False)
    return shown.returncode == 0 and text in shown.stdout


def copy_workspace(source: Path, target: Path) -> Workspace:
    shutil.copytree(source, target, symlinks=True)
    return Workspace(target)
