"""`lab dev check` against the Maven it runs: what the harness adds on top.

Runs the whole `lab dev check --json` once, with an `mvn` on PATH that runs the real one and
logs when each run started and ended (the labs start Maven through the backend, inside
simulated sessions and in the grader: only a wrapper sees them all). Maven's time is the union
of those intervals (a background run overlaps others). Aim: the whole check at most 1.2× the
time Maven ran, i.e. the harness, the hooks and everything else at most 20 % on top.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.report import Options, Row, Unavailable, run_standalone

WRAPPER = """#!/usr/bin/env bash
started=$(date +%s.%N)
{real} "$@"
status=$?
printf '%s %s\\n' "$started" "$(date +%s.%N)" >>{log}
exit $status
"""


def union_seconds(intervals: list[tuple[float, float]]) -> float:
    total, reached = 0.0, float("-inf")
    for start, end in sorted(intervals):
        if end > reached:
            total += end - max(start, reached)
            reached = end
    return total


def measure(options: Options) -> list[Row]:
    real = shutil.which("mvn")
    if real is None:
        raise Unavailable("no mvn on PATH")
    with tempfile.TemporaryDirectory(prefix="bench-devcheck-") as tmp:
        log = Path(tmp) / "maven.log"
        log.touch()
        (Path(tmp) / "mvn").write_text(WRAPPER.format(real=real, log=log))
        (Path(tmp) / "mvn").chmod(0o755)
        env = dict(os.environ, PATH=f"{tmp}{os.pathsep}{os.environ.get('PATH', '')}")
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "harness", "dev", "check", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        total = time.perf_counter() - started
        intervals = [
            (float(a), float(b)) for a, b in (line.split() for line in log.read_text().splitlines())
        ]
    report = json.loads(done.stdout or "{}")
    if not report.get("ok"):
        raise RuntimeError(f"lab dev check failed, no measurement:\n{done.stdout[-3000:]}")
    maven = union_seconds(intervals)
    return [
        Row(
            "lab dev check vs the Maven it runs",
            total,
            "s",
            floor=maven,
            aim=1.2,
            note=f"{len(intervals)} Maven runs, {total - maven:.1f} s outside Maven; "
            f"most outside Maven: {costliest_outside_maven(report)}",
        )
    ]


def costliest_outside_maven(report: dict[str, Any], count: int = 3) -> str:
    """The steps that spend the most time outside Maven, as 'lab/step N s' (the profile)."""
    outside = [
        (step["duration"] - step["maven_seconds"], f"{lab['lab'][:2]}/{step['step']}")
        for lab in report.get("labs", [])
        for step in lab.get("steps", [])
    ]
    return ", ".join(f"{name} {seconds:.1f} s" for seconds, name in sorted(outside)[::-1][:count])


if __name__ == "__main__":
    run_standalone(measure)
