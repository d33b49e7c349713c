"""smoke.sh proves the fixture's hooks, and its record is what lets a hook change go."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.hooks.hookrepo import (
    SMOKE_COMMAND,
    git_dir,
    project_with_hooks,
    run_smoke,
    start_session,
    stop,
)

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")


def test_a_hook_change_holds_the_turn_until_smoke_passes(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    hook = root / ".claude/hooks/require-sensors.sh"
    hook.write_text(hook.read_text() + "# reviewed\n")

    held = stop(root)
    assert held.returncode == 2
    assert ".claude/hooks/require-sensors.sh" in held.stderr
    assert SMOKE_COMMAND in held.stderr

    smoke = run_smoke(root)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    count = re.search(r"smoke: (\d+)/(\d+) checks passed", smoke.stdout)
    assert count is not None, smoke.stdout
    assert count[1] == count[2]
    assert int(count[2]) >= 50
    record = (git_dir(root) / "aiup-smoke-ran").read_text()
    assert ".claude/hooks/require-sensors.sh" in record

    assert stop(root).returncode == 0


def test_smoke_outside_a_git_repository_proves_but_records_nothing(tmp_path: Path) -> None:
    root = tmp_path / "loose"
    shutil.copytree(project_with_hooks(tmp_path) / ".claude", root / ".claude")
    smoke = run_smoke(root, GIT_CEILING_DIRECTORIES=str(tmp_path))
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "not a git repository; nothing recorded" in smoke.stdout
