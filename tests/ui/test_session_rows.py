"""A played session's rows in a 100-column terminal. `lab check --scripted` on a live step: the
passed row names the engine that played the scripted session, and a long prompt's row wraps
under itself instead of going whole to the terminal's own wrap at column 0 (the newcomer walk's
Lab 10 step 4 printed ``⚙  2 prompt`` alone, then the 151-character prompt on the next line).
`lab simulate` lays out a prompt step's row the same way.

Real: a provisioned workspace, ``lab`` as a process (the workspace's bash hooks, the emulator,
real Maven for Lab 10's sensor run).
"""

from __future__ import annotations

from harness.engine.lab_runner import LabRunner
from harness.workspace import Workspace
from tests.builders import run_lab_process

AT_100 = {"NO_COLOR": "1", "COLUMNS": "100"}  # a 100-column terminal, without colour
PROMPT = (
    'Add the line "Judged by evidence." to docs/notes.md, run ./mvnw -q test -Dgroups=sensor '
    "in the foreground, then tell me whether all tests pass."
)


def test_lab10_scripted_rows_fit_100_columns_and_name_the_engine(workspace: Workspace) -> None:
    runner = LabRunner(workspace)
    runner.start("10")
    runner.goto("your-session")
    out = run_lab_process(
        "check", "--scripted", "--engine", "emulator", cwd=workspace.root, env=AT_100
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert all(len(line) <= 100 for line in lines), "\n".join(lines)
    # The prompt's row: its words in the prompt's column, the outcome after its last word.
    row = prompt_row(lines, "  ⚙  2 prompt")
    assert len(row) > 1 and " ".join(line.strip() for line in row).endswith(
        f"{PROMPT} → allowed"
    ), "\n".join(lines)
    passed = " ".join(line.strip() for line in lines if line.startswith(("✔", "  ")))
    assert "(scripted on the emulator): let go by the reports" in passed, out.stdout


def prompt_row(lines: list[str], head: str) -> list[str]:
    """The lines of the row that starts with ``head``: its first, then those in its column."""
    at = next(n for n, line in enumerate(lines) if line.startswith(head))
    assert "Add the line" in lines[at], "the prompt left its row:\n" + "\n".join(lines)
    column = lines[at].index("Add the line")
    row = [lines[at]]
    while lines[at + len(row)].startswith(" " * column) and lines[at + len(row)][column] != " ":
        row.append(lines[at + len(row)])
    return row


def test_lab_simulate_wraps_a_long_prompt_under_itself(workspace: Workspace) -> None:
    scenario = workspace.root / "scenarios" / "long-prompt.toml"
    scenario.parent.mkdir()
    scenario.write_text(
        f'[[step]]\ndo = "session_start"\n[[step]]\ndo = "prompt"\ntext = \'{PROMPT}\'\n'
    )
    out = run_lab_process("simulate", "scenarios/long-prompt.toml", cwd=workspace.root, env=AT_100)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    row = prompt_row(lines, "  2 prompt")
    assert all(len(line) <= 100 for line in row), "\n".join(lines)
    said = " ".join(line.strip() for line in row)
    assert len(row) > 1 and said.endswith(f" {PROMPT}  ALLOWED"), "\n".join(lines)
