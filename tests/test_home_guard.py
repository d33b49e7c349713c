"""The tests never run with the real home: the guard in tests/conftest.py names what points
there (and fails the test that left it so) instead of quietly moving it."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from tests.conftest import real_home_in_use


def test_every_test_runs_in_a_home_of_its_own() -> None:
    assert real_home_in_use() is None
    real = Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()
    assert Path(os.environ["HOME"]).resolve() != real


def test_the_guard_names_a_home_that_points_at_the_real_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = pwd.getpwuid(os.getuid()).pw_dir
    monkeypatch.setenv("HOME", real)
    assert real_home_in_use() == f"HOME={real}"
    monkeypatch.setenv("HOME", "/tmp")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(Path(real) / ".claude"))
    assert real_home_in_use() == f"CLAUDE_CONFIG_DIR={Path(real) / '.claude'}"
