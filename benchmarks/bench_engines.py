"""One scripted session on the real Claude Code client beside the same session on the emulator.

The session is the workshop's first lesson on a provisioned PetClinic: session start, a prompt,
an Edit of a source file, a stop that require-sensors.sh blocks, a second stop that goes
through. Each engine plays it on its own fresh copy of the workspace, alternately, N times;
medians are compared. The real client's time includes starting it (a native binary), the
scripted model's HTTP turns on 127.0.0.1 and the same hooks the emulator runs.

Usage: python benchmarks/bench_engines.py [-n 5]. ``main()`` prints the figures and returns
them as a list of {name, value, unit, ratio, floor, aim} (floor: the emulator's time; ratio:
claude-code over emulator; no aim: the real client is the authority, its cost is a fact).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.claude.client.install import find_client
from harness.claude.engines import CLAUDE_CODE, EMULATOR, open_session
from harness.workspace import provision

SOURCE = "src/main/java/ai/unifiedprocess/petclinic/service/OwnerService.java"


def play(engine: str, template: Path, work: Path) -> float:
    root = work / f"{engine}-{time.monotonic_ns()}"
    shutil.copytree(template, root, symlinks=True)
    started = time.perf_counter()
    with open_session(engine, root, transcript_dir=work / "transcripts") as session:
        session.session_start()
        session.prompt("Make the owner service final.")
        session.edit(SOURCE, "public class OwnerService", "public final class OwnerService")
        blocked = session.stop("Done.")
        released = session.stop("Done, really.")
    elapsed = time.perf_counter() - started
    if (blocked.outcome, released.outcome) != ("blocked", "allowed"):
        raise SystemExit(f"{engine}: the session went wrong: {blocked!r} {released!r}")
    shutil.rmtree(root, ignore_errors=True)
    return elapsed


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="runs per engine")
    args = parser.parse_args(argv)
    if find_client() is None:
        raise SystemExit("Claude Code is not installed: run lab doctor --fix")
    with tempfile.TemporaryDirectory(prefix="hooklab-bench-engines-") as tmp:
        work = Path(tmp)
        template = provision(work / "template").workspace.root
        times: dict[str, list[float]] = {EMULATOR: [], CLAUDE_CODE: []}
        for _ in range(args.n):
            for engine in (EMULATOR, CLAUDE_CODE):
                times[engine].append(play(engine, template, work))
    emulator = statistics.median(times[EMULATOR])
    real = statistics.median(times[CLAUDE_CODE])
    rows = [
        {
            "name": "session on claude-code vs emulator (5 steps)",
            "value": round(real, 3),
            "unit": "s",
            "ratio": round(real / emulator, 2),
            "floor": round(emulator, 3),
            "aim": None,
        }
    ]
    print(
        f"one 5-step session: emulator {emulator * 1000:.0f} ms, claude-code "
        f"{real * 1000:.0f} ms (median of {args.n}), ratio {real / emulator:.1f}x"
    )
    return rows


if __name__ == "__main__":
    main()
