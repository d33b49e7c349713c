"""Issue 51, part 1: each free pass a newcomer found, tried as they wrote it, fails its check.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports or proves a sensor, the workspace's bash hooks on the emulator.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.maven.surefire import REPORTS_DIR, SENSORS, sensor_test_methods
from harness.results import CheckResult, Status
from harness.trainer.member import StepHelp
from harness.workspace import Workspace
from tests.builders import reach_step

LABS = Path(__file__).resolve().parents[2] / "labs"


def at_step(ws: Workspace, lab: str, step: str) -> LabRunner:
    return reach_step(ws, lab, step)  # reached once per worker, copied for each test


def check_at(runner: LabRunner, index: int) -> CheckResult:
    """One check of the current step, as lab check runs it."""
    lab, step = runner.current()
    spec = step.checks[index]
    return spec.kind.run(runner.context(lab), spec.typed)


# ---- Lab 06 step 2: smoke.sh told to count a failure as a pass -----------------------------
@pytest.mark.slow
def test_lab06_a_smoke_sh_that_counts_failures_as_passes_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "6", "broken-hook")
    smoke = workspace.root / ".claude" / "hooks" / "smoke.sh"
    text = smoke.read_text()
    honest = 'if "$@" >/dev/null 2>&1; then'
    assert honest in text
    smoke.write_text(text.replace(honest, 'if "$@" >/dev/null 2>&1 || true; then'))
    guard = workspace.root / ".claude" / "hooks" / "guard-spec-status.sh"
    assert '[ -n "$problem" ] && exit 0' in guard.read_text()  # the planted bug is still there

    run = runner.check(every=True)

    smoke_said, guard_said, pristine, shipped, registered, smoke_ran, *_ = run.results
    assert registered.name == "settings" and registered.status is Status.PASS
    assert smoke_ran.status is Status.FAIL  # no green run of the shipped smoke.sh recorded
    assert shipped.status is Status.FAIL  # the edited smoke.sh is named as not shipped
    assert shipped.details["fix"] == "git checkout -- .claude/hooks/smoke.sh"
    # The free pass: the edited smoke.sh is green and the stop after it is allowed...
    assert smoke_said.status is Status.PASS, smoke_said.found
    # ...but the guard, tried in a session of its own, lets Done through without an audit.
    assert guard_said.status is Status.FAIL
    assert guard_said.message.startswith("guard-spec-status.sh does not refuse Done without")
    # The cause first: the Done edit went through (check-spec-status.sh only reported it after
    # it ran), not the later edit that then found nothing to replace.
    assert (guard_said.found or "").splitlines()[0] == (
        "session step 2 (edit docs/use_cases/UC-005-add-visit.md): "
        "docs/use_cases/UC-005-add-visit.md was changed"
    )
    assert pristine.status is Status.FAIL  # the workshop's own smoke.sh finds the bug too
    assert run.status is Status.FAIL


# ---- Lab 01 step 1: reports no run wrote -------------------------------------------------
ONE_LINE = '<testsuite tests="1" failures="0" errors="0" skipped="0"></testsuite>\n'


def reports(ws: Workspace) -> Path:
    return ws.root / REPORTS_DIR


@pytest.mark.maven
def test_lab01_five_hand_written_one_line_reports_do_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "1", "run-sensors")
    folder = reports(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    for sensor in SENSORS:
        (folder / f"TEST-ai.unifiedprocess.petclinic.{sensor}.xml").write_text(ONE_LINE)

    run = runner.check()

    assert run.status is Status.FAIL
    (said,) = run.results
    assert said.message == (
        "a report does not list every test of its sensor: a run of these sources writes a "
        "<testcase> per @Test method, so no such run wrote it"
    )
    assert (said.found or "").splitlines()[0] == (
        "ArchitectureTest: 0 of 7 test cases; no uiTalksToServicesNeverToRepositories"
    )
    # A real run passes it.
    subprocess.run(["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS


@pytest.mark.maven
@pytest.mark.slow
def test_lab01_touching_old_reports_after_starting_a_done_lab_again_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "1", "run-sensors")
    for _ in runner.lab().steps:
        _step, solved, _backup = runner.solve(apply=True)
        assert all(r.status is Status.PASS for r in solved), solved
        assert runner.check().status is Status.PASS
        runner.next()
    assert runner.progress.labs[runner.lab().id].completed_at
    assert any(reports(workspace).glob("TEST-*.xml"))

    runner.start("1")  # the guide: old Surefire reports go

    assert not reports(workspace).exists()
    touched = subprocess.run(
        "touch target/surefire-reports/*.xml", shell=True, cwd=workspace.root, check=False
    )
    assert touched.returncode != 0  # nothing there to touch
    run = runner.check()
    assert run.status is Status.FAIL
    assert run.results[0].message == (
        "no fresh, green sensor reports yet: run ./mvnw -q test -Dgroups=sensor"
    )


def names_only_report(ws: Workspace, sensor: str) -> str:
    """The walk's forgery: a report by hand with the sensor's real test names (read off its
    source, as a person would) and the counts, nothing else."""
    methods = sensor_test_methods(ws.root, sensor)
    cases = "".join(f'<testcase name="{m}"/>' for m in methods)
    return (
        f'<testsuite tests="{len(methods)}" failures="0" errors="0" skipped="0">{cases}'
        "</testsuite>\n"
    )


@pytest.mark.maven
def test_lab01_hand_written_reports_with_the_real_test_names_do_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "1", "run-sensors")
    folder = reports(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    for sensor in SENSORS:
        path = folder / f"TEST-ai.unifiedprocess.petclinic.{sensor}.xml"
        path.write_text(names_only_report(workspace, sensor))

    run = runner.check()

    assert run.status is Status.FAIL
    (said,) = run.results
    assert (said.found or "").splitlines()[0] == (
        "ArchitectureTest: the suite is not named ai.unifiedprocess.petclinic.ArchitectureTest "
        '(name="")'
    )


@pytest.mark.maven
@pytest.mark.slow
def test_lab01_reports_of_an_earlier_run_kept_and_touched_do_not_pass(
    workspace: Workspace, tmp_path: Path
) -> None:
    """The walk's other pass: reports of a real run, kept aside, brought back after the lab
    started again, and touched to look new."""
    runner = at_step(workspace, "1", "run-sensors")
    subprocess.run(["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS
    kept = tmp_path / "kept"
    shutil.copytree(reports(workspace), kept)

    before = runner.progress.labs[runner.lab().id].steps["run-sensors"].entered_at
    runner.goto("run-sensors")  # the step entered again, as lab reset or a restart does
    assert runner.progress.labs[runner.lab().id].steps["run-sensors"].entered_at != before
    shutil.rmtree(reports(workspace), ignore_errors=True)
    shutil.copytree(kept, reports(workspace))
    subprocess.run(
        "touch target/surefire-reports/*.xml", shell=True, cwd=workspace.root, check=True
    )

    run = runner.check()
    assert run.status is Status.FAIL
    assert run.results[0].message.startswith(
        "the reports are byte for byte the ones of a run from before this step"
    )
    # A new real run passes.
    subprocess.run(["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS


def test_lab01_forge_step_teaches_that_the_stop_hook_believes_a_forgery(
    workspace: Workspace,
) -> None:
    """Step 3's lesson, on the emulator: the seed's Stop hook lets a turn end on five copies
    of the one-line report (what the issue found), and holds it before the file is there."""
    runner = at_step(workspace, "1", "forge-a-report")
    assert runner.check().status is Status.FAIL
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "forged.xml").write_text(ONE_LINE)
    run = runner.check()
    assert run.status is Status.PASS, run.results[-1].found
    assert run.results[-1].message == (
        "the Stop hook let the turn end on a report no run wrote: it checks files, not who "
        "wrote them"
    )


# ---- Lab 08 step 1: a rule that only knows the probe's name ------------------------------
ARCH = Path("src/test/java/ai/unifiedprocess/petclinic/ArchitectureTest.java")
ANCHOR = """
    @Test
    void productionCodeNeverUsesTestCode() {"""
ONLY_OWNER_STORE = """
    @Test
    void repositoriesAreNamedRepository() {
        List<String> offenders = main.stream()
                .filter(type -> type.simpleName().equals("OwnerStore"))
                .map(type -> type.name() + " is not named ...Repository")
                .toList();
        report("repository types are named ...Repository", offenders);
    }
"""
EVERY_NEW_TYPE = """
    @Test
    void repositoriesAreNamedRepository() {
        List<String> known = List.of("OwnerRepository", "PetTypeRepository", "VetRepository",
                "VisitRepository");
        List<String> offenders = main.stream()
                .filter(type -> type.packageName().equals(REPOSITORY) && type.isTopLevel())
                .filter(type -> !known.contains(type.simpleName()))
                .map(type -> type.name() + " is new in the repository package")
                .toList();
        report("no new repository types", offenders);
    }
"""


def with_rule(ws: Workspace, method: str) -> None:
    path = ws.root / ARCH
    text = path.read_text()
    assert ANCHOR in text
    path.write_text(text.replace(ANCHOR, method + ANCHOR, 1))


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_a_test_that_fails_only_on_owner_store_does_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "8", "rule-as-test")
    with_rule(workspace, ONLY_OWNER_STORE)
    named = check_at(runner, 1)
    assert named.status is Status.PASS, named.found  # the free pass, as it was
    unnamed = check_at(runner, 2)
    assert unnamed.status is Status.FAIL
    assert re.match(r"with a repository/[A-Z]\w+\.java added", unnamed.message)


ONLY_THE_PROBES_SEEN = """
    @Test
    void repositoriesAreNamedRepository() {
        List<String> offenders = main.stream()
                .filter(type -> List.of("OwnerStore", "PetArchive").contains(type.simpleName()))
                .map(type -> type.name() + " is not named ...Repository")
                .toList();
        report("repository types are named ...Repository", offenders);
    }
"""


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_a_test_for_the_probe_a_failure_once_named_does_not_pass(
    workspace: Workspace,
) -> None:
    """The walk's pass: the unnamed probe was always PetArchive, shown by its failure."""
    runner = at_step(workspace, "8", "rule-as-test")
    with_rule(workspace, ONLY_THE_PROBES_SEEN)
    first, again = check_at(runner, 2), check_at(runner, 2)
    assert first.status is Status.FAIL and again.status is Status.FAIL
    named = [re.match(r"with a repository/(\w+)\.java", r.message) for r in (first, again)]
    assert all(named) and "PetArchive" not in first.message
    # Made up anew each run (two of 10 x 10 x 98 names alike: a chance of 1 in 9,800).
    assert named[0] and named[1] and named[0][1] != named[1][1]


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_the_real_rule_passes_the_made_up_probes(workspace: Workspace) -> None:
    runner = at_step(workspace, "8", "rule-as-test")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved), solved
    for index in (2, 3):
        said = check_at(runner, index)
        assert said.status is Status.PASS, said.found
        assert "(this time repository/" in said.message


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_a_test_that_refuses_every_new_type_does_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "8", "rule-as-test")
    with_rule(workspace, EVERY_NEW_TYPE)
    well_named = check_at(runner, 3)
    assert well_named.status is Status.FAIL
    assert re.match(r"with a repository/[A-Z]\w+Repository\.java added", well_named.message)


# ---- Quizzes: a loop of letters --------------------------------------------------------
def test_a_quiz_names_no_wrong_answer_on_a_first_try_and_counts_the_tries(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "9", "quiz")
    quiz = workspace.root / "answers" / "adr-quiz.toml"
    quiz.parent.mkdir(exist_ok=True)
    quiz.write_text('q1 = "a"\nq2 = "a"\nq3 = "a"\nq4 = ["a"]\nq5 = "a"\n')

    first = runner.check(record_failure=True).results[0]

    assert first.status is Status.FAIL
    assert first.message == "3 of 5 answers wrong"
    assert not any(f"q{n}" in (first.found or "") for n in range(1, 6))
    # The second try may name them, once the person had the time to read again.
    after_a_while(runner, "quiz")
    second = runner.check(record_failure=True).results[0]
    assert (second.found or "").splitlines()[0].startswith('q1: "a" is not right')
    quiz.write_text('q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n')
    after_a_while(runner, "quiz")
    assert runner.check(record_failure=True).status is Status.PASS
    step = runner.progress.labs[runner.lab().id].steps["quiz"]
    assert step.quiz_tries == 2  # the wrong tries: a right one counts toward no wait
    assert StepHelp(step.failed_checks, step.hints, False, step.quiz_tries).words() == [
        "2 failed checks",
        "2 quiz tries",
    ]


# ---- Lab 06 step 2: a rigged smoke.sh left in place, the guard broken where the session
# does not look ---------------------------------------------------------------------------
@pytest.mark.slow
def test_lab06_a_rigged_smoke_sh_over_a_guard_broken_for_write_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "6", "broken-hook")
    hooks = workspace.root / ".claude" / "hooks"
    smoke = hooks / "smoke.sh"
    honest = 'if "$@" >/dev/null 2>&1; then'
    smoke.write_text(smoke.read_text().replace(honest, 'if "$@" >/dev/null 2>&1 || true; then'))
    guard = hooks / "guard-spec-status.sh"
    text = guard.read_text()
    # The planted bug fixed, and the guard told to look away from Write: the Edit session of
    # the step's second check still sees Done refused and allowed as it should.
    text = text.replace('[ -n "$problem" ] && exit 0', '[ -n "$problem" ] || exit 0')
    write_case = "case $tool in Edit | Write | MultiEdit) ;; *) exit 0 ;; esac"
    assert write_case in text
    guard.write_text(
        text.replace(write_case, "case $tool in Edit | MultiEdit) ;; *) exit 0 ;; esac")
    )

    # The rigged smoke.sh's check passes whatever the hooks (the test above, same rig): the
    # step's other two checks are the ones to hold, so only they run here.
    session, pristine = check_at(runner, 1), check_at(runner, 2)
    assert session.status is Status.PASS, session.found
    assert pristine.status is Status.FAIL
    assert pristine.message.startswith("the workshop's own smoke.sh (not yours)")
    assert "FAIL" in (pristine.output or "")
    # The honest fix passes the workshop's smoke.sh.
    guard.write_text(guard.read_text().replace("Edit | MultiEdit)", "Edit | Write | MultiEdit)"))
    assert check_at(runner, 2).status is Status.PASS


@pytest.mark.parametrize("move", ["reset", "goto", "start"])
def test_a_reset_keeps_the_quiz_wait_and_the_count_of_tries(
    workspace: Workspace, move: str
) -> None:
    """Issue 51: `lab reset N` cleared the wait after a wrong try and made the next try a
    first one again. The tries are the person's history, not their work: they stay."""
    runner = at_step(workspace, "9", "quiz")
    quiz = workspace.root / "answers" / "adr-quiz.toml"
    quiz.parent.mkdir(exist_ok=True)
    quiz.write_text('q1 = "a"\nq2 = "a"\nq3 = "a"\nq4 = ["a"]\nq5 = "a"\n')
    assert runner.check(record_failure=True).results[0].message == "3 of 5 answers wrong"

    if move == "reset":
        runner.reset()
    elif move == "goto":
        runner.goto("1")
        runner.goto("quiz")
    else:
        runner.start("1")
        runner = LabRunner(workspace)
        runner.start("9")
        if runner.progress.step != "quiz":
            runner.goto("quiz")
    runner = LabRunner(workspace)  # the next lab check is a command of its own
    quiz.parent.mkdir(exist_ok=True)
    quiz.write_text('q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n')

    again = runner.check(record_failure=True).results[0]
    assert again.status is Status.FAIL
    assert again.message.startswith("too soon after a wrong try: not judged;"), again.message
    step = runner.progress.labs[runner.lab().id].steps["quiz"]
    assert step.quiz_tries == 1


@pytest.mark.slow
def test_lab06_a_rigged_smoke_sh_over_a_silenced_status_check_does_not_pass(
    workspace: Workspace,
) -> None:
    """Issue 51: the guard fixed, smoke.sh rigged and check-spec-status.sh told to exit 0 at
    once passed: the workshop's smoke.sh ran only its guard group."""
    runner = at_step(workspace, "6", "broken-hook")
    hooks = workspace.root / ".claude" / "hooks"
    smoke = hooks / "smoke.sh"
    honest = 'if "$@" >/dev/null 2>&1; then'
    smoke.write_text(smoke.read_text().replace(honest, 'if "$@" >/dev/null 2>&1 || true; then'))
    guard = hooks / "guard-spec-status.sh"
    guard.write_text(
        guard.read_text().replace('[ -n "$problem" ] && exit 0', '[ -n "$problem" ] || exit 0')
    )
    subprocess.run(["sed", "-i", "2i exit 0", str(hooks / "check-spec-status.sh")], check=True)

    # The rigged smoke.sh's check passes whatever the hooks (the first Lab 06 test, same rig).
    session, pristine = check_at(runner, 1), check_at(runner, 2)

    assert session.status is Status.PASS, session.found
    assert pristine.status is Status.FAIL
    assert pristine.message.startswith("the workshop's own smoke.sh (not yours)")
    output = pristine.output or ""
    assert "note: your smoke.sh's check() differs from the shipped one" in output
    assert "FAIL a sed to Done is reported" in output


@pytest.mark.slow
@pytest.mark.parametrize("how", ["exit 0", "no Stop entry"])
def test_lab01_a_stop_hook_turned_off_does_not_pass_the_forge_lesson(
    workspace: Workspace, how: str
) -> None:
    """Issue 51: with require-sensors.sh told to exit 0 (or its Stop entry gone) and no
    answers/forged.xml, "the Stop hook let the turn end on a report no run wrote" passed."""
    runner = at_step(workspace, "1", "forge-a-report")
    if how == "exit 0":
        hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
        subprocess.run(["sed", "-i", "2i exit 0", str(hook)], check=True)
    else:
        path = workspace.root / ".claude" / "settings.json"
        settings = json.loads(path.read_text())
        del settings["hooks"]["Stop"]
        path.write_text(json.dumps(settings, indent=2))

    run = runner.check(every=True)

    forged, shipped, holds, fooled = run.results
    assert fooled.status is Status.PASS, fooled.found  # the old check alone was fooled
    assert shipped.status is Status.FAIL  # the hook or its settings: not as shipped
    assert forged.status is Status.FAIL
    assert forged.message.startswith("answers/forged.xml does not exist yet")
    assert holds.status is Status.FAIL
    assert holds.message.startswith("the Stop hook let a turn end with no fresh report")
    assert run.status is Status.FAIL


@pytest.mark.slow
def test_lab04_a_stub_status_check_and_an_echo_do_not_pass_the_sed_step(
    workspace: Workspace,
) -> None:
    """Issue 51: check-spec-status.sh stubbed to always report UC-002, and a scenario whose
    command only says UC-002, passed "a Bash command setting UC-002 to Done"."""
    runner = at_step(workspace, "4", "sed")
    hook = workspace.root / ".claude" / "hooks" / "check-spec-status.sh"
    stub = '2i echo "UC-002 now reads Done" >&2; exit 2'
    subprocess.run(["sed", "-i", stub, str(hook)], check=True)
    scenario = workspace.root / "scenarios" / "sed.toml"
    scenario.parent.mkdir(exist_ok=True)
    scenario.write_text(
        '[[step]]\ndo = "session_start"\n\n'
        '[[step]]\ndo = "bash"\ncommand = "echo UC-002"\nexpect = "blocked"\n'
    )

    yours, hook_itself, reads_markers, shipped = runner.check(every=True).results

    assert yours.status is Status.FAIL
    assert "did not contain '**Status:** Done'" in (yours.found or ""), yours.found
    assert hook_itself.status is Status.FAIL
    assert hook_itself.message.startswith("check-spec-status.sh does not tell a real change")
    assert reads_markers.status is Status.FAIL  # it names UC-002 after UC-002's audit too
    assert shipped.status is Status.FAIL  # the stub is no shipped hook
    assert "check-spec-status.sh" in shipped.message + (shipped.found or "")
    # The hook as shipped and the step's own sed pass both.
    subprocess.run(["git", "checkout", "--", str(hook)], cwd=workspace.root, check=True)
    shutil.copy(LABS / "04-status-guard" / "solution" / "sed.toml", scenario)
    assert runner.check(every=True).status is Status.PASS


def test_lab07_a_stub_that_names_the_script_in_a_comment_is_no_registration(
    workspace: Workspace,
) -> None:
    """Issue 51: an inline stub whose command mentions the script only in a trailing
    `# comment` passed "settings.json registers scripts/check-before-stop.sh"."""
    runner = at_step(workspace, "7", "register")
    path = workspace.root / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    stub = (
        "jq -e .stop_hook_active >/dev/null && exit 0; "
        "echo 'no sensor reports' >&2; exit 2 "
        '# "$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh"'
    )
    settings["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": stub})
    path.write_text(json.dumps(settings, indent=2))

    registered = check_at(runner, 0)

    assert registered.status is Status.FAIL
    assert registered.message.startswith(".claude/settings.json should register")
    # The script itself as the command passes.
    settings["hooks"]["Stop"][0]["hooks"][-1]["command"] = (
        '"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh"'
    )
    path.write_text(json.dumps(settings, indent=2))
    assert check_at(runner, 0).status is Status.PASS


@pytest.mark.maven
@pytest.mark.slow
def test_lab03_a_red_run_and_a_second_stop_do_not_end_the_tricks_session(
    workspace: Workspace,
) -> None:
    """Issue 51: a last turn whose fix is wrong, runs the sensors red, then stops twice
    (held, then let go on stop_hook_active) got "only the real, green run ended the turn"."""
    runner = at_step(workspace, "3", "tricks")
    honest = (LABS / "03-stop-hook" / "solution" / "tricks.toml").read_text()
    fix = (
        'file = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"\n'
        'old = "A1: Missing Text"\nnew = "A1: Missing Description"\n'
    )
    assert fix in honest
    # The fix edits the right test, to a flow the spec does not have: the run stays red.
    rigged = honest.replace(
        fix,
        'file = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"\n'
        'old = "A1: Missing Text"\nnew = "A1: Missing Words"\n',
    )
    last_stop = '[[step]]\ndo = "stop"\nexpect = "allowed"\n'
    assert rigged.endswith(last_stop)
    rigged = rigged.removesuffix(last_stop) + (
        '[[step]]\ndo = "stop"\nexpect = "blocked"\n' + last_stop
    )
    (workspace.root / "scenarios" / "tricks.toml").write_text(rigged)

    tricks = check_at(runner, 0)

    assert tricks.status is Status.FAIL
    held = "a stop that is allowed and is not the hook letting go of a stop it held"
    assert held in (tricks.found or "")


STUB_STOP_HOOK = """#!/usr/bin/env bash
. "${BASH_SOURCE[0]%/*}/lib.sh" 2>/dev/null || exit 0
aiup_fail_open
aiup_read_input active=stop_hook_active
aiup_open_project
aiup_block "Run ./mvnw -q test -Dgroups=sensor first."
"""


@pytest.mark.maven
@pytest.mark.slow
def test_lab05_a_stop_hook_that_always_blocks_does_not_pass(workspace: Workspace) -> None:
    """Issue 51: require-sensors.sh replaced by a stub that always blocks after its fail-open
    lines passed; the step asks to keep the rest of the hook as it is."""
    runner = at_step(workspace, "5", "strict-stop-hook")
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    hook.write_text(STUB_STOP_HOOK)

    run = runner.check(every=True)

    *fail_open, holds, lets_go, added, others = run.results
    assert others.name == "shipped" and others.status is Status.PASS  # the rest as shipped
    assert all(r.status is Status.PASS for r in fail_open), [r.message for r in fail_open]
    assert added.status is Status.FAIL  # the stub's own lines: the step only takes lines out
    assert holds.status is Status.PASS, holds.found  # the stub holds a change, as it should
    assert lets_go.status is Status.FAIL
    assert lets_go.message.startswith("require-sensors.sh holds the turn even after a fresh")


ONE_REPORT_HOOK = """#!/usr/bin/env bash
cd "$CLAUDE_PROJECT_DIR" || exit 0
grep -q '"stop_hook_active": *true' && { echo '{"systemMessage": "no report"}'; exit 0; }
r=target/surefire-reports/TEST-ai.unifiedprocess.petclinic.ArchitectureTest.xml
[ -f "$r" ] && [ -z "$(find src docs pom.xml -newer "$r" -type f -print -quit)" ] && exit 0
echo "Stop check blocked: run ./mvnw -q test -Dgroups=sensor" >&2
exit 2
"""


@pytest.mark.maven
@pytest.mark.slow
def test_lab07_a_hook_that_reads_one_report_does_not_pass_verify_hook(
    workspace: Workspace,
) -> None:
    """Issue 51: a 7-line hook that checks only that ArchitectureTest's report exists and is
    fresh got "all 9 checks pass": the grading never played a red or a missing other report."""
    runner = at_step(workspace, "7", "write-hook")
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    hook.write_text(ONE_REPORT_HOOK)

    graded = check_at(runner, 1)

    assert graded.status is Status.FAIL, graded.message
    assert "1 of 10 checks fail: lets the turn end after `sed -i" in graded.message
    assert "failures=" in (graded.found or ""), graded.found


def after_a_while(runner: LabRunner, step: str) -> None:
    """The clock moved on past the quiz's wait (a stand-in for minutes of reading)."""
    mine = runner.progress.labs[runner.lab().id].steps[step]
    mine.quiz_tried_at = (mine.quiz_tried_at or 0) - 3600


LETTERS = ("a", "b", "c")  # every question of Lab 09 has these options


def test_a_loop_trying_letters_does_not_pass_lab09s_quiz(workspace: Workspace) -> None:
    """The issue's loop: one letter for every answer, the next letter each lab check."""
    runner = at_step(workspace, "9", "quiz")
    quiz = workspace.root / "answers" / "adr-quiz.toml"
    quiz.parent.mkdir(exist_ok=True)
    said = []
    for letter in LETTERS * 3:
        quiz.write_text(
            "".join(f'q{n} = "{letter}"\n' for n in (1, 2, 3, 5)) + f'q4 = ["{letter}"]\n'
        )
        said.append(runner.check(record_failure=True).results[0])
    assert all(r.status is Status.FAIL for r in said)
    assert said[0].message == "3 of 5 answers wrong"
    # Every try after the first, seconds later, is not judged: nothing named, nothing counted.
    for later in said[1:]:
        assert later.message.startswith("too soon after a wrong try: not judged;"), later.message
        assert not any(f"q{n}" in (later.found or "") for n in range(1, 6))
    step = runner.progress.labs[runner.lab().id].steps["quiz"]
    assert step.quiz_tries == 1
    # The right answers, typed at once after a wrong try, wait too: a pass would tell a loop.
    quiz.write_text('q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n')
    assert runner.check(record_failure=True).status is Status.FAIL
    after_a_while(runner, "quiz")
    assert runner.check(record_failure=True).status is Status.PASS
