"""A guard's 200-call case table played by `lab verify-hook` on each engine, beside the same
200 calls fed to the hook by hand.

The guard is the project's own rm -rf guard (tests/plugins/rm-guard, bash and jq), registered
in a project's settings.json. By hand is what a hook author's BATS suite does: a loop that
starts the script once a call with the call's JSON on stdin. Each engine plays the table in one
scripted session, confined as verify-hook confines it (bubblewrap, when it runs here), every
allowed command carried out in the project. No aim: the figures say what a session's verdict
costs over the bare hook.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.fixtures import require_claude_code
from benchmarks.report import Options, Row, alternate, median, run_standalone
from harness import jail
from harness.grading.cases import Case, load_cases
from harness.grading.guard import (
    guard_settings,
    load_guard_settings,
    play_cases,
    register_alone,
)
from harness.grading.registration import registered_entries

REPO = Path(__file__).resolve().parents[1]
GUARD = REPO / "tests" / "plugins" / "rm-guard" / "hooks" / "block-rm-rf.sh"
CALLS = 200
# Ten calls, five refused and five let through, repeated to CALLS; the allowed ones change
# nothing that matters in the throwaway project.
_CALLS = (
    ("rm -rf build", "blocked"),
    ("rm -fr build", "blocked"),
    ("sudo rm -rf /opt/app", "blocked"),
    ("ls && rm -rf build", "blocked"),
    ("rm build -rf", "blocked"),
    ("echo rm -rf build", "allowed"),
    ("ls -la", "allowed"),
    ("git status --short", "allowed"),
    ("rm -f missing.txt", "allowed"),
    ("true", "allowed"),
)


def case_table(folder: Path) -> tuple[Case, ...]:
    """CALLS cases, written as a case table and read back as verify-hook reads one."""
    lines = []
    for i in range(CALLS):
        command, want = _CALLS[i % len(_CALLS)]
        lines += ["[[case]]", 'tool = "Bash"', f"input = {{ command = {json.dumps(command)} }}"]
        lines += [f'want = "{want}"', ""]
    path = folder / "cases.toml"
    path.write_text("\n".join(lines))
    return load_cases(path)


def project(folder: Path) -> Path:
    root = folder / "proj"
    (root / ".claude" / "hooks").mkdir(parents=True)
    shutil.copy2(GUARD, root / ".claude" / "hooks" / GUARD.name)
    command = f'"$CLAUDE_PROJECT_DIR"/.claude/hooks/{GUARD.name}'
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    settings = {"hooks": {"PreToolUse": [group]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def by_hand(root: Path, cases: tuple[Case, ...]) -> float:
    script = root / ".claude" / "hooks" / GUARD.name
    started = time.perf_counter()
    for case in cases:
        body = {
            "hook_event_name": "PreToolUse",
            "cwd": str(root),
            "tool_name": "Bash",
            "tool_input": case.tool_input,
        }
        run = subprocess.run([str(script)], input=json.dumps(body), capture_output=True, text=True)
        got = "blocked" if run.returncode == 2 else "allowed"
        if got != case.want:
            raise RuntimeError(f"by hand: case {case.number}: wanted {case.want}, got {got}")
    return time.perf_counter() - started


def on_engine(engine: str, root: Path, cases: tuple[Case, ...]) -> float:
    entries = registered_entries(root, root / ".claude" / "hooks" / GUARD.name)
    data = guard_settings(entries, cases)
    register_alone(root, data)  # as verify-hook does: the real client reads the file
    settings = load_guard_settings(data)
    wanted = jail.unavailable() is None
    started = time.perf_counter()
    with jail.confined(root, wanted) as confinement:
        rows = play_cases(engine, root, settings, cases, confinement, lambda _: None)
    elapsed = time.perf_counter() - started
    missed = [r.line() for r in rows if not r.passed]
    if missed:
        raise RuntimeError(f"{engine}: {len(missed)} cases missed, first: {missed[0]}")
    return elapsed


def measure(options: Options) -> list[Row]:
    require_claude_code()
    n = options.times(3)
    with tempfile.TemporaryDirectory(prefix="hooklab-bench-guard-") as tmp:
        root = project(Path(tmp))
        cases = case_table(Path(tmp))
        samples = alternate(
            {
                "by hand": lambda: by_hand(root, cases),
                "emulator": lambda: on_engine("emulator", root, cases),
                "claude-code": lambda: on_engine("claude-code", root, cases),
            },
            n,
        )
    floor = median(samples["by hand"])
    confined = "confined" if jail.unavailable() is None else "unconfined (no bubblewrap)"
    note = f"{CALLS} Bash calls, one session, {confined}; medians of {n}; no aim (information)"
    return [
        Row(f"{CALLS}-call case table by hand", floor, "s", note=f"{n} runs, a process a call"),
        Row(
            f"{CALLS}-call case table on the emulator vs by hand",
            median(samples["emulator"]),
            "s",
            floor=floor,
            note=note,
        ),
        Row(
            f"{CALLS}-call case table on claude-code vs by hand",
            median(samples["claude-code"]),
            "s",
            floor=floor,
            note=note,
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
