"""Surefire report parsing: the positive evidence the hooks and the labs read.

Reports are the test JVM's own record of a run. The console can lie (piped, silenced, run in
the background); a report file says what ran, how it ended and, by its mtime, when.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

SENSOR_PACKAGE = "ai.unifiedprocess.petclinic"
# The fixture's JUnit tests tagged "sensor". Keep in step with AIUP_SENSORS in
# petclinic_fixture/.claude/hooks/lib.sh and the @Tag("sensor") classes (tests check both).
SENSORS = (
    "ArchitectureTest",
    "TestLayerConventionsTest",
    "UseCaseTraceabilityTest",
    "TestCaseTraceabilityTest",
    "BusinessRuleTraceabilityTest",
)
REPORTS_DIR = Path("target") / "surefire-reports"
TEST_SOURCES = Path("src") / "test" / "java"


@dataclass(frozen=True)
class TestFailure:
    test: str
    kind: str  # "failure" or "error"
    message: str
    classname: str = ""

    @property
    def short(self) -> str:
        """Class.method without the package, as Maven's summary prints it: a package-long
        name is wider than a 100-column terminal and split there."""
        if not self.classname or not self.test.startswith(self.classname):
            return self.test
        return self.classname.rsplit(".", 1)[-1] + self.test[len(self.classname) :]


@dataclass(frozen=True)
class SurefireReport:
    name: str
    path: Path
    tests: int
    failures: int
    errors: int
    skipped: int
    mtime: float
    problems: tuple[TestFailure, ...] = ()
    cases: tuple[str, ...] = ()  # the names of its <testcase> elements: the methods that ran

    @property
    def green(self) -> bool:
        return self.tests > 0 and self.failures == 0 and self.errors == 0

    def age(self, now: float | None = None) -> float:
        return (time.time() if now is None else now) - self.mtime


class ReportError(Exception):
    """A report exists but cannot be read as a Surefire test suite: ``path`` and ``reason``
    apart, so a screen can name the file in its own place and the cause beside it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def report_path(project_dir: Path, sensor: str, package: str = SENSOR_PACKAGE) -> Path:
    return project_dir / REPORTS_DIR / f"TEST-{package}.{sensor}.xml"


def _count(suite: ET.Element, attr: str, path: Path) -> int:
    raw = suite.get(attr, "0")
    try:
        return int(raw)
    except ValueError as exc:
        raise ReportError(path, f"attribute {attr}={raw!r} is not a number") from exc


def read_report(path: Path) -> SurefireReport:
    try:
        mtime = path.stat().st_mtime
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ReportError(path, f"not well-formed XML ({exc})") from exc
    if root.tag != "testsuite":
        raise ReportError(path, f"root element is <{root.tag}>, expected <testsuite>")
    problems: list[TestFailure] = []
    for case in root.iter("testcase"):
        for kind in ("failure", "error"):
            for node in case.findall(kind):
                problems.append(
                    TestFailure(
                        test=f"{case.get('classname', '')}.{case.get('name', '')}".strip("."),
                        kind=kind,
                        message=(node.get("message") or node.text or "").strip(),
                        classname=case.get("classname", ""),
                    )
                )
    name = root.get("name", path.stem.removeprefix("TEST-")).rsplit(".", 1)[-1]
    cases = tuple(dict.fromkeys(case.get("name", "") for case in root.iter("testcase")))
    return SurefireReport(
        name=name,
        path=path,
        tests=_count(root, "tests", path),
        failures=_count(root, "failures", path),
        errors=_count(root, "errors", path),
        skipped=_count(root, "skipped", path),
        mtime=mtime,
        problems=tuple(problems),
        cases=cases,
    )


def shape_problem(root: ET.Element, classname: str) -> str | None:
    """What a report lacks of the shape Surefire gives every report it writes (None: none):
    <testsuite name="CLASS" time=…> with a <properties> block, and <testcase> elements of
    that class, each with a time, as many as the suite's tests count."""
    if root.get("name") != classname:
        return f'the suite is not named {classname} (name="{root.get("name", "")}")'
    if root.get("time") is None:
        return "the suite has no time: Surefire writes how long it ran"
    if root.find("properties") is None:
        return "no <properties> block: Surefire writes one into every report"
    cases = root.findall("testcase")
    foreign = [c.get("name", "") for c in cases if c.get("classname") != classname]
    if foreign:
        return f"test case {foreign[0]} is not of class {classname}"
    untimed = [c.get("name", "") for c in cases if c.get("time") is None]
    if untimed:
        return f"test case {untimed[0]} has no time: Surefire times every case"
    if root.get("tests") != str(len(cases)):
        return f'it counts tests="{root.get("tests")}" and lists {len(cases)} test cases'
    return None


def sensor_reports(
    project_dir: Path, sensors: tuple[str, ...] = SENSORS
) -> dict[str, SurefireReport | None]:
    """The report of every sensor, or None where the file is missing."""
    found: dict[str, SurefireReport | None] = {}
    for sensor in sensors:
        path = report_path(project_dir, sensor)
        found[sensor] = read_report(path) if path.is_file() else None
    return found


# A JUnit test method: @Test, other annotations or modifiers perhaps, then `void name(`.
_TEST_METHOD = re.compile(r"@Test\b[^;{}]*?\bvoid\s+(\w+)\s*\(")


def sensor_test_methods(
    project_dir: Path, sensor: str, package: str = SENSOR_PACKAGE
) -> tuple[str, ...]:
    """The @Test methods of ``sensor``'s source in ``project_dir``: the test cases a real run
    of it lists in its report (empty when the source is not there to read)."""
    source = project_dir / TEST_SOURCES / Path(*package.split(".")) / f"{sensor}.java"
    try:
        text = source.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    return test_methods_in(text)


def test_methods_in(text: str) -> tuple[str, ...]:
    """The @Test methods of a test class's source text, in order."""
    return tuple(dict.fromkeys(_TEST_METHOD.findall(text)))
