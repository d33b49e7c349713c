"""Issue 51, the walk of Labs 08–13 by walk-f: each free pass a newcomer found, tried as they
wrote it, fails its check; each confusing line reads in words.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports, the workspace's bash hooks (jq, grep) on the emulator, real git.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from harness.engine.lab_runner import LabRunner
from harness.engine.progress import Progress
from harness.maven.surefire import REPORTS_DIR, SENSOR_PACKAGE
from harness.results import CheckResult, Status
from harness.workspace import Workspace
from tests.builders import git, run_cli
from tests.labs.test_free_passes import at_step, check_at
from tests.labs.test_free_passes_hooks_r2 import checks

PROGRESS = "refs/hooklab/progress"

# ---- Lab 10 step 2: a require-sensors.sh that judges the words, not the reports -----------
# walk-f's line 2 of the hook: the transcript's Bash commands grepped for the five tricks,
# everything else let go; no report read.
WORD_JUDGE = (
    'in=$(cat); t=$(jq -r .transcript_path <<<"$in"); cmds=$(jq -r '
    '"select(.type==\\"assistant\\") | .message.content[]? | select(.type==\\"tool_use\\") | '
    '(.input.command // \\"\\") + (if .input.run_in_background then \\" BG\\" else \\"\\" end)" '
    '"$t" 2>/dev/null); if grep -qE "tail -3|/dev/null|\\|\\| true|-Dtest=| BG" <<<"$cmds"; '
    'then echo "held: a trick" >&2; exit 2; fi; exit 0\n'
)


@pytest.mark.maven
@pytest.mark.slow
def test_lab10_a_require_sensors_that_greps_the_commands_does_not_pass_the_words_step(
    workspace: Workspace,
) -> None:
    """walk-f: the hook held every trick by its command and let the check's clean, green run
    go, so "all 5 tricks ... held by the reports" and "require-sensors.sh lets a real, green
    run end the turn" both passed, though it read no report."""
    runner = at_step(workspace, "10", "words")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved), solved
    honest_red = check_at(runner, 2)
    assert honest_red.status is Status.PASS, honest_red.found  # the seed's hook reads them
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    lines = hook.read_text().splitlines(keepends=True)
    hook.write_text("".join([lines[0], WORD_JUDGE, *lines[1:]]))

    green, red = check_at(runner, 1), check_at(runner, 2)

    assert green.status is Status.PASS, green.found  # the walk's pass, as it was
    assert red.status is Status.FAIL
    assert red.message.startswith("a plain sensor run that is red"), red.message


# ---- Lab 09: the quiz's record, rewound or reset ------------------------------------------
WRONG_09 = 'q1 = "b"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n'
RIGHT_09 = 'q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n'


def test_lab09_rewinding_the_progress_ref_does_not_erase_a_wrong_try(
    workspace: Workspace,
) -> None:
    """walk-f: `git update-ref refs/hooklab/progress <at step quiz>` after a wrong try; the
    next lab check judged at once: a loop of rewinds guessed without a wait."""
    root = workspace.root
    at_step(workspace, "9", "quiz")
    at = git(root, "log", "--format=%H", "--grep=09-read-the-adrs: at step quiz", PROGRESS)
    at = at.splitlines()[0]
    (root / "answers").mkdir(exist_ok=True)
    (root / "answers" / "adr-quiz.toml").write_text(WRONG_09)
    first = run_cli("check", cwd=root)
    assert first.code == 1 and "1 of 5 answers wrong" in first.out, first.out
    tip = git(root, "rev-parse", PROGRESS).strip()

    git(root, "update-ref", PROGRESS, at)
    again = run_cli("check", cwd=root)

    assert again.code == 1
    assert "too soon after a wrong try: not judged" in " ".join(again.out.split()), again.out
    # The record the rewind dropped is back under the chain: the wrong try, counted once.
    chain = git(root, "rev-list", "--first-parent", PROGRESS).split()
    assert tip in chain
    quiz = Progress.load(Workspace(root)).labs["09-read-the-adrs"].steps["quiz"]
    assert quiz.quiz_tries == 1


def test_lab09_a_reset_keeps_the_with_lab_solve_mark(workspace: Workspace) -> None:
    """walk-f: lab solve --apply, lab reset, the same five answers typed by hand, lab check:
    lab status said "passed" with no "(with lab solve)" any more, and so did the trainer's."""
    root = workspace.root
    at_step(workspace, "9", "quiz")
    assert run_cli("solve", "--apply", cwd=root).code == 0
    typed = (root / "answers" / "adr-quiz.toml").read_text()
    assert run_cli("reset", cwd=root).code == 0
    (root / "answers").mkdir(exist_ok=True)
    (root / "answers" / "adr-quiz.toml").write_text(typed)

    assert run_cli("check", cwd=root).code == 0

    quiz = Progress.load(Workspace(root)).labs["09-read-the-adrs"].steps["quiz"]
    assert quiz.passed and quiz.solved_with_help
    status = run_cli("status", cwd=root)
    assert "with lab solve" in status.out, status.out


# ---- Lab 11 steps 2 and 3: the reports of an earlier run, edited -------------------------
MVNW = ["./mvnw", "-q", "test", "-Dgroups=sensor"]
TRACED = "UseCaseTraceabilityTest"
CASE = "everyAnnotationPointsAtAnExistingUseCaseAndScenario"


def reports_dir(ws: Workspace) -> Path:
    return ws.root / REPORTS_DIR


def at_lab11_reports(ws: Workspace) -> LabRunner:
    """Lab 11 step 2 passed honestly: a real sensor run, the answers, lab check."""
    runner = at_step(ws, "11", "run-the-sensors")
    subprocess.run(MVNW, cwd=ws.root, check=True)
    (ws.root / "answers").mkdir(exist_ok=True)
    (ws.root / "answers" / "reports.toml").write_text('q1 = "5"\nq2 = "c"\nq3 = "a"\n')
    assert runner.check(record_failure=True).status is Status.PASS
    return runner


@pytest.mark.maven
@pytest.mark.slow
def test_lab11_kept_reports_with_a_newline_added_do_not_pass(
    workspace: Workspace, tmp_path: Path
) -> None:
    """walk-f: step 2's reports kept aside, lab reset 2, copied back with one newline appended
    to each XML: "five fresh, green sensor reports", no sensor run in the step."""
    runner = at_lab11_reports(workspace)
    kept = tmp_path / "walkf-sr"
    shutil.copytree(reports_dir(workspace), kept)
    runner.reset()
    shutil.rmtree(reports_dir(workspace), ignore_errors=True)
    shutil.copytree(kept, reports_dir(workspace))
    for xml in reports_dir(workspace).glob("*.xml"):
        xml.write_bytes(xml.read_bytes() + b"\n")
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "reports.toml").write_text('q1 = "5"\nq2 = "c"\nq3 = "a"\n')

    sensors = runner.check().results[0]

    assert sensors.status is Status.FAIL
    assert sensors.message.startswith(
        "the reports are those of a run from before this step, edited"
    )
    subprocess.run(MVNW, cwd=workspace.root, check=True)  # a real run passes
    assert runner.check().status is Status.PASS


def forge_failure(ws: Workspace, message: str) -> None:
    """walk-f's forgery: the green report of step 2 told, in the XML and its summary, that
    the traceability case failed with the rename's message; every time kept."""
    xml = reports_dir(ws) / f"TEST-{SENSOR_PACKAGE}.{TRACED}.xml"
    text = xml.read_text()
    text = re.sub(r'(<testsuite [^>]*?)failures="0"', r'\1failures="1"', text, count=1)
    case = re.search(rf'<testcase name="{CASE}"[^>]*?time="([\d.]+)"[^>]*?(/>|>)', text)
    assert case is not None, text
    took = case.group(1)
    stack = (
        f"org.opentest4j.AssertionFailedError: {escape(message)}\n"
        f"\tat {SENSOR_PACKAGE}.{TRACED}.{CASE}({TRACED}.java:88)\n"
    )
    failure = (
        f'<failure message="{escape(message, {chr(34): "&quot;"})}" '
        f'type="org.opentest4j.AssertionFailedError">{stack}</failure>'
    )
    opening = case.group(0)
    if opening.endswith("/>"):
        text = text.replace(opening, opening[:-2] + ">" + failure + "</testcase>", 1)
    else:
        text = text.replace(opening, opening + failure, 1)
    xml.write_text(text)
    txt = reports_dir(ws) / f"{SENSOR_PACKAGE}.{TRACED}.txt"
    summary = txt.read_text().replace("Failures: 0", "Failures: 1", 1)
    summary = re.sub(
        r"(Time elapsed: [\d.,]+ s)",
        r"\1 <<< FAILURE! - in " + SENSOR_PACKAGE + f".{TRACED}",
        summary,
        count=1,
    )
    summary += f"{SENSOR_PACKAGE}.{TRACED}.{CASE}  Time elapsed: {took} s  <<< FAILURE!\n{stack}\n"
    txt.write_text(summary)


@pytest.mark.maven
@pytest.mark.slow
def test_lab11_a_failure_written_into_step_2s_green_report_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-f: the flow renamed, no sensor run; the green traceability report of step 2 told
    by hand (XML and summary, every time kept) that the annotation points at no flow."""
    runner = at_lab11_reports(workspace)
    runner.next()
    assert runner.progress.step == "rename-a-flow"
    spec = workspace.root / "docs/use_cases/UC-005-add-visit.md"
    spec.write_text(
        spec.read_text().replace("A2: Visit Before Birth Date", "A2: Visit Predating Birth")
    )
    forge_failure(
        workspace,
        'UC005AddVisitTest.rejectsVisitBeforeBirthDate: @UseCase(id = "UC-005", scenario = '
        '"A2: Visit Before Birth Date") points at no alternative flow; UC-005 has A1: Missing '
        "Text, A2: Visit Predating Birth",
    )
    for path in reports_dir(workspace).iterdir():  # newer than the rename
        path.touch()

    renamed, sensors = runner.check().results

    assert renamed.status is Status.PASS
    assert sensors.status is Status.FAIL, sensors.message
    assert sensors.message.startswith(
        "the reports are those of a run from before this step, edited"
    )
    red = subprocess.run(MVNW, cwd=workspace.root, capture_output=True, check=False)
    assert red.returncode != 0  # the real red run passes
    assert runner.check().status is Status.PASS


# ---- Labs 12 and 13 on the Node project ---------------------------------------------------


# ---- Lab 12 step 1: contract words that name no claim, or take the short reason back -----
RIGHT_12 = {
    "Claim": "the build is ready: the tests pass and dist/app.js is built",
    "Check": "npm test and test -s dist/app.js",
    "Success": "exit 0",
    "Block": "exit 2 and a short reason on stderr",
}


def contract_12(ws: Workspace, **changed: str) -> CheckResult:
    (ws.root / "docs").mkdir(exist_ok=True)
    lines = [f"{part}: {changed.get(part, said)}\n" for part, said in RIGHT_12.items()]
    (ws.root / "docs" / "stop-hook-contract.md").write_text("".join(lines))
    (result,) = checks(ws, "12", "four-lines")
    return result


# The four lines walk-f found: tests/labs/test_free_passes_round7.py (one table of them all).


@pytest.mark.parametrize(
    "claim",
    [
        "the build is ready: the tests pass and dist/app.js is built",
        "build ready",
        "dist/app.js is built and the tests pass",
        "the build is done",
    ],
)
def test_lab12_a_claim_of_the_build_passes(node_ws: Workspace, claim: str) -> None:
    assert contract_12(node_ws, Claim=claim).status is Status.PASS
