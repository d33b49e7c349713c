"""Misbehaving hooks in the harness's Claude Code runtime: one that hangs, one that prints
megabytes, one that is not executable, one that is not there. The session goes on as Claude
Code's does, and the participant's workspace comes through as it was."""

from __future__ import annotations

import os
import time
from pathlib import Path

from harness.claude import EmulatedSession, parse_settings
from harness.claude.runner import OUTPUT_CAP
from harness.workspace import Workspace
from tests.reliability.participant import assert_intact, state
from tests.reliability.plugin import fault

INTACT = "the participant's files, progress and backups intact"
TARGET = "docs/use_cases/UC-004-add-pet.md"


def hook_script(directory: Path, name: str, body: str, *, executable: bool = True) -> Path:
    """A hook outside the workspace: registering it must not change the participant's files."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/usr/bin/env bash\n" + body.strip() + "\n")
    path.chmod(0o755 if executable else 0o644)
    return path


def session_with(
    root: Path, transcripts: Path, event: str, script: Path, timeout: float
) -> EmulatedSession:
    hooks = {
        event: [{"hooks": [{"type": "command", "command": f'"{script}"', "timeout": timeout}]}]
    }
    return EmulatedSession(
        root, parse_settings({"hooks": hooks}, "test settings"), transcript_dir=transcripts
    )


def running(pid: int) -> bool:
    """Alive and not a zombie (a killed child may wait to be reaped by init)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone_soon(pids: list[int], within: float = 10.0) -> bool:
    """SIGKILL is delivered asynchronously: on a loaded machine a killed process can still be
    scheduled for a moment after killpg returns. Dead within seconds is dead; a hook that was
    never killed would sleep on for ten minutes."""
    deadline = time.monotonic() + within
    while any(running(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@fault(
    "misbehaving hooks",
    "a hook that hangs",
    tried="a Stop hook that starts a child and sleeps for ten minutes, timeout 1 s",
    held="the hook and its child are killed at the timeout, the hook decides nothing, the turn "
    f"ends; {INTACT}",
)
def test_a_hook_that_hangs(participant: Workspace, tmp_path: Path) -> None:
    root = participant.root
    pids = tmp_path / "pids"
    script = hook_script(
        tmp_path / "hooks",
        "hang.sh",
        f'sleep 600 & echo $! >> "{pids}"\necho $$ >> "{pids}"\necho "held" >&2\nsleep 600\nexit 2',
    )
    before = state(root)
    with session_with(root, tmp_path / "t", "Stop", script, timeout=1) as session:
        outcome = session.stop("Done.")
    assert outcome.outcome == "allowed" and outcome.turn_ended
    (run,) = outcome.hooks
    assert run.timed_out and run.exit_code is None
    assert any("timed out" in note for note in outcome.notes)
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2 and gone_soon(started)
    assert_intact(before, root)


@fault(
    "misbehaving hooks",
    "a hook that prints megabytes",
    tried="a Stop hook that writes 5 MB to stdout and 5 MB to stderr, then exits 2",
    held="nothing hangs; the stop is blocked with the reason first and, as the real client "
    f"does, the whole stderr; what the run keeps for views is capped at {OUTPUT_CAP:,} "
    f"characters; {INTACT}",
)
def test_a_hook_that_prints_megabytes(participant: Workspace, tmp_path: Path) -> None:
    root = participant.root
    script = hook_script(
        tmp_path / "hooks",
        "loud.sh",
        "cat >/dev/null\nhead -c 5000000 /dev/zero | tr '\\0' o\n"
        "echo 'the reason comes first' >&2\nhead -c 5000000 /dev/zero | tr '\\0' e >&2\nexit 2",
    )
    before = state(root)
    with session_with(root, tmp_path / "t", "Stop", script, timeout=60) as session:
        outcome = session.stop("Done.")
    assert outcome.outcome == "blocked"
    said = outcome.feedback.index("the reason comes first")  # after the client's own heading
    assert said < 500 and outcome.feedback.endswith("e" * 5_000_000)
    (run,) = outcome.hooks
    assert len(run.stdout) <= OUTPUT_CAP and len(run.stderr) <= OUTPUT_CAP
    assert_intact(before, root)


@fault(
    "misbehaving hooks",
    "a hook that is not executable",
    tried="a PreToolUse hook whose script lost its execute bit, then an Edit",
    held="a non-blocking hook error naming the hook; the edit goes through as in Claude Code; "
    f"{INTACT} but for that edit",
)
def test_a_hook_that_is_not_executable(participant: Workspace, tmp_path: Path) -> None:
    root = participant.root
    script = hook_script(tmp_path / "hooks", "guard.sh", "exit 2", executable=False)
    assert not os.access(script, os.X_OK)
    before = state(root)
    text = (root / TARGET).read_text()
    with session_with(root, tmp_path / "t", "PreToolUse", script, timeout=10) as session:
        outcome = session.edit(TARGET, "**Status:** Draft", "**Status:** Approved")
    assert outcome.outcome == "allowed" and outcome.tool_ran
    (run,) = outcome.hooks
    assert run.exit_code == 126
    assert any("guard.sh" in error for error in outcome.errors)
    edited = text.replace("**Status:** Draft", "**Status:** Approved")
    assert_intact(before, root, agent_edits={TARGET: edited})


@fault(
    "misbehaving hooks",
    "a hook that is not there",
    tried="a Stop hook registered with a path that does not exist",
    held=f"a non-blocking hook error (exit 127), the turn ends; {INTACT}",
)
def test_a_hook_that_is_not_there(participant: Workspace, tmp_path: Path) -> None:
    root = participant.root
    before = state(root)
    with session_with(root, tmp_path / "t", "Stop", tmp_path / "gone.sh", timeout=10) as session:
        outcome = session.stop("Done.")
    assert outcome.outcome == "allowed" and outcome.turn_ended
    (run,) = outcome.hooks
    assert run.exit_code == 127 and outcome.errors
    assert_intact(before, root)
