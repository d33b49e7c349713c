"""`lab dev check` against the Maven it runs, and the two engines against one.

Runs the whole `lab dev check --json` on the emulator (with the real client installed:
emulator, both, emulator again), with an `mvn` on PATH that runs the real one and logs when each run
started and ended (the labs start Maven through the backend, inside simulated sessions and in
the grader: only a wrapper sees them all). The labs are proven side by side, one per core, so
the floor is the Maven time summed over all runs divided by the cores. With the real client,
`--engine both` runs between two emulator checks and is compared with their mean. Aims: the
emulator check at most 1.3× that; `--engine both` at most 1.3× the emulator alone, in time and in
Maven time (a session on both engines shares its identical Maven calls: harness/maven/share.py;
a call served from the other engine's run is no Maven run, so the wrapper does not log it;
smoke.sh runs share the same way).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.report import Options, Row, Unavailable, run_standalone, timed_command

WRAPPER = """#!/usr/bin/env bash
started=$(date +%s.%N)
{real} "$@"
status=$?
printf '%s %s\\n' "$started" "$(date +%s.%N)" >>"$HOOKLAB_BENCH_MAVEN_LOG"
exit $status
"""


def wrapper_dir(real: str) -> Path:
    """The logging ``mvn``'s folder, made once per real ``mvn`` and kept from run to run."""
    from harness.paths import cache_home

    text = WRAPPER.format(real=real)
    folder = cache_home() / "bench-mvn" / hashlib.sha256(text.encode()).hexdigest()[:16]
    wrapper = folder / "mvn"
    if not wrapper.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"mvn.{os.getpid()}.tmp"
        partial.write_text(text)
        partial.chmod(0o755)
        partial.replace(wrapper)
    return folder


def union_seconds(intervals: list[tuple[float, float]]) -> float:
    total, reached = 0.0, float("-inf")
    for start, end in sorted(intervals):
        if end > reached:
            total += end - max(start, reached)
            reached = end
    return total


def dev_check(
    engine: str, tmp: Path, real: str
) -> tuple[float, list[tuple[float, float]], dict[str, Any]]:
    """One whole `lab dev check --engine ENGINE --json`: its time, Maven's runs, the report."""
    tmp.mkdir(parents=True, exist_ok=True)
    log = tmp / f"maven-{engine}.log"
    log.write_text("")
    total, done = timed_command(
        [sys.executable, "-m", "harness", "dev", "check", "--engine", engine, "--json"],
        env={
            "PATH": f"{wrapper_dir(real)}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOOKLAB_BENCH_MAVEN_LOG": str(log),
        },
    )
    intervals = [
        (float(a), float(b)) for a, b in (line.split() for line in log.read_text().splitlines())
    ]
    report: dict[str, Any] = json.loads(done.stdout or "{}")
    if not report.get("ok"):
        raise RuntimeError(
            f"lab dev check --engine {engine} failed, no measurement:\n"
            + (failed_steps(report) or done.stderr[-3000:] or done.stdout[-3000:])
        )
    return total, intervals, report


def failed_steps(report: dict[str, Any]) -> str:
    """Each failed lab step with its problems: the part of a failed report worth reading (the
    whole report is megabytes of checks that passed)."""
    lines: list[str] = []
    for lab in report.get("labs", []):
        if lab.get("manifest_error"):
            lines.append(f"{lab.get('lab')}: {lab['manifest_error']}")
        for step in lab.get("steps", []):
            if not step.get("ok"):
                lines.append(f"{lab.get('lab')} / {step.get('step')}:")
                lines.extend(f"  {problem}" for problem in step.get("problems", []))
    return "\n".join(lines)


def measure(options: Options) -> list[Row]:
    real = shutil.which("mvn")
    if real is None:
        raise Unavailable("no mvn on PATH")
    from harness.claude.client.install import find_client
    from harness.engine.parallel import worker_count

    cores = worker_count()
    # --engine both between two emulator checks, each once (a whole dev check is minutes):
    # its floor is their mean, so a machine load that drifts during the hour cancels out.
    order = ["emulator", "both", "emulator"] if find_client() is not None else ["emulator"]
    with tempfile.TemporaryDirectory(prefix="bench-devcheck-") as tmp:
        played = [dev_check(engine, Path(tmp) / str(n), real) for n, engine in enumerate(order)]
    emulated = [run for engine, run in zip(order, played, strict=True) if engine == "emulator"]
    total = sum(run[0] for run in emulated) / len(emulated)
    intervals, report = emulated[0][1], emulated[0][2]
    maven_sum = sum(end - start for run in emulated for start, end in run[1]) / len(emulated)
    each = ", ".join(f"{run[0]:.0f} s" for run in emulated)
    rows = [
        Row(
            "lab dev check --engine emulator, all labs, vs its Maven time divided by the cores",
            total,
            "s",
            floor=maven_sum / cores,
            aim=1.3,
            note=f"{len(intervals)} Maven runs, {maven_sum:.0f} s of Maven on {cores} cores "
            f"({union_seconds(intervals):.0f} s with any Maven running); "
            f"emulator checks: {each}; "
            f"most outside Maven: {costliest_outside_maven(report)}",
        )
    ]
    runs = dict(zip(order, played, strict=True))
    if "both" in runs:
        both_total, both_intervals, both_report = runs["both"]
        calls = shared_calls(both_report)
        smokes = shared_calls(both_report, "smoke_calls")
        both_maven = sum(end - start for start, end in both_intervals)
        shared = (
            f"{len(both_intervals)} Maven runs (emulator alone: {len(intervals)}); of the "
            f"sessions' calls on both engines {calls.get('real', 0)} ran Maven, "
            f"{calls.get('restored', 0)} were served from the other engine's run; smoke.sh "
            f"{smokes.get('real', 0)} ran, {smokes.get('restored', 0)} served"
        )
        rows += [
            Row(
                "lab dev check --engine both vs --engine emulator",
                both_total,
                "s",
                floor=total,
                aim=1.3,
                note=f"{shared}; most outside Maven: {costliest_outside_maven(both_report)}",
            ),
            Row(
                "lab dev check --engine both, Maven time, vs --engine emulator's",
                both_maven,
                "s",
                floor=maven_sum,
                aim=1.3,
                note=shared,
            ),
        ]
    return rows


def shared_calls(report: dict[str, Any], kind: str = "maven_calls") -> dict[str, int]:
    """How many of the sessions' Maven calls (or smoke.sh runs: kind "smoke_calls") ran for
    real and how many were served from the other engine's identical run ("restored"), over
    every check of the report."""
    counts: dict[str, int] = {}
    for lab in report.get("labs", []):
        for step in lab.get("steps", []):
            for phase in ("before", "after"):
                for check in (step.get(phase) or {}).get("checks", []):
                    for call in check.get("details", {}).get(kind, []):
                        counts[call["how"]] = counts.get(call["how"], 0) + 1
    return counts


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
