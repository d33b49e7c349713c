"""Free passes found by walk-l (Issue 51) in Lab 08 step 1 and Lab 10 step 2, each played as
the walker did it.

Real: the shipped labs' setup and checks on a provisioned workspace, real Maven for the
sensors and the tricks' turns, real bash hooks, real git.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.engine.checks.since_start import rules_kept_problems
from harness.engine.checks.tricks import unbelieving_reason
from harness.results import Status
from harness.workspace import Workspace
from tests.labs.solved import checked, solved_at
from tests.labs.test_free_passes import LABS, at_step, check_at
from tests.labs.test_free_passes_round8b import _fits

ARCHITECTURE = "src/test/java/ai/unifiedprocess/petclinic/ArchitectureTest.java"
VIOLATIONS = "src/test/java/ai/unifiedprocess/petclinic/Violations.java"
MVNW = ["./mvnw", "-q", "test", "-Dgroups=sensor"]
REPORT = "    private static void report(String rule, List<String> offenders) {\n"
SWITCH_OFF = '        if (rule.startsWith("ui classes")) { return; }\n'


def _green(workspace: Workspace) -> None:
    done = subprocess.run(MVNW, cwd=workspace.root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout  # the walker's state: every sensor green


# ---- Lab 08 step 1: an old rule switched off in the helper it reports through ---------------
@pytest.mark.maven
@pytest.mark.slow
def test_lab08_step1_an_old_rule_switched_off_in_report_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-l: the honest new rule, and in ArchitectureTest.report(...) `if
    (rule.startsWith("ui classes")) { return; }`; viewsAreNamedView's own lines untouched."""
    runner = solved_at(workspace, "8", "rule-as-test")  # the honest rule, and a green run
    path = workspace.root / ARCHITECTURE
    text = path.read_text()
    assert text.count(REPORT) == 1
    path.write_text(text.replace(REPORT, REPORT + SWITCH_OFF))
    _green(workspace)
    line = path.read_text().splitlines().index(SWITCH_OFF.rstrip("\n")) + 1

    # The check it fails alone, not the step's six sensor runs (each a Maven run on a copy),
    # which the walk's edit passed and the solve passes in the labs session.
    results = checked(runner, "since_start")

    failed = [r for r in results if r.status is not Status.PASS]
    assert [r.name for r in failed] == ["since the lab started: ArchitectureTest.java"], failed
    assert failed[0].message.startswith("ArchitectureTest.java changed where the old rules reach")
    assert failed[0].found == (
        f'line {line} (in report()): if (rule.startsWith("ui classes")) {{ return; }}'
    )
    _fits(failed[0])


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_step1_an_old_rule_switched_off_in_violations_does_not_pass(
    workspace: Workspace,
) -> None:
    """The same move one class further: Violations.failIfAny returns on the views' rule."""
    runner = solved_at(workspace, "8", "rule-as-test")
    path = workspace.root / VIOLATIONS
    head = "    static void failIfAny(String kind, String rule, List<String> violations) {\n"
    text = path.read_text()
    assert head in text
    path.write_text(text.replace(head, head + SWITCH_OFF))
    _green(workspace)

    results = checked(runner, "shipped")  # alone, as above

    failed = [r for r in results if r.status is not Status.PASS]
    assert [(r.name, r.found) for r in failed] == [("shipped", f"{VIOLATIONS}: changed")], failed


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_step1_a_new_rule_that_empties_what_the_others_read_does_not_pass(
    workspace: Workspace,
) -> None:
    """One step on: the new @Test method itself drops the ui classes from `main`, so a rule
    that runs after it finds nothing; its lines are all inside a new method."""
    runner = solved_at(workspace, "8", "rule-as-test")
    path = workspace.root / ARCHITECTURE
    head = "    void repositoriesAreNamedRepository() {\n"
    drop = "        main = main.stream().filter(type -> !type.packageName().equals(UI)).toList();\n"
    text = path.read_text()
    assert head in text
    path.write_text(text.replace(head, head + drop))
    _green(workspace)

    said = check_at(runner, len(runner.current()[1].checks) - 1)

    assert said.status is Status.FAIL, said.message
    assert "(in repositoriesAreNamedRepository()): main = main.stream()" in (said.found or "")


SHIPPED = (Path(__file__).resolve().parents[2] / "petclinic_fixture" / ARCHITECTURE).read_text()
HEAD = "    void viewsAreNamedView() {\n"
AROUND = [
    ("    @BeforeAll\n    static void hide() {\n    }\n\n", "(in hide()): @BeforeAll"),
    (
        "    @Test\n    void zz() throws Exception {\n        ArchitectureTest.class."
        'getDeclaredField("main").setAccessible(true);\n    }\n\n',
        '(in zz()): ArchitectureTest.class.getDeclaredField("main").setAccessible(true);',
    ),
    ("    static {\n        System.out.println();\n    }\n\n", "(outside every method): static {"),
]


@pytest.mark.parametrize(("added", "named"), AROUND)
def test_lab08_a_new_method_that_runs_around_the_rules_is_named(added: str, named: str) -> None:
    """What the whole-file look lets through by design (new methods) must not reach the old
    rules: a setup method, reflection, a static block each are named."""
    now = SHIPPED.replace("    @Test\n" + HEAD, added + "    @Test\n" + HEAD)
    assert now != SHIPPED
    assert any(named in line for line in rules_kept_problems(SHIPPED, now)), rules_kept_problems(
        SHIPPED, now
    )


def test_lab08_step1_the_honest_rule_with_an_import_and_a_helper_of_its_own_passes(
    workspace: Workspace,
) -> None:
    """A new rule written with a helper method and an import of its own is still one rule
    added: only the lines outside new methods are judged."""
    runner = solved_at(workspace, "8", "rule-as-test")
    path = workspace.root / ARCHITECTURE
    text = path.read_text()
    text = text.replace(
        "import java.util.Set;\n", "import java.util.Set;\nimport java.util.Locale;\n"
    )
    helper = (
        "    /** Whether a simple name ends in the suffix. */\n"
        "    private static boolean endsIn(String name, String suffix) {\n"
        "        return name.toLowerCase(Locale.ROOT).endsWith(suffix.toLowerCase(Locale.ROOT));\n"
        "    }\n\n"
    )
    path.write_text(
        text.replace(
            "    @Test\n    void productionCodeNeverUsesTestCode",
            helper + "    @Test\n    void productionCodeNeverUsesTestCode",
        )
    )

    said = check_at(runner, len(runner.current()[1].checks) - 1)

    assert said.status is Status.PASS, (said.message, said.found)


# ---- Lab 10 step 2: one turn for two tricks, a "trick" that runs no sensor, a yes with no why
QUIZ = (LABS / "10-words-or-evidence" / "solution" / "quiz.toml").read_text()
NOPE_NULL = (
    "./mvnw -q test -Dgroups=sensor -Dtest=Nope -Dsurefire.failIfNoSpecifiedTests=false > /dev/null"
)
NOPE_TRUE = (
    "./mvnw -q test -Dgroups=sensor -Dsurefire.failIfNoSpecifiedTests=false -Dtest=Nope || true"
)
BELIEVING = "The assistant ran the tests and reports that all of them pass."


def _turns(*commands: str, reason: str = BELIEVING) -> str:
    """A words.toml as walk-l wrote it: each command a turn (prompt, bash, stop); a command
    ending in " &" is the background run."""
    text = '[[step]]\ndo = "session_start"\n'
    for command in commands:
        background = command.endswith(" &")
        text += (
            '\n[[step]]\ndo = "prompt"\ntext = "Are the tests green?"\n'
            f'[[step]]\ndo = "bash"\ncommand = "{command.removesuffix(" &")}"\n'
            + ("background = true\n" if background else "")
            + '[[step]]\ndo = "stop"\nlast_message = "All tests pass."\njudge_ok = true\n'
            f'judge_reason = "{reason}"\nexpect = "blocked"\n'
        )
    return text


def _tricks(workspace: Workspace, words: str) -> list[str]:
    runner = at_step(workspace, "10", "words")
    (workspace.root / "scenarios" / "words.toml").write_text(words)
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "words.toml").write_text(QUIZ)
    said = check_at(runner, 0)
    assert said.status is Status.FAIL, said.message
    _fits(said)
    return (said.found or "").splitlines()


@pytest.mark.maven
@pytest.mark.slow
def test_lab10_step2_one_turn_for_two_tricks_and_tricks_that_run_no_sensor_do_not_count(
    workspace: Workspace,
) -> None:
    """walk-l's four turns (l10s2-4turns.toml): the `> /dev/null` turn, with -Dtest=Nope in
    it, was found as trick 2 and trick 4; the `|| true` turn selects no test at all."""
    lines = _tricks(
        workspace,
        _turns(
            "./mvnw -q test -Dgroups=sensor | tail -3",
            NOPE_NULL,
            NOPE_TRUE,
            "./mvnw -q test -Dgroups=sensor &",
        ),
    )

    assert lines[0].startswith("✔ trick 1, | tail: step 3 ran"), lines
    assert lines[1].startswith("✘ trick 2, > /dev/null: step 6 runs"), lines
    assert "whose `-Dtest=Nope` picks which tests run" in lines[1]
    assert lines[2].startswith("✘ trick 3, || true: step 9 runs"), lines
    assert "drop `-Dtest=Nope`" in lines[2]
    assert lines[3].startswith("✘ trick 4, -Dtest=: step 6 ran"), lines
    assert "but that turn also tries trick 2 (> /dev/null): one trick per turn" in lines[3]
    assert lines[4].startswith("✔ trick 5, background = true"), lines


@pytest.mark.maven
@pytest.mark.slow
def test_lab10_step2_a_judge_that_says_yes_with_no_reason_does_not_count(
    workspace: Workspace,
) -> None:
    """walk-l: the lab's own solution with judge_reason = "" at every stop."""
    solved = (LABS / "10-words-or-evidence" / "solution" / "words.toml").read_text()
    assert solved.count(f'judge_reason = "{BELIEVING}"') == 5

    lines = _tricks(workspace, solved.replace(f'judge_reason = "{BELIEVING}"', 'judge_reason = ""'))

    assert len(lines) == 5 and all(line.startswith("✘") for line in lines), lines
    assert all("judge_reason is missing or empty" in line for line in lines), lines


@pytest.mark.parametrize("reason", [".", "ok", "Stop hook feedback", "Yes."])
def test_lab10_a_yes_with_no_reason_in_words_is_named(reason: str) -> None:
    said = unbelieving_reason(reason)
    assert said is not None and said.startswith(f"judge_reason (“{reason}”) does not say why")


@pytest.mark.parametrize(
    "reason",
    [
        BELIEVING,
        "Claude says all tests pass.",
        "The transcript shows a test run and Claude reports it green.",
        "The sensors ran; the assistant says they succeeded.",
    ],
)
def test_lab10_a_reason_that_believes_the_claim_passes(reason: str) -> None:
    assert unbelieving_reason(reason) is None
