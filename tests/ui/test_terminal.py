"""What a participant sees in a real terminal (tmux) at 60, 80 and 120 columns: no command
broken across lines, no lab id cut, wrapped hook feedback keeping its indent.

tmux knows which line breaks the terminal made (a long line wrapping at the edge) and which
the program printed: ``capture-pane -J`` joins the first kind. A command the terminal wraps
is still one line to copy; a command with a newline printed inside it is broken.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from harness.engine.manifest import find_lab, load_labs
from harness.workspace import Workspace
from harness.workspace.fixture import DEFAULT_FIXTURE
from tests.builders import REPO_ROOT, tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

SESSION = """
lab list
lab start 1
lab check
lab start 3
echo 'A note.' >> docs/use_cases/UC-002-edit-owner.md
lab check
lab hint
lab hint
lab reset
lab backups
lab status
lab next
lab start 7
"""
SENSORS = "./mvnw -q test -Dgroups=sensor"


@pytest.fixture
def terminal(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, int]]:
    width: int = request.param
    socket = str(tmp_path / "tmux.sock")
    tmux(
        socket,
        "start-server",
        ";",
        "set-option",
        "-g",
        "history-limit",
        "50000",
        ";",
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        str(width),
        "-y",
        "40",
        "bash --norc --noprofile",
    )
    try:
        yield socket, width
    finally:
        tmux(socket, "kill-server", check=False)


def run_in(terminal: tuple[str, int], workspace: Path, script: str) -> tuple[list[str], str]:
    """Type the commands into the terminal; return the joined lines and the raw screen."""
    socket, _ = terminal
    path = workspace.parent / "session.sh"
    path.write_text(script)
    venv = REPO_ROOT / ".venv" / "bin"
    line = (
        f"export PATH={venv}:$PATH NO_COLOR=1; cd {workspace} && clear && "
        f"bash -x {path} 2>&1 | grep -v '^++'; echo __DONE__"
    )
    tmux(socket, "send-keys", "-t", "t", line, "Enter")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        joined = tmux(socket, "capture-pane", "-p", "-J", "-t", "t", "-S", "-50000")
        if re.search(r"^__DONE__", joined, re.MULTILINE):
            raw = tmux(socket, "capture-pane", "-p", "-t", "t", "-S", "-50000")
            return joined.splitlines(), raw
        time.sleep(0.3)
    raise AssertionError("the session did not finish:\n" + joined[-3000:])


def shown_code(texts: list[str]) -> list[str]:
    """Inline code and code block lines of the Markdown texts the session shows."""
    found = []
    for source in texts:
        for token in MarkdownIt().parse(source):
            if token.type == "fence":
                found += [ln.strip() for ln in token.content.splitlines() if ln.strip()]
            found += [c.content for c in token.children or [] if c.type == "code_inline"]
    return found


def section(lines: list[str], command: str) -> list[str]:
    """The output of one command of the session (bash -x echoes "+ command" before it)."""
    start = lines.index(f"+ {command}")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("+ ")), None)
    return lines[start + 1 : end]


@pytest.mark.parametrize("terminal", [60, 80, 120], indirect=True, ids=lambda w: f"{w}-cols")
def test_nothing_a_participant_types_is_broken_or_cut(
    terminal: tuple[str, int], workspace: Workspace
) -> None:
    lines, raw = run_in(terminal, workspace.root, SESSION)
    screen = "\n".join(lines)

    lab1, lab3, lab7 = find_lab("1"), find_lab("3"), find_lab("7")
    texts = [
        lab1.intro,
        lab1.steps[0].instructions,
        lab3.intro,
        lab3.steps[0].instructions,
        *lab3.steps[0].hints,
        lab7.intro,
        lab7.steps[0].instructions,
    ]
    backups = json.loads(
        subprocess.run(
            [str(REPO_ROOT / ".venv" / "bin" / "lab"), "backups", "--json"],
            cwd=workspace.root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    reset = next(b for b in backups if b["name"].endswith("-before-reset"))
    commands = [
        SENSORS,
        f"lab restore {reset['name']}",
        f"git checkout {reset['ref']} -- .",
        "lab start N",
        *shown_code(texts),
    ]
    # A command wider than the terminal goes over lines the shell joins (`` \\`` at a space
    # outside quotes, harness/ui/prose.py): joined so, it is whole.
    shell = re.sub(r" \\\n\s*", " ", "\n".join(lines)).splitlines()
    for command in commands:
        assert any(command in line for line in shell), f"{command!r} is broken:\n{raw}"

    # Ids: every lab of the workspace's fixture in `lab list`, every step in `lab status`, the
    # backup in `lab backups`.
    listed = "\n".join(section(lines, "lab list"))
    for lab in (lab for lab in load_labs() if lab.fixture == DEFAULT_FIXTURE):
        assert re.search(rf"^ ?{re.escape(lab.id)} ", listed, re.MULTILINE), listed
    assert "…" not in listed.split("title")[0]
    status = "\n".join(section(lines, "lab status"))
    assert "held" in status and "tricks" in status
    assert reset["name"] in "\n".join(section(lines, "lab backups"))

    # Hook feedback: every line the program printed, wrapped or not, keeps its indent.
    check = section(lines, "lab check")  # the first: lab 1's, without a session
    assert any(SENSORS in line for line in check)
    feedback = section(lines[lines.index("+ lab start 3") :], "lab check")
    start = next(i for i, ln in enumerate(feedback) if "require-sensors.sh: exit 2" in ln)
    # up to the next scenario's heading or event, or the first result
    end = next(
        i
        for i in range(start + 1, len(feedback))
        # "… " starts a progress line on stderr (no spinner in a pipe), not the feedback
        if feedback[i].lstrip().startswith(("✔", "✘", "▸", "⚙", "… "))
    )
    said = [ln for ln in feedback[start:end] if ln.strip()]
    assert len(said) > 3, feedback
    _, width = terminal

    def keeps_indent(line: str) -> bool:
        # A path or command too wide for the indent moves left just enough to fit whole,
        # on a line of its own, instead of being broken at the terminal's edge.
        unit = line.strip()
        return line.startswith("      ") or (
            " " not in unit and len(unit) > width - 6 and len(line) <= width
        )

    assert all(keeps_indent(ln) for ln in said), "\n".join(feedback)
    assert "__DONE__" in screen
