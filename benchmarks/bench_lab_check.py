"""`lab check` on a step without Maven against the interpreter starting the harness.

In one provisioned workspace at lab 09 (a quiz read from a file), alternately:
  baseline   python -m harness --version   (interpreter start and the CLI's imports)
  lab check  python -m harness check       (the same, plus loading the lab and judging the step)
Aim: lab check at most 2× the baseline (medians).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness.workspace import provision

LAB = [sys.executable, "-m", "harness"]


def timed(argv: list[str], cwd: Path) -> float:
    env = dict(os.environ, NO_COLOR="1")
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    return time.perf_counter() - started


def measure(options: Options) -> list[Row]:
    n = options.times(15)
    with tempfile.TemporaryDirectory(prefix="bench-lab-check-") as holder:
        ws = provision(Path(holder) / "ws").workspace
        subprocess.run([*LAB, "start", "9"], cwd=ws.root, capture_output=True, check=True)
        check = subprocess.run([*LAB, "check"], cwd=ws.root, capture_output=True, text=True)
        if "FAIL" not in check.stdout:  # an unsolved quiz fails; anything else is no measurement
            raise RuntimeError(f"lab check did not judge the quiz:\n{check.stdout}{check.stderr}")
        samples = alternate(
            {
                "baseline": lambda: timed([*LAB, "--version"], ws.root),
                "lab check": lambda: timed([*LAB, "check"], ws.root),
            },
            n,
        )
    return [
        Row(
            "lab check (no Maven) vs python -m harness --version",
            median(samples["lab check"]) * 1000,
            "ms",
            floor=median(samples["baseline"]) * 1000,
            aim=2.0,
            note=f"medians of {n} runs each",
        )
    ]


if __name__ == "__main__":
    run_standalone(measure)
