"""What the live-step tests share: reaching a step, checking it, the --scripted way out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.workspace import Workspace
from tests.builders import CliResult, run_cli
from tests.recorded_sessions import copy_workspace_into

# reach(lab, step): the path of a new workspace in that lab at that step
ReachStep = Callable[[str, str], Path]


def check_json(
    root: Path, config: Path, monkeypatch: pytest.MonkeyPatch, *extra: str
) -> tuple[CliResult, dict[str, Any]]:
    """``lab check --json`` in ``root`` with ``config`` as the participant's ~/.claude."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    done = run_cli("check", "--json", *extra, cwd=root)
    return done, json.loads(done.out)


def assert_scripted_passes_only_when_asked(
    at_step: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lab: str, step: str
) -> None:
    """Without a session the step fails, with --scripted it passes and records no session."""
    __tracebackhide__ = True  # a failure points at the test that called it
    root = copy_workspace_into(at_step, tmp_path)
    done, _ = check_json(root, tmp_path / "claude-home", monkeypatch, "--engine", "emulator")
    assert done.code == 1
    done, data = check_json(
        root, tmp_path / "claude-home", monkeypatch, "--scripted", "--engine", "emulator"
    )
    assert done.code == 0, (done, data["checks"])
    record = Workspace(root).read_progress()["labs"][lab]["steps"][step]["passed"]
    assert record["evidence_kind"] == "scripted" and "session_id" not in record
