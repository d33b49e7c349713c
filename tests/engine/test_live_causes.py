"""Why a live step fails, said as a cause with a fix: each on a session the real, pinned client
(scripted model) wrote, in a workspace at Lab 11 step 4 (``lab check --json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.install import ClientInstall, find_client
from harness.errors import HarnessError
from tests.engine.live_steps import ReachStep, check_json
from tests.recorded_sessions import (
    APPROVED,
    ASK_DONE,
    AUDIT_PROMPT,
    AUDIT_REPORT,
    AUDITOR,
    DONE,
    UC5,
    copy_workspace_into,
    play,
)

LAB = "11-try-it-yourself"


@pytest.fixture(scope="module")
def at_step_four(workspace_at_step: ReachStep) -> Path:
    return workspace_at_step(LAB, "earn-done")


def _pinned() -> ClientInstall:
    client = find_client()
    assert client is not None
    return client


def _result(root: Path, config: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    done, data = check_json(root, config, monkeypatch)
    assert done.code == 1, done
    check: dict[str, Any] = data["checks"][-1]  # the live check, last
    return check


def test_a_session_in_a_subfolder_is_named_with_the_folder_to_start_in(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    with ClaudeCodeSession(
        root, cwd=root / "docs", client=_pinned(), transcript_dir=config
    ) as session:
        session.session_start()
        session.prompt(ASK_DONE)
        session.edit(f"../{UC5}", APPROVED, DONE)
        session.stop("Done.")
    result = _result(root, config, monkeypatch)
    assert result["message"].startswith("your session ran in docs, not in the workspace root")
    assert result["details"]["fix"] == (
        f"start claude in the workspace root: cd {root} && claude; then do the step again"
    )


def test_a_session_outside_the_workspace_is_named_with_the_folder_to_start_in(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started one folder up (where ``lab init`` was typed): the session is not the
    workspace's at all, yet the check names it rather than saying there was none."""
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    with ClaudeCodeSession(root, cwd=root.parent, client=_pinned(), transcript_dir=config) as s:
        s.session_start()
        s.prompt(ASK_DONE)
        s.stop("Done.")
    result = _result(root, config, monkeypatch)
    assert result["message"].startswith(
        f"your session since this step began ran in {root.parent} at "
    ), result
    assert "outside the workspace" in result["message"]
    assert result["details"]["fix"] == (
        f"start claude in the workspace root: cd {root} && claude; then do the step again"
    )
    assert "no Claude Code session in this workspace since this step began" in result["found"]


def test_an_agent_the_client_did_not_load_is_named_with_the_fix(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    # An untrusted folder: the hooks run (-p), the workspace's plugin does not load.
    with ClaudeCodeSession(root, client=_pinned(), transcript_dir=config, trusted=False) as session:
        session.session_start()
        session.prompt(ASK_DONE)
        session.edit(UC5, APPROVED, DONE)
        with pytest.raises(HarnessError):
            session.subagent_stop(AUDITOR, AUDIT_PROMPT, AUDIT_REPORT)
        session.stop("The audit agent does not exist here.")
    result = _result(root, config, monkeypatch)
    assert result["message"].startswith(
        f"Claude Code did not have the agent {AUDITOR} (transcript line "
    )
    assert "plugin aiup-vaadin-jooq was not loaded" in result["message"]
    assert result["details"]["fix"].startswith(f"quit Claude Code and start claude again in {root}")


def test_a_session_whose_hooks_did_not_run_says_to_trust_the_folder(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pinned client with every hook off (its own disableAllHooks setting): what a session
    # that did not load the workspace's hooks records.
    pinned = _pinned()
    stand_in = tmp_path / "claude"
    stand_in.write_text(
        f'#!/usr/bin/env bash\nexec {pinned.path} "$@" --settings \'{{"disableAllHooks": true}}\'\n'
    )
    stand_in.chmod(0o755)
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    client = ClientInstall(stand_in, pinned.version)
    with ClaudeCodeSession(root, client=client, transcript_dir=config) as session:
        session.session_start()
        session.prompt(ASK_DONE)
        session.edit(UC5, APPROVED, DONE)
        session.stop("UC-005 is Done.")
    result = _result(root, config, monkeypatch)
    assert result["message"].startswith("no hook of the workspace ran in your session")
    assert "answer 'Yes, I trust this folder'" in result["details"]["fix"]


def test_a_client_version_hook_lab_does_not_know_is_named_when_nothing_matched(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    played = play("stop-blocked", root, config)
    # The same real transcript, as another release would have stamped it.
    entries = [json.loads(line) for line in played.transcript.read_text().splitlines()]
    for entry in entries:
        if entry.get("version") == "2.1.332":
            entry["version"] = "2.1.999"
    played.transcript.write_text("".join(json.dumps(e) + "\n" for e in entries))
    result = _result(root, config, monkeypatch)
    assert result["message"].startswith(
        "your session was recorded by Claude Code 2.1.999, a version Hook Lab does not know"
    )
    assert result["details"]["fix"].startswith("lab doctor --prove-client")


def test_no_session_since_the_step_began_names_the_older_one(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.engine.lab_runner import LabRunner
    from harness.workspace import Workspace

    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    played = play("stop-blocked", root, config)
    LabRunner(Workspace(root)).goto("earn-done")  # entering the step again is later
    result = _result(root, config, monkeypatch)
    assert result["message"] == "no Claude Code session in this workspace since this step began"
    assert f"your newest session here ({played.transcript.stem}) began at" in result["found"]
    assert "start claude in" in result["details"]["fix"]
