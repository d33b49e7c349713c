"""Lab 03's tricks: `lab check` beside the slowest of the sessions it plays.

One workspace at Lab 03's "tricks" step (its setup ran: green reports, then a broken
annotation) with the solution in scenarios/tricks.toml. Alternating:
  check     `lab check` (the scenario check, then the session, its turns played apart)
  slowest   each turn of the solution alone (session start + that turn, on a sandbox), one
            after the other; the time of the slowest one
Aim: the check at most 2.5× its slowest single session (seven sessions in series were ~6×).
"""

from __future__ import annotations

import sys
import tempfile
import time
import tomllib
from pathlib import Path

from benchmarks.report import Options, Row, alternate, median, run_standalone, timed_command
from harness.claude.scenario import load_scenario
from harness.engine.checks.hook_session import KIND
from harness.engine.checks.session_judge import StepAsserts
from harness.engine.checks.session_play import split_turns
from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.engine.parallel import worker_count
from harness.maven import get_backend
from harness.maven.warm import warm_compile
from harness.results import Status
from harness.workspace import Workspace, provision

TRICKS = "scenarios/tricks.toml"


def at_the_tricks_step(holder: Path) -> Path:
    ws = provision(holder / "ws").workspace
    warm_compile(ws.root, get_backend("local"))
    lab = find_lab("3")
    runner = LabRunner(ws, labs_root=lab.dir.parent)
    runner.start(lab.id)
    runner.solve(apply=True)  # step 1
    if runner.check().status is not Status.PASS:
        raise RuntimeError("lab 03's first step did not pass after its solve")
    runner.next()  # the tricks step's setup: sensors, the broken annotation, the skeleton
    (ws.root / TRICKS).write_text((lab.dir / "solution" / "tricks.toml").read_text())
    return ws.root


def lab_check(root: Path) -> float:
    elapsed, done = timed_command([sys.executable, "-m", "harness", "check"], cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"lab check did not pass:\n{done.stdout[-3000:]}")
    return elapsed


def slowest_turn(root: Path) -> float:
    """Each turn alone, as a session of its own on a sandbox (the check's own kind, its
    steps inline); the longest."""
    lab = find_lab("3")
    path = root / TRICKS
    raw = tomllib.loads(path.read_text())["step"]
    scenario = load_scenario(path)
    ctx = CheckContext(Workspace(root), lab.dir)
    defaults = {f.name: f.default for f in KIND.params}
    longest = 0.0
    turns = split_turns(scenario, [StepAsserts()] * len(raw))
    for n, (turn, _asserts, _replayed) in enumerate(turns):
        params = defaults | {"steps": [raw[step.number - 1] for step in turn.steps]}
        started = time.perf_counter()
        result = KIND.run(ctx, params)
        longest = max(longest, time.perf_counter() - started)
        if result.status is not Status.PASS:
            raise RuntimeError(f"turn {n + 1} alone did not pass: {result.message}")
    return longest


def measure(options: Options) -> list[Row]:
    n = options.times(3, least=1)
    with tempfile.TemporaryDirectory(prefix="bench-lab03-") as holder:
        root = at_the_tricks_step(Path(holder))
        samples = alternate(
            {"check": lambda: lab_check(root), "slowest": lambda: slowest_turn(root)}, n
        )
    return [
        Row(
            "Lab 03 tricks lab check vs its slowest single session",
            median(samples["check"]),
            "s",
            floor=median(samples["slowest"]),
            aim=2.5,
            note=f"medians of {n}; 8 turns (6 run Maven) played {worker_count()} at a time",
        )
    ]


if __name__ == "__main__":
    run_standalone(measure)
