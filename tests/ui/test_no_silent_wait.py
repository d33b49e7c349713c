"""No command a participant runs is silent for more than 2 s: in a real terminal (tmux, 100
columns) the screen changes at least every 2 s while ``lab check`` plays Lab 06 step 2, whose
session runs the hooks' own smoke tests (10-16 s) in one bash step.

Real: the workspace's bash hooks and smoke.sh, the emulator's session, ``lab`` in a terminal.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.builders import launched, run_cli, tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def longest_still(socket: str, done: str, timeout: float = 300) -> tuple[float, str]:
    """Watch the pane until ``done`` shows; the longest time its screen did not change once
    the command said its first word (Python's own start is the interpreter's, not lab's)."""
    last, since, longest = "", time.monotonic(), 0.0
    while not tmux(socket, "capture-pane", "-p", "-t", "t").strip():
        if time.monotonic() > since + timeout:
            raise AssertionError("the command never said a word")
        time.sleep(0.05)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = tmux(socket, "capture-pane", "-p", "-t", "t")
        now = time.monotonic()
        if screen != last:
            longest = max(longest, now - since) if last else 0.0
            last, since = screen, now
        if done in screen:
            return longest, screen
        time.sleep(0.1)
    raise AssertionError(f"{done!r} never appeared:\n{last}")


def still_from_launch(socket: str, cwd: Path, command: str, done: str = "END-42") -> float:
    """Run ``command`` in a 100-column terminal; the longest time its screen did not change,
    counted from the moment it was launched (its imports included)."""
    with launched(socket, cwd, command):
        last = tmux(socket, "capture-pane", "-p", "-t", "t")
        since, longest = time.monotonic(), 0.0
        deadline = since + 600
        while time.monotonic() < deadline:
            screen = tmux(socket, "capture-pane", "-p", "-t", "t")
            now = time.monotonic()
            if screen != last:
                longest = max(longest, now - since)
                last, since = screen, now
            if done in screen:
                return longest
            time.sleep(0.05)
        raise AssertionError(f"{done!r} never appeared:\n{last}")


def _lab(workspace: Workspace, *args: str) -> None:
    """A command that only brings the workspace to the state under test: in-process, so the
    setup does not pay a Python start per command (up to nine a state); the command whose
    screen is watched is the real process."""
    moved = run_cli(*args, cwd=workspace.root)
    assert moved.code == 0, f"lab {' '.join(args)}: " + moved.out + moved.err


SIMULATED = """\
[[step]]
do = "session_start"
[[step]]
do = "bash"
command = "./mvnw -q test -Dgroups=sensor"
[[step]]
do = "stop"
"""

# Each command a participant runs that can take more than 2 s, from the state it meets it in:
# the lab moves that run a step's setup or re-verify a lab (Maven at a snapshot), the
# sensors, the grader, a simulated session with a Maven run, the doctor.
STATES: dict[str, tuple[list[list[str]], str]] = {
    "next after reset": (
        [
            ["start", "1"],
            ["solve", "--apply"],
            ["check"],
            ["next"],
            ["solve", "--apply"],
            ["check"],
            ["reset"],
            ["solve", "--apply"],
            ["check"],
        ],
        "next",
    ),
    "reset": ([["start", "3"], ["goto", "2"]], "reset"),
    "start": ([], "start 8"),
    "solve --apply": ([["start", "1"]], "solve --apply"),
    "sensors": ([["start", "1"]], "sensors"),
    "verify-hook": (
        [],
        "verify-hook .claude/hooks/require-sensors.sh --break 'echo draft > docs/draft.md' "
        "--fix './mvnw -q test -Dgroups=sensor' --stale 'touch docs/draft.md'",
    ),
    "simulate": ([], "simulate scenarios/sensors.toml"),
    "doctor": ([], "doctor"),
}


@pytest.mark.parametrize("name", list(STATES))
def test_no_participant_command_is_silent_for_2_s(
    workspace: Workspace, tmp_path: Path, name: str
) -> None:
    """Counted from the launch: before, the imports alone left the screen still for 1-2 s on
    this loaded machine before a command's own spinner came."""
    before, command = STATES[name]
    for args in before:
        _lab(workspace, *args)
    if name == "simulate":
        (workspace.root / "scenarios").mkdir(exist_ok=True)
        (workspace.root / "scenarios" / "sensors.toml").write_text(SIMULATED)
    longest = still_from_launch(
        str(tmp_path / "tmux.sock"), workspace.root, f"{sys.executable} -m harness {command}"
    )
    assert longest < 2.0, f"lab {command}: the screen stood still for {longest:.1f} s"


def test_lab_check_with_smoke_tests_is_never_silent_for_2_s(
    workspace: Workspace, tmp_path: Path
) -> None:
    for args in (["start", "6"], ["goto", "2"]):
        _lab(workspace, *args)
    socket = str(tmp_path / "tmux.sock")
    with launched(socket, workspace.root, f"{sys.executable} -m harness check", height=40):
        longest, screen = longest_still(socket, "END-42")
    assert "smoke.sh" in screen
    assert longest < 2.0, f"the screen stood still for {longest:.1f} s:\n{screen}"


@pytest.mark.parametrize("width", [60, 80, 100, 120])
def test_the_hooks_last_line_stays_on_a_terminal(
    workspace: Workspace, tmp_path: Path, width: int
) -> None:
    """The spinner never wraps to a second line: one that did erased the line printed before it
    when it stopped, and the Stop hook's last line ("Only fresh, green reports …") was gone."""
    _lab(workspace, "start", "3")
    with (workspace.root / "docs" / "use_cases" / "UC-002-edit-owner.md").open("a") as out:
        out.write("A note.\n")
    socket = str(tmp_path / "tmux.sock")
    command = f"{sys.executable} -m harness check"
    with launched(socket, workspace.root, command, width=width, height=60):
        longest_still(socket, "END-42")
        joined = " ".join(tmux(socket, "capture-pane", "-p", "-J", "-t", "t").split())
    assert "Only fresh, green reports in target/surefire-reports/ count; console output" in (
        joined
    ), joined
