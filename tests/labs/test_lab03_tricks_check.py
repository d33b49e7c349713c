"""Lab 03, step 2: the quick check before the session looks at the scenario's real steps, so
comments that merely mention a trick cannot pass it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.engine.context import CheckContext
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.workspace import Workspace

LAB = find_lab("3")
STEP = LAB.step("tricks")
TRICKS = "scenarios/tricks.toml"


def first_check(ws: Workspace) -> CheckResult:
    spec = STEP.checks[0]
    return spec.kind.run(CheckContext(ws, LAB.dir), spec.params)


def put(ws: Workspace, text: str) -> None:
    (ws.root / "scenarios").mkdir(exist_ok=True)
    (ws.root / TRICKS).write_text(text)


def test_comments_naming_every_trick_do_not_pass(workspace: Workspace) -> None:
    skeleton = (LAB.dir / "skeleton.toml").read_text()
    put(
        workspace,
        skeleton + "# later: > /dev/null, || true, -Dtest=X, touch the marker, background = true\n",
    )
    result = first_check(workspace)
    assert result.status is Status.FAIL, result
    found = result.found or ""
    assert "'/dev/null'" in found and "background = true" in found
    assert "'| tail'" not in found  # the skeleton really has that step


def test_the_solution_passes_and_a_missing_step_is_named(workspace: Workspace) -> None:
    shutil.copyfile(LAB.dir / "solution" / "tricks.toml", Path(workspace.root / "tricks.tmp"))
    put(workspace, (workspace.root / "tricks.tmp").read_text())
    assert first_check(workspace).status is Status.PASS
    without_touch = (
        (workspace.root / TRICKS)
        .read_text()
        .replace('command = "touch .git/aiup-sensors-ran"', 'command = "true"')
    )
    put(workspace, without_touch)
    result = first_check(workspace)
    assert result.status is Status.FAIL
    assert (result.found or "").strip() == "no bash step whose command contains 'touch'"


def test_a_scenario_that_is_not_valid_names_the_field(workspace: Workspace) -> None:
    put(workspace, '[[step]]\ndo = "bash"\n')
    result = first_check(workspace)
    assert result.status is Status.FAIL
    assert "step[0].command" in result.message and TRICKS in result.message


def session_check(ws: Workspace) -> CheckResult:
    spec = STEP.checks[1]
    assert spec.params["turns_apart"], "lab 03 plays its tricks apart"
    return spec.kind.run(CheckContext(ws, LAB.dir), spec.params)


def broken_annotation(ws: Workspace) -> None:
    """The step's setup: a green sensor run (the solution's last turn waits for a report),
    then the annotation broken."""
    from harness.maven import get_backend
    from harness.maven.backend import SENSOR_GOALS

    assert get_backend("local").run(ws.root, SENSOR_GOALS).ok
    test = ws.root / "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"
    test.write_text(test.read_text().replace("A1: Missing Description", "A1: Missing Text"))


@pytest.mark.maven
def test_the_solution_played_turn_by_turn_passes_and_reads_as_one_session(
    workspace: Workspace,
) -> None:
    broken_annotation(workspace)
    put(workspace, (LAB.dir / "solution" / "tricks.toml").read_text())

    result = session_check(workspace)

    assert result.status is Status.PASS, result
    session = result.details["session"]
    # One session start (the replays are not shown), every scenario step once, in order.
    assert [e["do"] for e in session].count("session_start") == 1
    steps = [e["step"] for e in session]
    assert steps == sorted(steps) and len(steps) == len(set(steps))
    stops = [e["outcome"] for e in session if e["do"] == "stop"]
    assert stops == ["blocked"] * 7 + ["allowed"]


@pytest.mark.maven
def test_a_turn_that_relies_on_an_earlier_one_fails_when_played_apart(
    workspace: Workspace,
) -> None:
    """The fix in one turn, the real run in the next: the last turn's copy never got the fix,
    so its sensors are red and the last stop is blocked."""
    broken_annotation(workspace)
    solution = (LAB.dir / "solution" / "tricks.toml").read_text()
    fix_then_prompt = solution.replace(
        'new = "A1: Missing Description"\n',
        'new = "A1: Missing Description"\n[[step]]\ndo = "prompt"\ntext = "Now run them."\n',
    )
    assert fix_then_prompt != solution
    put(workspace, fix_then_prompt)

    result = session_check(workspace)

    assert result.status is Status.FAIL
    assert "the last step should be allowed, found blocked" in (result.found or "")


def test_turns_split_at_each_prompt_and_start_from_the_session_start() -> None:
    from harness.claude.scenario import parse_scenario
    from harness.engine.checks.hook_session import StepAsserts, split_turns

    steps = [
        {"do": "session_start"},
        {"do": "stop"},
        {"do": "prompt", "text": "a"},
        {"do": "bash", "command": "true"},
        {"do": "stop"},
        {"do": "prompt", "text": "b"},
        {"do": "stop"},
    ]
    scenario = parse_scenario({"step": steps}, Path("inline.toml"))
    marks = [StepAsserts(feedback_contains=str(i)) for i in range(len(steps))]
    turns = split_turns(scenario, marks)

    assert [[s.number for s in t[0].steps] for t in turns] == [[1, 2], [1, 3, 4, 5], [1, 6, 7]]
    assert [t[2] for t in turns] == [0, 1, 1]
    assert [a.feedback_contains for a in turns[1][1]] == ["0", "2", "3", "4"]
