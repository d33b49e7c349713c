"""A solution with its substance taken out must not pass: each step's check fails on the
hollowed solution (the command not really run, the prediction left out, the hook's body gone,
the contract saying the opposite), with the words a participant then reads.

Real: the lab's own setup and checks on a provisioned workspace, real Maven where the step reads
reports, the workspace's bash hooks on the emulator.
"""

from __future__ import annotations

import pytest

from harness.engine.runner import LabRunner
from harness.results import Status
from harness.workspace import Workspace


def at_step(ws: Workspace, lab: str, step: str) -> LabRunner:
    runner = LabRunner(ws)
    runner.start(lab)
    if runner.progress.step != step:
        runner.goto(step)
    return runner


@pytest.mark.maven
def test_lab01_reports_from_before_a_reset_are_not_fresh(workspace: Workspace) -> None:
    runner = at_step(workspace, "1", "run-sensors")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved)
    assert runner.check().status is Status.PASS
    # The step starts over; the green reports of the earlier attempt stay in target/.
    runner.reset()
    run = runner.check()
    assert run.status is Status.FAIL
    assert run.results[0].message == (
        "the reports are from before this step started: run the sensors again"
    )
