from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.workspace import Workspace, provision


@pytest.fixture(scope="session")
def _pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return provision(tmp_path_factory.mktemp("pristine") / "ws").workspace.root


@pytest.fixture
def ws(_pristine: Path, tmp_path: Path) -> Workspace:
    """A fresh workspace (a copy of one provisioned per session: provisioning costs ~1 s)."""
    target = tmp_path / "ws"
    shutil.copytree(_pristine, target, symlinks=True)
    return Workspace(target)


def write_lab(root: Path, lab_id: str, body: str) -> Path:
    lab = root / lab_id
    lab.mkdir(parents=True, exist_ok=True)
    (lab / "lab.toml").write_text(body)
    return lab
