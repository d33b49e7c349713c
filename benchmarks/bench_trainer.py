"""How fast does a trainer see the room? ``lab trainer status`` at 10, 50 and 200 participants.

A real ``git daemon`` on loopback serves a bare repository seeded with one progress commit per
participant (the real labs' steps, varied progress; written straight into the repository by the
test builder, since pushing 200 workspaces would only lengthen the setup). Measured, as medians:
  baseline     python -m harness --version             (interpreter start and imports)
  status       lab trainer status URL --json           (a trainer's command, as a process)
  read         CohortReader.read() in-process, cold    (list refs, shallow fetch, parse)
  re-read      the same reader again, nothing moved    (what each --watch refresh costs)
Aim: status under a second at 200 participants, growing no worse than linearly (the cost per
extra participant from 50 to 200 no higher than from 10 to 50).

Usage: python benchmarks/bench_trainer.py [-n 5]. ``main()`` prints the figures and returns
them as a list of {name, value, unit, ratio, floor, aim} (ratio: to the same figure at 10
participants, or as described in the name; floor: the interpreter baseline; aim: the target).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' builders and servers

from harness.engine.manifest import load_labs
from harness.trainer.cohort import CohortReader
from tests.trainer.cohort_builder import Seeded, seed_cohort
from tests.trainer.servers import GitDaemon, bare_repo

SIZES = (10, 50, 200)
AIM_SECONDS = 1.0


def timed_process(argv: list[str]) -> float:
    env = dict(os.environ, NO_COLOR="1")
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[-500:]}")
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


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="repetitions of each measurement")
    n = parser.parse_args(argv).n
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
                timed_process(command)  # warm the page cache and the daemon once
                status[size] = statistics.median(timed_process(command) for _ in range(n))
                cold, warm = [], []
                for _ in range(n):
                    reader = CohortReader(url, "bench")
                    started = time.perf_counter()
                    cohort = reader.read()
                    cold.append(time.perf_counter() - started)
                    assert len(cohort.members) == size, len(cohort.members)
                    started = time.perf_counter()
                    reader.read()
                    warm.append(time.perf_counter() - started)
                read[size], reread[size] = statistics.median(cold), statistics.median(warm)

    figures: list[dict[str, Any]] = []
    print(f"trainer status on a loopback git daemon, {n} runs each (medians)")
    print(f"  baseline (interpreter start)   {baseline * 1000:7.0f} ms")
    for size in SIZES:
        for label, values in (("status", status), ("read", read), ("re-read", reread)):
            value = values[size]
            ratio = value / values[SIZES[0]]
            print(
                f"  {label:8} {size:4} participants   {value * 1000:7.0f} ms   "
                f"{ratio:5.2f}x the {SIZES[0]}-participant figure"
            )
            figures.append(
                {
                    "name": f"trainer {label}, {size} participants",
                    "value": round(value, 4),
                    "unit": "s",
                    "ratio": round(ratio, 3),
                    "floor": round(baseline, 4) if label == "status" else None,
                    "aim": AIM_SECONDS if label == "status" and size == SIZES[-1] else None,
                }
            )
    early = (status[50] - status[10]) / 40
    late = (status[200] - status[50]) / 150
    growth = late / early if early > 0 else float("inf")
    print(
        f"  cost per extra participant: {early * 1000:.2f} ms (10→50), "
        f"{late * 1000:.2f} ms (50→200): {growth:.2f}x (1.0 = linear)"
    )
    verdict = "met" if status[200] < AIM_SECONDS and growth <= 1.25 else "NOT met"
    print(f"  aim (< {AIM_SECONDS:g} s at 200, no worse than linear): {verdict}")
    figures.append(
        {
            "name": "trainer status, cost per participant 50→200 over 10→50",
            "value": round(growth, 3),
            "unit": "x",
            "ratio": round(growth, 3),
            "floor": None,
            "aim": 1.0,
        }
    )
    return figures


if __name__ == "__main__":
    main()
