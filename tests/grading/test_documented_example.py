"""The verify-hook example the README and ``lab verify-hook --help`` give, run exactly as
written against the fixture's own Stop hook in a fresh workspace: it must pass."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.builders import REPO_ROOT, run_cli

PREFIX = "lab verify-hook .claude/hooks/require-sensors.sh"


def command_in(text: str) -> str:
    """The documented command: its first line and the backslash continuations after it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(PREFIX))
    command = []
    for line in lines[start:]:
        command.append(line.strip())
        if not line.rstrip().endswith("\\"):
            break
    return "\n".join(command)


def test_readme_and_help_give_the_same_command() -> None:
    readme = command_in((REPO_ROOT / "README.md").read_text())
    helped = run_cli("verify-hook", "--help")
    assert helped.code == 0
    assert command_in(helped.out) == readme
    assert "touch src/" not in readme  # a touch alone is no change to git: the hook lets go
    guide = (REPO_ROOT / "docs" / "participant-guide.md").read_text()
    assert command_in(guide) == readme


@pytest.mark.maven
def test_the_documented_command_passes_for_the_fixtures_stop_hook(workspace: Workspace) -> None:
    command = command_in((REPO_ROOT / "README.md").read_text())
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    # `lab` as the participant has it after bootstrap: the venv's entry point on PATH.
    env["PATH"] = f"{REPO_ROOT / '.venv' / 'bin'}{os.pathsep}{env['PATH']}"
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=workspace.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "PASS all 9 checks pass" in done.stdout
    assert Path(workspace.root / "docs" / "draft.md").is_file()  # what the docs say it leaves
