"""Do five sensors keep the sensor run cheap? A warm sensor run beside Maven's floor.

One provisioned workspace, two commands alternating so both see the same machine load:
  validate   ./mvnw -q validate                 (Maven's start-up: the floor of any run)
  sensors    ./mvnw -q test -Dgroups=sensor     (what the Stop hook asks for)
After one warm-up run (compiles the classes), prints both medians, min/max, what the sensors
add on top of the floor, and the test time each sensor's Surefire report records. The sensor
runs must be green with a report per sensor, or the numbers measure something else.
Usage: python benchmarks/bench_sensors.py [-n 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.maven.surefire import SENSORS, report_path, sensor_reports
from harness.workspace import provision

COMMANDS = {
    "validate": ["./mvnw", "-q", "validate"],
    "sensors": ["./mvnw", "-q", "test", "-Dgroups=sensor"],
}


def timed(name: str, root: Path) -> float:
    started = time.perf_counter()
    run = subprocess.run(COMMANDS[name], cwd=root, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"{' '.join(COMMANDS[name])} failed:\n{run.stdout}{run.stderr}")
    return elapsed


def check_reports(root: Path) -> dict[str, float]:
    """Every sensor's report is there and green; returns the test time each one records."""
    reports = sensor_reports(root)
    missing = [name for name, report in reports.items() if report is None or not report.green]
    if missing:
        sys.exit(f"the sensor run left no green report for: {', '.join(missing)}")
    return {
        name: float(ET.parse(report_path(root, name)).getroot().get("time", "0"))
        for name in SENSORS
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="repetitions of each (default 7)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-sensors-") as holder:
        root = provision(Path(holder) / "ws").workspace.root
        timed("sensors", root)  # compile once: measure warm runs
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for i in range(args.n):
            order = list(COMMANDS) if i % 2 == 0 else list(reversed(COMMANDS))
            for name in order:
                times[name].append(timed(name, root))
            print(
                f"round {i + 1}/{args.n}: "
                + "  ".join(f"{name} {values[-1]:.2f} s" for name, values in times.items()),
                flush=True,
            )
        per_sensor = check_reports(root)

    floor, sensors = (statistics.median(times[name]) for name in ("validate", "sensors"))
    print()
    print(f"{len(SENSORS)} sensors, {args.n} warm runs each (medians)")
    print(f"{'command':10} {'median':>8} {'min':>8} {'max':>8}")
    for name, values in times.items():
        print(
            f"{name:10} {statistics.median(values):7.2f}s {min(values):7.2f}s {max(values):7.2f}s"
        )
    print(f"the sensor run costs {sensors - floor:.2f} s above the validate floor")
    print("test time per sensor (last run's reports):")
    for name, seconds in per_sensor.items():
        print(f"  {name:30} {seconds:6.3f} s")


if __name__ == "__main__":
    main()
