"""``lab trainer status --watch`` in a real terminal (tmux): it follows the room, rides out a
remote that goes away, and stops on Ctrl-C with 130."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from harness.trainer.publish import make_settings, submit
from tests.builders import tmux
from tests.trainer.cohort_builder import Seeded, SyntheticLabs, participant, seed_cohort
from tests.trainer.servers import GitDaemon


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_watch_follows_the_room_and_survives_the_remote_going_away(
    tmp_path: Path, labs: SyntheticLabs, served: Path
) -> None:
    now = time.time()
    seed_cohort(served / "room.git", "w", [Seeded("amy", 1, now - 600, 120, 60)], now=now)
    daemon = GitDaemon(served).start()
    url = daemon.url("room.git")
    session = "watch"
    socket = str(tmp_path / "tmux.sock")
    cmd = (
        f"cd {tmp_path} && HOOKLAB_LABS={labs.root} NO_COLOR=1 {sys.executable} -m harness "
        f"trainer status {url} --cohort w --watch --interval 0.3 --no-verify; echo EXIT=$?; "
        "sleep 30"
    )
    tmux(socket, "new-session", "-d", "-s", session, "-x", "160", "-y", "40", cmd)

    def screen() -> str:
        return tmux(socket, "capture-pane", "-p", "-t", session, check=False)

    def wait_until(test: str, present: bool = True) -> str:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            shown = screen()
            if (test in shown) is present:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{test!r} {'never appeared' if present else 'stayed'}:\n{screen()}")

    back = None
    try:
        assert "01·report" in wait_until("amy")
        zed = participant(tmp_path / "zed", labs, 3)
        submit(zed, make_settings(url, "zed", "w"))
        assert "02·two" in wait_until("zed")
        daemon.stop()
        wait_until("last read failed")
        assert "zed" in screen()  # the last table stays up
        back = GitDaemon(served, port=daemon.port).start()
        wait_until("last read failed", present=False)
        tmux(socket, "send-keys", "-t", session, "C-c")
        assert "EXIT=130" in wait_until("EXIT=")
    finally:
        tmux(socket, "kill-server", check=False)
        (back or daemon).stop()
