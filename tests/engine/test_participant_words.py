"""Issue 21, the words: what a newcomer to Labs 01–04 reads, held to exact text.

Real checks on a real workspace (real git, real bash hooks, real Surefire reports written by
real Maven where a test says so); no message is matched loosely where the issue quoted it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from harness.engine.checks import CHECK_KINDS
from harness.engine.context import CheckContext, StepState
from harness.engine.manifest import Lab, find_lab
from harness.engine.progress import LabProgress, Progress, StepProgress
from harness.results import CheckResult, Status
from harness.schema import check_table
from harness.trainer.cohort import Cohort, LabColumn, Member, StepColumn
from harness.workspace import Workspace
from tests.builders import sensor_report, sensor_summary

LAB1, LAB2, LAB3, LAB4 = (find_lab(n) for n in ("1", "2", "3", "4"))


def run_check(ws: Workspace, lab: Lab, step: str, index: int = 0, tries: int = 0) -> CheckResult:
    """``tries``: whole quiz answers checked on the step before (from lab check)."""
    spec = lab.step(step).checks[index]
    ctx = CheckContext(ws, lab.dir, step=StepState(quiz_tries=tries))
    ctx.lab_start_commit = ws.head()
    return spec.kind.run(ctx, spec.params)


def check(ws: Workspace, kind: str, **params: Any) -> CheckResult:
    spec = CHECK_KINDS[kind]
    p = check_table({"kind": kind, **params}, spec.params, path="test", where="check")
    assert spec.validate(p) is None
    ctx = CheckContext(ws, LAB1.dir)
    ctx.lab_start_commit = ws.head()
    return spec.run(ctx, p)


def answer(ws: Workspace, text: str, tries: int = 0) -> CheckResult:
    (ws.root / "answers").mkdir(exist_ok=True)
    (ws.root / "answers" / "reports.toml").write_text(text)
    return run_check(ws, LAB1, "read-a-report", tries=tries)


# ---- item 3: quizzes ---------------------------------------------------------------------
def test_the_quiz_takes_an_options_text_as_well_as_its_letter(workspace: Workspace) -> None:
    result = answer(
        workspace,
        'q1 = "failures"\n'
        'q2 = "(b) deletes it, so no stale report survives (plain Maven keeps old reports)"\n'
        'q3 = "A"\n',
    )
    assert result.status is Status.PASS, result.found
    assert result.message == "all 3 answers right"


def test_a_wrong_text_answer_is_told_to_answer_with_the_letter(workspace: Workspace) -> None:
    result = answer(workspace, 'q1 = "the failures one"\nq2 = "b"\nq3 = "errors"\n')
    assert result.status is Status.FAIL
    assert result.message == "2 of 3 questions still to answer"
    assert (result.found or "").splitlines() == [
        'q1: "the failures one" is not one of the options (a, b, c): write the letter of an '
        'option between the quotes, e.g. q1 = "a"',
        'q3: "errors" is not one of the options (a, b): write the letter of an option between '
        'the quotes, e.g. q3 = "a"',
    ]
    # A wrong option, by letter or by text, gets the pointer and never the answer: from the
    # second try on (a first try hears how many, not which).
    result = answer(workspace, 'q1 = "errors"\nq2 = "b"\nq3 = "a"\n', tries=1)
    assert result.found == 'q1: "errors" is not right — look at the <testsuite> attributes'


def test_the_quiz_file_says_to_answer_with_the_letter() -> None:
    instructions = LAB1.step("read-a-report").instructions
    assert '# Answer with the letter of an option, e.g. q1 = "a".' in instructions


# ---- item 6: headlines -------------------------------------------------------------------
def put(ws: Workspace, rel: str, text: str) -> None:
    (ws.root / rel).parent.mkdir(parents=True, exist_ok=True)
    (ws.root / rel).write_text(text)


DONE_EDIT = (
    '[[step]]\ndo = "session_start"\n\n[[step]]\ndo = "edit"\n'
    'file = "docs/use_cases/UC-005-add-visit.md"\nold = "**Status:** Approved"\n'
    'new = "**Status:** Done"\nexpect = "{expect}"\n'
)


def test_a_wrong_prediction_is_called_a_wrong_prediction(workspace: Workspace) -> None:
    put(workspace, "scenarios/status-guard.toml", DONE_EDIT.format(expect="allowed"))
    result = run_check(workspace, LAB4, "done-refused")
    assert result.status is Status.FAIL
    assert result.message == "the hooks did what this step wants, but your prediction was wrong"
    assert result.expected == "every expect in your file to name the outcome the step really had"
    assert result.found == (
        "status-guard.toml step 2 (edit docs/use_cases/UC-005-add-visit.md): "
        "you predicted allowed, it was blocked"
    )
    put(workspace, "scenarios/status-guard.toml", DONE_EDIT.format(expect="blocked"))
    assert run_check(workspace, LAB4, "done-refused").status is Status.PASS


def test_a_missing_sequence_item_is_said_in_the_participants_words(workspace: Workspace) -> None:
    put(
        workspace,
        "scenarios/status-guard.toml",
        '[[step]]\ndo = "session_start"\n\n[[step]]\ndo = "prompt"\ntext = "Set UC-005 to Done."\n',
    )
    result = run_check(workspace, LAB4, "done-refused")
    assert result.status is Status.FAIL
    assert result.message == "your session does not show the Done edit of UC-005 being refused"
    assert result.found == (
        "your session lacks an edit mentioning 'UC-005' that is blocked and tells Claude "
        "'coverage-check UC-005' and has your prediction (an expect line) after "
        "status-guard.toml step 1"
    )
    assert "expected sequence" not in (result.found or "")


def test_a_fresh_red_run_is_said_as_such_with_singular_counts(workspace: Workspace) -> None:
    # Reports as Surefire writes them, newer than every change: fresh. One of them red.
    folder = workspace.root / "target" / "surefire-reports"
    folder.mkdir(parents=True)
    time.sleep(0.05)
    for name in LAB2.step("fix-annotations").checks[2].params["expect"]:
        red = name == "UseCaseTraceabilityTest"
        failure = "A1: Validation Errors points nowhere" if red else None
        (folder / f"TEST-ai.unifiedprocess.petclinic.{name}.xml").write_text(
            sensor_report(workspace.root, name, failure=failure)
        )
        (folder / f"ai.unifiedprocess.petclinic.{name}.txt").write_text(
            sensor_summary(workspace.root, name, failure=failure)
        )
    result = run_check(workspace, LAB2, "fix-annotations", 2)
    assert result.status is Status.FAIL
    assert result.message == (
        "the sensors ran (the reports are fresh), but the run is red: "
        "UseCaseTraceabilityTest (1 failure, 0 errors)"
    )
    assert "UseCaseTraceabilityTest: red (1 failure, 0 errors of 4 tests)" in (result.found or "")
    assert "1 failures" not in (result.found or "")
    # No reports at all: that is the lab's own message about a run that has not happened.
    for report in folder.iterdir():
        report.unlink()
    absent = run_check(workspace, LAB2, "fix-annotations", 2)
    assert absent.message == "no fresh run of the sensors yet: run ./mvnw -q test -Dgroups=sensor"


# ---- item 8: text and tool agree ---------------------------------------------------------
def test_lab_texts_match_the_tools() -> None:
    assert "`lab sensors --no-run`" in LAB1.step("run-sensors").instructions
    assert "`lab sensors --no-run`" in LAB2.step("rename").instructions
    tricks = LAB3.step("tricks")
    listed = [line for line in tricks.instructions.splitlines() if line[:2] in {"1.", "7."}]
    assert len(listed) == 2  # seven tricks listed …
    hook = next(spec for spec in tricks.checks if spec.name == "hook_session")
    assert len(hook.params["tricks"]) == 7  # … seven judged
    assert hook.params["pass_message"].startswith("all 7 tricks")
    assert not any(spec.name == "scenario" for spec in tricks.checks)  # no "all 6 steps"


def test_lab03_explains_auto_approve_and_asked() -> None:
    text = LAB3.step("tricks").instructions
    assert "auto_approve = true" in text and 'expect = "asked"' in text
    skeleton = (LAB3.dir / "skeleton.toml").read_text()
    assert "asked    Claude Code asked the user first" in skeleton
    assert "# auto_approve = true" in skeleton


# ---- the trainer's side -------------------------------------------------------------------
def test_trainer_status_shows_a_passed_step_as_passed_not_stuck() -> None:
    now = time.time()
    progress = Progress(updated_at=now - 2)
    lp = progress.labs.setdefault("01-sensor-reports", LabProgress(started_at=now - 60))
    sp = lp.steps.setdefault("run-sensors", StepProgress(entered_at=now - 60))
    sp.passed = {"at": now - 2, "snapshot": "0" * 40, "result": {"status": "pass"}}
    progress.lab, progress.step = "01-sensor-reports", "run-sensors"
    member = Member("ada", "refs/x", "0" * 40, progress, now - 2)
    assert member.where() == "01-sensor-reports · run-sensors passed, not moved on"
    assert member.stuck_for(now) is None
    columns = [
        LabColumn(
            "01-sensor-reports",
            "Sensors",
            (
                StepColumn("01-sensor-reports", "run-sensors", "Run"),
                StepColumn("01-sensor-reports", "read-a-report", "Read"),
            ),
        )
    ]
    cohort = Cohort("git://x", "monday", [member], columns, read_at=now)
    assert cohort.stuck(0) == []
    from rich.console import Console

    from harness.ui.trainer_view import cohort_table

    console = Console(width=160, record=True, color_system=None)
    console.print(cohort_table(cohort))
    shown = console.export_text()
    row = next(line for line in shown.splitlines() if "ada" in line)
    assert "01·run-sensors ✓" in row, row  # passed, not moved on
    assert row.split("│")[-2].strip() == "–", row  # nothing in "needs help": not stuck "2 s"
    # Once on the next step, they are on it (and the clock runs there).
    sp2 = lp.steps.setdefault("read-a-report", StepProgress(entered_at=now - 1))
    assert sp2 is not None
    progress.step = "read-a-report"
    assert member.where() == "01-sensor-reports · read-a-report"
    assert member.stuck_for(now) == pytest.approx(1, abs=0.5)


def test_the_guide_has_a_glossary_and_explains_the_hook_error_wording() -> None:
    guide = (Path(__file__).parents[2] / "docs" / "participant-guide.md").read_text()
    glossary = guide.split("## Glossary", 1)[1]
    for term in (
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStop",
        "stop_hook_active",
        "Surefire",
        "aiup-vaadin-jooq:uc-coverage",
        "asked",
        "stopped",
        "permission: prompted",
    ):
        assert f"**{term}**" in glossary, term
    assert "`PreToolUse:Edit hook error:`" in glossary
