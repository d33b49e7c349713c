from __future__ import annotations

import pytest

from harness.workspace import Workspace


@pytest.fixture
def ws(workspace: Workspace) -> Workspace:
    """A fresh workspace: the suite-wide ``workspace`` fixture under the engine tests' name."""
    return workspace
