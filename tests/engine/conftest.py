from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.workspace import Workspace
from tests.conftest import require_real_client
from tests.engine.live_steps import ReachStep


@pytest.fixture
def ws(workspace: Workspace) -> Workspace:
    """A fresh workspace: the suite-wide ``workspace`` fixture under the engine tests' name."""
    return workspace


@pytest.fixture(scope="module")
def workspace_at_step(
    tmp_path_factory: pytest.TempPathFactory, _compiled_template: Path
) -> ReachStep:
    """``reach(lab, step)``: a new workspace in ``lab`` at ``step``, reached as a participant
    would (lab start, lab goto), for the live-session tests that play the real client there."""

    def reach(lab: str, step: str) -> Path:
        require_real_client()
        root = tmp_path_factory.mktemp(lab) / "ws"
        shutil.copytree(_compiled_template, root, symlinks=True)
        runner = LabRunner(Workspace(root))
        runner.start(lab)
        runner.goto(step)
        return root

    return reach
