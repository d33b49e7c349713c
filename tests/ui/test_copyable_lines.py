"""Lines a person copies are never broken, at 60, 80, 100 and 120 columns, on a terminal and
piped (``lab status | cat``): Lab 07 step 3's settings snippet, each of its lines whole, and a
piped screen laid out at the terminal's width rather than 120 columns.

tmux's ``capture-pane -J`` joins the breaks the terminal made; a break the program printed
stays, so a code line found whole in the joined screen is one a person can copy.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.workspace import Workspace
from tests.builders import command_screen
from tests.ui.test_terminal import shown_code

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def screen_of(socket: str, workspace: Path, width: int, command: str) -> list[str]:
    """The screen ``command`` left in a ``width``-column terminal, its wraps joined."""
    return command_screen(socket, workspace, width, command, height=80, timeout=60, history=False)


@pytest.mark.parametrize("width", [60, 80, 100, 120])
def test_lab07_snippet_is_whole_on_a_terminal_and_piped(
    workspace: Workspace, tmp_path: Path, width: int
) -> None:
    runner = LabRunner(workspace)
    runner.start("7")
    runner.goto("register")
    snippet = shown_code([find_lab("7").step("register").instructions])
    assert '"command": "\\"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh\\"",' in snippet
    lab = f"{sys.executable} -m harness status"
    for n, command in enumerate((lab, f"{lab} | cat")):
        # A server of its own per command: a socket reused right after kill-server may meet
        # the server still going away.
        lines = screen_of(str(tmp_path / f"tmux{n}.sock"), workspace.root, width, command)
        for code in snippet:
            assert any(code in line for line in lines), f"{code!r} broken in {command}:\n" + (
                "\n".join(lines)
            )
        # Laid out for this terminal: the box's top edge fits it.
        top = next(line for line in lines if line.startswith("╭"))
        assert len(top) <= width, f"{command}: a {len(top)}-column box at {width}"
