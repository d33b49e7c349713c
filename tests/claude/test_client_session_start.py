"""When a session start is over, on the real client.

Hook Lab opens every run of Claude Code with the SDKs' ``initialize`` handshake. Claude Code
2.1.332 answers it only after every SessionStart hook has answered, so the answer is when the
start is over: no waiting on a guess for a client whose hooks never run.
"""

from __future__ import annotations

from pathlib import Path

from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.install import ClientInstall, find_client
from tests.claude.hookproject import HookProject
from tests.conftest import require_real_client


def _pinned() -> ClientInstall:
    require_real_client()
    client = find_client()
    assert client is not None
    return client


def test_the_start_waits_for_a_slow_session_start_hook(project: HookProject) -> None:
    # The answer must come after the hook: were the handshake answered first, the hook's
    # context would be missing here.
    project.hook("SessionStart", "sleep 1.5\necho 'base: abc123'", matcher="startup")
    with ClaudeCodeSession(
        project.root, client=_pinned(), transcript_dir=project.root.parent / "t"
    ) as session:
        started = session.session_start()
    assert started.additional_context == "base: abc123"
    assert [run.exit_code for run in started.hooks] == [0]
    assert not [note for note in started.notes if "may not run" in note], started.notes


def test_a_client_that_runs_no_hook_is_told_by_its_answer_not_by_a_timeout(
    project: HookProject, tmp_path: Path
) -> None:
    # A stand-in, not a release: the pinned client with every hook off (its own
    # disableAllHooks setting, given where Hook Lab does not read it), as a client that fails
    # open looks. The settings register one SessionStart hook; none answers.
    project.hook("SessionStart", "echo 'base: abc123'")
    pinned = _pinned()
    stand_in = tmp_path / "claude"
    stand_in.write_text(
        f'#!/usr/bin/env bash\nexec {pinned.path} "$@" --settings \'{{"disableAllHooks": true}}\'\n'
    )
    stand_in.chmod(0o755)
    client = ClientInstall(stand_in, pinned.version)
    with ClaudeCodeSession(project.root, client=client, transcript_dir=tmp_path / "t") as session:
        started = session.session_start()
        prompted = session.prompt("Hello.")
    assert started.hooks == [] and started.additional_context == ""
    assert "0 of 1 SessionStart hooks answered when it had started" in " ".join(started.notes)
    # The session goes on as usual after the handshake.
    assert prompted.outcome == "allowed", prompted
