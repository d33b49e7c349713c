"""``lab watch`` in a real terminal (tmux) on a real workspace: file-system events re-check
within a second, a real Maven run's reports (what the checks read) set off a check and its
other build output none, nothing loops, and the keys work inside it (h: the next hint, q:
quit)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from harness.engine.progress import Progress
from harness.workspace import Workspace
from tests.builders import REPO_ROOT, tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
LAB = "09-read-the-adrs"


class Terminal:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        return tmux(self.socket, *args)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "w")

    def wait_for(self, pattern: str, timeout: float = 30) -> tuple[str, float]:
        """The screen once pattern (a regex) is on it, and how long that took."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            shown = self.screen()
            if re.search(pattern, shown):
                return shown, time.monotonic() - started
            time.sleep(0.03)
        raise AssertionError(f"{pattern!r} never appeared:\n{self.screen()}")

    def checks(self) -> int:
        """The number of the check on screen (lab watch numbers them)."""
        found = re.findall(r"\] check (\d+)", self.screen())
        assert found, self.screen()
        return int(found[-1])


@pytest.fixture
def watching(workspace: Workspace) -> Iterator[tuple[Terminal, Workspace]]:
    yield from _watch(workspace, LAB)


def _watch(workspace: Workspace, lab: str) -> Iterator[tuple[Terminal, Workspace]]:
    started = subprocess.run(
        [sys.executable, "-m", "harness", "start", lab],
        cwd=workspace.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert started.returncode == 0, started.stderr
    terminal = Terminal(str(workspace.root.parent / "tmux.sock"))
    command = (
        f"cd {workspace.root} && NO_COLOR=1 {sys.executable} -m harness watch; "
        "echo EXIT=$?; sleep 60"
    )
    terminal.tmux("new-session", "-d", "-s", "w", "-x", "150", "-y", "50", command)
    try:
        yield terminal, workspace
    finally:
        tmux(terminal.socket, "kill-server", check=False)


def test_an_edit_rechecks_within_a_second_and_a_maven_run_does_not(
    watching: tuple[Terminal, Workspace],
) -> None:
    terminal, ws = watching
    terminal.wait_for(r"check 1 · step 1 quiz: FAIL")
    assert "h: next hint · q: quit" in terminal.screen()

    # Edits the participant makes: each sets off one check, within a second.
    latencies = []
    for n, name in enumerate(["notes.md", "docs/notes.md", "notes.md"], start=2):
        path = ws.root / name
        with path.open("a", encoding="utf-8") as out:
            out.write(f"edit {n}\n")
        _shown, took = terminal.wait_for(rf"check {n}\b")
        latencies.append(took)
        assert name.split("/")[-1] in terminal.wait_for(rf"check {n} · step 1 quiz: FAIL")[0]
    assert max(latencies) < 1.0, f"re-check latencies {latencies} (machine under load?)"
    print(f"edit → re-check on screen: {', '.join(f'{t:.2f} s' for t in latencies)}")

    # A real Maven run writes target/: its reports set off checks, its classes none; no loop.
    before = terminal.checks()
    maven = subprocess.run(
        ["./mvnw", "-q", "test", "-Dgroups=sensor"],
        cwd=ws.root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert maven.returncode == 0, maven.stdout + maven.stderr
    assert list((ws.root / "target" / "surefire-reports").glob("TEST-*.xml"))
    time.sleep(1.5)  # several debounce periods: the reports' checks are on screen
    after = terminal.checks()
    assert after > before, terminal.screen()
    time.sleep(1.5)  # and no check set off another
    assert terminal.checks() == after, terminal.screen()

    # The solution, written by hand: the step passes on screen.
    (ws.root / "answers").mkdir()
    shutil.copyfile(
        REPO_ROOT / "labs" / LAB / "solution" / "adr-quiz.toml", ws.root / "answers/adr-quiz.toml"
    )
    terminal.wait_for(r"step 1 quiz: PASS")
    assert "Passed. q, then lab next." in terminal.screen()


def test_h_shows_the_next_hint_and_q_quits(watching: tuple[Terminal, Workspace]) -> None:
    terminal, ws = watching
    terminal.wait_for(r"check 1 · step 1 quiz: FAIL")

    terminal.tmux("send-keys", "-t", "w", "h")
    shown, _ = terminal.wait_for(r"hint 1/\d")
    assert "press h again for a stronger one" in shown
    terminal.tmux("send-keys", "-t", "w", "h")
    terminal.wait_for(r"hint 2/\d")
    # The hint counts as given, as lab hint's does (the trainer sees hints used).
    progress = Progress.load(ws)
    assert progress.lab_progress(LAB).step("quiz").hints == 2
    assert terminal.checks() == 1  # a key is no change: nothing was re-checked

    terminal.tmux("send-keys", "-t", "w", "q")
    shown, _ = terminal.wait_for(r"EXIT=\d+")
    assert "EXIT=0" in shown and "stopped watching" in shown


@pytest.fixture
def watching_lab01(workspace: Workspace) -> Iterator[tuple[Terminal, Workspace]]:
    yield from _watch(workspace, "01-sensor-reports")


def test_a_sensor_run_in_another_terminal_is_seen(
    watching_lab01: tuple[Terminal, Workspace],
) -> None:
    """The command the step recommends, run beside lab watch: the step passes on screen without
    a file of the participant's being saved."""
    terminal, ws = watching_lab01
    terminal.wait_for(r"check 1 · step 1 run-sensors: FAIL")
    maven = subprocess.run(
        ["./mvnw", "-q", "test", "-Dgroups=sensor"],
        cwd=ws.root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert maven.returncode == 0, maven.stdout + maven.stderr
    shown, _ = terminal.wait_for(r"step 1 run-sensors: PASS", timeout=10)
    assert "all five sensor reports are there, fresh and green" in " ".join(shown.split())
