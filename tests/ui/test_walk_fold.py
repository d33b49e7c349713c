"""A long hook message is folded on `lab check`'s screen, but never the part the step is about
(issue 42's walk: Lab 10 step 1's `[PROMPT]: insufficient evidence in transcript` and Lab 07
step 3's own hook's reason were both among the hidden lines).

Real: Lab 10 step 1 solved and checked on a provisioned workspace (the workspace's bash hooks,
the emulator's judge), the step's events printed the way `lab check` prints them.
"""

from __future__ import annotations

import io

from rich.console import Console

from harness.engine.lab_runner import LabRunner
from harness.results import Status
from harness.ui.activity_view import activity
from harness.ui.hook_event_view import hook_message_text
from harness.workspace import Workspace
from tests.builders import run_lab_process

AT_100 = {"NO_COLOR": "1", "COLUMNS": "100"}  # a 100-column terminal, without colour


def test_a_folded_message_keeps_the_line_the_step_looks_for() -> None:
    said = "\n".join(f"line {n}" for n in range(1, 21)) + "\n[PROMPT]: the reason\nlast"
    assert hook_message_text(said, look_for="the reason").splitlines()[-6:] == [
        "line 11",
        "line 12",
        "… 7 more lines",
        "line 20",
        "[PROMPT]: the reason",
        "… 1 more line: lab check --verbose shows the whole message",
    ]
    # Without anything to look for, the fold is as before.
    assert hook_message_text(said).splitlines()[-1] == (
        "… 10 more lines: lab check --verbose shows the whole message"
    )


def test_lab10_judge_reason_stays_on_screen(workspace: Workspace) -> None:
    runner = LabRunner(workspace)
    runner.start("10")
    assert runner.progress.step == "the-judge"
    lines = [line.strip() for line in _solved_and_checked(runner).splitlines()]
    # The prompt hook's row names it by its type and its answer: it has no exit code.
    assert "the prompt hook: the model said not ok" in lines
    assert not any(line.endswith("$ARGUMENTS: exit 2") for line in lines)
    # The judge's reason, the step's point, comes after require-sensors.sh's message, and
    # shows whole whether or not that message is folded (since it was shortened, it is not).
    said = " ".join(lines)
    judge = (
        "Stop hook feedback: [Did the tests run and pass after the last change? $ARGUMENTS]: "
        "insufficient evidence in transcript"
    )
    assert judge in said and said.index(judge) > said.index('require-sensors.sh"]:'), said


def _lab_next_after_lab11(workspace: Workspace, others_done: bool) -> list[str]:
    """`lab next` at 100 columns, a real process, once Lab 11 (the petclinic fixture's last)
    is complete here; with ``others_done``, every other petclinic lab is too."""
    import time

    from harness.engine.manifest import find_lab

    runner = LabRunner(workspace)
    lab11 = find_lab("11")
    assert runner.course.following_lab(find_lab("10")) == "11-try-it-yourself"
    assert runner.course.following_lab(lab11) is None
    runner.progress.lab, runner.progress.step = lab11.id, None
    others = runner.course.labs_left(lab11, runner.progress.labs) if others_done else []
    for lab_id in [lab11.id, *(find_lab(n).id for n in others)]:
        runner.progress.lab_progress(lab_id).completed_at = time.time()
    runner._save("the labs complete, as a participant's would be")
    out = run_lab_process("next", cwd=workspace.root, env=AT_100)
    assert out.returncode == 0, out.stdout + out.stderr
    return [line.strip() for line in out.stdout.splitlines()]


def test_the_last_petclinic_lab_names_the_labs_not_done(workspace: Workspace) -> None:
    """walk41: after Lab 11 with 8 of the 11 labs never started, the end said the course here
    was done. It names those left instead, and claims nothing about the course."""
    lines = _lab_next_after_lab11(workspace, others_done=False)
    said = " ".join(lines)
    assert "course on this workspace is done" not in said, said
    # After "complete", whole, on a line of its own: the command is never split from its name.
    assert lines[0].startswith("Lab 11-try-it-yourself complete."), lines
    assert lines[-1] == (
        "Labs 01, 02, 03, 04, 05, 06, 07, 08, 09 and 10 are not done yet: lab start 1 (lab list "
        "shows them)"
    )
    assert "lab list shows your progress" not in said  # lab list, said once


def test_the_last_petclinic_lab_says_the_course_here_is_done(workspace: Workspace) -> None:
    """Lab 11 is the petclinic fixture's last: `lab start 12` would fail on this workspace
    (Lab 12 is on the node fixture), so the end says what is true and how to reach the node
    labs, once every petclinic lab is complete."""
    lines = _lab_next_after_lab11(workspace, others_done=True)
    assert lines[-1] == (
        "The node fixture's labs need a workspace of their own: lab init DIR --fixture node"
    )
    assert " ".join(lines[-3:-1]) == (
        "Lab 11-try-it-yourself complete. That was the last lab on the petclinic fixture: the "
        "course on this workspace is done."
    ), lines
    assert "not done yet" not in " ".join(lines)


def test_lab_restore_keeps_its_git_command_whole_at_100_columns(workspace: Workspace) -> None:
    runner = LabRunner(workspace)
    runner.start("1")
    (workspace.root / "NOTES.md").write_text("mine\n")
    backup = runner.reset().backup
    assert backup is not None
    out = run_lab_process("restore", backup.name, cwd=workspace.root, env=AT_100)
    assert out.returncode == 0, out.stderr
    lines = [line.strip() for line in out.stdout.splitlines()]
    git = [line for line in lines if "git checkout" in line]
    assert len(git) == 1 and git[0].startswith("(or: git checkout refs/hooklab/backups/")
    assert git[0].endswith(" -- .)")


def test_lab10_json_to_paste_fits_the_box_and_loads(workspace: Workspace) -> None:
    """The walk's paste: a JSON line wider than the box wrapped inside its string."""
    import json
    import re

    from harness.engine.manifest import find_lab
    from harness.ui.lab_view import step_panel
    from harness.ui.prose import print_prose

    lab = find_lab("10")
    for width in (80, 100):
        out = io.StringIO()
        print_prose(
            Console(file=out, width=width, no_color=True), step_panel(lab, lab.step("the-judge"))
        )
        assert all(len(line) <= width for line in out.getvalue().splitlines())
    snippet = re.search(r"```json\n(.*?)```", lab.step("the-judge").instructions, re.S)
    assert snippet is not None
    assert json.loads(snippet.group(1))["type"] == "prompt"


def _solved_and_checked(runner: LabRunner) -> str:
    """The current step solved, then ``lab check``'s screen at 100 columns; it passes."""
    runner.solve(apply=True)
    out = io.StringIO()
    with activity(Console(file=out, width=100, no_color=True), runner.template):
        run = runner.check()
    assert run.status is Status.PASS
    return out.getvalue()


def test_lab05_each_session_has_a_heading(workspace: Workspace) -> None:
    """Lab 05 plays four sessions; their rows read alike ("session_start startup → allowed")
    and each set says which session it is."""
    runner = LabRunner(workspace)
    runner.start("5")
    screen = _solved_and_checked(runner)
    headings = [line for line in screen.splitlines() if line.startswith("  ▸ ")]
    assert headings == [
        "  ▸ no jq on PATH",
        "  ▸ no .git",
        "  ▸ with jq and git: a change, no sensor run",
        "  ▸ with jq and git: a change, then a green sensor run",
    ]
    lines = screen.splitlines()
    assert lines[lines.index("  ▸ no .git") + 1].startswith("  ⚙  1 session_start")


def test_lab07_own_hooks_reason_stays_on_screen(workspace: Workspace) -> None:
    """Lab 07 step 3: "the check looks for your hook's" reason, after require-sensors.sh's."""
    runner = LabRunner(workspace)
    runner.start("7")
    runner.goto("register")
    lines = [line.strip() for line in _solved_and_checked(runner).splitlines()]
    assert any(
        line.startswith('["$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh"]: Stop check blocked')
        for line in lines
    ), lines
