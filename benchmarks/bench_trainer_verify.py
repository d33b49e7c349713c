"""`lab trainer verify --all` on 50 participants against one participant's verify.

A real ``git daemon`` on loopback holds 50 submissions: tiny workspaces walked through the
synthetic labs by the real runner (tests/trainer/cohort_builder.py: its ``mvnw`` stands in
for Maven, which would make this a Maven benchmark), each a copy of one built participant.
Measured:
  one      lab trainer verify URL NAME --json, as a process (median of n)
  all      lab trainer verify URL --all --json over the 50 (one run)
Aim: all within 2× of one × 50 ÷ cores, i.e. the participants really are verified in
parallel and the per-participant process costs no more than that.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report import Options, Row, run_standalone
from harness.trainer.publish import make_settings, submit
from tests.trainer.cohort_builder import SyntheticLabs, clone_participant, participant
from tests.trainer.servers import GitDaemon, bare_repo

SIZE = 50
AIM = 2.0


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[2:6])}… failed: {done.stderr[-500:]}")
    return time.perf_counter() - started


def measure(options: Options) -> list[Row]:
    n = options.times(3)
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as holder:
        root = Path(holder)
        labs = SyntheticLabs.write(root / "labs")
        env = dict(os.environ, NO_COLOR="1", HOOKLAB_LABS=str(labs.root))
        env["XDG_STATE_HOME"] = str(root / "state")
        os.environ["HOOKLAB_LABS"] = str(labs.root)
        bare_repo(root / "served" / "room.git")
        template = participant(root / "template", labs, 4)
        with GitDaemon(root / "served") as daemon:
            url = daemon.url("room.git")
            for i in range(SIZE):
                ws = clone_participant(template, root / f"p{i:02d}")
                submit(ws, make_settings(url, f"p{i:02d}", "bench"))
            python = [sys.executable, "-m", "harness", "trainer", "verify", url]
            one = statistics.median(
                _timed([*python, "p00", "--cohort", "bench", "--json"], env) for _ in range(n)
            )
            every = _timed([*python, "--all", "--cohort", "bench", "--json"], env)
    ideal = one * SIZE / cores
    return [
        Row("trainer verify, one participant", one, "s", note=f"median of {n}"),
        Row(
            f"trainer verify --all, {SIZE} participants vs one × {SIZE} ÷ {cores} cores",
            every,
            "s",
            floor=ideal,
            aim=AIM,
            note="synthetic labs (a stand-in mvnw)",
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
