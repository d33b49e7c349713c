"""`lab trainer verify --all` on 50 participants against the same room in N slices.

The room of benchmarks/bench_trainer_verify.py (a real ``git daemon`` on loopback, 50
participants walked through the synthetic labs, a stand-in ``mvnw``). Measured interleaved,
in alternating order (median of 2):
  all      lab trainer verify URL --all --json
  largest  the slice with the most names, lab trainer verify URL --all --shard I/N --push,
           with this machine to itself: one CI runner (the room's wall time on N runners
           is about the largest slice's)
  at once  the N slices started together as processes on this one machine
Aims: the largest slice within 1.25× of --all's time scaled to its share of the room (a slice
costs no more than its participants: reading the room and pushing its verdicts are small), and
the N slices at once within 1.2× of --all (slicing adds no work). How unequal the slices are is
the hash's doing (stable, not equal) and is said in the note, not hidden in the ratio.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report import Options, Row, alternate, median, run_standalone, timed_command
from harness.trainer.publish import make_settings, submit
from harness.trainer.room_shards import RoomShard
from tests.trainer.cohort_builder import SyntheticLabs, clone_participant, participant
from tests.trainer.servers import GitDaemon, bare_repo

SIZE = 50
SHARDS = int(os.environ.get("HOOKLAB_BENCH_SHARDS", "4"))


def _checked(seconds: float, done: subprocess.CompletedProcess[str], what: str) -> float:
    # exit 1 would mean a claim does not hold: every participant here is honest
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}): {done.stderr[-500:]}")
    return seconds


def _at_once(argvs: list[list[str]], envs: list[dict[str, str]]) -> float:
    started = time.perf_counter()
    children = [
        subprocess.Popen(a, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for a, e in zip(argvs, envs, strict=True)
    ]
    for child in children:
        _out, err = child.communicate()
        if child.returncode != 0:
            raise RuntimeError(f"a slice at once failed: {err[-500:]}")
    return time.perf_counter() - started


def measure(options: Options) -> list[Row]:
    n = options.times(2, least=2)
    names = [f"p{i:02d}" for i in range(SIZE)]
    sizes = [len(RoomShard(i, SHARDS).pick(names)) for i in range(1, SHARDS + 1)]
    largest = max(range(SHARDS), key=lambda i: sizes[i]) + 1
    with tempfile.TemporaryDirectory() as holder:
        root = Path(holder)
        labs = SyntheticLabs.write(root / "labs")
        os.environ["HOOKLAB_LABS"] = str(labs.root)

        def env(machine: str) -> dict[str, str]:
            return dict(os.environ, NO_COLOR="1", XDG_STATE_HOME=str(root / machine),
                        HOOKLAB_RUNNER=machine, HOOKLAB_VERDICT_KEY="bench")  # fmt: skip

        bare_repo(root / "served" / "room.git")
        template = participant(root / "template", labs, 4)
        with GitDaemon(root / "served") as daemon:
            url = daemon.url("room.git")
            for name in names:
                submit(clone_participant(template, root / name), make_settings(url, name, "b"))
            verify = [sys.executable, "-m", "harness", "trainer", "verify", url, "--all",
                      "--cohort", "b", "--json"]  # fmt: skip
            slices = [[*verify, "--shard", f"{i}/{SHARDS}", "--push"] for i in range(1, SHARDS + 1)]
            samples = alternate(
                {
                    "all": lambda: _checked(*timed_command(verify, env=env("one")), "--all"),
                    "largest": lambda: _checked(
                        *timed_command(slices[largest - 1], env=env("runner")), "a slice"
                    ),
                    "at once": lambda: _at_once(
                        slices, [env(f"at-once-{i}") for i in range(1, SHARDS + 1)]
                    ),
                },
                n,
            )
    every, alone, together = (median(samples[k]) for k in ("all", "largest", "at once"))
    cores = os.cpu_count() or 1
    return [
        Row(
            f"trainer verify --all, {SIZE} participants",
            every,
            "s",
            note=f"synthetic labs, a stand-in mvnw; {cores} cores; median of {n}",
        ),
        Row(
            f"the largest of {SHARDS} slices alone (one runner each) vs --all × its share",
            alone,
            "s",
            floor=every * sizes[largest - 1] / SIZE,
            aim=1.25,
            note=f"slices of {', '.join(map(str, sizes))} names; on {SHARDS} runners the room "
            f"takes {alone / every:.2f}× --all's time",
        ),
        Row(
            f"{SHARDS} slices at once as processes on this machine vs --all",
            together,
            "s",
            floor=every,
            aim=1.2,
            note="each slice pushes its verdicts to the room",
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
