from __future__ import annotations

from pathlib import Path

import pytest

from harness.maven.surefire import (
    SENSORS,
    ReportError,
    read_report,
    report_path,
    sensor_reports,
    sensor_test_methods,
)
from tests.builders import REPO_ROOT

SUITE = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="ai.unifiedprocess.petclinic.{name}" time="0.1" tests="{tests}" errors="{errors}"
  skipped="0" failures="{failures}">
  <testcase name="rule" classname="ai.unifiedprocess.petclinic.{name}" time="0.01">{body}</testcase>
</testsuite>
"""


def write_report(
    project: Path, name: str, *, tests: int = 1, failures: int = 0, errors: int = 0, body: str = ""
) -> Path:
    path = report_path(project, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        SUITE.format(name=name, tests=tests, failures=failures, errors=errors, body=body)
    )
    return path


def test_green_report(tmp_path: Path) -> None:
    report = read_report(write_report(tmp_path, "ArchitectureTest", tests=4))
    assert (report.name, report.tests, report.failures, report.errors) == (
        "ArchitectureTest",
        4,
        0,
        0,
    )
    assert report.green


@pytest.mark.parametrize(("tests", "failures", "errors"), [(0, 0, 0), (3, 1, 0), (3, 0, 1)])
def test_not_green(tmp_path: Path, tests: int, failures: int, errors: int) -> None:
    path = write_report(tmp_path, "ArchitectureTest", tests=tests, failures=failures, errors=errors)
    assert not read_report(path).green


def test_failure_messages_are_kept(tmp_path: Path) -> None:
    body = '<failure message="UC003X.m: dangling" type="AssertionError">trace</failure>'
    report = read_report(write_report(tmp_path, "UseCaseTraceabilityTest", failures=1, body=body))
    assert report.problems[0].kind == "failure"
    assert report.problems[0].message == "UC003X.m: dangling"
    assert report.problems[0].test.endswith("UseCaseTraceabilityTest.rule")
    # Shown without its package: a whole id is wider than a 100-column terminal.
    assert report.problems[0].test != report.problems[0].short == "UseCaseTraceabilityTest.rule"


def test_malformed_report_names_the_file(tmp_path: Path) -> None:
    path = write_report(tmp_path, "ArchitectureTest")
    path.write_text("<testsuite tests=")
    with pytest.raises(ReportError, match="not well-formed XML"):
        read_report(path)
    path.write_text('<testsuite tests="many"/>')
    with pytest.raises(ReportError, match="tests='many' is not a number"):
        read_report(path)


def test_missing_reports_are_none(tmp_path: Path) -> None:
    write_report(tmp_path, "ArchitectureTest")
    found = sensor_reports(tmp_path)
    assert found["ArchitectureTest"] is not None
    assert found["UseCaseTraceabilityTest"] is None


def test_sensor_list_matches_the_hooks() -> None:
    """The harness and the bash hooks must agree on which classes are sensors."""
    lib = (REPO_ROOT / "petclinic_fixture" / ".claude" / "hooks" / "lib.sh").read_text()
    for sensor in SENSORS:
        assert sensor in lib


def test_a_report_lists_its_test_cases_and_a_sensor_its_test_methods(tmp_path: Path) -> None:
    """What only a run writes: a <testcase> per @Test method of the sensor's source (the
    sensors check compares the two; counts and mtimes are easy to forge)."""
    report = read_report(write_report(tmp_path, "ArchitectureTest"))
    assert report.cases == ("rule",)
    fixture = REPO_ROOT / "petclinic_fixture"
    methods = sensor_test_methods(fixture, "ArchitectureTest")
    assert "viewsAreNamedView" in methods and "readClasses" not in methods  # @BeforeAll
    assert "report" not in methods  # a private helper
    for sensor in SENSORS:
        assert sensor_test_methods(fixture, sensor), sensor
    assert sensor_test_methods(tmp_path, "ArchitectureTest") == ()  # no source: nothing to ask
