"""Every shipped lab through ``lab dev check``: fails before its solve, passes after.

The labs are proven once per run: ``nox -s labs`` proves every one through the CLI on both
engines, so ``nox -s tests`` leaves these out (marked ``labs``); run them with pytest directly
to prove a lab while working on it."""

from __future__ import annotations

import pytest

from harness.engine.devcheck import DevCheckReport, dev_check

FAST = ["04", "05", "09"]
MAVEN = ["01", "02", "03", "06", "07", "08", "11"]


pytestmark = pytest.mark.labs


@pytest.mark.parametrize("lab", FAST)
def test_fast_lab_behaves(lab: str) -> None:
    report = dev_check(only=[lab])
    assert report.ok, [s.problems for w in report.labs for s in w.steps]
    assert_proves_something(report)


@pytest.mark.maven
@pytest.mark.slow
@pytest.mark.parametrize("lab", MAVEN)
def test_maven_lab_behaves(lab: str) -> None:
    report = dev_check(only=[lab])
    assert report.ok, [(w.manifest_error, [s.problems for s in w.steps]) for w in report.labs]
    assert_proves_something(report)


def assert_proves_something(report: DevCheckReport) -> None:
    """No check passes before and after its step's solve unless declared a guard: lab demo
    (the same walk) prints no "proves nothing" line (issue 51)."""
    unchanged = [(s.step.id, s.unchanged) for w in report.labs for s in w.steps if s.unchanged]
    assert unchanged == []
