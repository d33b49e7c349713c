"""Replaying a recorded 50-call session beside playing the same calls as a scenario.

The session is recorded once on the real, pinned client (scripted model): a prompt, then 50
tool calls (Writes and Edits of doc notes, read-only Bash) with a stop after every tenth, which
require-sensors.sh blocks (the notes are changes without a sensor run) and lets go the second
time. ``lab replay`` reads that transcript, makes the start-state copy and plays the calls on
the emulator; the floor is the same calls as scenario steps on the emulator in a plain copy.
Aim 1.2: the replay's own work (reading, planning, the start state) costs little beside the
hooks. A second row, for information, replays the session on the real client.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from benchmarks.fixtures import provisioned_template, require_claude_code
from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness.claude.engines import CLAUDE_CODE, EMULATOR, open_session
from harness.claude.recorded import Timeline, read_session
from harness.claude.scenario import run_step
from harness.engine.session_replay import plan, replay
from harness.engine.throwaway import sandbox_copy

CALLS = 50


def record(template: Path, work: Path) -> Path:
    """A 50-call session on the real client; its transcript."""
    root = work / "recorded-ws"
    shutil.copytree(template, root, symlinks=True)
    with open_session(CLAUDE_CODE, root, transcript_dir=work / "claude") as session:
        session.session_start()
        session.prompt("Write fifty small notes.")
        for n in range(CALLS):
            note = f"docs/notes/note-{n // 3}.md"
            if n % 3 == 0:
                session.write(note, f"Note {n}.\n")
            elif n % 3 == 1:
                session.edit(note, f"Note {n - 1}.", f"Note {n - 1}, edited.")
            else:
                session.bash("git status --short")
            if n % 10 == 9:
                session.stop("Done.")
                session.stop("Done, really.")
        transcript = session.transcript_path
    shutil.rmtree(root)
    return transcript


def as_scenario(timeline: Timeline, template: Path) -> float:
    started = time.perf_counter()
    with sandbox_copy(template) as copy:
        steps = [p.step for p in plan(timeline, copy) if p.step is not None]
        with open_session(EMULATOR, copy, auto_approve=True) as session:
            for step in steps:
                run_step(session, step)
    return time.perf_counter() - started


def replayed(path: Path, template: Path, engine: str) -> float:
    started = time.perf_counter()
    report = replay(read_session(path), template, engines=[engine])
    elapsed = time.perf_counter() - started
    if not report.agrees:
        raise RuntimeError(f"the replay on {engine} diverged: {report.describe_divergence()}")
    return elapsed


def measure(options: Options) -> list[Row]:
    require_claude_code()
    n = options.times(3)
    with provisioned_template("hooklab-bench-replay-") as (work, template):
        transcript = record(template, work)
        timeline = read_session(transcript)
        calls = len(timeline.tool_calls)
        if calls != CALLS:
            raise RuntimeError(f"the recorded session has {calls} calls, not {CALLS}")
        samples = alternate(
            {
                "replay": lambda: replayed(transcript, template, EMULATOR),
                "scenario": lambda: as_scenario(timeline, template),
            },
            n,
        )
        real = [replayed(transcript, template, CLAUDE_CODE) for _ in range(max(1, n // 3))]
    return [
        Row(
            f"lab replay of a {CALLS}-call session on the emulator vs the same calls as a scenario",
            median(samples["replay"]),
            "s",
            floor=median(samples["scenario"]),
            aim=1.2,
            note=f"{CALLS} calls and {len(timeline.stops)} stops, recorded on the real client; "
            f"medians of {n}",
        ),
        Row(
            f"lab replay of the {CALLS}-call session on claude-code vs the emulator",
            median(real),
            "s",
            floor=median(samples["replay"]),
            note="the real client replays the recorded turns; no aim (information)",
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
