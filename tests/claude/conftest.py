from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.claude.hookproject import HookProject


@pytest.fixture
def project(tmp_path: Path) -> Iterator[HookProject]:
    yield HookProject(tmp_path / "project")
