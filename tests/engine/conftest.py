from __future__ import annotations

from pathlib import Path

import pytest

from harness.workspace import Workspace


@pytest.fixture
def ws(workspace: Workspace) -> Workspace:
    """A fresh workspace: the suite-wide ``workspace`` fixture under the engine tests' name."""
    return workspace


def write_lab(root: Path, lab_id: str, body: str) -> Path:
    lab = root / lab_id
    lab.mkdir(parents=True, exist_ok=True)
    (lab / "lab.toml").write_text(body)
    return lab
