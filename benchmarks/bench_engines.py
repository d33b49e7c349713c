"""One scripted session on the real Claude Code client beside the same session on the emulator.

The session is the workshop's first lesson on a provisioned PetClinic: session start, a prompt,
an Edit of a source file, a stop that require-sensors.sh blocks, a second stop that goes
through. Each engine plays it on its own fresh copy of the workspace, alternately; medians are
compared. The real client's time includes starting it (a native binary), the scripted model's
HTTP turns on 127.0.0.1 and the same hooks the emulator runs. No aim: the real client is the
authority, its cost is a fact.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from benchmarks.fixtures import provisioned_template, require_claude_code
from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness.claude.engines import CLAUDE_CODE, EMULATOR, open_session

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
        raise RuntimeError(f"{engine}: the session went wrong: {blocked!r} {released!r}")
    shutil.rmtree(root, ignore_errors=True)
    return elapsed


def measure(options: Options) -> list[Row]:
    require_claude_code()
    n = options.times(5)
    with provisioned_template("hooklab-bench-engines-") as (work, template):
        play(CLAUDE_CODE, template, work)  # warm-up: the client's first start reads its package
        samples = alternate(
            {
                EMULATOR: lambda: play(EMULATOR, template, work),
                CLAUDE_CODE: lambda: play(CLAUDE_CODE, template, work),
            },
            n,
        )
    return [
        Row(
            "one session on the claude-code engine vs the emulator",
            median(samples[CLAUDE_CODE]),
            "s",
            floor=median(samples[EMULATOR]),
            note=f"5 steps, medians of {n} sessions each; no aim (information)",
        )
    ]


if __name__ == "__main__":
    run_standalone(measure)
