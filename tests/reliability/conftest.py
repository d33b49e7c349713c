"""Fixtures of the reliability suite: a participant's workspace mid-lab, copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.reliability.participant import copy_workspace, prepare


@pytest.fixture(scope="session")
def _participant_template(
    tmp_path_factory: pytest.TempPathFactory, _compiled_template: Path
) -> Path:
    root = tmp_path_factory.mktemp("participant") / "ws"
    prepare(copy_workspace(_compiled_template, root))
    return root


@pytest.fixture
def participant(tmp_path: Path, _participant_template: Path) -> Workspace:
    """A workspace at lab 09 with the participant's own edits and one backup of theirs."""
    return copy_workspace(_participant_template, tmp_path / "ws")


@pytest.fixture(autouse=True)
def _needs_jq_and_git() -> None:
    for tool in ("jq", "git", "bash"):
        if shutil.which(tool) is None:
            pytest.skip(f"the hooks need {tool}")
