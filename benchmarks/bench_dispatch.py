"""Hook dispatch against the same hook run by hand.

One PreToolUse hook (bash that reads its stdin and exits 0), run alternately two ways:
  by hand   subprocess.run(["/bin/sh", "-c", command], input=payload), CLAUDE_PROJECT_DIR set
  dispatch  harness.claude.dispatch.dispatch(PreToolUse, payload, settings, project_dir)
Aim: dispatch at most 1.2× the hook by hand (medians).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness.claude import Event, load_settings
from harness.claude.dispatch import dispatch

HOOK = """#!/usr/bin/env bash
input=$(cat)
case "$input" in *'"tool_name":"Edit"'*) exit 0 ;; esac
echo "unexpected input" >&2
exit 2
"""


def make_project(root: Path) -> str:
    hooks = root / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    script = hooks / "guard.sh"
    script.write_text(HOOK)
    script.chmod(0o755)
    command = '"$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"'
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Edit|Write",
                    "hooks": [{"type": "command", "command": command, "timeout": 10}],
                }
            ]
        }
    }
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return command


def measure(options: Options) -> list[Row]:
    n = options.times(200)
    with tempfile.TemporaryDirectory(prefix="bench-dispatch-") as tmp:
        root = Path(tmp).resolve()
        command = make_project(root)
        settings = load_settings(root)
        payload = {
            "session_id": "bench",
            "transcript_path": str(root / "t.jsonl"),
            "cwd": str(root),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {
                "file_path": str(root / "a.md"),
                "old_string": "a",
                "new_string": "b",
                "replace_all": False,
            },
            "tool_use_id": "toolu_bench",
        }
        stdin = json.dumps(payload, separators=(",", ":"))  # compact, as the client sends it
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}

        def by_hand() -> float:
            t0 = time.perf_counter()
            done = subprocess.run(
                ["/bin/sh", "-c", command],
                input=stdin,
                text=True,
                env=env,
                cwd=root,
                capture_output=True,
                check=False,
            )
            elapsed = time.perf_counter() - t0
            assert done.returncode == 0, done.stderr
            return elapsed

        def via_dispatch() -> float:
            t0 = time.perf_counter()
            out = dispatch(Event.PRE_TOOL_USE, payload, settings, root)
            elapsed = time.perf_counter() - t0
            assert out.runs[0].exit_code == 0 and not out.blocked, out
            return elapsed

        runs: dict[str, Callable[[], float]] = {"by hand": by_hand, "dispatch": via_dispatch}
        for _ in range(5):  # warm the page cache and bash
            by_hand()
        samples = alternate(runs, n)
    return [
        Row(
            "hook dispatch vs the hook by hand",
            median(samples["dispatch"]) * 1000,
            "ms",
            floor=median(samples["by hand"]) * 1000,
            aim=1.2,
            note=f"medians of {n} runs each",
        )
    ]


if __name__ == "__main__":
    run_standalone(measure)
