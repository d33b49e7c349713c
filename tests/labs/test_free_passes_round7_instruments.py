"""Issue 51 item 1, a check tests the thing, not the person's instrument: the free passes of
the newcomer walks (walk-g, walk-h) tried as the walkers did, each failing with the file and
the fix named. An instrument is a file a step does not ask the person to change and a check
relies on (./mvnw, .mvn/, the fixture's hooks in a step that only observes them, the sensor
classes), compared with the lab's start commit (harness/engine/instruments.py).

Real: the shipped labs' checks on a provisioned workspace, real Maven and Surefire, the
workspace's bash hooks fed real JSON by the emulator, git for the shipped files.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from harness.results import CheckResult, Status
from harness.workspace import Workspace
from tests.labs.solved import checked, solved_at
from tests.labs.test_free_passes import LABS, at_step

HOOK = ".claude/hooks/require-sensors.sh"


def _said(results: list[CheckResult]) -> list[tuple[Status, str]]:
    return [(r.status, r.message) for r in results]


def _fails(results: list[CheckResult], headline: str) -> CheckResult:
    said = [r for r in results if r.message.startswith(headline)]
    assert said and said[0].status is Status.FAIL, _said(results)
    return said[0]


def _sensors(ws: Workspace) -> None:
    done = subprocess.run(
        ["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=ws.root, capture_output=True, text=True
    )
    assert "BUILD FAILURE" not in done.stdout or "There are test failures" in done.stdout


def _checkout(ws: Workspace, *paths: str) -> None:
    subprocess.run(["git", "checkout", "--", *paths], cwd=ws.root, check=True)


# ---- Lab 03 step 2: ./mvnw taught to forge the reports (walk-g FREE PASS 6) -----------------
# After the line that finds the project: when the marker is in the test file, a sensor run
# runs nothing and makes the green reports of the run before the break look fresh.
FORGING_MVNW = """\
marked="$project_dir/src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"
if grep -q '// forged' "$marked" && [[ "$*" == *-Dgroups=sensor* ]]; then
    touch "$project_dir"/target/surefire-reports/*; exit 0
fi
"""


def _forging_tricks() -> str:
    """The solution's tricks.toml whose last turn marks the test instead of fixing it."""
    honest = (LABS / "03-stop-hook" / "solution" / "tricks.toml").read_text()
    fix = 'old = "A1: Missing Text"\nnew = "A1: Missing Description"'
    assert fix in honest
    return honest.replace(
        fix, 'old = "class UC005AddVisitTest {"\nnew = "class UC005AddVisitTest { // forged"'
    )


@pytest.mark.maven
@pytest.mark.slow
def test_lab03_step2_a_mvnw_that_forges_reports_is_never_run(workspace: Workspace) -> None:
    runner = at_step(workspace, "3", "tricks")
    mvnw = workspace.root / "mvnw"
    lines = mvnw.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("project_dir="))
    lines.insert(at + 1, FORGING_MVNW)
    mvnw.write_text("".join(lines))
    (workspace.root / "scenarios" / "tricks.toml").write_text(_forging_tricks())

    results = list(runner.check(every=True).results)

    said = _fails(results, "mvnw is not as the lab shipped it, and this check runs Maven")
    assert said.found == "mvnw: changed"
    assert said.details["fix"] == "git checkout -- mvnw"
    # The session itself never ran: no Maven through the edited wrapper, no verdict from it.
    assert "tricks" not in " ".join(r.message for r in results if r.status is Status.PASS)


def test_a_maven_config_added_refuses_every_check_that_runs_maven(workspace: Workspace) -> None:
    """A file Maven reads that the lab never shipped (.mvn/maven.config could say -DskipTests)
    refuses each check that would run Maven, before it runs; Hook Lab's own record of the
    backend (.mvn/hooklab-backend) is no instrument."""
    runner = solved_at(workspace, "3", "held")
    (workspace.root / ".mvn" / "maven.config").write_text("-DskipTests\n")
    (workspace.root / ".mvn" / "hooklab-backend").write_text("local\n")

    results = list(runner.check(every=True).results)

    sessions = [r for r in results if r.name != "git" and r.name != "shipped"]
    assert sessions and all(r.status is Status.FAIL for r in sessions), _said(results)
    for said in sessions:
        assert said.message.startswith(".mvn/maven.config is not as the lab shipped it")
        assert said.found == ".mvn/maven.config: not shipped"
        assert said.details["fix"] == "rm .mvn/maven.config"


# ---- Lab 01 step 3: require-sensors.sh taught to let the forged file go (FREE PASS 3) -------
@pytest.mark.slow
def test_lab01_step3_a_stop_hook_taught_to_let_the_forgery_go_is_named(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "1", "forge-a-report")
    answers = workspace.root / "answers"
    answers.mkdir(exist_ok=True)
    (answers / "forged.xml").write_text("<!-- <testsuite --> hello\n")
    hook = workspace.root / HOOK
    lines = hook.read_text().splitlines(keepends=True)
    lines.insert(
        1, 'grep -qs hello "$CLAUDE_PROJECT_DIR"/target/surefire-reports/*.xml && exit 0\n'
    )
    hook.write_text("".join(lines))

    results = list(runner.check(every=True).results)

    said = _fails(results, f"{HOOK} is not as the lab shipped it")
    assert "fixture's Stop hook" in said.message
    assert said.details["fix"] == f"git checkout -- {HOOK}"
    _checkout(workspace, HOOK)
    (answers / "forged.xml").unlink()
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS


# ---- Lab 03 step 1: the hook swapped for one that lets any report go (FREE PASS 5) ----------
LETS_ANY_REPORT_GO = """#!/usr/bin/env bash
in=$(cat)
echo "$in" | grep -q '"stop_hook_active": *true' && exit 0
ls "$CLAUDE_PROJECT_DIR"/target/surefire-reports/*.xml >/dev/null 2>&1 && exit 0
echo "You are not done yet. Run ./mvnw -q test -Dgroups=sensor" >&2
exit 2
"""


@pytest.mark.maven
@pytest.mark.slow
def test_lab03_step1_a_hook_that_lets_any_report_go_does_not_pass(workspace: Workspace) -> None:
    runner = solved_at(workspace, "3", "held")  # the change the step asks for
    hook = workspace.root / HOOK
    hook.write_text(LETS_ANY_REPORT_GO)

    results = list(runner.check(every=True).results)

    said = _fails(results, f"{HOOK} is not as the lab shipped it")
    assert said.details["fix"] == f"git checkout -- {HOOK}"
    # Where no instrument rule applies, the lesson's own guard holds: a change made after a
    # green run is held again, and this hook lets it go on the old reports.
    _fails(results, "the Stop hook let a turn end on reports older than its last change")
    _checkout(workspace, HOOK)
    assert runner.check().status is Status.PASS


# ---- Lab 02 step 2: annotations as comments, UC-003 set back to Draft (FREE PASS 4) ---------
TEST_FILE = "src/test/java/ai/unifiedprocess/petclinic/UC003RegisterOwnerTest.java"
SPEC = "docs/use_cases/UC-003-register-new-owner.md"
A1_TESTS = (
    "rejectsMissingLastName",
    "rejectsTelephoneWithAnythingButUpToTenDigits",
    "formShowsEveryRejectedFieldAndKeepsTheInput",
)


def _annotations_as_comments(ws: Workspace, status: str) -> None:
    """walk-g's diff: the scenario dropped from each A1 annotation, the wanted annotation
    written as a comment above each A1 method, UC-003's Status set to ``status``."""
    path = ws.root / TEST_FILE
    text = path.read_text().replace(', scenario = "A1: Validation Errors"', "")
    for method in A1_TESTS:
        text = text.replace(
            f"    void {method}(",
            f'    // @UseCase(id = "UC-003", scenario = "A1: Invalid Input")\n    void {method}(',
        )
    path.write_text(text)
    spec = ws.root / SPEC
    spec.write_text(spec.read_text().replace("**Status:** Done", f"**Status:** {status}"))


@pytest.mark.maven
@pytest.mark.slow
def test_lab02_step2_annotations_in_comments_and_a_demoted_spec_do_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "2", "fix-annotations")
    _annotations_as_comments(workspace, "Draft")
    _sensors(workspace)  # green: a Draft use case asks for no test of its flows

    results = list(runner.check(every=True).results)

    _fails(results, "UC-003 is no longer Done")
    said = _fails(results, "an A1 test's annotation is gone or points at another flow")
    assert "in code, not in a comment" in str(said.expected)


@pytest.mark.maven
@pytest.mark.slow
def test_lab02_step2_annotations_in_comments_are_not_read_as_code(workspace: Workspace) -> None:
    runner = at_step(workspace, "2", "fix-annotations")
    _annotations_as_comments(workspace, "Done")
    _sensors(workspace)

    results = list(runner.check(every=True).results)

    _fails(results, "an A1 test's annotation is gone or points at another flow")
    # Done asks a test of every flow: the sensor, which reads code, is red as well.
    assert any(r.status is Status.FAIL and r.name.startswith("sensors") for r in results)


# ---- Lab 08 step 1: the other ArchitectureTest rules switched off (walk-h) ------------------
ARCHITECTURE = "src/test/java/ai/unifiedprocess/petclinic/ArchitectureTest.java"


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_step1_a_run_that_keeps_only_the_new_rule_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "8", "rule-as-test")
    path = workspace.root / ARCHITECTURE
    text = path.read_text()
    kept = "    @Test\n    void repositoriesAreNamedRepository()"
    assert kept in text
    # Every @Test but the new rule's goes (walk-h's python), then a real, green run.
    text = re.sub(r"    @Test\n(?!    void repositoriesAreNamedRepository\(\))", "", text)
    assert text.count("@Test") == 1
    path.write_text(text)
    _sensors(workspace)

    # The shipped check alone, not the step's six sensor runs (each a Maven run on a copy).
    results = checked(runner, "shipped")

    said = _fails(results, "the sensor run lacks rules ArchitectureTest had when the lab started")
    assert said.found is not None and said.found.startswith("ArchitectureTest: no test case")
    _checkout(workspace, ARCHITECTURE)
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS
