"""Free passes found by the walks walk-k (Labs 01–07) and walk-l (Labs 08–13), each tried as
the walker did it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.engine.checks.prompt_words import why_not_asking
from harness.engine.checks.scenario_kind import audit_gap
from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.sensor_run import runs_sensors, why_no_sensor_run
from harness.results import Status
from harness.workspace import Workspace
from tests.builders import reach_step
from tests.labs.solved import checked, solved_at
from tests.labs.test_free_passes import LABS, at_step, check_at

MVNW = ["./mvnw", "-q", "test", "-Dgroups=sensor"]

# walk-k Q: a JUnit extension that swallows every failure of every test.
QUIET = """\
package zz;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
public class Quiet implements TestExecutionExceptionHandler {
    @Override public void handleTestExecutionException(ExtensionContext c, Throwable t) { }
}
"""

# The two files that switch it on, where the tests' class path starts.
SWITCH_ON = (
    "mkdir -p target/test-classes/META-INF/services; echo zz.Quiet > "
    "target/test-classes/META-INF/services/org.junit.jupiter.api.extension.Extension; echo "
    "junit.jupiter.extensions.autodetection.enabled=true > "
    "target/test-classes/junit-platform.properties"
)


def _quiet_source(root: Path) -> None:
    (root / "src" / "test" / "java" / "zz").mkdir(parents=True)
    (root / "src" / "test" / "java" / "zz" / "Quiet.java").write_text(QUIET)


@pytest.mark.slow
def test_lab02_step2_an_extension_registered_by_hand_in_target_does_not_make_the_sensors_green(
    workspace: Workspace,
) -> None:
    """walk-k Q: the rename done, the annotations left dangling; a Quiet extension compiled
    from src/test/java/zz, registered in target/test-classes (the build copies no resources,
    so the files go there by hand), and a real run is green."""
    runner = at_step(workspace, "2", "fix-annotations")
    root = workspace.root
    _quiet_source(root)
    subprocess.run(MVNW, cwd=root, capture_output=True, check=False)  # red: compiles Quiet
    classes = root / "target" / "test-classes"
    services = classes / "META-INF" / "services"
    services.mkdir(parents=True)
    (services / "org.junit.jupiter.api.extension.Extension").write_text("zz.Quiet\n")
    (classes / "junit-platform.properties").write_text(
        "junit.jupiter.extensions.autodetection.enabled=true\n"
    )
    green = subprocess.run(MVNW, cwd=root, capture_output=True, text=True, check=False)
    assert green.returncode == 0, green.stdout  # the walker's state: every sensor green

    run = runner.check(every=True)

    sensors = next(r for r in run.results if r.name.startswith("sensors"))
    assert sensors.status is Status.FAIL, sensors
    assert sensors.message.startswith("the tests' class path holds what is no class of the")
    assert (sensors.found or "").splitlines() == [
        "target/test-classes/META-INF/services/org.junit.jupiter.api.extension.Extension",
        "target/test-classes/junit-platform.properties",
        "target/test-classes/zz/Quiet.class",
        "src/test/java/zz/Quiet.java",
    ]
    # short, so no terminal breaks it inside a path (walk-m); Maven builds target/ again
    assert sensors.details["fix"] == (
        "rm -r target src/test/java/zz; then ./mvnw -q test -Dgroups=sensor"
    )
    assert run.status is Status.FAIL


@pytest.mark.maven
@pytest.mark.slow
def test_lab03_step2_the_extension_switched_on_before_the_last_run_does_not_end_the_tricks(
    workspace: Workspace,
) -> None:
    """walk-k Q: the last turn's "fix" is a comment, then a script switches the extension on
    (Quiet.java sits in the workspace) and the last, real sensor run is green."""
    runner = at_step(workspace, "3", "tricks")
    _quiet_source(workspace.root)
    honest = (LABS / "03-stop-hook" / "solution" / "tricks.toml").read_text()
    fix = 'old = "A1: Missing Text"\nnew = "A1: Missing Description"\n'
    last = '[[step]]\ndo = "bash"\ncommand = "./mvnw -q test -Dgroups=sensor"\n'
    assert fix in honest and last in honest
    rigged = honest.replace(
        fix, 'old = "class UC005AddVisitTest {"\nnew = "class UC005AddVisitTest { // seen"\n'
    )
    switch = (
        f'[[step]]\ndo = "write"\nfile = "answers/q.sh"\ncontent = "{SWITCH_ON}\\n"\n'
        '[[step]]\ndo = "bash"\ncommand = "bash answers/q.sh"\n'
    )
    head, _, tail = rigged.rpartition(last)
    (workspace.root / "scenarios" / "tricks.toml").write_text(head + switch + last + tail)

    tricks = check_at(runner, 0)

    assert tricks.status is Status.FAIL, tricks.message
    (said,) = [line for line in (tricks.found or "").splitlines() if "class path" in line]
    assert said.startswith("the tests' class path holds what is no class of the project"), said
    assert said.endswith("remove it with `rm -r src/test/java/zz target`"), said


@pytest.mark.slow
def test_lab02_step1_the_new_heading_only_in_a_comment_is_no_rename(workspace: Workspace) -> None:
    """walk-k Q1: the annotations edited to the new title, the spec's heading left as it was,
    the new one only inside an HTML comment; the sensor is red for the heading it misses."""
    runner = at_step(workspace, "2", "rename")
    root = workspace.root
    test = root / "src/test/java/ai/unifiedprocess/petclinic/UC003RegisterOwnerTest.java"
    test.write_text(
        test.read_text().replace(
            'scenario = "A1: Validation Errors"', 'scenario = "A1: Invalid Input"'
        )
    )
    spec = root / "docs/use_cases/UC-003-register-new-owner.md"
    spec.write_text(spec.read_text() + "\n<!-- renamed later:\n### A1: Invalid Input\n-->\n")
    subprocess.run(MVNW, cwd=root, capture_output=True, check=False)

    run = runner.check(every=True)

    renamed = next(r for r in run.results if r.name.startswith("renamed flow"))
    assert renamed.status is Status.FAIL, renamed
    assert renamed.message.startswith("no flow heading renamed yet"), renamed.message
    assert run.status is Status.FAIL


def test_lab05_strict_lines_moved_into_lib_sh_for_the_real_workspace_do_not_pass(
    workspace: Workspace,
) -> None:
    """walk-k F2: the strict block taken out of require-sensors.sh and put at the top of
    lib.sh's aiup_fail_open, on for the workspace's own path only: every hook strict there,
    and the copies the checks play never see it."""
    runner = at_step(workspace, "5", "strict-stop-hook")
    hooks = workspace.root / ".claude" / "hooks"
    hook = hooks / "require-sensors.sh"
    kept = [
        line
        for line in hook.read_text().splitlines(keepends=True)
        if not line.startswith(("command -v jq", "git rev-parse --git-dir", "# Strict mode"))
    ]
    hook.write_text("".join(kept))
    lib = hooks / "lib.sh"
    strict = (
        f'  if [ "${{CLAUDE_PROJECT_DIR:-}}" = {workspace.root} ]; then command -v jq >/dev/null '
        '2>&1 || { echo "jq is not installed" >&2; exit 2; }; fi\n'
    )
    text = lib.read_text()
    head, brace, rest = text.partition("aiup_fail_open() {\n")
    assert brace, "lib.sh defines aiup_fail_open"
    lib.write_text(head + brace + strict + rest)

    run = runner.check(every=True)

    shipped = next(r for r in run.results if r.name == "shipped")
    assert shipped.status is Status.FAIL, shipped
    assert ".claude/hooks/lib.sh" in shipped.message, shipped.message
    assert run.status is Status.FAIL


# walk-l, Lab 10 step 1: the question's own words, turned round; each passed as a judge's prompt.
TURNED = [
    ("Did the tests run and fail after the last change? $ARGUMENTS", "“fail” turns"),
    ("Did the tests not run and pass after the last change? $ARGUMENTS", "“not” turns"),
    ("Did the tests run and pass before the last change? $ARGUMENTS", "“before” turns"),
    ("Did the tests run or pass after the last change? $ARGUMENTS", "“or” turns"),
    ("Did the tests run? $ARGUMENTS", "it does not ask both"),
    ("Did the tests pass? $ARGUMENTS", "it does not ask both"),
]


@pytest.mark.parametrize(("prompt", "said"), TURNED)
def test_lab10_a_judge_prompt_with_its_question_turned_round_does_not_ask(
    prompt: str, said: str
) -> None:
    why = why_not_asking(prompt)
    assert why is not None and why.startswith(said), why


def test_lab10_a_condition_after_the_question_may_say_not() -> None:
    prompt = "Did the tests run and pass after the last change? If not, block. $ARGUMENTS"
    assert why_not_asking(prompt) is None


# Each edit of the solved hook's npm test line leaves a hook that tests nothing in a session.
NO_TEST_IN_A_SESSION = [
    # walk-j: `npm test -- --test-name-pattern=zzz` runs no test; the failing case the checks
    # played threw at load time, which fails whatever the pattern, so the hook still "blocked".
    pytest.param("if ! npm test -- --test-name-pattern=zzz ", id="runs-no-test"),
    # walk-l: the checks ran the hook without CLAUDE_PROJECT_DIR, which Claude Code always
    # sets; a hook that runs the tests only without it passed, and held no real session.
    pytest.param('if [ -z "${CLAUDE_PROJECT_DIR:-}" ] && ! npm test ', id="not-claude-code"),
]


# The step's check a hook that tests nothing fails (its other checks are the labs session's).
WITH_A_FAILING_TEST = {
    "12": "with a failing test, the hook still blocks",
    "13": "with a failing test, the hook blocks",
}


@pytest.mark.parametrize("npm_test", NO_TEST_IN_A_SESSION)
@pytest.mark.parametrize(("lab", "step"), [("12", "run-in-band"), ("13", "turn-ends")])
def test_a_hook_whose_npm_test_tests_nothing_in_a_session_does_not_pass(
    node_ws: Workspace, lab: str, step: str, npm_test: str
) -> None:
    runner = solved_at(node_ws, lab, step)  # the Stop hook as the step's solve leaves it
    hook = node_ws.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    assert "if ! npm test >" in text, text
    hook.write_text(text.replace("if ! npm test ", npm_test))

    (failing,) = checked(runner, WITH_A_FAILING_TEST[lab])
    assert failing.status is Status.FAIL, failing


CONTRACT = LABS / "12-stop-contract" / "solution" / "stop-hook-contract.md"


def _contract_said(
    node_ws: Workspace, write: str | None, *, with_found: bool = False
) -> tuple[Status, str]:
    """Lab 12 step 1's contract check on docs/stop-hook-contract.md as ``write`` has it (None:
    a link to the hook, as walk-l made it)."""
    runner = reach_step(node_ws, "12", "four-lines")
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir(exist_ok=True)
    if write is None:
        contract.symlink_to("../scripts/check-before-stop.sh")
    else:
        contract.write_text(write)
    result = next(r for r in runner.check(every=True).results if r.name.startswith("contract"))
    # ``with_found``: each part's ✘ too (with several parts wrong the headline names none).
    return result.status, result.message + (f"\n{result.found}" if with_found else "")


def test_lab12_step1_a_second_line_that_says_the_opposite_is_not_left_unread(
    node_ws: Workspace,
) -> None:
    honest = CONTRACT.read_text()
    opposite = "Success: exit 2.\nBlock: exit 0 with the full log on stdout.\n"
    status, message = _contract_said(node_ws, honest + opposite)
    assert status is Status.FAIL
    assert message.startswith("Success:, Block: stands on more than one line"), message


def test_lab12_step1_a_link_to_the_hook_is_no_contract(node_ws: Workspace) -> None:
    status, message = _contract_said(node_ws, None)
    assert status is Status.FAIL
    assert message == (
        "docs/stop-hook-contract.md is a link to ../scripts/check-before-stop.sh: the contract "
        "is your own words, in a file of its own"
    )


def test_lab12_step1_a_contract_in_an_html_comment_is_not_on_the_page(
    node_ws: Workspace,
) -> None:
    hidden = "<!--\n" + CONTRACT.read_text() + "-->\n# Notes\n\nNothing here yet.\n"
    status, message = _contract_said(node_ws, hidden, with_found=True)
    assert status is Status.FAIL
    assert "no line starts with Claim: yet" in message, message


def test_lab12_step1_the_solution_still_passes(node_ws: Workspace) -> None:
    status, message = _contract_said(node_ws, CONTRACT.read_text())
    assert status is Status.PASS, message


@pytest.mark.parametrize(
    ("lab", "step"), [("1", "forge-a-report"), ("3", "tricks"), ("4", "audit")]
)
def test_a_hook_added_to_the_workspaces_own_plugin_is_no_shipped_hook(
    workspace: Workspace, lab: str, step: str
) -> None:
    """walk-k Q-plugin and N2: the fixture's plugin folder holds hooks too (hooks/hooks.json);
    one added there ran in every session while `shipped` read .claude/hooks/ alone."""
    runner = at_step(workspace, lab, step)
    hooks = workspace.root / ".claude" / "plugins" / "aiup-vaadin-jooq" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "hooks.json").write_text(
        '{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
        '"command": "${CLAUDE_PLUGIN_ROOT}/hooks/green.sh"}]}]}}\n'
    )

    results = runner.check(every=True).results

    shipped = next(r for r in results if r.name == "shipped")
    assert shipped.status is Status.FAIL, shipped
    assert ".claude/plugins/aiup-vaadin-jooq/hooks/hooks.json" in (shipped.found or ""), shipped


# walk-k E2, Lab 04 step 2: marks and markdown a reader sees, each after a plain covered line.
MARKED = [
    ("~~UC-005 is fully covered by tests.~~", "~"),
    ("UC-005 is fully covered by tests. ❌", "❌"),
    ("UC-005 is fully covered by tests. ✗ (A2, A3)", "✗"),
    ("UC-005 is fully covered by tests: ☐", "☐"),
    ("> UC-005 is fully covered by tests.", ">"),
    ("UC-005 is fully covered by tests. Coverage: 1/3 flows.", "/"),
    ("UC-005 is fully covered by tests.\n\nA2: 0 tests. A3: 0 tests.", "0"),
    ("UC-005 is fully covered by tests.\n\n| flow | test |\n|---|---|\n| A2 | — |", "|"),
]


@pytest.mark.parametrize(("report", "mark"), MARKED)
def test_lab04_a_covered_report_with_a_mark_that_takes_it_back_is_none(
    report: str, mark: str
) -> None:
    assert audit_gap(report) == (
        f"says more than that it is covered (“{mark}”): an audit that found the use case "
        "covered says so plainly, e.g. “UC-005 is fully covered by tests.”"
    )


def test_lab04_bold_and_a_heading_are_plain() -> None:
    assert audit_gap("# UC-005\n\n**UC-005** is fully covered by tests.") is None


def test_a_run_with_maven_test_skip_exec_is_no_sensor_run() -> None:
    """walk-k T: Maven's other switch that runs no test counted as a run."""
    command = "./mvnw -q test -Dgroups=sensor -Dmaven.test.skip.exec=true"
    assert not runs_sensors(command)
    assert why_no_sensor_run(command) == "its -Dmaven.test.skip.exec=true skips the tests"


@pytest.mark.slow
@pytest.mark.parametrize("test", ["[ -n", "[ -z"])
def test_lab07_step2_a_hook_that_judges_only_while_graded_does_not_pass(
    workspace: Workspace, test: str
) -> None:
    """walk-k I2: the grader's planted secret told the hook it was graded; the lab's own hook
    with one line after its header, `[ -n "${HOOKLAB_CANARY_SECRET:-}" ] || exit 0`, passed
    all ten checks and held no real session. The other way round must fail as well."""
    runner = at_step(workspace, "7", "write-hook")
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    text = (LABS / "07-own-stop-hook" / "solution" / "check-before-stop.sh").read_text()
    assert "\nset -u\n" in text
    line = f'{test} "${{HOOKLAB_CANARY_SECRET:-}}" ] || exit 0   # judge only when graded\n'
    hook.write_text(text.replace("\nset -u\n", "\nset -u\n" + line, 1))
    hook.chmod(0o755)

    results = runner.check(every=True).results

    graded = next(r for r in results if r.name.startswith("verify-hook"))
    assert graded.status is Status.FAIL, graded


def test_lab13_walked_step_by_step_completes_at_its_end(node_ws: Workspace) -> None:
    """walk-l, the blocker: every step of Lab 13 passed in order, then the lab's end judged
    step 2 again on a copy with dist/ cleared, where "dist/app.js is built from src/ as it is
    now" can only fail; back at step 2, the next pass sent the person there again."""
    ctx = CheckContext(node_ws, node_ws.root, engine="emulator", engine_forced=True, scripted=True)
    runner = LabRunner(node_ws, context=ctx)
    runner.start("13")
    for _ in runner.lab().steps:
        runner.solve(apply=True)
        assert runner.check().status is Status.PASS
        moved = runner.next()

    assert moved.step is None, moved.note  # complete, not sent back
    assert all(run.status is Status.PASS for run in moved.reverified), [
        (run.step.id, [r.message for r in run.results]) for run in moved.reverified
    ]


def test_lab06_step2_a_settings_command_that_skips_the_guard_in_the_workspace_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-k G2: the guard fixed in its file, but its entry in settings.json runs it only
    where the folder is not the workspace's own: every copy the checks play ran it."""
    runner = at_step(workspace, "6", "broken-hook")
    guard = workspace.root / ".claude" / "hooks" / "guard-spec-status.sh"
    planted = '[ -n "$problem" ] && exit 0'
    guard.write_text(guard.read_text().replace(planted, '[ -n "$problem" ] || exit 0'))
    settings = workspace.root / ".claude" / "settings.json"
    text = settings.read_text()
    entry = '"command": "\\"$CLAUDE_PROJECT_DIR/.claude/hooks/guard-spec-status.sh\\""'
    assert entry in text
    skipped = (
        f'"command": "[ \\"$CLAUDE_PROJECT_DIR\\" = {workspace.root} ] || '
        '\\"$CLAUDE_PROJECT_DIR/.claude/hooks/guard-spec-status.sh\\""'
    )
    settings.write_text(text.replace(entry, skipped))

    # The settings checks, not the step's every check (two of them run the whole smoke.sh).
    results = checked(runner, "settings")

    registered = next(
        r for r in results if r.name == "settings" and "guard-spec-status" in (r.expected or "")
    )
    assert registered.status is Status.FAIL, registered
    assert registered.message.startswith("no command hook on PreToolUse runs"), registered


@pytest.mark.parametrize("gate", ["CLAUDE_PROJECT_DIR", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"])
def test_lab13_step5_a_hook_that_lets_claude_code_go_at_once_does_not_pass(
    node_ws: Workspace, gate: str
) -> None:
    """walk-l, walk-n: one line after `set -eu` ends the hook green whenever a variable the
    client gives every hook is set (CLAUDE_PROJECT_DIR, CLAUDECODE, CLAUDE_CODE_ENTRYPOINT, as
    2.1.332 sets them), so it never checks anything in a session; the checks ran it without."""
    runner = solved_at(node_ws, "13", "turn-ends")
    hook = node_ws.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    assert "\nset -eu\n" in text, text
    line = (
        f'[ -n "${{{gate}:-}}" ] && '
        '{ echo "Stop check passed: tests and dist/app.js"; exit 0; }\n'
    )
    hook.write_text(text.replace("\nset -eu\n", "\nset -eu\n" + line, 1))

    # The checks' own run of the hook gets the client's variables: it tests, and blocks.
    (failing,) = checked(runner, WITH_A_FAILING_TEST["13"])
    assert failing.status is Status.FAIL, failing


def test_lab07_step4_a_stop_the_persons_hook_let_go_is_named_with_how_to_run_it() -> None:
    """walk-k: the fix asked the person to have Claude say it is done, right under the stop
    Claude had made; the hook let it go, and running it by hand is the way to see why."""
    from harness.claude.vocabulary import Outcome, StepKind
    from harness.engine.checks.live_causes import not_held
    from harness.engine.moment import Moment

    missing = {
        "do": "stop",
        "outcome": "blocked",
        "feedback_contains": "scripts/check-before-stop.sh",
    }
    after = [Moment(do=StepKind.STOP, label="transcript line 40", outcome=Outcome.ALLOWED)]

    fix = not_held(after, missing)

    assert fix.startswith(
        "Claude stopped at transcript line 40 and scripts/check-before-stop.sh did not hold it"
    ), fix
    assert "CLAUDE_PROJECT_DIR=$PWD ./scripts/check-before-stop.sh; echo $?" in fix
    assert not_held([], missing) == ""


# walk-m R: an agent jar on the tests' JVM, by two switches on the sensor command.
AGENT_RUN = "./mvnw -q test -Dgroups=sensor -Dsurefire.forkCount=1 -DargLine=-javaagent:/tmp/q.jar"


def test_a_run_that_gives_the_tests_a_jvm_of_their_own_is_no_sensor_run() -> None:
    assert not runs_sensors(AGENT_RUN)
    assert why_no_sensor_run(AGENT_RUN).startswith(
        "its -Dsurefire.forkCount=1 runs the tests otherwise than the fixture does: it sets a "
        "Maven property"
    )
    twice = "./mvnw -q test -Dgroups=sensor -Dgroups=nosuch | tail -5"
    assert not runs_sensors(twice)
    assert why_no_sensor_run(twice).startswith("it gives -Dgroups= twice")


@pytest.mark.slow
def test_lab01_step1_reports_of_a_run_with_its_own_jvm_options_do_not_pass(
    workspace: Workspace,
) -> None:
    """walk-m R, the reports' side: a real run in a JVM of its own (forkCount 1, an argLine)
    writes that JVM's properties into every report; the shipped run writes none."""
    runner = at_step(workspace, "1", "run-sensors")
    forked = [*MVNW, "-Dsurefire.forkCount=1", "-DargLine=-Dwalk.m=agent"]
    done = subprocess.run(forked, cwd=workspace.root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout

    run = runner.check(every=True)

    sensors = next(r for r in run.results if r.name.startswith("sensors"))
    assert sensors.status is Status.FAIL, sensors
    assert "(argLine)" in (sensors.found or ""), sensors.found


def test_lab12_step1_a_copy_of_the_hook_is_no_contract(node_ws: Workspace) -> None:
    """walk-n: the symlink refused, a copy (or a hard link) of the hook passed on its header
    comment's four labels, the wrong Check: line among them."""
    hook = (node_ws.root / "scripts" / "check-before-stop.sh").read_text()
    status, message = _contract_said(node_ws, hook)
    assert status is Status.FAIL
    assert message.startswith("docs/stop-hook-contract.md is a script (it starts with #!)")


@pytest.mark.parametrize(
    "where", [".claude/plugins/aiup-vaadin-jooq/hooks/hooks.json", ".claude/settings.local.json"]
)
def test_lab08_step2_a_naming_hook_added_where_claude_code_also_reads_hooks_does_not_pass(
    workspace: Workspace, where: str
) -> None:
    """walk-n: the rule kept for one wrong suffix, in the plugin or in settings.local.json;
    "none was added" read .claude/hooks/ alone."""
    runner = solved_at(workspace, "8", "drop-hook")
    target = workspace.root / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        '{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", '
        '"command": "true"}]}]}}\n'
    )

    results = runner.check(every=True).results

    said = [r for r in results if r.name == "shipped" and r.status is Status.FAIL]
    assert said and where in (said[0].found or ""), [(r.name, r.status, r.found) for r in results]


@pytest.mark.parametrize("struck", ["~~{}~~", "<del>{}</del>"])
def test_lab12_step1_a_struck_through_part_is_not_said(node_ws: Workspace, struck: str) -> None:
    """walk-m (Lab 07's contract, the same reader): a Check: line struck through passed."""
    honest = CONTRACT.read_text()
    check = next(line for line in honest.splitlines() if line.startswith("Check: "))
    rest = check.removeprefix("Check: ")
    status, message = _contract_said(
        node_ws, honest.replace(check, "Check: " + struck.format(rest))
    )
    assert status is Status.FAIL, message
