"""Do five sensors keep the sensor run cheap? A warm sensor run beside Maven's floor.

One provisioned workspace, after one compiling run, two commands alternating so both see the
same machine load:
  validate   ./mvnw -q validate                 (Maven's start-up: the floor of any run)
  sensors    ./mvnw -q test -Dgroups=sensor     (what the Stop hook asks for)
Aim: the sensor run at most 2× validate (medians). The sensor runs must be green with a report
per sensor, or the numbers measure something else; the test time each sensor's report records
is shown beside, for information.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness.maven.backend import SENSOR_GOALS
from harness.maven.surefire import SENSORS, report_path, sensor_reports
from harness.workspace import provision


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    return elapsed


def test_times(root: Path) -> dict[str, float]:
    """Every sensor's report is there and green; returns the test time each one records."""
    reports = sensor_reports(root)
    missing = [name for name, report in reports.items() if report is None or not report.green]
    if missing:
        raise RuntimeError(f"the sensor run left no green report for: {', '.join(missing)}")
    return {
        name: float(ET.parse(report_path(root, name)).getroot().get("time", "0"))
        for name in SENSORS
    }


def measure(options: Options) -> list[Row]:
    n = options.times(7)
    sensors = ["./mvnw", *SENSOR_GOALS]
    validate = ["./mvnw", "-q", "validate"]
    with tempfile.TemporaryDirectory(prefix="bench-sensors-") as holder:
        root = provision(Path(holder) / "ws").workspace.root
        timed(sensors, root)  # compile once: warm runs are what a participant repeats
        samples = alternate(
            {"validate": lambda: timed(validate, root), "sensors": lambda: timed(sensors, root)}, n
        )
        per_sensor = test_times(root)
    return [
        Row(
            f"warm sensor run ({len(SENSORS)} sensors) vs ./mvnw -q validate",
            median(samples["sensors"]),
            "s",
            floor=median(samples["validate"]),
            aim=2.0,
            note=f"medians of {n} runs each",
        ),
        *(
            Row(f"test time of {name} (its report)", seconds, "s", note="information")
            for name, seconds in per_sensor.items()
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
