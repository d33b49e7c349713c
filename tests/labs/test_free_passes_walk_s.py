"""walk-s's findings (issue 51, Labs 08-13) on the sensors and the quizzes: each screen played as
the walker met it, now saying what happened in one set of words.

Real: the shipped labs' setup, solutions and checks on a provisioned workspace, real Maven for
the walker's runs and for the check's own runs on its throwaway copies.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.maven.surefire import REPORTS_DIR
from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_failures_name_cause import WIDTHS, assert_whole_lines, screen
from tests.labs.test_free_passes import after_a_while, at_step

SENSOR_RUN = ["./mvnw", "-q", "test", "-Dgroups=sensor"]


@pytest.mark.maven
def test_lab08_the_four_probes_are_all_shown_under_the_pass(workspace: Workspace) -> None:
    """F2: "(4 violations)" stood above three of them; BookingEntryStore was left out unsaid."""
    runner = at_step(workspace, "8", "rule-as-test")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved), solved

    run = runner.check(every=True)

    said = next(r for r in run.results if "spares no other ending" in r.message)
    assert said.status is Status.PASS, said
    evidence = str(said.details["evidence"])
    assert "(4 violations)" in evidence, evidence
    for ending in ("Dao", "Store", "Repo", "Gateway"):
        assert f"{ending} is in the repository package" in evidence, (ending, evidence)


def test_a_failure_message_cut_under_a_pass_says_how_much_is_left_out() -> None:
    from harness.engine.checks.sensors import EVIDENCE_LINES, _excerpt

    lines = ["Architecture rule broken: x (9 violations)", *(f"  v{n}" for n in range(9))]

    shown = _excerpt("\n".join(lines)).splitlines()

    assert len(shown) == EVIDENCE_LINES
    assert shown[-1] == "… and 5 more lines of this message"
    assert _excerpt("\n".join(lines[:EVIDENCE_LINES])) == "\n".join(lines[:EVIDENCE_LINES])


@pytest.mark.maven
def test_lab08_green_reports_over_red_sources_name_a_hand_first(workspace: Workspace) -> None:
    """The Lab 08 WORDS nit: reports green, the sources red (TC-001 deleted after the run), so
    Hook Lab's own run disagrees. The likeliest cause, reports written or edited by hand, is
    named first, before the switches and environments."""
    runner = at_step(workspace, "8", "rule-as-test")
    runner.solve(apply=True)
    subprocess.run(SENSOR_RUN, cwd=workspace.root, check=True)
    assert runner.check().results[0].status is Status.PASS
    tc = workspace.root / "docs/test_cases/TC-001-register-owner-with-valid-data.md"
    tc.unlink()

    said = runner.check().results[0]

    assert said.status is Status.FAIL
    assert said.message.startswith("your reports say TestCaseTraceabilityTest passed"), said
    cause = said.message.split(" fail: ", 1)[1]
    assert cause.startswith("the reports were written or edited by hand, or the run"), cause
    assert "a switch such as -f or --define, MAVEN_OPTS" in cause
    for width in WIDTHS:
        shown = screen(said, width)
        assert_whole_lines(shown, width)  # Maven's path of the copy is not in it
        assert "written or edited by hand" in " ".join(shown.split())


def test_lab09_two_wrong_tries_of_one_state_are_said_alike(workspace: Workspace) -> None:
    """The Lab 09 nit: try 1 said "2 of 5 answers wrong", try 2 "3 of 5 answers right"."""
    runner = at_step(workspace, "9", "quiz")
    quiz = workspace.root / "answers" / "adr-quiz.toml"
    quiz.parent.mkdir(exist_ok=True)
    quiz.write_text('q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = ["a"]\nq5 = "b"\n')

    first = runner.check(record_failure=True).results[0]
    after_a_while(runner, "quiz")
    second = runner.check(record_failure=True).results[0]

    assert first.message == second.message == "2 of 5 answers wrong", (first, second)
    assert "q4" in (second.found or "") and "q4" not in (first.found or "")


def _retimed(folder: Path) -> None:
    """walk-s F4's edit of a kept run: one suite time in the XML and its summary, every case
    0.004 s."""
    for xml in folder.glob("TEST-*.xml"):
        text = re.sub(r'(<testcase [^>]*time=")[\d.,]+"', r'\g<1>0.004"', xml.read_text())
        xml.write_text(re.sub(r'(<testsuite [^>]*time=")[\d.,]+"', r'\g<1>0.091"', text))
    for txt in folder.glob("*.txt"):
        txt.write_text(
            re.sub(r"Time elapsed: [\d.,]+ s", "Time elapsed: 0.091 s", txt.read_text(), count=1)
        )


@pytest.mark.maven
def test_lab11_a_kept_run_re_timed_is_no_run_of_the_step(
    workspace: Workspace, tmp_path: Path
) -> None:
    """F4: reports of a run kept aside from another lab, re-timed so that no check knows them,
    copied into the empty target/ of step 2: no build of the step compiled the sensors."""
    runner = at_step(workspace, "11", "run-the-sensors")
    assert not (workspace.root / "target").exists()
    kept = tmp_path / "elsewhere"
    shutil.copytree(workspace.root, kept)
    subprocess.run(SENSOR_RUN, cwd=kept, check=True)
    reports = workspace.root / REPORTS_DIR
    shutil.copytree(kept / REPORTS_DIR, reports)
    _retimed(reports)
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "reports.toml").write_text('q1 = "5"\nq2 = "c"\nq3 = "a"\n')

    said = runner.check().results[0]

    assert said.status is Status.FAIL, said
    assert said.message.startswith("no build since this step began compiled the sensors"), said
    # The step's run passes.
    subprocess.run(["./mvnw", "test", "-Dgroups=sensor"], cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS
