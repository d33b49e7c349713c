"""The confinement's cost per step: a Bash step in the jail beside the same step outside it.

`lab simulate`, `lab replay` and `lab verify-hook` run every tool call in a bubblewrap jail
(harness/jail.py). The step is a guard's usual case: a PreToolUse hook on Bash (bash, one
jq) lets `ls` through, and `ls` runs. Two sessions are open side by side on one engine, one
confined and one not, each in its own copy of a small project, and their steps alternate;
medians are compared. On the emulator every Bash call starts a jail of its own; on the real
client the client starts in the jail once a session, and each step pays only the forwarder
that carries the scripted model's turns from 127.0.0.1 inside to its Unix socket outside.
Opening a session is not counted (information row for the client's start in the jail).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.fixtures import require_claude_code
from benchmarks.report import Options, Row, Unavailable, alternate, median, run_standalone
from harness.claude.engines import CLAUDE_CODE, EMULATOR, ScriptedSession, open_session
from harness.jail import Confinement, unavailable

GUARD = """#!/usr/bin/env bash
command=$(jq -r '.tool_input.command')
case $command in *"rm -rf /"*) echo "not the root" >&2; exit 2 ;; esac
exit 0
"""


def _project(folder: Path) -> Path:
    root = folder / "project"
    hooks = root / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "guard.sh").write_text(GUARD)
    (hooks / "guard.sh").chmod(0o755)
    command = '"$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"'
    hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    settings = {"permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {"PreToolUse": [hook]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    (root / "README.md").write_text("a project\n")
    return root


def _step(session: ScriptedSession) -> Callable[[], float]:
    def run() -> float:
        started = time.perf_counter()
        done = session.bash("ls")
        elapsed = time.perf_counter() - started
        if done.outcome != "allowed" or not done.tool_ran:
            raise RuntimeError(f"the step went wrong: {done!r}")
        return elapsed

    return run


def _open(engine: str, root: Path, jail: Confinement | None) -> tuple[ScriptedSession, float]:
    started = time.perf_counter()
    session = open_session(engine, root, confinement=jail).__enter__()
    session.prompt("List the files.")
    return session, time.perf_counter() - started


def _compare(engine: str, n: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Step times of a confined and an unconfined session on ``engine``, alternated."""
    with tempfile.TemporaryDirectory(prefix="hooklab-bench-confine-") as tmp:
        free = _project(Path(tmp) / "free")
        jailed = _project(Path(tmp) / "jailed")
        jail = Confinement(jailed)
        try:
            plain, plain_start = _open(engine, free, None)
            inside, inside_start = _open(engine, jailed, jail)
            try:
                _step(plain)(), _step(inside)()  # warm-up: first hook runs, first jail
                samples = alternate({"unconfined": _step(plain), "confined": _step(inside)}, n)
            finally:
                plain.close()
                inside.close()
        finally:
            jail.close()
            shutil.rmtree(tmp, ignore_errors=True)
    return samples, {"unconfined": plain_start, "confined": inside_start}


def _row(engine: str, samples: dict[str, list[float]], n: int) -> Row:
    return Row(
        f"a Bash step confined vs unconfined ({engine})",
        median(samples["confined"]),
        "s",
        floor=median(samples["unconfined"]),
        aim=1.3,
        note=f"a PreToolUse guard (bash, jq) and `ls`; medians of {n} steps each",
    )


def measure(options: Options) -> list[Row]:
    problem = unavailable()
    if problem is not None:
        raise Unavailable(problem)
    n = options.times(20)
    samples, _ = _compare(EMULATOR, n)
    rows = [_row(EMULATOR, samples, n)]
    require_claude_code()
    samples, starts = _compare(CLAUDE_CODE, n)
    rows.append(_row(CLAUDE_CODE, samples, n))
    rows.append(
        Row(
            "the client's start and first prompt, confined vs unconfined",
            starts["confined"],
            "s",
            floor=starts["unconfined"],
            note="one session each; information (once a session, not per step)",
        )
    )
    return rows


if __name__ == "__main__":
    run_standalone(measure)
