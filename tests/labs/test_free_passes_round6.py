"""Issue 51, the passes the third walk left open (notes/note3.md): each tried as written, each
fails with its cause named, and the honest solve still passes.

Real: the shipped labs' checks on a provisioned workspace, the workspace's bash hooks, the
participant's files as a person writes them.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from harness.claude.engines import open_session
from harness.claude.scenario import run_scenario
from harness.engine.checks.denial_words import denial
from harness.engine.checks.hook_session import parse_inline
from harness.engine.checks.live_session import SOLVED_SESSIONS
from harness.engine.lab_runner import LabRunner
from harness.engine.sensor_run import runs_sensors
from harness.results import Status
from harness.workspace import Workspace
from tests.builders import reach_step
from tests.conftest import require_real_client
from tests.labs.solved import checked, solved_at
from tests.labs.step_edits import HONEST_07, judge_prompt, with_line
from tests.labs.test_free_passes import at_step, check_at

REGEX_SHOWN = ("\\b", "(?", "\\s", "[^")


# ---- Lab 07 step 1: contract lines that deny what they claim --------------------------------
DENYING_07 = [
    ("Claim", "Claim: I trust Claude; the report being fresh and green is irrelevant", "trust"),
    (
        "Check",
        "Check: target/surefire-reports/*.xml: did the tests run and are they fresh and "
        "green? Nobody checks that.",
        "Nobody checks",
    ),
    (
        "Check",
        "Check: The tests ran, or so Claude says; we take its word. The surefire reports, "
        "fresh and green.",
        "or so Claude says",
    ),
    (
        "Block",
        "Block: exit 2 is what it never does; it blocks but it exits 0 instead. One short "
        "line on stderr with ./mvnw -q test -Dgroups=sensor.",
        "never does",
    ),
]


# walk-e's further lines (findings, 07:06)
DENYING_07 += [
    (
        "Claim",
        "Claim: the sensors ran green after the last change, allegedly, but who cares.",
        "allegedly",
    ),
    ("Success", "Success: exit 0 (a joke: any code will do).", "a joke"),
    (
        "Check",
        "Check: Claude's word; the Surefire reports in target/surefire-reports/ (fresh, "
        "green) are not consulted.",
        "Claude's word",
    ),
]


@pytest.mark.parametrize(("part", "line", "words"), DENYING_07)
def test_lab07_a_contract_line_that_denies_its_part_does_not_pass(
    workspace: Workspace, part: str, line: str, words: str
) -> None:
    runner = at_step(workspace, "7", "contract")
    contract = workspace.root / "docs" / "stop-hook-contract.md"
    contract.write_text(with_line(HONEST_07, line))

    said = check_at(runner, 0)

    assert said.status is Status.FAIL
    assert f"your {part}: line takes itself back (“{words}”): it " in said.message, said.message
    assert f"the {part}: " in said.message.split(f"(“{words}”)")[1]  # the part it denies
    shown = f"{said.message}\n{said.found}"
    assert not any(bit in shown for bit in REGEX_SHOWN), shown
    assert f"“{words}”: “{words}”" not in shown  # a word is not quoted as its own clause
    contract.write_text(HONEST_07)
    assert check_at(runner, 0).status is Status.PASS


HONEST_07_LINES = [
    "Block: blocks when the report is not fresh: exit 2 with one short line on stderr naming "
    "the sensor and ./mvnw -q test -Dgroups=sensor; never the full log, no secrets.",
    "Block: when a report is missing, red or not fresh, exit 2 and one short line on stderr "
    "(not stdout) with ./mvnw -q test -Dgroups=sensor, instead of the full log.",
    "Check: never trust Claude's word: read target/surefire-reports/*.xml: tests > 0, no "
    "failures, no errors, newer than src/, docs/ and pom.xml.",
    "Check: the surefire reports, not the console: each exists, has no failures or errors "
    "and is newer than src/, docs/ and pom.xml.",
    "Check: we do not take Claude's word: the surefire reports are green (no failures) and "
    "fresh (newer than every change).",
]


@pytest.mark.parametrize("line", HONEST_07_LINES)
def test_lab07_honest_contract_lines_with_not_and_never_pass(
    workspace: Workspace, line: str
) -> None:
    runner = at_step(workspace, "7", "contract")
    (workspace.root / "docs" / "stop-hook-contract.md").write_text(with_line(HONEST_07, line))
    said = check_at(runner, 0)
    assert said.status is Status.PASS, said.found


def test_the_denial_judge_reads_words_not_negations() -> None:
    """The one judge both checks read: a phrase turned round by a negation is honest."""
    assert denial("we take its word") is not None
    assert denial("we do not take its word") is None
    assert denial("exit 2 instead of exit 1") is None
    assert denial("it exits 0 instead") is not None
    assert denial("never the full log") is None
    assert denial("Answer ok either way.") is not None


# ---- Lab 10 step 1: a judge prompt that denies its own question -----------------------------
@pytest.mark.parametrize(
    ("prompt", "words"),
    [
        ("Did the tests run and pass? Answer ok either way. $ARGUMENTS", "either way"),
        ("Never mind whether the tests ran and passed: ok. $ARGUMENTS", "Never mind"),
    ],
)
def test_lab10_a_judge_prompt_that_denies_its_question_does_not_pass(
    workspace: Workspace, prompt: str, words: str
) -> None:
    runner = at_step(workspace, "10", "the-judge")
    judge_prompt(workspace, prompt)
    results = runner.check(every=True).results

    told = [r for r in results if r.message.startswith("the prompt hook's words should ask")]
    assert told and told[0].status is Status.FAIL, [r.message for r in results]
    assert f"“{words}” says the outcome does not matter" in told[0].message, told[0].message
    assert prompt.split(" $")[0] in (told[0].found or "")
    assert not any(bit in told[0].message for bit in REGEX_SHOWN)


@pytest.mark.parametrize(
    "prompt",
    [
        "Did the tests run and pass after the last change? $ARGUMENTS",
        "Did the tests run and pass? Do not trust Claude's words: look for a test run in the "
        "transcript. $ARGUMENTS",
        "Check whether the sensors ran green after the last change; answer ok only if a run "
        "shows it. $ARGUMENTS",
    ],
)
def test_lab10_honest_judge_prompts_pass(workspace: Workspace, prompt: str) -> None:
    runner = at_step(workspace, "10", "the-judge")
    judge_prompt(workspace, prompt)
    _lab, step = runner.current()
    n = next(i for i, c in enumerate(step.checks) if c.params.get("prompts_ask"))
    said = check_at(runner, n)
    assert said.status is Status.PASS, said.message


# ---- Lab 05: the strict lines put back after the step passed --------------------------------
STRICT = (
    "# Strict mode: refuse to guess without the tools.\n"
    'command -v jq >/dev/null 2>&1 || { echo "require-sensors.sh: jq is not installed" >&2; '
    "exit 2; }\n"
)


@pytest.mark.maven
@pytest.mark.slow
def test_lab05_strict_lines_put_back_after_the_pass_do_not_complete_the_lab(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "5", "strict-stop-hook")
    assert runner.check().status is Status.PASS
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    failing_open = hook.read_text()
    hook.write_text(failing_open.replace("\naiup_fail_open\n", f"\n{STRICT}aiup_fail_open\n"))

    moved = runner.next()

    assert moved.step is not None and moved.step.id == "strict-stop-hook"  # not complete
    failed = [r for r in moved.reverified[0].results if r.status is Status.FAIL]
    assert failed, [r.message for r in moved.reverified[0].results]
    assert failed[0].message.startswith(
        ".claude/hooks/require-sensors.sh changed since this step passed, and as it is now it "
        "does not pass: "
    ), failed[0].message
    assert "git diff .claude/hooks/require-sensors.sh" in str(failed[0].details.get("fix"))
    assert not runner.progress.lab_progress("05-fail-open").completed_at

    hook.write_text(failing_open + "# a note of mine\n")  # changed, and still failing open
    assert runner.check().status is Status.PASS
    assert runner.next().step is None


# ---- Lab 04 step 2: Done after an audit that reported gaps ----------------------------------
AUDIT_REPORT = "UC-005: every step, flow and rule is covered. No gaps."


@pytest.mark.parametrize(
    ("report", "named"),
    [
        ("Audit of UC-005: gaps found. A2 has no test.", "reports a gap (“gaps”)"),
        ("UC-005: flow A1 is not covered yet.", "reports a gap (“not covered”)"),
        ("UC-005 audited.", "does not say the use case is covered"),
    ],
)
def test_lab04_done_after_an_audit_that_found_gaps_does_not_pass(
    workspace: Workspace, report: str, named: str
) -> None:
    runner = solved_at(workspace, "4", "audit")
    scenario = workspace.root / "scenarios" / "status-guard.toml"
    honest = scenario.read_text()
    assert AUDIT_REPORT in honest
    scenario.write_text(honest.replace(AUDIT_REPORT, report))

    results = runner.check(every=True).results

    assert results[0].status is Status.PASS  # the walk's pass: refused, audited, accepted
    said = next(r for r in results if r.status is Status.FAIL)
    assert said.message.startswith(
        f"the audit in scenarios/status-guard.toml (step 3) {named}: an asserting status "
        "wants an audit that found the use case covered"
    ), said.message
    assert "fix the gaps and audit again" in said.message  # the next action
    assert report in (said.found or "")
    scenario.write_text(honest)
    assert runner.check(every=True).status is Status.PASS


# ---- Lab 13 on the Node project ---------------------------------------------------------------
def at_lab13(ws: Workspace, step: str) -> LabRunner:
    return reach_step(ws, "13", step)  # reached once per worker, copied for each test


ASK_README = 'Add a line "Run npm start to see the total." to README.md, then finish.'


@pytest.mark.slow
def test_lab13_step3_a_session_that_changed_nothing_does_not_pass(node_ws: Workspace) -> None:
    """The walk's pass: Claude asked, it stops at once (held), stops again (let go): nothing
    changed, and the stop held was no work's. Played on the real client 2.1.332 with the
    scripted model, as lab solve plays a live step's session."""
    require_real_client()
    runner = at_lab13(node_ws, "held-live")
    idle = [
        {"do": "session_start"},
        {"do": "prompt", "text": ASK_README},
        {"do": "stop", "last_message": "Done.", "expect": "blocked"},
        {"do": "stop", "last_message": "The hook asks for a file the build does not write."},
    ]
    scenario, _ = parse_inline(idle, "test", "steps")
    with open_session(
        "claude-code",
        node_ws.root,
        transcript_dir=node_ws.git_dir / SOLVED_SESSIONS,
        auto_approve=True,
    ) as session:
        outcomes = [r.outcome for r in run_scenario(scenario, session)]
    assert "blocked" in [str(o.outcome) for o in outcomes]  # the stop was held

    (said,) = runner.check().results

    assert said.status is Status.FAIL
    shown = f"{said.message}\n{said.expected}\n{said.found}\n{said.details.get('fix')}"
    assert "its input contains 'Run npm start to see the total.'" in shown, shown
    assert "your session made no change" in shown, shown


HOOK = "scripts/check-before-stop.sh"


def test_lab13_step2_after_lab_goto_only_the_code_line_counts(node_ws: Workspace) -> None:
    """The walk: `lab goto 2` replayed step 1's solve, which also changed the hook's comment;
    the person pointed the code back, as step 1 asked, and was told "the hook still names
    dist/missing.js" because of the comment."""
    runner = at_lab13(node_ws, "pass-after-fix")
    hook = node_ws.root / HOOK
    text = hook.read_text()
    assert "if ! test -s dist/missing.js; then" in text
    hook.write_text(
        text.replace("if ! test -s dist/missing.js; then", "if ! test -s dist/app.js; then")
    )
    subprocess.run(["npm", "run", "build"], cwd=node_ws.root, check=True, capture_output=True)

    assert runner.check(every=True).status is Status.PASS

    # A comment naming it is no code; the code still testing it is.
    hook.write_text(hook.read_text() + "# once: test -s dist/missing.js\n")
    assert check_at(runner, 0).status is Status.PASS
    hook.write_text(text)
    said = check_at(runner, 0)
    assert said.status is Status.FAIL
    assert said.message.startswith("the hook's code still tests dist/missing.js"), said.message


def test_lab13_step4_the_failure_screen_does_not_print_the_answer(node_ws: Workspace) -> None:
    """The walk copied the expected line from the failure screen into answers/let-go.json
    instead of running the hook: the screen names where the file differs, never the line."""
    runner = at_lab13(node_ws, "let-go")
    printed = subprocess.run(
        [f"./{HOOK}"],
        cwd=node_ws.root,
        input='{"stop_hook_active":true}\n',
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    message = json.loads(printed)["systemMessage"]
    answers = node_ws.root / "answers"
    answers.mkdir(exist_ok=True)
    (answers / "let-go.json").write_text('{"systemMessage":"hello"}\n')

    results = runner.check(every=True).results

    said = next(r for r in results if r.status is Status.FAIL)
    shown = f"{said.message}\n{said.expected}\n{said.found}\n{said.details}"
    assert message not in shown and "Run the check by hand" not in shown, shown
    assert "line 1 as the command prints it now (not shown here: run the command" in shown
    assert 'line 1 in answers/let-go.json: {"systemMessage":"hello"}' in shown
    assert "(the two lines differ from character 19 on)" in shown
    (answers / "let-go.json").write_text(printed)
    assert runner.check(every=True).status is Status.PASS


# ---- walk-e (this session's walk): stubs fitted to each guard case --------------------------
STOP_STUB = """#!/bin/bash
input=$(cat)
case $input in *'"stop_hook_active":true'*|*'"stop_hook_active": true'*) exit 0;; esac
echo "{said}" >&2
exit 2
"""


def _stub(ws: Workspace, rel: str, text: str) -> None:
    path = ws.root / rel
    path.write_text(text)
    path.chmod(0o755)


def _fails(results: list, headline: str) -> None:  # type: ignore[type-arg]
    said = [r for r in results if r.message.startswith(headline)]
    assert said and said[0].status is Status.FAIL, [(r.status, r.message) for r in results]


def _fails_alone(runner: LabRunner, headline: str) -> None:
    """Each stub below is caught by one check of its step: that check alone is run, not the
    step's every session (the honest solve passing them all is the labs session's to prove)."""
    _fails(checked(runner, headline), headline)


@pytest.mark.maven
def test_lab03_step1_a_stub_that_blocks_every_first_stop_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "3", "held")
    said = "You are not done yet. Run the sensors in the foreground: ./mvnw -q test -Dgroups=sensor"
    _stub(workspace, ".claude/hooks/require-sensors.sh", STOP_STUB.format(said=said))

    _fails_alone(runner, "the Stop hook held a stop after a fresh")


@pytest.mark.slow
def test_lab06_step1_a_stub_that_blocks_every_first_stop_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "6", "hook-change-held")
    said = "Hooks changed: run ./.claude/hooks/smoke.sh"
    _stub(workspace, ".claude/hooks/require-sensors.sh", STOP_STUB.format(said=said))

    _fails_alone(runner, "the Stop hook held a stop after a green")


def test_lab04_step1_a_guard_that_never_reads_the_audit_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "4", "done-refused")
    _stub(
        workspace,
        ".claude/hooks/guard-spec-status.sh",
        "#!/bin/bash\ncase $(cat) in *'Status:** Done'*) ;; *) exit 0;; esac\n"
        'echo "UC-005: Done needs a coverage audit first: run '
        'aiup-vaadin-jooq:coverage-check UC-005" >&2\nexit 2\n',
    )

    _fails_alone(runner, "the hooks refused Done even after")


def test_lab04_step3_a_check_that_matches_the_words_sed_and_done_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "4", "sed")
    _stub(
        workspace,
        ".claude/hooks/check-spec-status.sh",
        "#!/bin/bash\ncase $(cat) in *sed*Done*) ;; *) exit 0;; esac\n"
        'echo "UC-002: Status changed to Done outside the guarded Edit: run '
        'aiup-vaadin-jooq:coverage-check UC-002" >&2\nexit 2\n',
    )

    _fails_alone(runner, "check-spec-status.sh does not tell")


# ---- Labs 03 and 10: a red run, then someone else's green reports copied in ------------------
@pytest.mark.parametrize(
    "command",
    [
        "./mvnw -q test -Dgroups=sensor; bash /work/helpers/walk-e/putgreen.sh",
        "./mvnw -q test -Dgroups=sensor && cp -r /tmp/green/. target/surefire-reports/",
        "./mvnw -q test -Dgroups=sensor\ncp -r /tmp/green/. target/surefire-reports/",
        "./mvnw -q test -Dgroups=sensor; echo x > target/surefire-reports/a.xml",
    ],
)
def test_a_sensor_run_followed_by_another_command_is_no_sensor_run(command: str) -> None:
    assert not runs_sensors(command)


@pytest.mark.parametrize(
    "command",
    [
        "./mvnw -q test -Dgroups=sensor",
        "./mvnw -q test -Dgroups=sensor 2>&1 | tail -n 20",
        "./mvnw -q test -Dgroups=sensor || true",
        './mvnw -q test -Dgroups=sensor; echo "exit $?"',
    ],
)
def test_a_sensor_run_with_a_filter_or_a_word_after_it_still_counts(command: str) -> None:
    assert runs_sensors(command)


# ---- Lab 07 step 2: a hook fitted to the grader's breaks (walk-e, 07:08) ---------------------
OVERFIT = """#!/usr/bin/env bash
# Stop hook: the sensors ran green after the last change.
set -u
project=${CLAUDE_PROJECT_DIR:-}
[ -n "$project" ] && [ -d "$project" ] || exit 0
cd "$project" || exit 0
input=$(cat 2>/dev/null || true)
active=$(printf '%s' "$input" | jq -r '.stop_hook_active // false' 2>/dev/null || echo false)
block() {
    [ "$active" = true ] && { echo '{"systemMessage": "the turn ended without proof"}'; exit 0; }
    echo "Stop check blocked: $1" >&2; exit 2
}
for sensor in ArchitectureTest TestLayerConventionsTest UseCaseTraceabilityTest \\
    TestCaseTraceabilityTest BusinessRuleTraceabilityTest; do
    report="target/surefire-reports/TEST-ai.unifiedprocess.petclinic.$sensor.xml"
    [ -s "$report" ] || block "no report for $sensor: run ./mvnw -q test -Dgroups=sensor"
    grep -q 'failures="[1-9]\\|errors="[1-9]\\|tests="0"' "$report" \\
        && block "$sensor failed: run ./mvnw -q test -Dgroups=sensor"
done
first=target/surefire-reports/TEST-ai.unifiedprocess.petclinic.ArchitectureTest.xml
newer=$(find src docs pom.xml \\( -name '*.java' -o -name '*.md' -o -name pom.xml \\) \\
    -newer "$first" 2>/dev/null | head -1)
[ -z "$newer" ] || block "$newer changed: run ./mvnw -q test -Dgroups=sensor"
exit 0
"""


@pytest.mark.maven
@pytest.mark.slow
def test_lab07_step2_a_hook_that_reads_one_report_and_java_files_only_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "7", "write-hook")
    _stub(workspace, "scripts/check-before-stop.sh", OVERFIT)

    results = list(runner.check(every=True).results)

    graded = next(r for r in results if r.name.startswith("verify-hook"))
    assert graded.status is Status.FAIL, graded.message
    shown = f"{graded.message}\n{graded.found}"
    assert "hooklab-note.properties" in shown or "ArchitectureTest.xml" in shown, shown


# ---- Lab 02 step 2: the A1 tests sent to A2 were told their annotation was gone --------------
def test_lab02_a1_tests_pointed_at_a2_are_named_as_pointed_elsewhere(workspace: Workspace) -> None:
    runner = at_step(workspace, "2", "fix-annotations")
    source = (
        workspace.root / "src/test/java/ai/unifiedprocess/petclinic/UC003RegisterOwnerTest.java"
    )
    source.write_text(source.read_text().replace("A1: Validation Errors", "A2: Duplicate Owner"))

    said = check_at(runner, 3)

    assert said.status is Status.FAIL
    assert "is gone or points at another flow instead of being fixed" in said.message


# ---- Lab 06 step 2: the guard fixed, a rigged smoke.sh left in place (walk-e) ----------------
@pytest.mark.slow
def test_lab06_step2_a_rigged_smoke_sh_left_in_place_is_named(workspace: Workspace) -> None:
    runner = solved_at(workspace, "6", "broken-hook")  # the guard really fixed
    smoke = workspace.root / ".claude" / "hooks" / "smoke.sh"
    lines = smoke.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("check() {"))
    lines.insert(at + 1, '    passed=$((passed + 1)); echo "  ok   $1"; return 0\n')
    smoke.write_text("".join(lines))

    shipped = "your .claude/hooks/smoke.sh differs from the shipped one"
    _fails_alone(runner, shipped)  # not the step's every check: each ran the whole smoke.sh
    subprocess.run(["git", "checkout", "--", ".claude/hooks/smoke.sh"], cwd=workspace.root)
    (put_back,) = checked(runner, shipped)
    assert put_back.status is Status.PASS, put_back


# ---- Lab 05: lab solve --apply on strict lines edited by hand (walk-e) -----------------------
def test_lab05_solve_on_hand_edited_strict_lines_says_the_text_is_gone(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "5", "strict-stop-hook")
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    hook.write_text(hook.read_text().replace("exit 2; }", "exit 0; }"))

    _step, results, _backup = runner.solve(apply=True)

    (said,) = results
    assert said.status is not Status.PASS, said.message  # not "already has the change"
    assert said.message.startswith(
        ".claude/hooks/require-sensors.sh is not as this step's solution expects"
    ), said.message
    assert "git checkout .claude/hooks/require-sensors.sh" in str(said.details.get("fix"))
