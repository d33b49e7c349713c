"""A warm sensor run against Maven doing nothing but start.

In one provisioned workspace, after one compiling run, alternately:
  validate  ./mvnw -q validate               (Maven starts, reads the pom, runs no plugin)
  sensors   ./mvnw -q test -Dgroups=sensor   (compile up to date, the sensor tests in-process)
Aim: the sensor run at most 2× validate (medians). Both must exit 0.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness.maven.backend import SENSOR_GOALS
from harness.workspace import provision


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    return elapsed


def measure(options: Options) -> list[Row]:
    n = options.times(5)
    sensors = ["./mvnw", *SENSOR_GOALS]
    validate = ["./mvnw", "-q", "validate"]
    with tempfile.TemporaryDirectory(prefix="bench-sensors-") as holder:
        root = provision(Path(holder) / "ws").workspace.root
        timed(sensors, root)  # compile once: warm runs are what a participant repeats
        samples = alternate(
            {"validate": lambda: timed(validate, root), "sensors": lambda: timed(sensors, root)}, n
        )
    return [
        Row(
            "warm sensor run vs ./mvnw -q validate",
            median(samples["sensors"]),
            "s",
            floor=median(samples["validate"]),
            aim=2.0,
            note=f"medians of {n} runs each",
        )
    ]


if __name__ == "__main__":
    run_standalone(measure)
