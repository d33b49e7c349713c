"""What does dispatch() cost on top of running the hook yourself?

Runs one PreToolUse hook (a bash script that reads its stdin and exits 0) many
times two ways, alternating so both see the same machine load:
  by hand   subprocess.run(["bash", "-c", command], input=payload) with CLAUDE_PROJECT_DIR set
  dispatch  harness.claude.dispatch(PreToolUse, payload, settings, project_dir)
and prints both medians and the ratio. Usage: python benchmarks/bench_dispatch.py [-n 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from harness.claude import Event, dispatch, load_settings

HOOK = """#!/usr/bin/env bash
input=$(cat)
case "$input" in *'"tool_name": "Edit"'*) exit 0 ;; esac
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="repetitions of each (default 200)")
    args = parser.parse_args()

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
        stdin = json.dumps(payload)
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}

        by_hand: list[float] = []
        via_dispatch: list[float] = []

        def run_by_hand() -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                ["bash", "-c", command],
                input=stdin,
                text=True,
                env=env,
                cwd=root,
                capture_output=True,
                check=False,
            )

        for _ in range(5):  # warm the page cache and bash
            run_by_hand()
        for _ in range(args.n):
            t0 = time.perf_counter()
            done = run_by_hand()
            by_hand.append(time.perf_counter() - t0)
            assert done.returncode == 0, done.stderr

            t0 = time.perf_counter()
            out = dispatch(Event.PRE_TOOL_USE, payload, settings, root)
            via_dispatch.append(time.perf_counter() - t0)
            assert out.runs[0].exit_code == 0 and not out.blocked, out

    hand = statistics.median(by_hand)
    disp = statistics.median(via_dispatch)
    print(f"repetitions      {args.n}")
    for label, samples in (("by hand ", by_hand), ("dispatch", via_dispatch)):
        median, p90 = statistics.median(samples), statistics.quantiles(samples, n=10)[-1]
        print(f"{label}  median {median * 1000:8.2f} ms   p90 {p90 * 1000:8.2f} ms")
    print(f"ratio dispatch/by hand {disp / hand:.2f}x  (overhead {(disp - hand) * 1000:+.2f} ms)")


if __name__ == "__main__":
    main()
