"""The fixture's hooks and their smoke test against the processes they cannot avoid.

In a provisioned workspace with real Surefire reports (one real sensor run) and one changed
source file, alternately:
  stop       .claude/hooks/require-sensors.sh fed a Stop event on stdin (it decides: fresh, green)
  post       .claude/hooks/check-spec-status.sh fed a PostToolUse event (it runs after every call)
  floor      a hook that does only what every hook must: bash sources lib.sh, reads the event
             (cat, one jq) and opens the project (one git rev-parse)
And smoke.sh with all its groups beside the sum of each group run alone, divided by the cores
(its groups run side by side, one per core, so that sum is the work it cannot avoid).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.fixtures import provisioned_template
from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness.maven.backend import SENSOR_GOALS

FLOOR_HOOK = """#!/usr/bin/env bash
. "$CLAUDE_PROJECT_DIR/.claude/hooks/lib.sh" || exit 1
aiup_fail_open
aiup_read_input
aiup_open_project
exit 0
"""


def smoke_groups(smoke: Path) -> list[str]:
    """The check groups, as smoke.sh itself lists them (GROUPS_ALL=(...))."""
    found = re.search(r"^GROUPS_ALL=\(([^)]*)\)", smoke.read_text(), re.MULTILINE)
    assert found, f"{smoke} has no GROUPS_ALL=(...) line"
    return found.group(1).split()


def event(root: Path, name: str, **fields: object) -> str:
    base = {
        "session_id": "bench",
        "transcript_path": "/dev/null",
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": name,
    }
    return json.dumps({**base, **fields})


def hook_runner(root: Path, script: str | Path, stdin: str) -> Callable[[], float]:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
    path = str(root / ".claude" / "hooks" / script)  # an absolute script stays itself

    def run() -> float:
        t0 = time.perf_counter()
        done = subprocess.run(
            [path], input=stdin, text=True, cwd=root, env=env, capture_output=True, check=False
        )
        elapsed = time.perf_counter() - t0
        assert done.returncode == 0 and not done.stderr, (script, done.returncode, done.stderr)
        return elapsed

    return run


def smoke_seconds(root: Path, *groups: str) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [str(root / ".claude" / "hooks" / "smoke.sh"), *groups],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - t0
    assert done.returncode == 0, done.stdout + done.stderr
    return elapsed


def measure(options: Options) -> list[Row]:
    n = options.times(40)
    with provisioned_template("bench-hooks-") as (work, template):
        root = work / "ws"
        shutil.copytree(template, root, symlinks=True)
        hook_runner(root, "session-start.sh", event(root, "SessionStart", source="startup"))()
        time.sleep(0.02)  # the change and the reports must be newer than the session's start
        service = next((root / "src" / "main" / "java").rglob("*Service.java"))
        service.write_text(service.read_text() + "\n// changed\n")
        sensors = subprocess.run(
            ["./mvnw", *SENSOR_GOALS], cwd=root, capture_output=True, text=True, check=False
        )
        assert sensors.returncode == 0, sensors.stdout[-2000:]
        # Outside the hooks folder: a file there would be a hook change the Stop hook holds.
        floor = work / "floor.sh"
        floor.write_text(FLOOR_HOOK)
        floor.chmod(0o755)
        stop = event(root, "Stop", stop_hook_active=False)
        post = event(
            root,
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "git status"},
            tool_response={"stdout": "", "stderr": "", "interrupted": False},
        )
        runs = {
            "stop": hook_runner(root, "require-sensors.sh", stop),
            "post": hook_runner(root, "check-spec-status.sh", post),
            "floor": hook_runner(root, floor, post),
        }
        for run in runs.values():  # warm the page cache
            run()
        samples = alternate(runs, n)

        cores = os.cpu_count() or 1
        rounds = options.times(3, least=1)
        whole: list[float] = []
        parts: list[float] = []
        for _ in range(rounds):
            whole.append(smoke_seconds(root))
            groups = smoke_groups(root / ".claude" / "hooks" / "smoke.sh")
            parts.append(sum(smoke_seconds(root, group) for group in groups))
    floor_ms = median(samples["floor"]) * 1000
    return [
        Row(
            "Stop hook, fresh green reports and a change, vs a hook's floor",
            median(samples["stop"]) * 1000,
            "ms",
            floor=floor_ms,
            aim=2.0,
            note=f"medians of {n}; floor: bash, lib.sh, cat, jq, git rev-parse",
        ),
        Row(
            "PostToolUse status check vs a hook's floor",
            median(samples["post"]) * 1000,
            "ms",
            floor=floor_ms,
            aim=1.5,
            note=f"medians of {n}; it runs after every tool call",
        ),
        Row(
            "smoke.sh, all groups, vs its groups alone ÷ cores",
            median(whole),
            "s",
            floor=median(parts) / cores,
            aim=1.2,
            note=f"medians of {rounds}; {cores} cores; groups summed: {median(parts):.1f} s",
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
