"""Issue 51, walks i and j (round 8): each free pass they found in Labs 05, 08, 09 and 11,
played as the walker typed it, fails its check; the honest way still passes.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports, real bash hooks, real git; the repros as the walkers wrote them (sed -i,
echo >>, a hook edited in place).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.results import CheckResult, Status
from harness.ui.lab_view import result_renderable
from harness.workspace import Workspace
from tests.labs.solved import checked, solved_at
from tests.labs.test_free_passes import after_a_while, at_step
from tests.labs.test_free_passes_round7_instruments import ARCHITECTURE, _checkout, _sensors
from tests.ui.screens import shown


def _failed(results: list[CheckResult]) -> list[CheckResult]:
    return [r for r in results if r.status is not Status.PASS]


def _fits(result: CheckResult) -> None:
    """The failure as lab check shows it fits 100 columns, and says no regular expression."""
    screen = shown(result_renderable(result), 100)
    assert all(len(line) <= 100 for line in screen.splitlines()), screen
    assert "(?" not in screen and "\\b" not in screen and "\\s" not in screen, screen


# ---- Lab 11 step 3 (walk-j): the annotation edited, a blank line added to another spec ------
UC005_TEST = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"


@pytest.mark.maven
@pytest.mark.slow
def test_lab11_an_annotation_edited_beside_a_blank_line_in_a_spec_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "11", "rename-a-flow")
    root = workspace.root
    sed = "56s/A2: Visit Before Birth Date/A2: Visit Before Hatching/"
    subprocess.run(["sed", "-i", sed, UC005_TEST], cwd=root, check=True)
    assert "A2: Visit Before Hatching" in (root / UC005_TEST).read_text()
    subprocess.run("echo '' >> docs/use_cases/UC-001-find-owners.md", shell=True, cwd=root)
    _sensors(workspace)

    failed = _failed(list(runner.check(every=True).results))

    assert [r.name for r in failed] == ["renamed flow, UseCaseTraceabilityTest"], failed
    assert failed[0].message.startswith("no flow heading renamed yet"), failed[0].message
    # Both named: no heading renamed, and the annotation with a title no spec had.
    assert 'scenario = "A2: Visit Before Hatching"' in (failed[0].found or "")
    _fits(failed[0])
    # The honest way still passes.
    _checkout(workspace, UC005_TEST, "docs/use_cases")
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS


# ---- Lab 08 step 2 (walk-j): the naming rule moved into guard-spec-status.sh -----------------
GUARD = ".claude/hooks/guard-spec-status.sh"
EXEMPTION = """\
case $file in
    */repository/OwnerStore.java) ;;
    */petclinic/repository/*Repository.java) ;;
    */petclinic/repository/*/*) ;;
    */petclinic/repository/*.java) aiup_block "Refused: ${file##*/}: name it ...Repository." ;;
esac
"""


def _after_case_tool(path: Path) -> None:
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("case $tool in"))
    path.write_text("".join([*lines[: at + 1], EXEMPTION, *lines[at + 1 :]]))


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_step2_the_rule_moved_into_another_hook_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "8", "drop-hook")  # the hook and its entry gone, as the step asks
    assert runner.check().status is Status.PASS
    _after_case_tool(workspace.root / GUARD)
    # The walker's proof that the hook layer still refuses the name.
    refused = subprocess.run(
        ["bash", GUARD],
        cwd=workspace.root,
        input='{"tool_name": "Write", "tool_input": {"file_path": "'
        f"{workspace.root}/src/main/java/ai/unifiedprocess/petclinic/repository/PetStore.java"
        '", "content": "x"}, "cwd": "' + str(workspace.root) + '"}',
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "CLAUDE_PROJECT_DIR": str(workspace.root)},
    )
    assert refused.returncode == 2 and "PetStore.java" in refused.stderr, refused

    failed = _failed(list(runner.check(every=True).results))

    # The session's made-up class name meets the exemption's rule too (round 9).
    assert failed[0].name == "shipped", failed
    assert all(r.name.startswith("Claude writes repository/") for r in failed[1:]), failed
    failed = failed[:1]
    assert failed[0].message.startswith(".claude/hooks/ is not as the step wants it"), failed[0]
    assert "keep every other hook as the lab started, add none" in failed[0].message
    assert failed[0].found == f"{GUARD}: changed"
    assert failed[0].details["fix"] == f"git checkout -- {GUARD}"
    _fits(failed[0])
    # The same rule in a hook of its own, beside the shipped ones: a hook the lab never had.
    _checkout(workspace, GUARD)
    (workspace.root / ".claude/hooks/name-guard.sh").write_text(EXEMPTION)
    again = _failed(list(runner.check(every=True).results))[:1]
    assert [(r.name, r.found) for r in again] == [
        ("shipped", ".claude/hooks/name-guard.sh: not shipped")
    ], again


# ---- Lab 08 step 1 (walk-j): a shipped rule hollowed, the new one added ----------------------
@pytest.mark.maven
@pytest.mark.slow
def test_lab08_step1_a_hollowed_rule_beside_the_new_one_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "8", "rule-as-test")  # the honest rule, and a green run
    path = workspace.root / ARCHITECTURE
    text = path.read_text()
    start = text.index("    void viewsAreNamedView() {")
    end = text.index("    }\n", start) + len("    }\n")
    path.write_text(text[:start] + "    void viewsAreNamedView() { }\n" + text[end:])
    _sensors(workspace)

    # The two checks it reads, not the step's six sensor runs (each a Maven run on a copy),
    # which the hollowed rule passed and the solve passes in the labs session.
    results = checked(runner, "since_start", "shipped")

    failed = _failed(results)
    assert [r.name for r in failed] == ["since the lab started: ArchitectureTest.java"], failed
    assert failed[0].found == "viewsAreNamedView(): 6 of its 6 lines changed or gone"
    assert failed[0].message.startswith("viewsAreNamedView() in ArchitectureTest.java not as")
    _fits(failed[0])
    # The shipped line claims only what it checks: a test case per rule.
    shipped = next(r for r in results if r.name == "shipped")
    assert shipped.message.startswith("the run holds a test case for every rule")
    _checkout(workspace, ARCHITECTURE)
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS


# ---- Quizzes (walk-j, Lab 09): passed tries do not count toward the wait --------------------
RIGHT = 'q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n'
WRONG = 'q1 = "a"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n'


def _quiz_runner(workspace: Workspace) -> tuple[LabRunner, Path]:
    runner = at_step(workspace, "9", "quiz")
    quiz = workspace.root / "answers" / "adr-quiz.toml"
    quiz.parent.mkdir(exist_ok=True)
    return runner, quiz


def test_a_passed_quiz_checked_again_raises_no_wait(workspace: Workspace) -> None:
    """walk-j, q9: wrong, wrong, right, two more right checks, then one wrong: the next try
    waited 480 s (the cap) instead of the guide's 30 s, then twice as long: 120 s."""
    runner, quiz = _quiz_runner(workspace)
    for answers in (WRONG, WRONG, RIGHT, RIGHT, RIGHT):
        quiz.write_text(answers)
        runner.check(record_failure=True)
        after_a_while(runner, "quiz")  # minutes of reading between two tries
    quiz.write_text(WRONG)
    assert runner.check(record_failure=True).status is Status.FAIL
    mine = runner.progress.labs[runner.lab().id].steps["quiz"]
    assert mine.quiz_tries == 3  # the wrong tries, not the passed ones

    said = runner.check(record_failure=True).results[0]

    assert said.message.startswith("too soon after a wrong try"), said.message
    assert said.message.endswith(("again in 120 s", "again in 119 s")), said.message


def test_a_first_wrong_try_after_passes_names_no_answer(workspace: Workspace) -> None:
    """walk-j, the main workspace: five passing checks, then the first wrong try named the
    wrong answers at once; the guide says a first wrong try says how many."""
    runner, quiz = _quiz_runner(workspace)
    quiz.write_text(RIGHT)
    for _ in range(5):
        assert runner.check(record_failure=True).status is Status.PASS
    quiz.write_text(WRONG)

    said = runner.check(record_failure=True).results[0]

    assert said.message == "1 of 5 answers wrong", said.message
    assert "q1" not in (said.found or "")


# ---- Lab 05 (walk-i FREE PASS F): the strict lines kept, on only in the real workspace -------
HOOK = ".claude/hooks/require-sensors.sh"
STRICT_LINES = ("command -v jq ", "git rev-parse --git-dir ")


def _strict_only_at(hook: str, workspace: Path) -> str:
    """The walker's hook: each of the step's strict lines kept, on only where the project is
    the real workspace (so a check's copy, elsewhere, sees the hook fail open)."""
    gate = f'[ "${{CLAUDE_PROJECT_DIR:-}}" = {workspace} ] && '
    lines = hook.splitlines(keepends=True)
    strict = [i for i, line in enumerate(lines) if line.startswith(STRICT_LINES)]
    assert len(strict) == 2, hook
    for i in strict:
        lines[i] = f"{gate}{{ {lines[i].rstrip()}; }}\n"
    return "".join(lines)


@pytest.mark.maven
@pytest.mark.slow
def test_lab05_strict_lines_kept_for_the_real_workspace_path_do_not_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "5", "strict-stop-hook")
    hook = workspace.root / HOOK
    hook.write_text(_strict_only_at(hook.read_text(), workspace.root))
    without_jq = subprocess.run(
        ["/bin/bash", HOOK],
        cwd=workspace.root,
        input="{}",
        capture_output=True,
        text=True,
        env={"PATH": "/nonexistent", "CLAUDE_PROJECT_DIR": str(workspace.root)},
    )
    assert without_jq.returncode == 2, without_jq  # as strict as the colleague made it

    failed = _failed(list(runner.check(every=True).results))

    assert [r.name for r in failed] == ["since the lab started: require-sensors.sh"], failed
    found = (failed[0].found or "").splitlines()
    assert len(found) == 2 and found[0].startswith('line 10: [ "${CLAUDE_PROJECT_DIR:-}" = ')
    _fits(failed[0])
    _checkout(workspace, HOOK)
    assert runner.check().status is Status.PASS
