"""Issue 51, the newcomer walks' free passes on the Stop hooks of Labs 07, 12 and 13: a hook
weakened or fitted to the grader, or swapped after its step, each tried as the walkers wrote it,
fails its check.

Real: the labs' own checks on provisioned workspaces (the PetClinic with real Maven, the Node
project with real npm), the workspaces' bash hooks on the emulator, lab next's re-verification
on a test lab whose hook is graded by the real grader.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.workspace import Workspace, provision
from tests.builders import lab, step, write_action, write_lab
from tests.labs.test_free_passes import at_step, check_at

# ---- Lab 07 step 2: a hook fitted to the grader's --stale file --------------------------------
# The walker's hook: staleness only for Pet.java (the file the step's --stale touches), red only
# by failures= (no errors=, no count of tests).
OVERFIT_HOOK = """#!/usr/bin/env bash
set -u
cd "${CLAUDE_PROJECT_DIR:-.}" || exit 0
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
    grep -q 'failures="[1-9]' "$report" && block "$sensor failed: run ./mvnw -q test"
    [ src/main/java/ai/unifiedprocess/petclinic/domain/Pet.java -nt "$report" ] &&
        block "$sensor stale: run ./mvnw -q test -Dgroups=sensor"
done
exit 0
"""

# The same hook, made right about errors= and tests>0: only its staleness is still fitted.
RED_RIGHT_HOOK = OVERFIT_HOOK.replace(
    '    grep -q \'failures="[1-9]\' "$report"',
    '    grep -q \'<testsuite[^>]* tests="0"\' "$report" && block "$sensor ran no test"\n'
    '    grep -q \'errors="[1-9]\' "$report" && block "$sensor has errors"\n'
    '    grep -q \'failures="[1-9]\' "$report"',
)


def write_hook(ws: Workspace, text: str, rel: str = "scripts/check-before-stop.sh") -> Path:
    hook = ws.root / rel
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(text)
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return hook


@pytest.mark.maven
@pytest.mark.slow
def test_lab07_a_hook_fitted_to_the_stale_file_and_to_failures_only_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-c, Lab 07 step 2: "all 10 checks pass" for a hook whose only staleness test is
    Pet.java (what --stale touches) and whose only red test is failures=."""
    runner = at_step(workspace, "7", "write-hook")
    write_hook(workspace, OVERFIT_HOOK)

    graded = check_at(runner, 1)

    assert graded.status is Status.FAIL, graded.message
    assert "lets the turn end after" in graded.message, graded.message
    assert 'errors="1"' in (graded.found or ""), graded.found  # an error in a report

    write_hook(workspace, RED_RIGHT_HOOK)
    graded = check_at(runner, 1)

    assert graded.status is Status.FAIL, graded.message
    assert "touch docs/use_cases/UC-002-edit-owner.md" in (graded.found or ""), graded.found


# ---- Lab 07 step 3: the hook swapped for a stub after step 2 ---------------------------------
# walk-c's stub: blocks every first stop with the mvnw line, lets the second go; reads nothing.
STUB_HOOK = """#!/usr/bin/env bash
input=$(cat)
case $input in *'"stop_hook_active":true'*|*'"stop_hook_active": true'*)
    echo '{"systemMessage":"no proof"}'; exit 0;; esac
echo "Stop check blocked: no report for ArchitectureTest: run ./mvnw -q test -Dgroups=sensor" >&2
exit 2
"""


@pytest.mark.maven
@pytest.mark.slow
def test_lab07_a_stub_registered_after_step_2_does_not_pass_the_registration(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "7", "register")  # step 2 solved: the workshop's own hook
    write_hook(workspace, STUB_HOOK)
    _step, solved, _backup = runner.solve(apply=True)  # the registration, as the text shows
    assert all(r.status is Status.PASS for r in solved), solved

    run = runner.check(every=True)

    # runs: the settings check (timeout); kept: require-sensors.sh still runs on Stop
    registered, runs, kept, session, graded = run.results
    assert registered.status is Status.PASS, registered.message
    assert runs.status is Status.PASS, runs.message
    assert kept.status is Status.PASS, kept.message
    assert session.status is Status.PASS, session.found  # the stub holds, then lets go...
    assert graded.status is Status.FAIL  # ...but after a green run it still blocks
    assert graded.name == "verify-hook scripts/check-before-stop.sh"
    assert run.status is Status.FAIL


# ---- lab next at a lab's end: a graded hook swapped after its step ---------------------------
# A test lab whose step 1 grades scripts/hook.sh with the real grader (break: no artefact.txt),
# and whose step 2 only wants a file: as Lab 07's steps 3 and 4 pass with any hook that holds.
HONEST_HOOK = """#!/usr/bin/env bash
cd "$CLAUDE_PROJECT_DIR" || exit 0
input=$(cat)
[ -s artefact.txt ] && exit 0
case $input in *'"stop_hook_active":true'*|*'"stop_hook_active": true'*)
    echo '{"systemMessage": "artefact.txt is still missing"}'; exit 0;; esac
echo "Stop check blocked: no artefact.txt: run echo ok > artefact.txt" >&2
exit 2
"""
GRADED = {
    "kind": "verify_hook",
    "script": "scripts/hook.sh",
    "break_cmd": "rm -f artefact.txt",
    "fix_cmd": "echo ok > artefact.txt",
    "timeout": 10.0,
}


@pytest.fixture
def graded_lab(tmp_path: Path) -> Path:
    labs = tmp_path / "labs"
    hook_step = step(
        "hook",
        check=GRADED,
        solve={**write_action("scripts/hook.sh", HONEST_HOOK), "executable": True},
    )
    write_lab(labs, "91-graded-hook", lab("91-graded-hook", hook_step, step("two")))
    return labs


def through_step_two(runner: LabRunner, ws: Workspace, swap: str | None) -> None:
    """Step 1 passed with the honest hook, then ``swap`` written over it, then step 2 passed."""
    runner.start("91")
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS
    runner.next()
    if swap is not None:
        write_hook(ws, swap, "scripts/hook.sh")
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS


def test_a_lab_does_not_complete_with_a_graded_hook_swapped_after_its_step(
    workspace: Workspace, graded_lab: Path
) -> None:
    """walk-c, Lab 07 (and Lab 05): the hook swapped after its step, and lab next re-verified
    the step at its old state ("✔ pass") and completed the lab."""
    runner = LabRunner(workspace, labs_root=graded_lab)
    through_step_two(runner, workspace, STUB_HOOK)

    moved = runner.next()

    assert moved.step is not None and moved.step.id == "hook"  # sent back, not complete
    first = moved.reverified[0]
    assert first.status is Status.FAIL
    said = first.results[-1]
    assert said.message.startswith(
        "scripts/hook.sh changed since this step passed, and as it is now it does not pass: "
    ), said.message
    assert not runner.progress.lab_progress("91-graded-hook").completed_at


def test_a_lab_completes_with_a_graded_hook_changed_for_the_better_after_its_step(
    workspace: Workspace, graded_lab: Path
) -> None:
    """The pass a person earned stays: a hook changed after its step, still passing the step's
    grading as it is now, completes the lab."""
    runner = LabRunner(workspace, labs_root=graded_lab)
    through_step_two(runner, workspace, HONEST_HOOK + "# a note of mine\n")

    moved = runner.next()

    assert moved.step is None, [r.results for r in moved.reverified]
    now = moved.reverified[0].results[-1]
    assert now.status is Status.PASS
    assert now.message.startswith("as it is now (changed since this step passed): ")


def test_a_lab_completes_without_grading_an_unchanged_hook_again(
    workspace: Workspace, graded_lab: Path
) -> None:
    runner = LabRunner(workspace, labs_root=graded_lab)
    through_step_two(runner, workspace, None)

    moved = runner.next()

    assert moved.step is None
    assert all("as it is now" not in r.message for r in moved.reverified[0].results)


# ---- Labs 12 and 13 on the Node project -------------------------------------------------------
@pytest.fixture(scope="module")
def node_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    root = provision(tmp_path_factory.mktemp("node") / "ws", fixture_name="node").workspace.root
    hook = root / "scripts" / "check-before-stop.sh"  # Lab 13's setup: the Check put right
    hook.write_text(hook.read_text().replace("npm test -- --runInBand", "npm test"))
    subprocess.run(["npm", "run", "build"], cwd=root, check=True, capture_output=True)
    return root


def checks(ws: Workspace, lab_ref: str, step_id: str) -> list[CheckResult]:
    """Every check of a step, each run as lab check runs it."""
    found = find_lab(lab_ref)
    specs = found.step(step_id).checks
    return [spec.kind.run(CheckContext(ws, found.dir), spec.params) for spec in specs]


def edit_hook(ws: Workspace, old: str, new: str) -> None:
    hook = ws.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    assert old in text, old
    hook.write_text(text.replace(old, new))


CONTRACT = "Claim: build ready\nCheck: npm test dist/app.js\nSuccess: exit 0\nBlock: {}\n"


@pytest.mark.parametrize(
    ("block", "said"),
    [
        (
            "exit 2, the full log and the API key on stdout and stderr",
            "the reason goes to stderr, not stdout",
        ),
        ("exit 2 or exit 0, stderr or stdout", "the reason goes to stderr, not stdout"),
        ("exit 2 or exit 0, on stderr", "only exit 2 blocks"),
        ("exit 2, the full log on stderr", "no full log"),
        ("exit 2, the API key on stderr", "no secrets on stderr"),
    ],
)
def test_lab12_a_block_line_against_the_contract_does_not_pass(
    node_ws: Workspace, block: str, said: str
) -> None:
    """walk-d, Lab 12 step 1: the Block part only wanted 'exit 2' and 'stderr'."""
    (node_ws.root / "docs").mkdir(exist_ok=True)
    (node_ws.root / "docs" / "stop-hook-contract.md").write_text(CONTRACT.format(block))

    (result,) = checks(node_ws, "12", "four-lines")

    assert result.status is Status.FAIL
    assert said in result.message, result.message


@pytest.mark.parametrize(
    "block",
    [
        "exit 2 with the name of the failed check on stderr, no log and no secrets",
        "exit 2 and a short reason on stderr, with no secrets and no full log",
        "exit 2, the name of the failed check on stderr (nothing on stdout)",
    ],
)
def test_lab12_a_block_line_as_the_step_says_it_passes(node_ws: Workspace, block: str) -> None:
    (node_ws.root / "docs").mkdir(exist_ok=True)
    (node_ws.root / "docs" / "stop-hook-contract.md").write_text(CONTRACT.format(block))

    (result,) = checks(node_ws, "12", "four-lines")

    assert result.status is Status.PASS, (result.message, result.found)


def test_lab13_a_hook_that_never_blocks_does_not_pass_the_let_go_step(node_ws: Workspace) -> None:
    """walk-d, Lab 13 step 4: refuse() made to let every stop go (`if true; then`)."""
    edit_hook(node_ws, "test -s dist/app.js", "test -s dist/missing.js")  # step 1's change
    edit_hook(node_ws, 'if [ "$active" = "true" ]; then', "if true; then")
    answer = subprocess.run(
        ["./scripts/check-before-stop.sh"],
        cwd=node_ws.root,
        input='{"stop_hook_active":true}\n',
        capture_output=True,
        text=True,
        check=True,
    )
    (node_ws.root / "answers").mkdir()
    (node_ws.root / "answers" / "let-go.json").write_text(answer.stdout)

    *let_go, first_stop = checks(node_ws, "13", "let-go")

    assert all(r.status is Status.PASS for r in let_go), [r.message for r in let_go]
    assert first_stop.status is Status.FAIL
    assert "on the first stop (stop_hook_active: false)" in first_stop.message


def test_lab13_a_hook_without_its_npm_test_does_not_pass_the_last_step(
    node_ws: Workspace,
) -> None:
    """walk-d, Lab 13 step 5: pointed back at dist/app.js, and the npm test block deleted."""
    npm_test = (
        "if ! npm test >/dev/null 2>&1; then\n"
        "  refuse 'run npm test and fix the failing test'\nfi\n"
    )
    edit_hook(node_ws, npm_test, "")

    named, session, failing_test, no_app_js, in_place, built = checks(node_ws, "13", "turn-ends")

    rest = (named, session, no_app_js, in_place, built)
    assert all(r.status is Status.PASS for r in rest), [r.message for r in rest]
    assert failing_test.status is Status.FAIL
    assert "keep its `npm test` check" in failing_test.message
