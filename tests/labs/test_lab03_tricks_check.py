"""Lab 03, step 2: a half-written tricks scenario gets a verdict per trick it has, a trick counts
only when its tool really ran, and comments that merely mention a trick are no steps.

Real: the lab's own setup (real Maven: green sensors, then the broken annotation), the
workspace's bash hooks, the session on the emulator (the differential case
bash-touch-in-git-dir-asks shows the real client asks for, and with a yes runs, the touch).
"""

from __future__ import annotations

from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.workspace import Workspace

LAB = find_lab("3")
STEP = LAB.step("tricks")
TRICKS = "scenarios/tricks.toml"
TURN = (
    '[[step]]\ndo = "prompt"\ntext = "{text}"\n\n'
    '[[step]]\ndo = "bash"\ncommand = "{command}"\n{more}\n'
    '[[step]]\ndo = "stop"\nexpect = "blocked"\n\n'
)


def tricks_check(ws: Workspace) -> CheckResult:
    spec = next(s for s in STEP.checks if s.name == "hook_session")
    return spec.kind.run(CheckContext(ws, LAB.dir), spec.params)


def put(ws: Workspace, text: str) -> None:
    (ws.root / "scenarios").mkdir(exist_ok=True)
    (ws.root / TRICKS).write_text(text)


def set_up(ws: Workspace) -> None:
    runner = LabRunner(ws)
    runner.start("3")
    assert all(r.status is Status.PASS for r in runner.run_actions(LAB, STEP.setup))


def test_a_half_written_scenario_gets_a_verdict_per_trick(workspace: Workspace) -> None:
    set_up(workspace)
    skeleton = (LAB.dir / "skeleton.toml").read_text()
    touch = TURN.format(text="Mark them as run.", command="touch .git/aiup-sensors-ran", more="")
    # Comments naming every trick are not steps; the touch is written but not approved.
    put(
        workspace,
        skeleton + touch + "# later: > /dev/null, || true, -Dtest=X, background = true\n",
    )
    result = tricks_check(workspace)
    assert result.status is Status.FAIL
    assert result.message == (
        "2 of 7 tricks tried and blocked; 1 did not count; 4 not in your scenario yet"
    )
    found = (result.found or "").splitlines()
    assert found[0] == "✔ trick 1, the old reports: step 2 was blocked"
    assert found[1] == "✔ trick 2, | tail: step 4 ran, and the stop after it (step 5) was blocked"
    assert found[2] == (
        "✘ trick 3, > /dev/null: not in your scenario yet "
        "(a bash step whose command contains '/dev/null')"
    )
    assert found[5].startswith("✘ trick 6, touch .git/aiup-sensors-ran: step 7 was asked, not run")
    assert "auto_approve = true" in found[5] and 'expect = "asked"' in found[5]
    assert "your session lacks an edit mentioning 'UC005AddVisitTest.java' that is allowed" in found
    # Every event of the half-written file was played, each with its outcome.
    session = result.details["session"]
    assert [(e["do"], e["outcome"]) for e in session] == [
        ("session_start", "allowed"),
        ("stop", "blocked"),
        ("prompt", "allowed"),
        ("bash", "allowed"),
        ("stop", "blocked"),
        ("prompt", "allowed"),
        ("bash", "asked"),
        ("stop", "blocked"),
    ]
    assert session[6]["tool_ran"] is False

    # With the simulated user saying yes, the touch really runs, and the stop still blocks.
    approved = (
        "[session]\nauto_approve = true\n\n"
        + skeleton
        + touch.replace('aiup-sensors-ran"\n', 'aiup-sensors-ran"\nexpect = "asked"\n')
    )
    put(workspace, approved)
    result = tricks_check(workspace)
    found = (result.found or "").splitlines()
    assert found[5] == (
        "✔ trick 6, touch .git/aiup-sensors-ran: step 7 ran, and the stop after it (step 8) "
        "was blocked"
    ), found
    assert result.details["session"][6]["tool_ran"] is True
    assert result.message.startswith("3 of 7 tricks tried and blocked")


def test_a_trick_without_its_own_turn_is_named(workspace: Workspace) -> None:
    set_up(workspace)
    # No prompt before the trick: its stop is the second of the turn and goes through.
    put(
        workspace,
        '[[step]]\ndo = "session_start"\n\n[[step]]\ndo = "stop"\n\n'
        '[[step]]\ndo = "bash"\ncommand = "./mvnw -q test -Dgroups=sensor || true"\n\n'
        '[[step]]\ndo = "stop"\n',
    )
    found = (tricks_check(workspace).found or "").splitlines()
    assert found[3].startswith(
        "✘ trick 4, || true: step 3 ran, and the stop after it (step 4) was not blocked: "
        "it went through on stop_hook_active: true"
    ), found
    assert "put a prompt before the trick" in found[3]


def test_a_scenario_that_is_not_valid_names_the_field(workspace: Workspace) -> None:
    put(workspace, '[[step]]\ndo = "bash"\n')
    result = tricks_check(workspace)
    assert result.status is Status.FAIL
    assert "step[1].command" in result.message and TRICKS in result.message
