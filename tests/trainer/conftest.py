from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.trainer.cohort_builder import SyntheticLabs
from tests.trainer.servers import GitDaemon, SmartHttpServer, bare_repo


@pytest.fixture
def labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SyntheticLabs:
    """The two synthetic labs, also what ``lab`` commands load (HOOKLAB_LABS)."""
    built = SyntheticLabs.write(tmp_path / "labs")
    monkeypatch.setenv("HOOKLAB_LABS", str(built.root))
    return built


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """The folder a git server exports, holding the room's bare repository room.git."""
    base = tmp_path / "served"
    base.mkdir()
    bare_repo(base / "room.git")
    return base


@pytest.fixture
def daemon(served: Path) -> Iterator[GitDaemon]:
    with GitDaemon(served) as running:
        yield running


@pytest.fixture
def http(served: Path) -> Iterator[SmartHttpServer]:
    with SmartHttpServer(served) as running:
        yield running
