"""Fixtures the lab tests share: the Node project's workspace (Labs 12 and 13)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.workspace import Workspace, provision


@pytest.fixture(scope="session")
def node_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Node workspace provisioned once per worker and built (dist/app.js), copied per test;
    a test module that needs another start overrides it."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    root = provision(tmp_path_factory.mktemp("node") / "ws", fixture_name="node").workspace.root
    subprocess.run(["npm", "run", "build"], cwd=root, check=True, capture_output=True)
    return root


@pytest.fixture
def node_ws(node_template: Path, tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    shutil.copytree(node_template, root, symlinks=True)
    return Workspace(root)
