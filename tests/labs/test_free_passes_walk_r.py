"""walk-r's findings (issue 51, Labs 01-07): each free pass played as the walker played it, and
each screen that sent them the wrong way, now failing with its cause named.

Real: the shipped labs' setup and checks on a provisioned workspace, real Maven for every run
(the walker's and Hook Lab's own agreement run), the workspace's bash hooks on the emulator,
screens laid out at 80, 100 and 120 columns by the CLI's own renderers.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from harness.claude.vocabulary import Outcome
from harness.engine.checks.session_judge import sequence_problems
from harness.engine.context import CheckContext
from harness.engine.manifest import find_lab
from harness.engine.stepview import StepView
from harness.maven.surefire import REPORTS_DIR, SENSOR_PACKAGE, sensor_test_methods
from harness.results import Status
from harness.ui.hook_event_view import hook_event_renderable
from harness.ui.prose import print_prose
from harness.workspace import Workspace
from tests.labs.test_failures_name_cause import WIDTHS, assert_whole_lines, screen
from tests.labs.test_free_passes import at_step
from tests.labs.test_lab03_tricks_check import put, set_up, tricks_check

SENSOR_RUN = ["./mvnw", "-q", "test", "-Dgroups=sensor"]

# walk-r F1, as written: five reports and their summaries, the real test names grepped from
# each source, one constant time for every case and every suite. No Maven. (Two long lines
# are split, as bash reads them the same.)
WALKER_LOOP = r"""
mkdir -p target/surefire-reports
for s in ArchitectureTest TestLayerConventionsTest UseCaseTraceabilityTest \
         BusinessRuleTraceabilityTest TestCaseTraceabilityTest; do
  f=src/test/java/ai/unifiedprocess/petclinic/$s.java; c=ai.unifiedprocess.petclinic.$s
  ms=$(grep -A3 '@Test' $f | grep -oP 'void \K\w+'); n=$(echo "$ms" | wc -l)
  { echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuite name=\"$c\" time=\"0.047\" tests=\"$n\" errors=\"0\" \
skipped=\"0\" failures=\"0\">"
    echo "  <properties/>"
    for m in $ms; do echo "  <testcase name=\"$m\" classname=\"$c\" time=\"0.003\"/>"; done
    echo '</testsuite>'; } > target/surefire-reports/TEST-$c.xml
  fmt='---\nTest set: %s\n---\nTests run: %d, Failures: 0, Errors: 0, Skipped: 0, '
  fmt+='Time elapsed: 0.047 s - in %s\n'
  printf -- "$fmt" $c $n $c > target/surefire-reports/$c.txt
done
"""


def _shell(ws: Workspace, script: str) -> None:
    subprocess.run(["bash", "-c", script], cwd=ws.root, check=True)


@pytest.mark.maven
def test_lab01_five_hand_written_reports_with_constant_times_do_not_pass(
    workspace: Workspace,
) -> None:
    """F1: the loop's five reports agree as a run's do, and the sources are green, so Hook
    Lab's own run agreed too. No build of the step compiled the sensors: that is what a run
    does first, and the step starts without compiled classes."""
    runner = at_step(workspace, "1", "run-sensors")
    assert not (workspace.root / "target").exists()  # the step's setup cleared it
    _shell(workspace, WALKER_LOOP)

    run = runner.check()

    assert run.status is Status.FAIL
    (said,) = run.results
    assert said.message.startswith("no build since this step began compiled the sensors"), said
    assert (said.found or "").splitlines()[0] == "ArchitectureTest.class: missing"
    assert "target/test-classes/ai/unifiedprocess/petclinic/" in (said.expected or "")
    assert said.details["fix"] == "./mvnw -q test -Dgroups=sensor"
    for width in WIDTHS:
        assert_whole_lines(screen(said, width), width)
    # The run the step asks for passes.
    subprocess.run(SENSOR_RUN, cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS


@pytest.mark.maven
def test_lab01_classes_of_other_sources_do_not_count_as_this_steps_build(
    workspace: Workspace,
) -> None:
    """The classes must be those of the sources as they are: a sensor compiled from other
    sources (kept from before, or built from an edited copy) and forged reports do not pass."""
    runner = at_step(workspace, "1", "run-sensors")
    subprocess.run(SENSOR_RUN, cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS
    compiled = workspace.root / "target/test-classes/ai/unifiedprocess/petclinic"
    arch = compiled / "ArchitectureTest.class"
    arch.write_bytes(arch.read_bytes() + b"\0")  # other bytes, a new time

    said = runner.check().results[0]

    assert said.status is Status.FAIL
    assert (said.found or "") == (
        "ArchitectureTest.class: not compiled from your sources as they are now"
    )


def _rename_flow(ws: Workspace) -> None:
    _shell(
        ws,
        "sed -i 's/### A1: Validation Errors/### A1: Invalid Input/' "
        "docs/use_cases/UC-003-register-new-owner.md",
    )


_CLASS = f"{SENSOR_PACKAGE}.UseCaseTraceabilityTest"
_FAILING = "everyAnnotationPointsAtAnExistingUseCaseAndScenario"
_MESSAGE = (
    'UC003RegisterOwnerTest.java:44: @UseCase(id = "UC-003", scenario = "A1: Validation '
    'Errors") points at no alternative flow of UC-003 (docs/use_cases/UC-003-register-new-owner'
    ".md has: Main, A1: Invalid Input)"
)


def _one_red_report(ws: Workspace) -> None:
    """walk-r F2's report: four test cases, one failure with a made-up message and a one-line
    trace, constant times, its summary beside it; no other sensor's report."""
    folder = ws.root / REPORTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    for method in sensor_test_methods(ws.root, "UseCaseTraceabilityTest"):
        if method != _FAILING:
            cases.append(f'  <testcase name="{method}" classname="{_CLASS}" time="0.003"/>')
            continue
        cases.append(
            f'  <testcase name="{method}" classname="{_CLASS}" time="0.003">\n'
            f'    <failure message="{_MESSAGE.replace(chr(34), "&quot;")}" '
            f'type="org.opentest4j.AssertionFailedError">{_MESSAGE.replace(chr(34), "&quot;")}'
            f"\n\tat {_CLASS}.{method}(UseCaseTraceabilityTest.java:86)\n</failure>\n"
            "  </testcase>"
        )
    (folder / f"TEST-{_CLASS}.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name="{_CLASS}" time="0.047" tests="{len(cases)}" errors="0" '
        'skipped="0" failures="1">\n  <properties/>\n' + "\n".join(cases) + "\n</testsuite>\n"
    )
    (folder / f"{_CLASS}.txt").write_text(
        f"---\nTest set: {_CLASS}\n---\nTests run: {len(cases)}, Failures: 1, Errors: 0, "
        f"Skipped: 0, Time elapsed: 0.047 s <<< FAILURE! - in {_CLASS}\n"
        f"{_FAILING}  Time elapsed: 0.003 s  <<< FAILURE!\n"
    )


@pytest.mark.maven
def test_lab02_one_hand_written_red_report_does_not_pass(workspace: Workspace) -> None:
    """F2: the flow renamed, no Maven run, one report by hand that fails one test case with a
    made-up message. Hook Lab's own run of the same sources fails two, with other words, and
    writes the four reports the person has not."""
    runner = at_step(workspace, "2", "rename")
    _rename_flow(workspace)
    _one_red_report(workspace)

    said = next(r for r in runner.check().results if r.name.startswith("sensors"))

    assert said.status is Status.FAIL, said
    assert said.message.startswith(
        "your reports do not say what the sensors say when Hook Lab runs them on your sources"
    ), said.message
    assert "the reports were written or edited by hand" in said.message
    found = (said.found or "").splitlines()
    assert (
        found[0]
        == "ArchitectureTest: no report of yours; ./mvnw -q test -Dgroups=sensor writes one"
    )
    assert (
        "UseCaseTraceabilityTest: your report fails everyAnnotationPointsAtAnExistingUseCaseAnd"
        "Scenario; Hook Lab's run fails everyAnnotationPointsAtAnExistingUseCaseAndScenario, "
        "everyScenarioOfADoneOrTestedUseCaseHasARunningTest"
    ) in found
    for width in WIDTHS:
        assert_whole_lines(screen(said, width), width)
    # The step's own run passes: its verdicts are Hook Lab's.
    subprocess.run(SENSOR_RUN, cwd=workspace.root, check=False)
    assert runner.check().status is Status.PASS


@pytest.mark.maven
def test_lab02_a_real_run_with_a_report_taken_away_names_the_missing_one(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "2", "rename")
    _rename_flow(workspace)
    subprocess.run(SENSOR_RUN, cwd=workspace.root, check=False)
    (workspace.root / REPORTS_DIR / f"TEST-{SENSOR_PACKAGE}.ArchitectureTest.xml").unlink()

    said = next(r for r in runner.check().results if r.name.startswith("sensors"))

    assert said.status is Status.FAIL
    assert said.message.startswith("a report is missing that ./mvnw -q test -Dgroups=sensor")
    assert said.found == (
        "ArchitectureTest: no report of yours; ./mvnw -q test -Dgroups=sensor writes one"
    )


@pytest.mark.maven
def test_lab02_a_report_cut_short_is_the_persons_to_run_again(workspace: Workspace) -> None:
    """F3: a run interrupted mid-write (or an edit) leaves half a report: a FAIL naming the
    file, the cause and the run, inside the indent; not an error of the machine."""
    runner = at_step(workspace, "2", "rename")
    _rename_flow(workspace)
    subprocess.run(SENSOR_RUN, cwd=workspace.root, check=False)
    rel = f"target/surefire-reports/TEST-{_CLASS}.xml"
    _shell(workspace, f"f={rel}; head -c 900 $f > x; mv x $f")

    run = runner.check(every=True)

    assert run.status is Status.FAIL
    said = next(r for r in run.results if r.name.startswith("sensors"))
    assert said.status is Status.FAIL
    assert "a run cut short (Ctrl-C) or an edit by hand" in said.message
    assert (said.found or "").startswith(f"TEST-{_CLASS}.xml: not well-formed XML")
    assert said.expected == "every report in target/surefire-reports/ whole, as Surefire writes it"
    assert said.details["fix"] == "./mvnw -q test -Dgroups=sensor"
    assert all(r.status is not Status.ERROR for r in run.results), run.results
    for width in WIDTHS:
        shown = screen(said, width)
        assert_whole_lines(shown, width)
        assert "the harness or the machine" not in shown
        # Under the headline, every line keeps the result's indent.
        assert all(not line or line.startswith(" ") for line in shown.splitlines()[1:]), shown


def _tricks_with_last_turn(ws: Workspace, edit: str) -> None:
    """The lab's own seven honest tricks, and a last turn whose edit is ``edit``."""
    solution = (find_lab("3").dir / "solution" / "tricks.toml").read_text()
    head, _sep, _tail = solution.partition('[[step]]\ndo = "edit"')
    assert _sep, "the solution's fix is an edit step"
    put(
        ws,
        head
        + edit
        + '[[step]]\ndo = "bash"\ncommand = "./mvnw -q test -Dgroups=sensor"\n\n'
        + '[[step]]\ndo = "stop"\nexpect = "allowed"\n',
    )


@pytest.mark.maven
@pytest.mark.slow
def test_lab03_deleting_the_broken_annotation_is_no_fix(workspace: Workspace) -> None:
    """F4: the last turn deletes the @UseCase line instead of fixing it; UC-005 is Approved,
    so the sensors turn green all the same. Lab 02's rule holds here too."""
    set_up(workspace)
    _tricks_with_last_turn(
        workspace,
        '[[step]]\ndo = "edit"\n'
        'file = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"\n'
        'old = \'    @UseCase(id = "UC-005", scenario = "A1: Missing Text", '
        'businessRules = {"BR-001"})\'\n'
        'new = ""\n\n',
    )

    result = tricks_check(workspace)

    assert result.status is Status.FAIL
    assert (
        "when the session ended, src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java "
        'did not have @UseCase(id = "UC-005", scenario = "A1: Missing Description", '
        'businessRules = {"BR-001"}) on rejectsMissingDescription, in code: an A1 test\'s '
        "annotation is gone or points at another flow instead of being fixed"
    ) in (result.found or ""), result.found


def test_lab03_an_edit_whose_literal_backslash_n_is_not_found_wraps_and_says_why(
    workspace: Workspace,
) -> None:
    """F5: a TOML literal string keeps \\n as two characters, so the client finds no such
    text; its error is wrapped as words inside the indent, and the note names the cause."""
    set_up(workspace)
    put(
        workspace,
        '[[step]]\ndo = "session_start"\n\n[[step]]\ndo = "prompt"\ntext = "fix"\n\n'
        '[[step]]\ndo = "edit"\n'
        'file = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"\n'
        'old = \'    @UseCase(id = "UC-005", scenario = "A1: Missing Text", '
        'businessRules = {"BR-001"})\\n\'\n'
        "new = ''\n\n"
        '[[step]]\ndo = "stop"\n',
    )
    lab = find_lab("3")
    spec = next(s for s in lab.step("tricks").checks if s.name == "hook_session")
    ctx = CheckContext(workspace, lab.dir)
    rows: list[StepView] = []
    ctx.on_hook_event = rows.append
    spec.kind.run(ctx, spec.params)
    edit = next(r for r in rows if r.do == "edit")
    assert edit.outcome == "error", edit
    assert "the old text holds \\n as two characters" in edit.note, edit.note
    for width in WIDTHS:
        out = io.StringIO()
        console = Console(file=out, width=width, no_color=True, color_system=None)
        print_prose(console, hook_event_renderable(edit))
        lines = out.getvalue().splitlines()
        # The step's row keeps its command whole; everything under it stays in the indent.
        assert_whole_lines("\n".join(lines[1:]), width)
        assert all(line.startswith("      ") for line in lines[1:] if line), lines
        assert "</tool_use_error>" in "\n".join(lines)


def test_a_double_stop_is_named_as_the_second_stop_of_its_turn() -> None:
    """F6: prompt, stop (held), stop (let go): nothing was shifted; the second stop of the
    turn went through on stop_hook_active."""

    def stop(n: int, do: str, outcome: str, active: bool) -> StepView:
        return StepView(
            step=n,
            name="",
            do=do,
            detail="",
            label=f"tricks.toml step {n}",
            expect=None,
            outcome=Outcome(outcome),
            stop_hook_active=active,
            tool_ran=None,
            turn_ended=False,
            feedback="",
            system_message="",
            user_message="",
            events=(),
            hooks=(),
            problems=(),
            root="/x",
        )

    steps = [
        stop(21, "prompt", "allowed", False),
        stop(22, "stop", "blocked", False),
        stop(23, "stop", "allowed", True),
    ]
    wanted = [{"do": "edit", "outcome": "allowed", "detail_contains": "UC005AddVisitTest.java"}]

    (problem,) = sequence_problems(wanted, steps, Path("/nonexistent"))

    assert "shifts every later step" not in problem
    assert problem.endswith(
        "(tricks.toml step 23 went through on stop_hook_active: true: it was the second stop "
        "of its turn (no prompt since tricks.toml step 22, the stop the hook held), and the "
        "hook lets that one end the turn)"
    ), problem
