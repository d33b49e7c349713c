"""File-system events from a workspace, for ``lab watch`` (watchfiles: inotify on Linux,
FSEvents on macOS, ReadDirectoryChangesW on Windows).

What the tools write is ignored, so a check never triggers the next one: Maven's build output
(``target/``), git and the harness's own bookkeeping (``.git/``), and the usual editor and
cache litter (watchfiles' default filter: swap files, ``~`` backups, ``__pycache__``...).
Except the Surefire reports (``target/surefire-reports/TEST-*.xml``): they are what the checks
read, so a sensor run in another terminal is a change to check. No check writes them into the
workspace (a check that runs Maven works on a copy), so they set off no loop.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import watchfiles

# Directories whose changes are never the participant's work.
IGNORED_DIRS = ("target", "build")

# Changes are grouped: a check starts once the workspace has been quiet for QUIET_MS, or after
# MAX_GROUP_MS of steady changes (a checkout, a formatter run), whichever comes first.
QUIET_MS = 150
MAX_GROUP_MS = 800


REPORTS = os.path.join("target", "surefire-reports", "")


class WorkspaceFilter(watchfiles.DefaultFilter):
    ignore_dirs = (*watchfiles.DefaultFilter.ignore_dirs, *IGNORED_DIRS)

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.reports = os.path.join(str(root), REPORTS)

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        if path.startswith(self.reports):
            name = path[len(self.reports) :]
            return name.startswith("TEST-") and name.endswith(".xml") and os.sep not in name
        return super().__call__(change, path)


def watch_changes(
    root: Path, stop: threading.Event, *, quiet_ms: int = QUIET_MS
) -> Iterator[list[str]]:
    """Yield each debounced group of changes as sorted paths relative to root, until stop is
    set (seen within half a second)."""
    reports = _reports_now(root)
    for changes in watchfiles.watch(
        root,
        watch_filter=WorkspaceFilter(root),
        debounce=max(MAX_GROUP_MS, quiet_ms),
        step=quiet_ms,
        stop_event=stop,
        rust_timeout=500,
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        paths = {os.path.relpath(path, root) for _change, path in changes}
        # ./mvnw deletes target/surefire-reports and Surefire makes it again: reports written
        # before the new folder is watched raise no event, so their names and times are
        # compared too (at the latest every half second).
        seen, reports = reports, _reports_now(root)
        if reports != seen:
            paths.update(name for name, _ in reports ^ seen)
        if paths:
            yield sorted(paths)


def _reports_now(root: Path) -> frozenset[tuple[str, int]]:
    """The Surefire reports in the workspace: each one's path and modification time."""
    folder = root / REPORTS
    try:
        found = [entry for entry in os.scandir(folder) if entry.name.startswith("TEST-")]
        return frozenset(
            (os.path.join(REPORTS, e.name), e.stat().st_mtime_ns)
            for e in found
            if e.name.endswith(".xml")
        )
    except OSError:  # no reports yet, or the folder is being replaced: as good as none
        return frozenset()
