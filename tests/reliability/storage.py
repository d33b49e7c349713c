"""Real storage faults: a read-only directory and a full disk.

Root ignores file permissions, so as root a read-only directory is a read-only bind mount and a
full disk is a tiny tmpfs filled to the last byte. Without root, chmod makes a directory
read-only for real; a tmpfs cannot be mounted, and the tests that need one skip and say so.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)


def _umount(path: Path) -> None:
    # Lazily: a process that still has the directory open must not fail the test's teardown.
    subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [path, *path.rglob("*")] if not p.is_symlink()}
        for p, mode in modes.items():
            p.chmod(mode & ~0o222)
        try:
            yield
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    bound = _mount("--bind", str(path), str(path))
    if bound.returncode != 0:
        pytest.skip(f"a read-only bind mount was refused ({bound.stderr.strip()})")
    try:
        locked = _mount("-o", "remount,bind,ro", str(path))
        if locked.returncode != 0:
            pytest.skip(f"remounting read-only was refused ({locked.stderr.strip()})")
        yield
    finally:
        _umount(path)


@contextlib.contextmanager
def tiny_tmpfs(mount_point: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (e.g. "8m") at ``mount_point``; skips where mounting is refused."""
    mount_point.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("a full disk needs a tiny tmpfs, and mounting one needs root")
    mounted = _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount_point))
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs was refused ({mounted.stderr.strip()})")
    try:
        yield mount_point
    finally:
        _umount(mount_point)


def fill(directory: Path) -> Path:
    """Write a file in ``directory`` until the file system takes no byte more; returns it."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (1 << 20, 1 << 16, 4096, 512, 1):
            block = b"\0" * size
            with contextlib.suppress(OSError):
                while os.write(fd, block):
                    pass
    finally:
        os.close(fd)
    probe = directory / "probe"
    try:
        probe.write_bytes(b"x")
    except OSError:
        return filler
    probe.unlink()
    raise AssertionError(f"{directory} still takes writes after filling it")
