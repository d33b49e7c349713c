"""The shell of a scripted session on the real client is Hook Lab's, not the user's.

Claude Code 2.1.332 snapshots a login shell before its first Bash command, sourcing the user's
~/.bashrc. Hook Lab gives the client an empty HOME of its own, so a user's startup files (which
took seconds a session here and can print or alias into the proof) stay out, while git still
reads the user's configuration. The HOME here is the suite's fake one (conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.install import find_client
from tests.claude.hookproject import HookProject
from tests.conftest import require_real_client


def test_the_users_bashrc_is_not_sourced_and_git_keeps_the_users_config(
    project: HookProject, tmp_path: Path
) -> None:
    require_real_client()
    home = Path(os.environ["HOME"])
    sourced = tmp_path / "bashrc-was-sourced"
    (home / ".bashrc").write_text(f"touch {sourced}\n", encoding="utf-8")
    (home / ".gitconfig").write_text("[hooklab]\n\tprobe = from-the-users-gitconfig\n")
    with ClaudeCodeSession(
        project.root, client=find_client(), transcript_dir=tmp_path / "t"
    ) as session:
        session.session_start()
        ran = session.bash("echo home=$HOME; git config --global hooklab.probe")
    assert ran.outcome == "allowed", ran
    assert not sourced.exists(), "the client's shell sourced the user's ~/.bashrc"
    assert f"home={tmp_path / 't' / 'shell-home'}" in ran.tool_result, ran.tool_result
    assert "from-the-users-gitconfig" in ran.tool_result, ran.tool_result


def test_mvnw_in_the_clients_shell_finds_hook_labs_cache_as_the_emulator_does(
    project: HookProject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """./mvnw names its class-data archive after Hook Lab's cache, which defaults to one under
    $HOME: with the client's own HOME it would look elsewhere, run slower and pass other
    Maven options than the emulator (so --engine both could not share the run)."""
    require_real_client()
    client = find_client()
    monkeypatch.delenv("HOOKLAB_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    expected = Path(os.environ["HOME"]) / ".cache" / "hooklab"
    with ClaudeCodeSession(project.root, client=client, transcript_dir=tmp_path / "t") as session:
        session.session_start()
        ran = session.bash("echo cache=$HOOKLAB_CACHE home=$HOME")
    assert ran.outcome == "allowed", ran
    assert f"cache={expected} " in ran.tool_result, ran.tool_result
    assert f"home={tmp_path / 't' / 'shell-home'}" in ran.tool_result, ran.tool_result
