"""`lab trainer status` at 10, 50 and 200 participants: under a second, no worse than linear.

A real ``git daemon`` on loopback serves a bare repository seeded with one progress commit per
participant (the real labs' steps, varied progress; written straight into the repository by the
test builder, since pushing 200 workspaces would only lengthen the setup). Measured, as medians:
  baseline     python -m harness --version             (interpreter start and imports)
  status       lab trainer status URL --json           (a trainer's command, as a process)
  read         CohortReader.read() in-process, cold    (list refs, shallow fetch, parse)
  re-read      the same reader again, nothing moved    (what each --watch refresh costs)
Aims: status at 200 participants under a second; the cost of each extra participant from 50
to 200 at most 1.25× that from 10 to 50 (linear growth or better, with room for noise).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report import Options, Row, run_standalone
from harness.engine.manifest import load_labs
from harness.trainer.cohort import CohortReader
from tests.trainer.cohort_builder import Seeded, seed_cohort
from tests.trainer.servers import GitDaemon, bare_repo

SIZES = (10, 50, 200)
AIM_SECONDS = 1.0


def timed_process(argv: list[str], state: str | None = None) -> float:
    env = dict(os.environ, NO_COLOR="1")
    if state:
        env["XDG_STATE_HOME"] = state  # the table's memory: not in the user's home
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.decode()[-500:]}")
    return elapsed


def room(size: int, steps: int, now: float) -> list[Seeded]:
    """Participants spread over the workshop: some done, most somewhere in the middle."""
    return [
        Seeded(
            f"participant-{i:03d}",
            passed=(i * 7) % (steps + 1),
            started=now - 3 * 3600 + i,
            step_seconds=300 + (i % 11) * 30,
            stuck_seconds=(i % 13) * 120,
        )
        for i in range(size)
    ]


def measure(options: Options) -> list[Row]:
    n = options.times(5)
    steps = [(lab.id, step.id) for lab in load_labs() for step in lab.steps]
    python = [sys.executable, "-m", "harness"]
    status: dict[int, float] = {}
    read: dict[int, float] = {}
    reread: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as holder:
        served = Path(holder)
        now = time.time()
        for size in SIZES:
            bare_repo(served / f"room{size}.git")
            seed_cohort(
                served / f"room{size}.git", "bench", room(size, len(steps), now), steps=steps
            )
        with GitDaemon(served) as daemon:
            baseline = statistics.median(timed_process([*python, "--version"]) for _ in range(n))
            for size in SIZES:
                url = daemon.url(f"room{size}.git")
                command = [*python, "trainer", "status", url, "--cohort", "bench", "--json"]
                state = str(served / "state")
                timed_process(command, state)  # warm the page cache and the daemon once
                status[size] = statistics.median(timed_process(command, state) for _ in range(n))
                cold, warm = [], []
                for _ in range(n):
                    reader = CohortReader(url, "bench", journal=False)
                    started = time.perf_counter()
                    cohort = reader.read()
                    cold.append(time.perf_counter() - started)
                    assert len(cohort.members) == size, len(cohort.members)
                    started = time.perf_counter()
                    reader.read()
                    warm.append(time.perf_counter() - started)
                read[size], reread[size] = statistics.median(cold), statistics.median(warm)

    early = (status[50] - status[10]) / 40
    late = (status[200] - status[50]) / 150
    rows = [
        Row(
            f"trainer status, {size} participants",
            status[size],
            "s",
            floor=baseline,
            note=f"against the interpreter's start; medians of {n}",
        )
        for size in SIZES
    ]
    rows += [
        Row(f"trainer {label}, {size} participants", values[size], "s", note="in-process")
        for label, values in (("read", read), ("re-read", reread))
        for size in SIZES
    ]
    rows += [
        Row(
            f"trainer status at {SIZES[-1]} participants vs {AIM_SECONDS:g} s",
            status[SIZES[-1]],
            "s",
            floor=AIM_SECONDS,
            aim=1.0,
        ),
        Row(
            "trainer status: cost per participant 50→200 vs 10→50",
            late * 1000,
            "ms",
            floor=early * 1000,
            aim=1.25,
            note="1.0 is linear growth",
        ),
    ]
    return rows


if __name__ == "__main__":
    run_standalone(measure)
