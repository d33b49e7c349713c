"""Issue 51 items 2 and 4, the screens walks e and f found: ``lab solve`` printing raw Python
dicts, lines broken at 100 columns inside what a person copies, verify-hook's counts, and the
smaller wordings (a duplicate answer, a hint no stronger than the one before).

Real: the labs' own lab.toml and solution files, provisioned workspaces and ``lab`` as a process
(a pseudo-terminal where the width is the terminal's), screens at 80, 100 and 120 columns.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import re
import struct
import subprocess
import termios
from pathlib import Path

import pytest
from rich.console import Console

from harness.claude.vocabulary import Outcome
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import Lab, Step, find_lab, load_labs
from harness.engine.stepview import StepView
from harness.errors import ConfigError
from harness.grading.registration import failing_command
from harness.grading.stop_grade import (
    BLOCKS,
    PASSES,
    REASON,
    SESSION_ENDS,
    HookGrade,
    grade_check,
)
from harness.maven import surefire
from harness.results import CheckResult, Status
from harness.ui.activity_view import activity
from harness.ui.grading_view import render_grade
from harness.ui.hook_event_view import hook_event_renderable
from harness.ui.lab_view import hint_panel, result_renderable
from harness.ui.reports import print_problems
from harness.ui.solution_view import (
    SOLVE_RENDERERS,
    TURN_RENDERERS,
    file_sources,
    solution_renderable,
)
from harness.userfiles import read_toml
from harness.workspace import Workspace
from tests.builders import REPO_ROOT, run_lab
from tests.ui.screens import WIDTHS, shown


def in_a_terminal(cwd: Path, *argv: str, columns: int) -> str:
    """``lab ARGV`` on a pseudo-terminal ``columns`` wide, COLUMNS unset: the width the
    code reads is the terminal's own."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["NO_COLOR"] = "1"
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    proc = subprocess.Popen(
        [str(REPO_ROOT / ".venv" / "bin" / "python"), "-m", "harness", *argv],
        cwd=cwd,
        env=env,
        stdin=follower,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the follower closed: the process is done
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)  # bold stays with NO_COLOR


# ---- 1. lab solve: every action kind in words a person can act on ----------------------------


def _solved_steps() -> list[tuple[Lab, Step]]:
    return [(lab, step) for lab in load_labs() for step in lab.steps if step.solve]


def test_every_action_kind_the_labs_solve_with_has_words() -> None:
    """A kind a lab uses without a renderer here would fall back to its summary: a new kind
    must get its words (this test fails until it does)."""
    actions = {spec.name for _, step in _solved_steps() for spec in step.solve}
    turns = {
        str(turn.get("do"))
        for _, step in _solved_steps()
        for spec in step.solve
        if spec.name == "play_session"
        for turn in spec.params["steps"]
    }
    assert actions and turns
    assert actions <= set(SOLVE_RENDERERS), actions - set(SOLVE_RENDERERS)
    assert turns <= set(TURN_RENDERERS), turns - set(TURN_RENDERERS)


def _copied_texts(step: Step, lab: Lab) -> list[str]:
    """What a person copies from the solution: commands, file contents, prompts."""
    texts: list[str] = []
    for spec in step.solve:
        p = spec.params
        if spec.name in ("copy", "write", "append"):
            texts.append((lab.dir / p["from"]).read_text() if p.get("from") else p["content"])
        elif spec.name == "run":
            texts.append(p["command"])
        elif spec.name == "play_session":
            texts += [t.get("text") or t.get("command") or "" for t in p["steps"]]
    return texts


@pytest.mark.parametrize("width", WIDTHS)
def test_every_solve_is_words_commands_and_content_never_a_dict(width: int) -> None:
    """Walk e: ``• {'do': 'copy', 'from': 'solution/tricks.toml', …}``, ``{'do': 'sensors'}``,
    a replace's old/new with \\n escapes, all wrapped at column 0."""
    for lab, step in _solved_steps():
        text = shown(solution_renderable(step, file_sources(lab.dir, None)), width)
        where = f"{lab.id} {step.id} at {width}"
        assert not any(f"'{key}': " in text for key in ("do", "path", "old", "steps")), where
        assert "solution/" not in text, (where, text)  # a path the person cannot open
        lines = text.splitlines()
        copied = {
            line.strip()
            for source in _copied_texts(step, lab)
            for line in source.splitlines()
            if line.strip()
        }
        for line in copied:  # each line to copy stands whole on a line of its own
            assert any(shown_line.strip() == line for shown_line in lines), (where, line, text)
        wide = [ln for ln in lines if len(ln) > width and ln.strip() not in copied]
        # A diff's line is the file's own line (left whole to the terminal's soft wrap).
        assert all(ln.lstrip().startswith(("- ", "+ ", "  ")) for ln in wide), (where, wide)


def test_each_kind_reads_as_what_to_do() -> None:
    by_id = {(lab.number, step.id): (lab, step) for lab, step in _solved_steps()}

    def solution(number: str, step_id: str) -> str:
        lab, step = by_id[(number, step_id)]
        return shown(solution_renderable(step, file_sources(lab.dir, None)), 100)

    sensors = solution("01", "run-sensors")
    assert "Run the sensors in the workspace:\n      ./mvnw -q test -Dgroups=sensor\n" in sensors
    tricks = solution("03", "tricks")
    assert "• Write scenarios/tricks.toml with this content:" in tricks
    assert '      command = "./mvnw -q test -Dgroups=sensor | tail -5"' in tricks
    rename = solution("02", "rename")
    assert "      - ### A1: Validation Errors\n      + ### A1: Invalid Input" in rename
    session = solution("03", "your-session")
    for line in (
        "  • Start claude in the workspace, then:",
        "    – type this prompt:",
        "      Add a one-line note to docs/notes.md, then tell me you are done.",
        "    – Claude says “Done.” and stops → the Stop hook holds it, Claude goes on",
        "    – Claude runs this → it goes through:",
        "      ./mvnw -q test -Dgroups=sensor",
    ):
        assert line in session.splitlines(), (line, session)
    gone = solution("08", "drop-hook")
    assert "      rm -r .claude/hooks/check-repository-names.sh" in gone
    run = solution("13", "pass-after-fix")
    assert "      npm run build" in run.splitlines()


def test_lab_solve_shows_a_replace_as_whole_lines_of_the_file(workspace: Workspace) -> None:
    """Lab 05 step 1 in a real terminal 100 wide: the lines taken away, whole, with the line
    that stays beside them; ``--json`` keeps the machine data."""
    assert run_lab(workspace.root, "start", "5").returncode == 0
    out = in_a_terminal(workspace.root, "solve", columns=100)
    assert "{'do'" not in out, out
    lines = out.splitlines()
    assert "      - # Strict mode: refuse to guess without the tools." in lines, out
    assert "        aiup_fail_open" in lines, out  # the line that stays: where the change is
    strict = [ln for ln in lines if ln.startswith("      - command -v jq")]
    assert len(strict) == 1 and strict[0].endswith("exit 2; }"), out
    assert all(len(ln) <= 100 for ln in lines if not ln.startswith("      ")), out
    data = json.loads(run_lab(workspace.root, "solve", "--json").stdout)
    assert data["actions"][0]["do"] == "replace"


# ---- 2. lines broken at 100 columns -------------------------------------------------------


def test_a_session_heading_wraps_under_its_own_words(workspace: Workspace) -> None:
    """Lab 01 step 3 at 100 (and 80) columns: "▸ Claude edits VetService.java, runs a script
    that copies answers/forged.xml over the reports, stops" left "stops" at column 0."""
    runner = LabRunner(workspace)
    runner.start("1")
    runner.goto("forge-a-report")
    runner.solve(apply=True)
    for width in (80, 100):
        out = io.StringIO()
        with activity(Console(file=out, width=width, no_color=True), runner.template):
            runner.check()
        lines = out.getvalue().splitlines()
        heading = next(n for n, ln in enumerate(lines) if ln.startswith("  ▸ Claude edits"))
        assert lines[heading + 1].startswith("    "), (width, lines[heading : heading + 2])
        assert all(len(ln) <= width for ln in lines), out.getvalue()


SENSOR_MESSAGE = """Traceability rule broken: Done/Tested use cases lack tests (1 violation)
  UC-003 is Done (docs/use_cases/UC-003-register-new-owner.md), but no enabled test covers \
alternative flow A1: Invalid Input; add a test with @UseCase(id="UC-003", scenario="A1: Invalid \
Input") in a UC003...Test class, or set the status back
  UC003RegisterOwnerTest.rejectsMissingLastName: @UseCase(id="UC-003", scenario="A1: Validation \
Errors") points at no alternative flow of UC-003"""


@pytest.mark.parametrize("width", WIDTHS)
def test_an_annotation_to_copy_is_never_broken(width: int) -> None:
    """``lab sensors --no-run`` at 100 columns broke ``@UseCase(id="UC-003", scenario="A1:
    Invalid`` / ``Input")``; Lab 02 step 1's check screen the same at "A1: Validation"."""
    failure = surefire.TestFailure(
        test="ai.unifiedprocess.petclinic.UseCaseTraceabilityTest.everyScenario",
        kind="failure",
        message=SENSOR_MESSAGE,
        classname="ai.unifiedprocess.petclinic.UseCaseTraceabilityTest",
    )
    report = surefire.SurefireReport(
        "UseCaseTraceabilityTest", Path("r.xml"), 4, 1, 0, 0, 0.0, (failure,)
    )
    out = io.StringIO()
    print_problems(Console(file=out, width=width, no_color=True), {"u": report})
    check = shown(result_renderable(CheckResult.failed(SENSOR_MESSAGE, name="sensors")), width)
    row = CheckResult.failed("the sensors are red", name="sensors", found=SENSOR_MESSAGE)
    for screen in (out.getvalue(), check, shown(result_renderable(row), width)):
        flat = screen.splitlines()
        assert all(len(ln) <= width for ln in flat), screen
        for annotation in (
            '@UseCase(id="UC-003", scenario="A1: Invalid Input")',
            '@UseCase(id="UC-003", scenario="A1: Validation Errors")',
        ):
            assert any(annotation in ln for ln in flat), (annotation, screen)


SED = (
    "sed -i 's/^\\*\\*Status:\\*\\* Approved/**Status:** Done/' docs/use_cases/UC-002-edit-owner.md"
)


def _bash_row(command: str) -> StepView:
    return StepView(
        step=3,
        name="",
        do="bash",
        detail=command,
        label="sed.toml step 3",
        expect=Outcome.BLOCKED,
        outcome=Outcome.BLOCKED,
        stop_hook_active=False,
        tool_ran=True,
        turn_ended=False,
        feedback="",
        system_message="",
        user_message="",
        events=(),
        hooks=(),
        problems=(),
        root="/tmp",
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_a_long_command_in_the_event_list_stays_under_its_column(width: int) -> None:
    """Lab 04 step 3 at 100 columns printed its sed at column 0 under "⚙  3 bash". Wider than
    the terminal, it goes over lines the shell joins (`` \\`` at a space outside quotes)."""
    lines = shown(hook_event_renderable(_bash_row(SED)), width).splitlines()
    joined_rows = re.sub(r" \\\n\s*", " ", "\n".join(lines)).splitlines()
    row = next(ln for ln in joined_rows if SED in ln)
    assert row.startswith(" " * 6), lines  # under the row, not at the terminal's edge
    assert any(ln.rstrip().endswith("→ blocked") for ln in lines), lines
    assert all(len(ln) <= width for ln in lines if SED not in ln), lines


def _fenced_lines(markdown_text: str) -> set[str]:
    blocks = re.findall(r"```[a-z]*\n(.*?)```", markdown_text, re.S)
    return {line.strip() for block in blocks for line in block.splitlines()}


@pytest.mark.parametrize("width", WIDTHS)
def test_every_hint_fits_and_keeps_its_commands_whole(width: int) -> None:
    """Lab 07 step 2's hints were 106 and 123 columns in a 100-column box (one ended in
    ``exit 2.``: the dot would be copied). A code line wider than 80 is left whole."""
    for lab in load_labs():
        for step in lab.steps:
            for n, hint in enumerate(step.hints, 1):
                lines = shown(hint_panel(step, n, hint), width).splitlines()
                code = _fenced_lines(hint)
                wide = [ln for ln in lines if len(ln) > width]
                assert all(ln.lstrip("│ ").strip() in code for ln in wide), (lab.id, n, wide)
                if width >= 100:
                    assert not wide, (lab.id, step.id, n, wide)


def test_lab07_step2_hint_commands_are_code_lines() -> None:
    """The 123-column hint ended in ``exit 2.``: as a code block, no sentence's dot follows."""
    hints = find_lab("7").step("write-hook").hints
    assert {"exit 2", "exit 0", "fi"} <= _fenced_lines(hints[1])
    assert "CLAUDE_PROJECT_DIR=$PWD scripts/check-before-stop.sh; echo $?" in _fenced_lines(
        hints[0]
    )


def test_lab01_step3_hint2_says_more_than_hint1() -> None:
    """Walk e: hint 2 said "copy the two lines of the step", no stronger than hint 1."""
    first, second = find_lab("1").step("forge-a-report").hints
    commands = _fenced_lines(second)
    assert {"mkdir -p answers", "cat answers/forged.xml"} <= commands, second
    assert not _fenced_lines(first)


LAB13_ASK = 'ask Claude: Add a line "Run npm start to see the total." to README.md, then finish.'
LAB10_ASK = (
    'ask Claude: Add the line "Judged by evidence." to docs/notes.md, run ./mvnw -q test'
    " -Dgroups=sensor in the foreground, then tell me whether all tests pass."
)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("ask", [LAB13_ASK, LAB10_ASK])
def test_a_prompt_to_type_in_a_fix_is_one_line(width: int, ask: str) -> None:
    """Lab 13 step 3's fix broke the prompt as "npm" / "start", Lab 10's at "all" / "tests
    pass": the prompt goes on a line of its own, whole (wider than the terminal, to its soft
    wrap: copying keeps it one line)."""
    fix = f"start claude in /tmp/walkhome.f/node (a new session) and {ask}\nthen lab check"
    result = CheckResult.failed("no session yet", name="your session", details={"fix": fix})
    lines = shown(result_renderable(result), width).splitlines()
    prompt = ask.removeprefix("ask Claude: ")
    assert any(ln.strip() == prompt for ln in lines), lines
    assert all(len(ln) <= width for ln in lines if prompt not in ln), lines
    assert any(ln.rstrip().endswith("ask Claude:") for ln in lines), lines


CHECKOUT = (
    "git checkout refs/hooklab/labs/07-own-stop-hook/live/your-session -- "
    "scripts/check-before-stop.sh .claude/hooks/require-sensors.sh"
)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_long_checkout_in_a_fix_is_one_file_a_line(width: int, tmp_path: Path) -> None:
    """Lab 07 step 4: the fix's 137-column ``git checkout REF -- a b`` wrapped inside a path at
    100 columns. As the step texts do: ``\\`` per file, each line whole; bash reads it as the
    one command."""
    fix = (
        f"put them back: {CHECKOUT} (or lab reset, which backs up your work first); then start "
        "claude again and do the step without changing the hooks (tell Claude not to edit them)"
    )
    result = CheckResult.failed("your session changed the hooks", name="s", details={"fix": fix})
    lines = shown(result_renderable(result), width).splitlines()
    assert all(len(ln) <= width for ln in lines), lines
    first = next(n for n, ln in enumerate(lines) if "git checkout" in ln)
    command = lines[first : first + 3]
    assert [ln.endswith(" \\") for ln in command] == [True, True, False], lines
    typed = "\n".join(ln.strip() for ln in command)
    said = subprocess.run(
        ["bash", "-c", f"set -- {typed.removeprefix('git checkout ')}; echo $@"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert said == CHECKOUT.removeprefix("git checkout "), typed
    assert "(or lab reset" in lines[first + 3], lines


# ---- 3. verify-hook's words ---------------------------------------------------------------

STUB = """#!/usr/bin/env bash
input=$(cat)
case $input in *'"stop_hook_active":true'*) echo '{"systemMessage":"no proof"}'; exit 0;; esac
echo "Stop check blocked: no report for ArchitectureTest: run ./mvnw -q test -Dgroups=sensor" >&2
exit 2
"""


def test_the_shells_own_words_are_not_the_hooks_check(tmp_path: Path) -> None:
    """Walk e, Lab 07 step 3 with a stub that always blocks: "`case $input in` fails" and "run
    `case $input in` by hand". A real failing check is still named."""
    script = tmp_path / "stub.sh"
    script.write_text(STUB)
    script.chmod(0o755)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    assert failing_command(tmp_path, script, env, 30) is None
    honest = tmp_path / "honest.sh"
    honest.write_text(STUB.replace('echo "Stop', 'test -s dist/app.js && exit 0\necho "Stop', 1))
    honest.chmod(0o755)
    found = failing_command(tmp_path, honest, env, 30)
    assert found is not None and found.command == "test -s dist/app.js", found


def test_one_problem_of_two_checks_is_said_once_with_both_checks() -> None:
    """ "2 of 10 checks fail: blocks although fixed; blocks although fixed" named two checks."""
    grade = HookGrade(Path("check-before-stop.sh"), Path("."), "x", 10, {})
    grade.checks = [
        grade_check(PASSES, Status.FAIL, "exit 0", "exit 2", "blocks although fixed"),
        grade_check(SESSION_ENDS, Status.FAIL, "turn ends", "held", "blocks although fixed"),
        grade_check(REASON, Status.PASS, "short", "short"),
    ]
    assert grade.summary() == (
        "2 of 3 checks fail: blocks although fixed (fixed → exit 0, session: fixed → turn ends)"
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_a_command_in_a_verify_hook_cell_is_never_cut(width: int) -> None:
    """Walk f, Lab 12 step 2 at 100 columns: the cell read `npm test --` / `--runInBand`."""
    grade = HookGrade(Path("check-before-stop.sh"), Path("/tmp/node"), "x", 10, {})
    found = (
        "exit 2: Stop check blocked: run npm test and fix the failing test; "
        "`npm test -- --runInBand` fails"
    )
    grade.checks = [
        grade_check(BLOCKS, Status.PASS, "exit 2, reason on stderr", "exit 2: Stop check"),
        grade_check(PASSES, Status.FAIL, "exit 0, no block", found, "blocks although fixed"),
        grade_check(REASON, Status.PASS, "short reason on stderr", "'Stop check blocked'"),
    ]
    out = io.StringIO()
    render_grade(Console(file=out, width=width, no_color=True, highlight=False), grade)
    lines = out.getvalue().splitlines()
    assert sum("npm test -- --runInBand" in ln for ln in lines) >= 1, out.getvalue()
    assert not any(ln.rstrip(" │").endswith("npm test --") for ln in lines), out.getvalue()
    assert all(len(ln) <= width for ln in lines), out.getvalue()


# ---- 4. smaller wordings ------------------------------------------------------------------


def test_a_duplicate_answer_is_named_as_given_twice(workspace: Workspace) -> None:
    """Walk f, Lab 11 step 5: a second ``q1`` said tomllib's "Cannot overwrite a value (at
    line 2, column 9)"."""
    assert run_lab(workspace.root, "start", "9").returncode == 0
    answers = workspace.root / "answers"
    answers.mkdir(exist_ok=True)
    (answers / "adr-quiz.toml").write_text('q1 = "c"\nq1 = "a"\nq2 = "a"\n')
    out = run_lab(workspace.root, "check", env={"COLUMNS": "100"})
    assert out.returncode == 1, out.stdout + out.stderr
    said = " ".join(out.stdout.split())
    assert "line 2: invalid TOML: q1 is given twice" in said, out.stdout
    assert "fix: keep one q1 line" in said, out.stdout
    assert "Cannot overwrite" not in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_a_table_given_twice_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "s.toml"
    bad.write_text("[session]\nauto_approve = true\n[session]\nx = 1\n")
    with pytest.raises(ConfigError, match="session is given twice"):
        read_toml(bad)


LET_GO = (
    '{"systemMessage":"Stop check still fails: rebuild dist/app.js (npm run build). Run the '
    'check by hand; CI remains required."}'
)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_json_line_in_a_row_is_never_broken(width: int) -> None:
    """Walk f, Lab 13 step 4: the expected line a hook prints broke inside its JSON string
    at 100 columns ("rebuild dist/app.js" / "(npm run build)")."""
    result = CheckResult.failed(
        "answers/let-go.json is not what the hook prints",
        name="file answers/let-go.json",
        expected=f"line 1 as printed now: {LET_GO}",
        found='{"systemMessage":"hello"}',
    )
    lines = shown(result_renderable(result), width).splitlines()
    assert any(LET_GO in ln for ln in lines), lines
    assert all(len(ln) <= width for ln in lines if LET_GO not in ln), lines
