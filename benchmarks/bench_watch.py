"""lab watch: from a saved file to the change reaching the watcher.

In a freshly provisioned workspace, one file is edited again and again, alternately seen two
ways:
  events   harness.workspace.watch.watch_changes (file-system events, debounced)
  polling  the former lab watch: rescan the workspace every 0.5 s and compare mtimes
Aims: events at most 2× their own debounce (the quiet period they wait for by design), and no
slower than polling.
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness.workspace import provision
from harness.workspace.watch import QUIET_MS, watch_changes

POLL_INTERVAL = 0.5


def _scan(root: Path) -> dict[str, float]:
    stamps: dict[str, float] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in {".git", "target"}]
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                stamps[path] = os.stat(path).st_mtime_ns
            except OSError:
                continue
    return stamps


def measure(options: Options) -> list[Row]:
    n = options.times(15)
    with tempfile.TemporaryDirectory(prefix="bench-watch-") as tmp:
        root = provision(Path(tmp) / "ws").workspace.root
        edited = root / "docs" / "notes.md"
        stop = threading.Event()
        seen: queue.Queue[float] = queue.Queue()

        def feed() -> None:
            for _paths in watch_changes(root, stop):
                seen.put(time.monotonic())

        threading.Thread(target=feed, daemon=True).start()
        time.sleep(1.0)  # the watcher is set up

        def edit(k: int) -> float:
            with edited.open("a", encoding="utf-8") as out:
                out.write(f"edit {k}\n")
            return time.monotonic()

        counter = iter(range(1_000_000))

        def by_event() -> float:
            while not seen.empty():
                seen.get_nowait()
            started = edit(next(counter))
            return seen.get(timeout=10) - started

        def by_polling() -> float:
            before = _scan(root)
            # Edits land at a random moment of a poller's cycle: start the cycle now, edit
            # somewhere inside it.
            cycle = time.monotonic()
            time.sleep(POLL_INTERVAL * (next(counter) % 10) / 10)
            started = edit(next(counter))
            ticks = 1
            while True:
                time.sleep(max(0.0, cycle + ticks * POLL_INTERVAL - time.monotonic()))
                ticks += 1
                if _scan(root) != before:
                    return time.monotonic() - started

        try:
            samples = alternate({"events": by_event, "polling": by_polling}, n)
        finally:
            stop.set()
    events, polling = median(samples["events"]), median(samples["polling"])
    return [
        Row(
            "edit → watch event (median)",
            events,
            "s",
            floor=QUIET_MS / 1000,
            aim=2.0,
            note=f"debounce: {QUIET_MS} ms of quiet",
        ),
        Row(
            "edit → watch event vs. 0.5 s polling",
            events,
            "s",
            floor=polling,
            aim=1.0,
            note=f"polling median {polling:.2f} s",
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
