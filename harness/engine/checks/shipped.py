"""The shipped check: a step's instruments are as the lab shipped them, a sensor its rules.

Instruments: see harness/engine/instruments.py. Rules kept: the sensor's fresh report still
lists every test case its class had when the lab started, so a rule added does not mean the
others were taken away."""

from __future__ import annotations

from dataclasses import dataclass

from harness.engine.checks.sensors_fresh import broken_report
from harness.engine.context import CheckContext
from harness.engine.instruments import changed_instruments, instruments_problem
from harness.engine.kinds import Worded, check_kind
from harness.maven.surefire import (
    SENSOR_PACKAGE,
    TEST_SOURCES,
    ReportError,
    sensor_reports,
    test_methods_in,
)
from harness.results import CheckResult
from harness.schema import param
from harness.workspace.snapshot import read_blob


@dataclass(frozen=True, kw_only=True)
class ShippedParams(Worded):
    """A ``shipped`` check's parameters, typed (``KIND.params`` is derived from them)."""

    files: list[str] = param(
        default=[],
        doc="the step's instruments, as glob patterns (* crosses folders): files the step does "
        "not ask to change and its checks rely on; each must be as when the lab started",
    )
    tests_kept: list[str] = param(
        default=[],
        doc="sensors whose report must still list every test case their class had when the "
        'lab started, e.g. ["ArchitectureTest"]: a rule added, none taken away',
    )
    why: str = param(
        default="this step's checks rely on it as shipped",
        doc="what the checks use the files for, said after their names",
    )


def _validate(p: ShippedParams) -> str | None:
    if not p.files and not p.tests_kept:
        return 'say what to keep: files = [".claude/hooks/*"] or tests_kept = ["ArchitectureTest"]'
    return None


def _shipped_tests(ctx: CheckContext, base: str, sensor: str) -> tuple[str, ...]:
    repo = ctx.workspace.repo
    rel = (TEST_SOURCES / SENSOR_PACKAGE.replace(".", "/") / f"{sensor}.java").as_posix()
    data = read_blob(repo, repo[base.encode()].tree, rel)
    return test_methods_in(data.decode("utf-8", "replace")) if data is not None else ()


def _dropped_tests(ctx: CheckContext, p: ShippedParams, base: str) -> list[str] | CheckResult:
    """A line per sensor whose report lacks test cases of its shipped class."""
    try:
        reports = sensor_reports(ctx.root, tuple(p.tests_kept))
    except ReportError as exc:
        return broken_report(exc, ctx.root, "shipped")
    lines = []
    for sensor, report in reports.items():
        if report is None:
            lines.append(f"{sensor}: no report yet")
            continue
        dropped = [m for m in _shipped_tests(ctx, base, sensor) if m not in report.cases]
        if dropped:
            lines.append(f"{sensor}: no test case {', '.join(dropped)}")
    return lines


def run(ctx: CheckContext, p: ShippedParams) -> CheckResult:
    base = ctx.lab_start_commit
    if not base:
        return CheckResult.errored("no lab start commit recorded; start the lab first")
    changed = changed_instruments(ctx.workspace, ctx.root, base, p.files)
    if changed:
        headline, found, fix = instruments_problem(changed, p.why)
        return CheckResult.failed(
            p.message or headline,
            name="shipped",
            expected="as the lab shipped it: " + ", ".join(p.files),
            found=found,
            details={"fix": fix},
        )
    dropped = _dropped_tests(ctx, p, base) if p.tests_kept else []
    if isinstance(dropped, CheckResult):
        return dropped
    if dropped:
        kept = ", ".join(p.tests_kept)
        unrun = all(line.endswith(": no report yet") for line in dropped)
        return CheckResult.failed(
            p.message
            or (f"no report of {kept} yet: run the sensors" if unrun else None)
            or f"the sensor run lacks rules {kept} had when the lab started: add yours, keep "
            "every @Test there was (git diff shows what went), then run the sensors again",
            name="shipped",
            expected=f"every test case {kept} had when the lab started, and yours",
            found="\n".join(dropped),
            details={"fix": "./mvnw -q test -Dgroups=sensor"},
        )
    return CheckResult.passed(p.pass_message or "as the lab shipped it", name="shipped")


KIND = check_kind(
    "shipped",
    "the step's instruments as the lab shipped them; a sensor's shipped test cases still run",
    run,
    rules=_validate,
)
