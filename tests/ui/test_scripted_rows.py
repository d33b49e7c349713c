"""`lab check --scripted` on a live step, in a 100-column terminal: the passed row names the
engine that played the scripted session, and a long prompt's row wraps under itself instead of
going whole to the terminal's own wrap at column 0 (the newcomer walk's Lab 10 step 4 printed
``⚙  2 prompt`` alone, then the 151-character prompt on the next line).

Real: a provisioned workspace at Lab 10 step 4, ``lab check --scripted --engine emulator`` as a
process (the workspace's bash hooks, real Maven for the session's sensor run).
"""

from __future__ import annotations

import os
import subprocess
import sys

from harness.engine.runner import LabRunner
from harness.workspace import Workspace

PROMPT = (
    'Add the line "Judged by evidence." to docs/notes.md, run ./mvnw -q test -Dgroups=sensor '
    "in the foreground, then tell me whether all tests pass."
)


def test_lab10_scripted_rows_fit_100_columns_and_name_the_engine(workspace: Workspace) -> None:
    runner = LabRunner(workspace)
    runner.start("10")
    runner.goto("your-session")
    out = subprocess.run(
        [sys.executable, "-m", "harness", "check", "--scripted", "--engine", "emulator"],
        cwd=workspace.root,
        env=dict(os.environ, NO_COLOR="1", COLUMNS="100"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert all(len(line) <= 100 for line in lines), "\n".join(lines)
    # The prompt's row: its words in the prompt's column, the outcome after its last word.
    at = next(n for n, line in enumerate(lines) if line.startswith("  ⚙  2 prompt"))
    column = lines[at].index("Add the line")
    row = [lines[at]]
    while lines[at + len(row)].startswith(" " * column) and lines[at + len(row)][column] != " ":
        row.append(lines[at + len(row)])
    assert len(row) > 1 and " ".join(line.strip() for line in row).endswith(
        f"{PROMPT} → allowed"
    ), "\n".join(lines)
    passed = " ".join(line.strip() for line in lines if line.startswith(("✔", "  ")))
    assert "(scripted on the emulator): let go by the reports" in passed, out.stdout
