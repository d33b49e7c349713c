"""One scenario on the real Claude Code client against the emulator.

The same five-step session (start, an edit the status guard refuses, an edit to a spec, a stop
the Stop hook holds, a stop that lets go) against the fixture's real hooks, on a fresh copy of
a provisioned workspace each time, alternately on both engines:
  emulator     harness.claude.session.Session (hooks run for real, Claude Code's rules imitated)
  claude-code  the pinned client, driven by the scripted Messages API on loopback
Both must reach the same outcome at every step. Information only: the client is the authority,
the emulator is what runs when it is not installed; the ratio says what fidelity costs.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.report import Options, Row, Unavailable, alternate, median, run_standalone
from harness.claude.engines import CLAUDE_CODE, EMULATOR, open_session
from harness.claude.scenario import parse_scenario, run_scenario
from harness.errors import HarnessError
from harness.workspace import provision

SCENARIO = {
    "step": [
        {"do": "session_start"},
        {
            "do": "edit",
            "file": "docs/use_cases/UC-005-add-visit.md",
            "old": "**Status:** Approved",
            "new": "**Status:** Done",
            "expect": "blocked",
        },
        {
            "do": "edit",
            "file": "docs/use_cases/UC-002-edit-owner.md",
            "old": "# Use Case:",
            "new": "# Use Case (reviewed):",
            "expect": "allowed",
        },
        {"do": "stop", "expect": "blocked"},
        {"do": "stop", "expect": "allowed"},
    ]
}


def measure(options: Options) -> list[Row]:
    n = options.times(5)
    scenario = parse_scenario(SCENARIO, Path("bench_engines.py"))
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as tmp:
        fresh = provision(Path(tmp) / "template").workspace.root
        runs = 0

        def play(engine: str) -> float:
            nonlocal runs
            runs += 1
            root = shutil.copytree(fresh, Path(tmp) / f"ws{runs}", symlinks=True)
            started = time.perf_counter()
            try:
                with open_session(engine, root) as session:
                    reports = list(run_scenario(scenario, session))
            except HarnessError as exc:
                raise Unavailable(f"{engine}: {exc.message}") from exc
            elapsed = time.perf_counter() - started
            missed = [r.step.number for r in reports if r.expect_met is False]
            if missed:
                raise RuntimeError(f"{engine}: steps {missed} did not go as expected")
            shutil.rmtree(root)
            return elapsed

        play(CLAUDE_CODE)  # warm-up: the client's first start reads its whole package
        samples = alternate(
            {EMULATOR: lambda: play(EMULATOR), CLAUDE_CODE: lambda: play(CLAUDE_CODE)}, n
        )
    return [
        Row(
            "one scenario on the claude-code engine vs the emulator",
            median(samples[CLAUDE_CODE]),
            "s",
            floor=median(samples[EMULATOR]),
            note=f"5 steps, medians of {n} sessions each; no aim (information)",
        )
    ]


if __name__ == "__main__":
    run_standalone(measure)
