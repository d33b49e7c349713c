"""What argparse prints (help, a command lab does not have) in a real 100-column terminal:
no residue of the startup spinner, no line the terminal has to wrap mid-word.

Real: ``lab`` as its own process, in tmux (the spinner draws only on a terminal).
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.builders import REPO_ROOT, run_lab_process
from tests.ui.test_copyable_lines import screen_of as terminal_screen

_SERVERS = itertools.count()
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def screen_of(tmp_path: Path, command: str) -> str:
    """The 100-column terminal's screen once ``command`` is done, the terminal's wraps joined
    (a server of its own each time: one just killed may still hold its socket)."""
    socket = str(tmp_path / f"tmux-{next(_SERVERS)}.sock")
    return "\n".join(terminal_screen(socket, tmp_path, 100, command))


@needs_tmux
def test_help_starts_on_a_clean_line(tmp_path: Path) -> None:
    # `lab --help` imports every command's module before it can print: long enough for the
    # startup spinner to draw on a loaded machine, so the help must come after it is erased.
    # The spinner waits 0.3 s first; a slow start is what the walk saw, so try a few times.
    for _ in range(3):
        screen = screen_of(tmp_path, "lab --help")
        assert "starting" not in screen, screen
        assert screen.lstrip().startswith("usage: lab"), screen


def lab(*args: str) -> subprocess.CompletedProcess[str]:
    return run_lab_process(*args, cwd=REPO_ROOT, env={"COLUMNS": "100", "NO_COLOR": "1"})


def test_going_back_names_goto_and_reset_in_whole_lines() -> None:
    done = lab("back")
    assert done.returncode == 2, done.stderr  # argparse's usage code, as for any usage error
    assert "Traceback" not in done.stderr
    assert all(len(line) <= 100 for line in done.stderr.splitlines()), done.stderr
    assert "lab goto N" in done.stderr and "lab reset N" in done.stderr, done.stderr
    assert "no command lab back" in done.stderr and "backups" not in done.stderr


def test_a_misspelt_command_names_the_closest_one() -> None:
    done = lab("chek")
    assert done.returncode == 2
    assert all(len(line) <= 100 for line in done.stderr.splitlines()), done.stderr
    assert "did you mean: lab check" in done.stderr, done.stderr
    # Below the top level too: lab dev's own commands.
    done = lab("dev", "chek")
    assert done.returncode == 2
    assert "did you mean: lab dev check" in done.stderr, done.stderr


@needs_tmux
def test_an_unknown_command_is_not_wrapped_mid_word(tmp_path: Path) -> None:
    screen = screen_of(tmp_path, "lab back")
    # A line the terminal wrapped is joined back: none of the message may be that long.
    assert all(len(x) < 100 for x in screen.splitlines()), screen
    assert "starting" not in screen, screen
