"""The fix command's outputs, recorded once and put back between breaks.

Grading a Stop hook fixes the artefact again after every break (``--stale``, each of
``other_breaks``). Lab 07's fix is a Maven run, so each "fix again" cost a person seconds they
watched for nothing: the fix writes the same outputs each time. So the first real fix is
recorded (every file it wrote or changed, found by comparing a cheap listing of the project
before and after it: path, size, mtime_ns), and a later fix puts those bytes back with a fresh
mtime, newer than anything a break touched, and removes files a break added inside the
directories the fix wrote. To the hook that is a fix that ran just now and wrote what it
writes. The caller still runs the real fix once at the end, so the project is really fixed
(a break that touched a source leaves classes only a real build refreshes).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

MAX_RECORDED_BYTES = 50 * 1024 * 1024  # more than this: run the command instead
SKIPPED_DIRS = frozenset({".git"})

Listing = dict[str, tuple[int, int]]  # relative path → (size, mtime_ns)


def listing(root: Path) -> Listing:
    """Every regular file under ``root`` (not .git), without reading a byte of it."""
    found: Listing = {}
    stack = [root]
    while stack:
        here = stack.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue  # unreadable or gone: not the fix's output either way
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    stack.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                found[os.path.relpath(entry.path, root)] = (st.st_size, st.st_mtime_ns)
    return found


def changed(before: Listing, after: Listing) -> frozenset[str]:
    """The files written, replaced or removed between two listings."""
    return frozenset(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


@dataclass
class FixRecord:
    """What one real run of the fix command left: its written files' bytes, copied aside."""

    project: Path
    store: Path
    written: list[str] = field(default_factory=list)
    after: Listing = field(default_factory=dict)  # the whole tree as the fix left it

    @classmethod
    def take(cls, project: Path, store: Path, before: Listing) -> FixRecord | None:
        """Copy aside what the fix wrote; None when there is nothing to replay or too much."""
        after = listing(project)
        written = sorted(p for p, meta in after.items() if before.get(p) != meta)
        if not written or sum(after[p][0] for p in written) > MAX_RECORDED_BYTES:
            return None
        for rel in written:
            (store / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(project / rel, store / rel)
        return cls(project, store, written, after)

    def dirs(self) -> set[str]:
        return {os.path.dirname(rel) for rel in self.written}

    def replay(self) -> None:
        """Put the fix's outputs back as a run just now would leave them."""
        now = listing(self.project)
        dirs = self.dirs()
        for rel in now:  # a file a break added where the fix writes, which the fix never had
            if rel not in self.after and os.path.dirname(rel) in dirs:
                (self.project / rel).unlink()
        # Newer than every file in the tree, whatever clock tick a break's touch landed on.
        fresh = max([time.time_ns(), *(meta[1] + 1_000 for meta in now.values())])
        for rel in self.written:
            target = self.project / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink() or target.is_dir():
                raise OSError(f"{target} is no longer a file")
            shutil.copyfile(self.store / rel, target)
            os.utime(target, ns=(fresh, fresh))
