"""``lab watch`` sees sensor reports that raised no file event of their own.

./mvnw deletes target/surefire-reports and Surefire makes it again; reports written before the
new folder is watched raise no event (seen once in a full run under load: the step never
turned to PASS). A folder moved into place is the same case made certain: inotify reports the
folder, never the files it brings.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from harness.workspace.watch import watch_changes


def first_group(changes: Iterator[list[str]], stop: threading.Event) -> list[str]:
    timer = threading.Timer(5, stop.set)  # a watch that sees nothing ends here
    timer.start()
    try:
        return next(changes, [])
    finally:
        timer.cancel()


def test_reports_moved_into_place_are_seen(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "target").mkdir(parents=True)
    ready = tmp_path / "surefire-reports"
    ready.mkdir()
    (ready / "TEST-ai.ArchitectureTest.xml").write_text("<testsuite/>")
    (ready / "ai.ArchitectureTest.txt").write_text("not a report the checks read")
    stop = threading.Event()
    changes = watch_changes(root, stop)
    threading.Timer(0.5, shutil.move, (ready, root / "target" / "surefire-reports")).start()
    started = time.monotonic()
    group = first_group(changes, stop)
    stop.set()
    assert group == ["target/surefire-reports/TEST-ai.ArchitectureTest.xml"]
    assert time.monotonic() - started < 3


def test_build_output_beside_the_reports_sets_off_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "target" / "classes").mkdir(parents=True)
    stop = threading.Event()
    changes = watch_changes(root, stop)
    threading.Timer(0.5, (root / "target" / "classes" / "A.class").write_text, ("x",)).start()
    assert first_group(changes, stop) == []
