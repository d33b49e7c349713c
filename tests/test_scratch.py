"""Where throwaway copies go: the folder a user names, else memory when it may run programs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness import paths
from harness.engine.throwaway import sandbox_copy


def test_a_named_scratch_folder_wins_then_tmpdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmpdir"))
    monkeypatch.setenv("HOOKLAB_SCRATCH", str(tmp_path / "named"))
    assert paths.scratch_dir() == str(tmp_path / "named")
    monkeypatch.delenv("HOOKLAB_SCRATCH")
    assert paths.scratch_dir() == str(tmp_path / "tmpdir")


def test_without_a_choice_memory_only_when_it_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOOKLAB_SCRATCH", raising=False)
    monkeypatch.delenv("TMPDIR", raising=False)
    assert paths.memory_backed_tmp("/no/such/folder") is None  # macOS has no /dev/shm
    chosen = paths.scratch_dir()
    if chosen is None:
        pytest.skip("no usable /dev/shm on this machine: the system temp folder is used")
    fs = os.statvfs(chosen)
    assert not fs.f_flag & (os.ST_RDONLY | os.ST_NOEXEC)
    assert fs.f_bavail * fs.f_frsize >= paths.SCRATCH_MIN_FREE


def test_a_candidate_without_room_is_refused() -> None:
    # /proc is mounted on every Linux and has no free blocks.
    if not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    assert paths.memory_backed_tmp("/proc") is None


def test_a_sandbox_lands_in_the_scratch_folder_and_its_programs_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("HOOKLAB_SCRATCH", str(scratch))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "hook.sh").write_text('#!/usr/bin/env bash\necho ran in "$PWD"\n')
    (root / "hook.sh").chmod(0o755)
    with sandbox_copy(root) as copy:
        assert copy.parent.parent == scratch
        out = subprocess.run(["./hook.sh"], cwd=copy, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == f"ran in {copy}"
    assert list(scratch.iterdir()) == []  # removed afterwards
