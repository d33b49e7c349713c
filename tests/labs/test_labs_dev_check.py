"""Every shipped lab through ``lab dev check``: fails before its solve, passes after.

The labs without Maven run in the default suite; the Maven ones are marked (nox -s labs runs
the whole set through the CLI)."""

from __future__ import annotations

import pytest

from harness.engine.devcheck import dev_check

FAST = ["04", "05", "09"]
MAVEN = ["01", "02", "03", "06", "07", "08", "11"]


@pytest.mark.parametrize("lab", FAST)
def test_fast_lab_behaves(lab: str) -> None:
    report = dev_check(only=[lab])
    assert report.ok, [s.problems for w in report.labs for s in w.steps]


@pytest.mark.maven
@pytest.mark.slow
@pytest.mark.parametrize("lab", MAVEN)
def test_maven_lab_behaves(lab: str) -> None:
    report = dev_check(only=[lab])
    assert report.ok, [(w.manifest_error, [s.problems for s in w.steps]) for w in report.labs]
