"""A live step without a session: its fix keeps the prompt to type apart from what follows
(walk41, Lab 03 step 3: ``... tell me you are done.; without model access: ...``, the ``;``
glued to the prompt a person copies).

Real: a provisioned workspace at Lab 03 step 3, ``lab check`` as a process at 100 columns, an
empty directory as the participant's ~/.claude (no session in it).
"""

from __future__ import annotations

from pathlib import Path

from harness.engine.lab_runner import LabRunner
from harness.workspace import Workspace
from tests.builders import run_lab_process

PROMPT = "Add a one-line note to docs/notes.md, then tell me you are done."


def test_no_session_fix_keeps_the_prompt_whole(workspace: Workspace, tmp_path: Path) -> None:
    runner = LabRunner(workspace)
    runner.start("3")
    runner.goto("your-session")
    env = {"NO_COLOR": "1", "COLUMNS": "100", "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    out = run_lab_process("check", cwd=workspace.root, env=env)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("  fix: "))
    fix = [line.strip() for line in lines[at:]]
    fix[0] = fix[0].removeprefix("fix: ")
    said = " ".join(fix)
    assert f"ask Claude: {PROMPT}" in said, out.stdout
    # The prompt ends its line: the way without model access is on a line of its own.
    scripted = fix.index("without model access: lab check --scripted")
    assert fix[scripted - 1].endswith("done."), out.stdout
    assert ".;" not in out.stdout
