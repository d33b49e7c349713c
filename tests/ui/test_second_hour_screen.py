"""Issue 21, the screen: a newcomer's Labs 01–04 in a real terminal (tmux) at 60, 80, 100 and
120 columns, with real Maven, the real hooks and a deliberate mistake or two.

* the quiz's lines stay inside their box (no text spilled to column 0);
* the step's own hook message is shown whole, its command line included;
* paths are never cut or broken mid-name: a path that fits the terminal is on one screen line
  (``lab simulate``, ``lab doctor``), and ``lab watch``'s live region fits the terminal.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.builders import REPO_ROOT, tmux
from tests.ui.test_terminal import run_in, section, terminal

__all__ = ["terminal"]  # the fixture, shared with test_terminal

WIDTHS = [60, 80, 100, 120]
WRONG_PREDICTION = """[[step]]
do = "session_start"

[[step]]
do = "edit"
file = "docs/use_cases/UC-005-add-visit.md"
old = "**Status:** Approved"
new = "**Status:** Done"
expect = "allowed"
"""
REPORT_PATH = "target/surefire-reports/TEST-ai.unifiedprocess.petclinic.ArchitectureTest.xml"

SESSION = """
lab start 1
./mvnw -q test -Dgroups=sensor
lab check
lab next
mkdir -p answers
printf 'q1 = "failures"\\nq2 = "deletes it"\\nq3 = "a"\\n' > answers/reports.toml
lab check
lab doctor
lab start 3
echo 'A note.' >> docs/use_cases/UC-002-edit-owner.md
lab check
printf '[[step]]\\ndo = "session_start"\\n[[step]]\\ndo = "stop"\\n' > stop.toml
lab simulate stop.toml
lab start 4
cp ../wrong-prediction.toml scenarios/status-guard.toml
"""


def watch_screen(terminal: tuple[str, int], root: Path) -> list[str]:
    """lab watch in the pane itself (a real terminal: its live region redraws in place and
    crops at the edge), left with q once it has judged the step; the screen lines it drew."""
    socket = terminal[0]
    line = f"clear; cd {root} && lab watch; echo __WATCHED__"
    tmux(socket, "send-keys", "-t", "t", line, "Enter")
    deadline = time.monotonic() + 300
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux(socket, "capture-pane", "-p", "-t", "t")
        if "· step 1 done-refused: FAIL" in screen:
            break
        time.sleep(0.5)
    shown = screen.splitlines()
    tmux(socket, "send-keys", "-t", "t", "q")
    while time.monotonic() < deadline:
        if "__WATCHED__" in tmux(socket, "capture-pane", "-p", "-t", "t"):
            break
        time.sleep(0.3)
    start = max((i for i, ln in enumerate(shown) if "── lab watch ──" in ln), default=0)
    return shown[start:]


def whole_on_a_line(path: str, raw: str, width: int) -> bool:
    """Fitting the terminal, the path is on one screen line; wider, it is never shown cut
    (tmux's joined lines, which undo only the terminal's own wrapping, have it whole)."""
    if len(path) <= width:
        return any(path in line for line in raw.splitlines())
    return True


@pytest.mark.maven
@pytest.mark.parametrize("terminal", WIDTHS, indirect=True, ids=lambda w: f"{w}-cols")
def test_a_newcomers_labs_01_to_04_fit_the_terminal(
    terminal: tuple[str, int], workspace: Workspace
) -> None:
    _, width = terminal
    # Output goes through a pipe (bash -x, to mark each command): tell lab the pane's width,
    # as a terminal would.
    (workspace.root.parent / "wrong-prediction.toml").write_text(WRONG_PREDICTION)
    lines, raw = run_in(terminal, workspace.root, f"export COLUMNS={width}\n{SESSION}")
    raw_lines = raw.splitlines()
    watch = watch_screen(terminal, workspace.root)
    # Every item is judged, so a failure lists all that is wrong on this screen, not the first.
    problems: list[str] = []

    def expect(ok: object, item: str, shown: str) -> None:
        if not ok:
            problems.append(f"{item}:\n{shown}")

    # Item 4: the quiz panel of Lab 01 step 2 (shown by lab next) keeps every line in its box.
    start = next(i for i, ln in enumerate(raw_lines) if "step 2/3: Read a report" in ln)
    end = next(i for i in range(start, len(raw_lines)) if raw_lines[i].startswith("╰"))
    panel = raw_lines[start + 1 : end]
    boxed = "\n".join(panel)
    expect(any("# q1: which attribute" in ln for ln in panel), "the quiz is shown", boxed)
    expect(all(ln.startswith("│") for ln in panel), "quiz lines stay in their box", boxed)
    expect(all(len(ln) <= width for ln in panel), "quiz lines fit the terminal", boxed)

    # Item 3 on screen: the option's text counts, a text that is no option asks for a letter.
    at_doctor = lines.index("+ lab doctor")
    quiz_at = max(i for i in range(at_doctor) if lines[i] == "+ lab check")
    quiz = " ".join(" ".join(lines[quiz_at:at_doctor]).split())
    # q2 is no option, so no answer is judged yet; q1's option text is taken (not named).
    expect("1 of 3 questions still to answer" in quiz, "q2 still to answer", quiz)
    expect("q1:" not in quiz, "the option's text 'failures' counts", quiz)
    expect(
        "is not one of the options (a, b, c): write the letter of an option" in quiz,
        "a text that is no option",
        quiz,
    )

    # Item 7: the Claude Code cache path in lab doctor, whole.
    doctor = "\n".join(section(lines, "lab doctor"))
    cache = re.search(r"(/\S*/\.cache/hooklab/claude-code\S*?)[;,)]?(\s|$)", doctor)
    expect(cache, "lab doctor names the Claude Code cache path", doctor)
    expect("…" not in doctor, "lab doctor cuts nothing", doctor)
    if cache:
        expect(whole_on_a_line(cache.group(1), raw, width), "the cache path on one line", raw)

    # Item 5: Lab 03 step 1's own Stop hook message, whole, down to what Claude must run.
    after3 = lines[lines.index("+ lab start 3") :]
    check3 = section(after3, "lab check")
    said = "\n".join(check3)
    expect("        ./mvnw -q test -Dgroups=sensor" in check3, "the hook's command line", said)
    expect("console output does not." in " ".join(said.split()), "the hook's last words", said)
    expect(not any(ln.strip() == "…" for ln in check3), "the hook message is not cut", said)

    # Item 7: lab simulate shows the report path on one line wherever it fits.
    simulate = "\n".join(section(after3, "lab simulate stop.toml"))
    expect(REPORT_PATH in simulate, "lab simulate names the report", simulate)
    expect(whole_on_a_line(REPORT_PATH, raw, width), "the report path on one line", raw)

    # Items 6 and 7: lab watch on a wrong prediction: the headline says so; what the hooks
    # did is shown, the sandbox's JSON they were given (with its transcript path) stays in
    # lab check --json; the live region fits the terminal.
    shown = "\n".join(watch)
    flat = " ".join(shown.split())
    expect("your prediction was wrong" in flat, "lab watch: a wrong prediction", shown)
    expect('"transcript_path"' not in flat, "lab watch: no hook JSON on screen", shown)
    expect("(the JSON each hook was given: lab check --json)" in flat, "lab watch: --json", shown)
    expect(all(len(ln) <= width for ln in watch), "lab watch fits the terminal", shown)

    assert not problems, f"at {width} columns:\n\n" + "\n\n".join(problems)


def test_the_tmux_helpers_are_there() -> None:
    """The helpers this module borrows (a guard: a rename there must not silently skip us)."""
    assert callable(tmux) and callable(run_in) and (REPO_ROOT / ".venv" / "bin" / "lab").exists()
    assert subprocess.run(["tmux", "-V"], capture_output=True, check=False).returncode == 0
