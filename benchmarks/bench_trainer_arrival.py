"""Verified as it arrives: incremental verify, and a push reaching ✓ on the watched page.

A real ``git daemon`` on loopback, the real sandbox (bubblewrap), the synthetic labs of
tests/trainer/cohort_builder.py (its ``mvnw`` stands in for Maven: the participants' work is
kept light, so this measures verify's own costs, not Maven's).
Measured:
  incremental  lab trainer verify URL NAME --json after one new step, four verified before
               (their verdicts reused), against a fresh verify of a participant claiming one
               step of the same kind: "that step alone" (medians of n, interleaved)
  full         the same participant's five steps verified from scratch (--fresh), for scale
  real Maven   the real fixture, Lab 01 (its first step runs the sensors with Maven, its
               second is a quiz): a verify after the second step (the first reused) against
               both verified from scratch (--fresh), in the sandbox (medians of n, alternating)
  push to ✓    lab trainer status --watch --html PAGE on a room of 30; each participant
               passes a step and submits, at random moments over a minute; the time from
               the submit's end to the page showing that commit verified: median and worst
Aims: incremental ≤ 1.2× the step alone; push to ✓ ≤ 60 s at worst on this machine.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.report import Options, Row, Unavailable, run_standalone
from harness.trainer.publish import make_settings, submit
from harness.trainer.verified import steps_path
from harness.workspace import Workspace, provision
from tests.trainer.cohort_builder import SyntheticLabs, clone_participant, participant
from tests.trainer.servers import GitDaemon, bare_repo
from tests.trainer.test_verify_recorded import walk_on

ROOM = 30
WINDOW = 60.0  # seconds over which the 30 push
AIM_INCREMENTAL = 1.2
AIM_PUSH = 60.0


def _timed(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[3:7])}… failed: {done.stderr[-500:]}")
    return time.perf_counter() - started


def _incremental(root: Path, labs: SyntheticLabs, env: dict[str, str], n: int) -> list[Row]:
    with GitDaemon(root / "served") as daemon:
        url = daemon.url("room.git")
        verify = [sys.executable, "-m", "harness", "trainer", "verify", url]
        ws = participant(root / "full", labs, 4)
        submit(ws, make_settings(url, "full"))
        _timed([*verify, "full", "--json"], env)  # four verdicts kept
        cache = steps_path(daemon.url("room.git"), "default")
        four = set(cache.glob("*/*.json"))
        walk_on(ws, labs)  # the fifth step: a file check
        submit(ws, make_settings(url, "full"))
        submit(participant(root / "one", labs, 1), make_settings(url, "one"))  # a file check
        runs: dict[str, list[float]] = {"incremental": [], "alone": [], "full": []}
        for i in range(n):
            for kind in sorted(runs, reverse=bool(i % 2)):  # alternating order
                for kept in set(cache.glob("*/*.json")) - four:
                    kept.unlink()  # the new step's verdict forgotten: judged again
                argv = {
                    "incremental": [*verify, "full", "--json"],
                    "alone": [*verify, "one", "--json", "--fresh"],
                    "full": [*verify, "full", "--json", "--fresh"],
                }[kind]
                runs[kind].append(_timed(argv, env))
        incremental, alone, full = runs["incremental"], runs["alone"], runs["full"]
    inc, one = statistics.median(incremental), statistics.median(alone)
    return [
        Row("trainer verify, 5 steps from scratch (--fresh)", statistics.median(full), "s",
            note=f"median of {n}"),
        Row("trainer verify after one new step (4 reused) vs that step alone", inc, "s",
            floor=one, aim=AIM_INCREMENTAL, note=f"medians of {n}, alternating order"),
    ]  # fmt: skip


def _real_maven(root: Path, n: int) -> list[Row]:
    """Lab 01 on the real fixture, walked with lab solve --apply, verified with real Maven."""
    env = {k: v for k, v in os.environ.items() if k != "HOOKLAB_LABS"}  # the real labs
    env["NO_COLOR"] = "1"
    ws = provision(root / "real").workspace.root

    def lab(*argv: str, cwd: Path = ws) -> float:
        return _timed([sys.executable, "-m", "harness", *argv], env, cwd)

    bare_repo(root / "served3" / "room.git")
    with GitDaemon(root / "served3") as daemon:
        url = daemon.url("room.git")
        for argv in (("start", "1"), ("solve", "--apply"), ("check",), ("next",)):
            lab(*argv)
        lab("submit", "--remote", url, "--participant", "pat")
        lab("trainer", "verify", url, "pat", "--json", cwd=root)  # the Maven step, kept
        cache = steps_path(url, "default")
        first = set(cache.glob("*/*.json"))
        for argv in (("solve", "--apply"), ("check",), ("next",)):
            lab(*argv)
        lab("submit", "--remote", url, "--participant", "pat")
        runs: dict[str, list[float]] = {"incremental": [], "full": []}
        for i in range(n):
            for kind in sorted(runs, reverse=bool(i % 2)):
                for kept in set(cache.glob("*/*.json")) - first:
                    kept.unlink()
                fresh = ["--fresh"] if kind == "full" else []
                runs[kind].append(lab("trainer", "verify", url, "pat", "--json", *fresh, cwd=root))
    full = statistics.median(runs["full"])
    return [
        Row("real Maven: Lab 01 verified from scratch (--fresh)", full, "s",
            note=f"median of {n}, sandbox"),
        Row("real Maven: after Lab 01's second step (the Maven step reused) vs from scratch",
            statistics.median(runs["incremental"]), "s", floor=full,
            note=f"medians of {n}, information"),
    ]  # fmt: skip


def _seen(page: Path) -> dict[str, str]:
    """participant -> the commit the page shows verified."""
    try:
        html = page.read_text()
    except OSError:
        return {}
    return {
        m[1]: m[2]
        for m in re.finditer(
            r'<tr[^>]*data-participant="([^"]+)".*?data-verified="verified" '
            r'data-commit="([^"]*)"',
            html,
        )
    }


def _push_to_tick(root: Path, labs: SyntheticLabs, env: dict[str, str]) -> list[float]:
    template = participant(root / "template", labs, 0)
    with GitDaemon(root / "served2") as daemon:
        url = daemon.url("room.git")
        room = []
        for i in range(ROOM):
            ws = clone_participant(template, root / f"p{i:02d}")
            submit(ws, make_settings(url, f"p{i:02d}", "bench"))
            room.append(ws)
        page = root / "room.html"
        watch = subprocess.Popen(
            [sys.executable, "-m", "harness", "trainer", "status", url, "--cohort", "bench",
             "--watch", "--interval", "1", "--html", str(page)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            return _pushes(url, labs, room, page)
        finally:
            watch.terminate()
            watch.wait(timeout=60)


def _pushes(url: str, labs: SyntheticLabs, room: list[Workspace], page: Path) -> list[float]:
    pushed: dict[str, tuple[str, float]] = {}
    lock = threading.Lock()
    start = time.monotonic() + 5  # the watch's first read
    moments = sorted(random.Random(53).uniform(0, WINDOW) for _ in room)

    def push(ws: Workspace, at: float, name: str) -> None:
        time.sleep(max(0.0, start + at - time.monotonic()))
        walk_on(ws, labs)
        commit = submit(ws, make_settings(url, name, "bench")).commit
        with lock:
            pushed[name] = (commit, time.monotonic())

    threads = [
        threading.Thread(target=push, args=(ws, at, f"p{i:02d}"))
        for i, (ws, at) in enumerate(zip(room, moments, strict=True))
    ]
    for t in threads:
        t.start()
    ticked: dict[str, float] = {}
    deadline = start + WINDOW + 600
    while len(ticked) < len(room) and time.monotonic() < deadline:
        seen = _seen(page)
        with lock:
            for name, (commit, at) in pushed.items():
                if name not in ticked and seen.get(name) == commit:
                    ticked[name] = time.monotonic() - at
        time.sleep(0.1)
    for t in threads:
        t.join()
    if len(ticked) < len(room):
        raise RuntimeError(f"only {len(ticked)} of {len(room)} pushes reached ✓")
    return list(ticked.values())


def measure(options: Options) -> list[Row]:
    if shutil.which("bwrap") is None:
        raise Unavailable("needs bubblewrap (bwrap) for the sandbox")
    n = options.times(9)
    with tempfile.TemporaryDirectory() as holder:
        root = Path(holder)
        labs = SyntheticLabs.write(root / "labs")
        env = dict(os.environ, NO_COLOR="1", HOOKLAB_LABS=str(labs.root))
        env["XDG_STATE_HOME"] = os.environ["XDG_STATE_HOME"] = str(root / "state")
        os.environ["HOOKLAB_LABS"] = str(labs.root)
        bare_repo(root / "served" / "room.git")
        bare_repo(root / "served2" / "room.git")
        rows = _incremental(root, labs, env, n)
        waits = _push_to_tick(root, labs, env)
        rows += _real_maven(root, options.times(3))
    cores = os.cpu_count() or 1
    return [
        *rows,
        Row(f"push to ✓ on the page, {ROOM} pushing over {WINDOW:.0f} s: median",
            statistics.median(waits), "s", note=f"status --watch, {cores} cores"),
        Row(f"push to ✓ on the page, {ROOM} pushing over {WINDOW:.0f} s: worst",
            max(waits), "s", floor=AIM_PUSH, aim=1.0, note=f"vs the {AIM_PUSH:.0f} s target"),
    ]  # fmt: skip


if __name__ == "__main__":
    run_standalone(measure)
