"""The fixture's hooks and their smoke test against the processes they cannot avoid.

In a provisioned workspace with real Surefire reports (one real sensor run) and one changed
source file, alternately, each hook fed the event Claude Code sends it on stdin:
  stop       require-sensors.sh on Stop (it decides: fresh, green)
  post       check-spec-status.sh on PostToolUse (it runs after every tool call)
  bash       record-sensor-run.sh on PostToolUse of a Bash call that is no Maven run
  edit       guard-spec-status.sh on an Edit of a spec that asserts nothing
  start      session-start.sh on SessionStart
  agent      record-coverage-check.sh on SubagentStop of the coverage agent
  floor      a hook that does only what every hook must: bash sources lib.sh, reads the event
             (cat, one jq) and opens the project (one git rev-parse)
And smoke.sh with all its groups in a fresh copy of the workspace, beside Lab 06's promise of
ten seconds at most.
"""

from __future__ import annotations

import json
import os
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


def smoke_seconds(root: Path) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [str(root / ".claude" / "hooks" / "smoke.sh")],
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
        bash = event(root, "PostToolUse", tool_name="Bash", tool_input={"command": "ls"})
        spec = next((root / "docs" / "use_cases").glob("UC-*.md"))
        edit = event(
            root,
            "PreToolUse",
            tool_name="Edit",
            tool_input={"file_path": str(spec), "old_string": "# ", "new_string": "# "},
        )
        transcript = work / "agent.jsonl"
        transcript.write_text(
            json.dumps({"type": "user", "message": {"role": "user", "content": "Audit UC-099"}})
            + "\n"
            + json.dumps({"type": "assistant", "message": {"stop_reason": "end_turn"}})
            + "\n"
        )
        agent = event(
            root,
            "SubagentStop",
            agent_type="aiup-vaadin-jooq:uc-coverage",
            agent_id="a1",
            agent_transcript_path=str(transcript),
            last_assistant_message="# Coverage report: UC-099",
            stop_hook_active=False,
        )
        runs = {
            "stop": hook_runner(root, "require-sensors.sh", stop),
            "post": hook_runner(root, "check-spec-status.sh", post),
            "bash": hook_runner(root, "record-sensor-run.sh", bash),
            "edit": hook_runner(root, "guard-spec-status.sh", edit),
            "start": hook_runner(
                root, "session-start.sh", event(root, "SessionStart", source="resume")
            ),
            "agent": hook_runner(root, "record-coverage-check.sh", agent),
            "floor": hook_runner(root, floor, post),
        }
        for run in runs.values():  # warm the page cache
            run()
        samples = alternate(runs, n)

        rounds = options.times(3, least=1)
        whole: list[float] = []
        for number in range(rounds):
            fresh = work / f"fresh-{number}"
            shutil.copytree(template, fresh, symlinks=True)
            whole.append(smoke_seconds(fresh))
    floor_ms = median(samples["floor"]) * 1000
    others = [
        ("bash", "PostToolUse Bash (no Maven run): record-sensor-run.sh"),
        ("edit", "PreToolUse Edit of a spec: guard-spec-status.sh"),
        ("start", "SessionStart: session-start.sh"),
        ("agent", "SubagentStop of the coverage agent: record-coverage-check.sh"),
    ]
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
        *(
            Row(
                f"{title} vs a hook's floor",
                median(samples[key]) * 1000,
                "ms",
                floor=floor_ms,
                aim=2.0,
                note=f"medians of {n}",
            )
            for key, title in others
        ),
        Row(
            "smoke.sh, all groups, in a fresh workspace, vs Lab 06's ten seconds",
            median(whole),
            "s",
            floor=10.0,
            aim=1.0,
            note=f"medians of {rounds}",
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
