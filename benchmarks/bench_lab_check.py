"""How quickly does `lab check` answer, with and without Maven in the step?

Three commands run alternately in one provisioned workspace, so all see the same load:
  baseline   python -m harness --version      (interpreter start and imports)
  no maven   lab check on lab 09 (a quiz read from a file)
  sensors    ./mvnw -q test -Dgroups=sensor   (what a Maven step costs at least)
Prints medians and the ratios to the baseline. Usage: python benchmarks/bench_lab_check.py [-n 7]
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

from harness.workspace import provision


def timed(argv: list[str], cwd: Path) -> float:
    env = dict(os.environ, NO_COLOR="1")
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="repetitions of each command")
    n = parser.parse_args().n
    with tempfile.TemporaryDirectory() as holder:
        ws = provision(Path(holder) / "ws").workspace
        lab = [sys.executable, "-m", "harness"]
        subprocess.run([*lab, "start", "9"], cwd=ws.root, capture_output=True, check=True)
        commands = {
            "baseline": [*lab, "--version"],
            "no maven": [*lab, "check"],
            "sensors": ["./mvnw", "-q", "test", "-Dgroups=sensor"],
        }
        timed(commands["sensors"], ws.root)  # compile once: measure warm runs
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(n):
            for name, argv in commands.items():
                samples[name].append(timed(argv, ws.root))
    base = statistics.median(samples["baseline"])
    print(f"lab check speed, {n} runs each (medians)")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"  {name:9} {median * 1000:8.0f} ms   {median / base:6.1f}x baseline")


if __name__ == "__main__":
    main()
