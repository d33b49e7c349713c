"""The one jail builder (harness/jail.py): what a jail may change, see and inherit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.jail import Confinement, jail_argv, unavailable


def _options(argv: list[str], option: str) -> list[str]:
    """The first operand of every ``option`` in a bwrap command line."""
    return [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == option]


@pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))
def test_only_the_named_folders_are_writable_and_the_home_is_hidden(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    argv = jail_argv(["true"], writable=[copy], chdir=copy, env={"PATH": "/usr/bin"})
    assert _options(argv, "--bind") == [str(copy.resolve())]
    assert str(Path.home()) in _options(argv, "--tmpfs")
    assert "/tmp" in _options(argv, "--tmpfs")
    assert "--unshare-net" in argv and "--clearenv" in argv
    assert argv[argv.index("--") + 1 :] == ["true"]


def test_the_environment_is_an_allow_list_with_a_throwaway_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    jail = Confinement(tmp_path)
    try:
        env = jail.environment({"CLAUDECODE": "1"})
        assert "GITHUB_TOKEN" not in env
        assert env["LC_ALL"] == "C.UTF-8" and env["CLAUDECODE"] == "1"
        assert env["HOME"] == str(jail.home) and env["TMPDIR"] == str(jail.tmp)
        assert jail.home.is_dir() and jail.home != Path(os.environ["HOME"])
    finally:
        jail.close()
    assert not jail.holder.exists()
