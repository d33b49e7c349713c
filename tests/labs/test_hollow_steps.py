"""A solution with its substance taken out must not pass: each step's check fails on the
hollowed solution (the command not really run, the prediction left out, the hook's body gone,
the contract saying the opposite), with the words a participant then reads.

Real: the lab's own setup and checks on a provisioned workspace, real Maven where the step reads
reports, the workspace's bash hooks on the emulator.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.errors import HarnessError
from harness.results import CheckResult, Status
from harness.trainer.publish import make_settings, submit
from harness.workspace import Workspace
from tests.builders import reach_step, run_cli
from tests.labs.solved import solved_at
from tests.trainer.servers import bare_repo

LABS = Path(__file__).resolve().parents[2] / "labs"


def at_step(ws: Workspace, lab: str, step: str) -> LabRunner:
    return reach_step(ws, lab, step)  # reached once per worker, copied for each test


@pytest.mark.maven
def test_lab01_reports_from_before_a_reset_are_not_fresh(workspace: Workspace) -> None:
    runner = at_step(workspace, "1", "run-sensors")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved)
    assert runner.check().status is Status.PASS
    # The step starts over; the green reports of the earlier attempt go with it (a touch
    # would make them look fresh).
    runner.reset()
    assert not (workspace.root / "target" / "surefire-reports").exists()
    run = runner.check()
    assert run.status is Status.FAIL
    assert run.results[0].message == (
        "no fresh, green sensor reports yet: run ./mvnw -q test -Dgroups=sensor"
    )


HOLLOW_TRICKS = {
    "./mvnw -q test -Dgroups=sensor | tail -5": "echo hi | tail -5",
    "./mvnw -q test -Dgroups=sensor > /dev/null 2>&1": "echo hi > /dev/null",
    "./mvnw -q test -Dgroups=sensor || true": "false || true",
    "./mvnw -q test -Dtest=UC003RegisterOwnerTest": "echo -Dtest=UC003RegisterOwnerTest",
}


@pytest.mark.maven
def test_lab03_tricks_that_never_run_maven_do_not_count(workspace: Workspace) -> None:
    runner = at_step(workspace, "3", "tricks")
    lab = runner.lab()
    text = (lab.dir / "solution" / "tricks.toml").read_text()
    for real, hollow in HOLLOW_TRICKS.items():
        text = text.replace(f'command = "{real}"', f'command = "{hollow}"')
    # The background run becomes a sleep: the first bash step with background = true.
    text = text.replace(
        'command = "./mvnw -q test -Dgroups=sensor"\nbackground = true',
        'command = "sleep 1"\nbackground = true',
    )
    (workspace.root / "scenarios" / "tricks.toml").write_text(text)
    run = runner.check()
    assert run.status is Status.FAIL
    result = run.results[-1]
    assert result.message == "2 of 7 tricks tried and blocked; 5 did not count"
    found = (result.found or "").splitlines()
    assert found[1] == (
        "✘ trick 2, | tail: step 4 runs `echo hi | tail -5`, which is not the trick: the trick "
        "is the command run that way, e.g. `./mvnw -q test -Dgroups=sensor | tail -5`"
    )
    assert found[6].startswith("✘ trick 7, background = true: step 19 runs `sleep 1`")


@pytest.mark.parametrize(
    ("step", "solution", "scenario", "found"),
    [
        (
            "done-refused",
            "status-guard-1.toml",
            "status-guard.toml",
            "status-guard.toml step 2 (edit) has no prediction: the step asks you to predict its "
            'outcome, so add the line expect = "blocked" to it',
        ),
        (
            "sed",
            "sed.toml",
            "sed.toml",
            "sed.toml step 2 (bash) has no prediction: the step asks you to predict its "
            'outcome, so add the line expect = "blocked" to it',
        ),
    ],
)
def test_lab04_a_step_without_its_prediction_fails(
    workspace: Workspace, step: str, solution: str, scenario: str, found: str
) -> None:
    runner = at_step(workspace, "4", step)
    text = (runner.lab().dir / "solution" / solution).read_text()
    assert 'expect = "blocked"\n' in text
    (workspace.root / "scenarios" / scenario).write_text(
        text.replace('expect = "blocked"\n', "", 1)
    )
    run = runner.check()
    assert run.status is Status.FAIL
    assert run.results[-1].message == (
        "the hooks did what this step wants, but you did not predict the outcome (expect = ...)"
    )
    assert found in (run.results[-1].found or "").splitlines()


def test_lab05_a_hook_reduced_to_exit_0_does_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "5", "strict-stop-hook")
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    hook.write_text("#!/usr/bin/env bash\nexit 0\n")
    run = runner.check()
    assert run.status is Status.FAIL
    assert [r.status for r in run.results] == [Status.PASS] * 3 + [Status.FAIL]
    assert run.results[-1].message == (
        "require-sensors.sh no longer holds a turn after a change without a sensor run: keep "
        "the rest of it as it was, only the strict block goes"
    )
    assert "you predicted" not in (run.results[-1].found or "")
    assert "this check needs blocked, it was allowed" in (run.results[-1].found or "")


GOOD_CONTRACT = (
    "Claim: the five sensors ran green after the last change to src/, docs/ or pom.xml.\n"
    "Check: target/surefire-reports/TEST-*.xml per sensor: tests > 0, no failures, no errors, "
    "newer than src/, docs/ and pom.xml.\n"
    "Success: exit 0.\n"
    "Block: exit 2 with one short line on stderr naming the sensor and "
    "./mvnw -q test -Dgroups=sensor.\n"
)


@pytest.mark.parametrize(
    ("line", "hollow", "verdict"),
    [
        (
            3,
            "Block: exit 1 and print the whole maven log to stdout (never exit 2 or stderr)",
            # One sentence a part: its first fault, what to write (walk-s, Lab 12's run-ons).
            "✘ Block: exit 1 does not block (Claude Code shows an error and stops anyway): say "
            "exit 2",
        ),
        (
            1,
            "Check: look at the surefire reports",
            "✘ Check: the Check: says what makes a report green (tests > 0, no failures, no "
            "errors)",
        ),
        (
            0,
            "Claim: it works",
            "✘ Claim: the Claim: line is too short: say what Claude asserts when it says done "
            "(here: the sensors ran green after the last change)",
        ),
    ],
)
def test_lab07_a_contract_that_says_the_wrong_thing_fails(
    workspace: Workspace, line: int, hollow: str, verdict: str
) -> None:
    runner = at_step(workspace, "7", "contract")
    contract = workspace.root / "docs" / "stop-hook-contract.md"
    contract.write_text(GOOD_CONTRACT)
    assert runner.check().status is Status.PASS
    lines = GOOD_CONTRACT.splitlines()
    lines[line] = hollow
    contract.write_text("\n".join(lines) + "\n")
    run = runner.check()
    assert run.status is Status.FAIL
    assert verdict in (run.results[0].found or "").splitlines()


def quiz_answers(lab: str, step: str) -> list[object]:
    from harness.engine.manifest import find_lab

    spec = next(c for c in find_lab(lab).step(step).checks if c.name == "quiz")
    return list(spec.params["answers"].values())


@pytest.mark.parametrize(
    ("lab", "step"),
    [
        ("1", "read-a-report"),
        ("9", "quiz"),
        ("11", "the-petclinic"),
        ("11", "run-the-sensors"),
        ("11", "read-the-adrs"),
    ],
)
def test_no_quiz_has_one_letter_for_every_answer(lab: str, step: str) -> None:
    letters = {str(a) for a in quiz_answers(lab, step) if isinstance(a, str) and len(a) == 1}
    assert len(letters) > 1, (lab, step, letters)


def test_lab09_answers_are_read_as_a_person_means_them(workspace: Workspace) -> None:
    runner = at_step(workspace, "9", "quiz")
    quiz = workspace.root / "answers" / "adr-quiz.toml"
    quiz.parent.mkdir(exist_ok=True)
    # One letter where the quiz wants a list is meant as that list.
    quiz.write_text('q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = "c"\nq5 = "a"\n')
    assert runner.check().status is Status.PASS
    # A letter that is no option, a number, an empty answer: each says how to answer.
    quiz.write_text('q1 = "d"\nq2 = 1\nq3 = ""\nq4 = ["c"]\nq5 = "a"\n')
    result = runner.check().results[0]
    assert result.message == "3 of 5 questions still to answer"
    assert (result.found or "").splitlines() == [
        'q1: "d" is not one of the options (a, b, c): write the letter of an option between the '
        'quotes, e.g. q1 = "a"',
        "q2: 1 is not one of the options (a, b, c): write the letter of an option between the "
        'quotes, e.g. q2 = "a"',
        'q3: not answered yet: write the letter of an option between the quotes, e.g. q3 = "a"',
    ]
    quiz.write_text('q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = []\nq5 = "a"\n')
    assert (runner.check().results[0].found or "") == (
        'q4: not answered yet: write a list of letters, all that apply, e.g. q4 = ["a", "c"]'
    )


def test_every_step_but_the_live_ones_has_a_hollowed_solution() -> None:
    """dev check plays each [[step.hollow]] and needs the checks to fail on it; the live steps
    (a session of the participant's own Claude Code) are proven by their live-session tests."""
    from harness.engine.manifest import load_labs

    without = [
        f"{lab.id} {step.id}"
        for lab in load_labs()
        for step in lab.steps
        if not step.hollow and not any(c.name == "live_session" for c in step.checks)
    ]
    assert [s for s in without if s not in PENDING] == []
    assert [s for s in PENDING if s not in without] == [], "has its hollow now: drop it here"


# Steps whose hollow is still to be written, for a lab merged before its author adds them.
PENDING: list[str] = []


def hollowed(runner: LabRunner, step: str) -> list[CheckResult]:
    """The step's [[step.hollow]] on its starting state, and every check's result on it (a
    participant's lab check stops at the first failure; here each check is judged)."""
    lab = runner.lab()
    done = runner.run_actions(lab, lab.step(step).hollow)
    assert all(r.status is Status.PASS for r in done), done
    return list(runner.check(every=True).results)


def test_lab10_a_misspelt_prompt_type_is_the_entry_claude_code_ignores(
    workspace: Workspace,
) -> None:
    """Issue 51: with "type": "prompts" the file check found every word it wants and passed;
    the real client says 'Unknown hook type "prompts"; entry ignored' (observed on 2.1.332,
    tests/claude/test_settings_check_client.py). The settings check says it in those words."""
    runner = at_step(workspace, "10", "the-judge")
    results = hollowed(runner, "the-judge")
    assert [r.status for r in results] == [Status.FAIL, Status.PASS, Status.FAIL, Status.FAIL]
    # lab check shows the failing row only: no "file … as expected" PASS above it.
    assert [r.status for r in runner.check().results] == [Status.FAIL]
    assert results[0].message == (
        ".claude/settings.json: hooks.Stop[0].hooks[1].type: Claude Code says: Unknown hook "
        'type "prompts"; entry ignored; fix: write "type": "prompt"'
    )
    assert "feedback lacks 'insufficient evidence in transcript'" in (results[-1].found or "")


def test_lab10_a_judge_that_is_a_command_asks_no_model(workspace: Workspace) -> None:
    runner = at_step(workspace, "10", "the-judge")
    settings = workspace.root / ".claude" / "settings.json"
    anchor = '"\\"$CLAUDE_PROJECT_DIR/.claude/hooks/require-sensors.sh\\"", "timeout": 15 }'
    echo = (
        '{ "type": "command", "command": "echo \'prompt: Did the tests run and pass after the '
        'last change? $ARGUMENTS\'", "timeout": 30 }'
    )
    text = settings.read_text()
    assert anchor in text
    settings.write_text(text.replace(anchor, f"{anchor},\n          {echo}"))
    results = list(runner.check(every=True).results)
    # No "prompt": entry either, so no words asking for evidence (the third check).
    assert [r.status for r in results] == [Status.PASS, Status.FAIL, Status.FAIL, Status.FAIL]
    assert results[-1].message == (
        "the stop should be held by your prompt hook too: Claude should be shown the judge's "
        "reason (is the prompt hook registered on Stop?)"
    )
    assert "feedback lacks 'insufficient evidence in transcript'" in (results[-1].found or "")


@pytest.mark.maven
def test_lab10_tricks_without_maven_or_without_the_judges_yes_do_not_count(
    workspace: Workspace,
) -> None:
    results = hollowed(at_step(workspace, "10", "words"), "words")
    # The hollow copies the right answers: the session alone must see what is missing (the
    # seed's hook still lets a real, green run go: the guard in between passes).
    assert [r.status for r in results] == [Status.FAIL, Status.PASS, Status.PASS, Status.PASS]
    assert results[0].message == "0 of 5 tricks tried and blocked; 5 did not count"
    found = (results[0].found or "").splitlines()
    assert found[0] == (
        "✘ trick 1, | tail: step 3 runs `echo hi | tail -3`, which is not the trick: the trick "
        "is the command run that way, e.g. `./mvnw -q test -Dgroups=sensor | tail -3`"
    )
    assert found[3] == (
        "✘ trick 4, -Dtest=: step 12 ran, and the stop after it (step 13) was blocked, but "
        "step 13 lacks judge_ok = true: add it to that stop"
    )
    assert found[4].startswith("✘ trick 5, background = true: step 15 runs `sleep 1`")


@pytest.mark.maven
def test_lab10_a_prompt_hook_left_in_is_seen_however_it_is_spaced(workspace: Workspace) -> None:
    runner = at_step(workspace, "10", "evidence")
    results = hollowed(runner, "evidence")
    settings = (workspace.root / ".claude" / "settings.json").read_text()
    assert '"type": "prompt"' not in settings and '"type":"prompt"' in settings
    # The checks between them pass: a prompt hook without spaces is one the client runs, and
    # none is in the user's settings.
    assert [r.status for r in results] == [Status.FAIL, Status.PASS, Status.PASS, Status.FAIL]
    assert results[0].message == (
        "take the prompt hook out of .claude/settings.json and keep require-sensors.sh on Stop"
    )
    assert "this check needs allowed, it was blocked" in (results[-1].found or "")


def test_lab07_a_comma_missing_in_settings_is_the_participants_to_fix(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "7", "register")
    settings = workspace.root / ".claude" / "settings.json"
    text = settings.read_text()
    # The participant's entry, added with the comma before it forgotten.
    entry = '"timeout": 15 }'
    assert entry in text
    settings.write_text(
        text.replace(
            entry,
            entry + '\n          { "type": "command", "command": '
            '"\\"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh\\"", "timeout": 10 }',
            1,
        )
    )
    run = runner.check()
    # The file check cannot read the file: a ✘ that says so, no ✔ (issue 42's walk).
    assert [r.status for r in run.results] == [Status.FAIL]
    result = run.results[0]
    assert result.message.startswith(".claude/settings.json is not valid JSON (line ")
    assert result.message.endswith(
        ": Expecting ',' delimiter), so its contents were not checked; Claude Code would run "
        "none of its hooks"
    )
    assert (result.found or "").startswith("line ")
    assert "fix" not in (result.found or "")  # said once, below, with jq
    assert result.details["fix"] == (
        "jq . .claude/settings.json shows where it breaks (line and column); a missing or "
        "extra comma, or a quote without its backslash, is the usual cause"
    )


def test_texts_agree_with_what_the_tools_do() -> None:
    from harness.engine.manifest import find_lab

    register = find_lab("7").step("register").instructions
    assert "sees no" not in register  # it shows require-sensors.sh: exit 2
    assert "`require-sensors.sh` holds the turn too" in register
    assert "not in your workspace or a pipx\ninstall) has a glossary" in find_lab("4").intro
    sensors = find_lab("11").step("run-the-sensors").instructions
    assert "`lab sensors --no-run` shows them as a table" in sensors
    assert "(a number)" not in sensors and 'A number between the quotes, e.g. q1 = "3"' in sensors
    assert "cannot disturb your last turn" in find_lab("3").step("tricks").hints[1]


def test_a_lab_number_the_course_skips_is_said_as_such(tmp_path: Path) -> None:
    from harness.engine.manifest import find_lab
    from harness.errors import HarnessError

    for name in ("01-sensor-reports", "11-try-it-yourself"):
        shutil.copytree(LABS / name, tmp_path / name)
    with pytest.raises(HarnessError) as info:
        find_lab("10", tmp_path)
    assert str(info.value).splitlines()[0] == (
        "there is no lab 10: the labs keep the numbers of the article they come from, so the "
        "course has 1, 11"
    )
    assert info.value.fix == "lab list shows them; lab start 11 is the capstone"
    with pytest.raises(HarnessError) as info:
        find_lab("1", tmp_path).step("07-4")
    assert info.value.fix == "lab start 7, then lab goto 4"


def test_status_and_list_say_a_step_passed_scripted(workspace: Workspace) -> None:
    from rich.console import Console

    from harness.engine.manifest import find_lab
    from harness.ui.lab_view import lab_table, status_renderable

    runner = at_step(workspace, "3", "held")
    lab = find_lab("3")
    lp = runner.progress.lab_progress(lab.id)
    lp.step("held").passed = {"commit": "x"}
    lp.step("your-session").passed = {"commit": "y", "evidence_kind": "scripted"}
    console = Console(width=100, record=True, no_color=True)
    console.print(status_renderable(lab, runner.progress))
    console.print(lab_table([lab], runner.progress))
    shown = console.export_text()
    rows = {line.split()[1]: line for line in shown.splitlines() if line[:3].strip().isdigit()}
    assert rows["your-session"].split()[2:] == ["passed", "(scripted)", "0/2"]
    assert rows["held"].split()[2:] == ["passed", "0/2"]
    assert "current, 2/3 passed (1 scripted)" in shown


def test_the_event_list_numbers_its_steps_and_marks_a_background_run(
    workspace: Workspace,
) -> None:
    """The verdicts say "step 4 ran, and the stop after it …": the list shows step 4, and a
    run in the background says so."""
    from rich.console import Console

    from harness.engine.checks import CHECK_KINDS
    from harness.engine.context import CheckContext
    from harness.engine.stepview import StepView
    from harness.schema import check_table
    from harness.ui.hook_event_view import hook_event_renderable
    from harness.ui.prose import print_prose

    seen: list[StepView] = []
    steps = [
        {"do": "session_start"},
        {"do": "bash", "command": "sleep 0.1", "background": True},
        {"do": "stop"},
    ]
    kind = CHECK_KINDS["hook_session"]
    params = check_table(
        {"kind": "hook_session", "steps": steps}, kind.params, path="t", where="check"
    )
    ctx = CheckContext(workspace, LABS / "03-stop-hook", on_hook_event=seen.append)
    kind.run(ctx, params)
    console = Console(width=100, record=True, no_color=True)
    for entry in seen:
        print_prose(console, hook_event_renderable(entry))
    lines = console.export_text().splitlines()
    assert lines[0].startswith("  ⚙  1 session_start")
    assert lines[1].startswith("  ⚙  2 bash          sleep 0.1 (in the background) → allowed")
    assert lines[2].startswith("  ⚙  3 stop")


def test_a_second_stop_is_not_said_to_be_let_go(workspace: Workspace) -> None:
    """A stop allowed on stop_hook_active: true is named as such, with no reason the screen
    cannot know (the hook may have let go on fresh, green reports)."""
    from rich.console import Console

    from harness.engine.checks import CHECK_KINDS
    from harness.engine.context import CheckContext
    from harness.engine.stepview import StepView
    from harness.schema import check_table
    from harness.ui.hook_event_view import hook_event_renderable
    from harness.ui.prose import print_prose

    seen: list[StepView] = []
    (workspace.root / "docs" / "notes.md").write_text("a change\n")
    steps = [{"do": "session_start"}, {"do": "stop"}, {"do": "stop"}]
    kind = CHECK_KINDS["hook_session"]
    params = check_table(
        {"kind": "hook_session", "steps": steps}, kind.params, path="t", where="check"
    )
    kind.run(CheckContext(workspace, LABS / "03-stop-hook", on_hook_event=seen.append), params)
    console = Console(width=100, record=True, no_color=True)
    print_prose(console, hook_event_renderable(seen[-1]))
    shown = console.export_text()
    assert "→ allowed (a second stop: stop_hook_active: true)" in shown
    assert "let the turn end" not in shown


def test_the_output_box_leaves_a_hooks_json_input_to_json(workspace: Workspace) -> None:
    """The JSON a hook was given (a sandbox's paths, one line of 400+ columns) is in the
    check's output for --json; the screen's box shows what the hooks did, and says where the
    JSON is."""
    from rich.console import Console

    from harness.engine.checks import CHECK_KINDS
    from harness.engine.context import CheckContext
    from harness.schema import check_table
    from harness.ui.lab_view import result_renderable

    (workspace.root / "docs" / "notes.md").write_text("a change\n")
    steps = [{"do": "session_start"}, {"do": "stop", "expect": "allowed"}]
    kind = CHECK_KINDS["hook_session"]
    params = check_table(
        {"kind": "hook_session", "steps": steps}, kind.params, path="t", where="check"
    )
    result = kind.run(CheckContext(workspace, LABS / "03-stop-hook"), params)
    assert result.status is Status.FAIL
    longest = max(result.output.splitlines(), key=len)
    assert len(longest) > 200  # the Stop event's JSON input, on one line
    console = Console(width=100, record=True, no_color=True)
    console.print(result_renderable(result))
    shown = console.export_text().splitlines()
    assert all(len(line) <= 100 for line in shown)
    box = " ".join(line.strip("│ ") for line in shown if line.startswith("│"))
    assert '"hook_event_name"' not in box, box
    assert "(the JSON each hook was given: lab check --json)" in box, box
    assert "require-sensors.sh" in box and "exit 2" in box, box


def test_lab_start_on_a_completed_lab_walks_it_again_and_keeps_it_complete(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Revisiting takes nothing back: lab list (table and --json) and a submission to the
    trainer still say complete, with the passes; lab next asks for a new pass on the way."""
    runner = at_step(workspace, "5", "strict-stop-hook")
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved)
    assert runner.check().status is Status.PASS
    assert runner.next().step is None  # complete
    earned = runner.progress.labs["05-fail-open"].step("strict-stop-hook").passed
    assert "# Strict mode" not in hook.read_text()
    runner.start("9")
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "adr-quiz.toml").write_text('q1 = "c"\n')
    moved = runner.start("5")
    assert moved.step is not None and moved.step.id == "strict-stop-hook"
    assert moved.note == "this lab stays complete, your passes kept; you walk it again from step 1"
    assert moved.backup is not None  # Lab 09's answers, kept
    assert "# Strict mode" in hook.read_text()  # the step's setup, again
    assert not (workspace.root / "answers" / "adr-quiz.toml").exists()
    with pytest.raises(HarnessError, match="has not passed its check yet"):
        runner.next()  # the earlier pass stays earned, but going on asks for a new one

    listed = run_cli("list", cwd=workspace.root)
    row = next(line for line in listed.out.splitlines() if "05-fail-open" in line)
    assert "complete, walked again" in row, listed.out
    rows = json.loads(run_cli("list", "--json", cwd=workspace.root).out)
    lab05 = next(r for r in rows if r["id"] == "05-fail-open")["progress"]
    assert lab05["completed_at"] and lab05["steps"]["strict-stop-hook"]["passed"] == earned

    bare_repo(tmp_path / "room.git")
    submit(workspace, make_settings(str(tmp_path / "room.git"), "alice", "monday"))
    out = run_cli("trainer", "status", str(tmp_path / "room.git"), "--cohort", "monday", "--json")
    alice = json.loads(out.out)["participants"][0]
    seen = alice["labs"]["05-fail-open"]
    assert seen["complete"] and seen["passed"] == ["strict-stop-hook"], seen
    assert alice["current_step_passed"] is False  # walking it again: at work, not waiting

    # Walked again to the end: complete, as before, and no longer "walked again".
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS
    assert runner.next().step is None
    lp = runner.progress.labs["05-fail-open"]
    assert lp.completed_at and lp.revisited_at is None


def test_coming_back_to_a_lab_brings_its_files_back(workspace: Workspace) -> None:
    """lab start 6 after lab 9: Lab 06's files as they were left (the guard half-fixed), not
    Lab 09's; and back at lab 9, its answers again. Each move backs the other lab's files up."""
    runner = solved_at(workspace, "6", "hook-change-held")
    assert runner.check().status is Status.PASS
    runner.next()  # at step 2, broken-hook, as a participant gets there
    guard = workspace.root / ".claude" / "hooks" / "guard-spec-status.sh"
    guard.write_text(guard.read_text() + "# half-way through the fix\n")
    runner.start("9")
    assert "# half-way" not in guard.read_text()
    answers = workspace.root / "answers" / "adr-quiz.toml"
    answers.parent.mkdir(exist_ok=True)
    answers.write_text('q1 = "c"\n')
    moved = runner.start("6")
    assert moved.note == "resumed where you left this lab, with its files as you left them"
    assert moved.step is not None and moved.step.id == "broken-hook"
    assert moved.backup is not None
    assert guard.read_text().endswith("# half-way through the fix\n")
    assert '[ -n "$problem" ] && exit 0' in guard.read_text()  # the step's setup, as left
    assert not answers.exists()
    runner.start("9")
    assert answers.read_text() == 'q1 = "c"\n'
