"""The participant's own ``claude``, when it is the pinned version, is the client Hook Lab
uses: no second copy from npm, and ``lab doctor`` no longer says "not installed" right above
"your claude ok · the pinned one" (a newcomer's walk met that)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.claude.client.install import find_client
from tests.builders import run_cli
from tests.conftest import require_real_client


def _only_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, claude: Path) -> Path:
    """``claude`` on the PATH, and a Hook Lab cache that holds no client."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(claude)
    monkeypatch.setenv("HOOKLAB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir / "claude"


def test_the_participants_own_claude_of_the_pinned_version_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_real_client()
    real = find_client()
    assert real is not None
    own = _only_on_path(tmp_path, monkeypatch, real.path)
    found = find_client()
    assert found is not None and found.path == own and found.version == real.version
    said = " ".join(run_cli("doctor").out.split())
    assert "not installed" not in said, said


def test_a_claude_of_another_version_on_the_path_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    older = tmp_path / "older-claude"
    older.write_text("#!/bin/sh\necho '2.0.1 (Claude Code)'\n")
    older.chmod(0o755)
    _only_on_path(tmp_path, monkeypatch, older)
    assert find_client() is None
