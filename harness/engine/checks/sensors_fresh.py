"""Whether the reports a ``sensors`` check reads without a run of its own are evidence of a
run of this step: written since the step began and since the latest change the sensors read,
not a run a check read before (kept and copied back, edited, touched), listing every test of
their sensor and, with ``fresh``, shaped and summed as Surefire writes them. And a report
that cannot be read at all is the person's file, not the machine's fault.
"""

from __future__ import annotations

import time
from pathlib import Path

from harness import proc
from harness.engine.checks.runs_seen import FromBefore
from harness.engine.checks.surefire_written import not_written_by_a_run
from harness.engine.context import CheckContext
from harness.maven.surefire import (
    SENSOR_PACKAGE,
    ReportError,
    SurefireReport,
    sensor_test_methods,
)
from harness.results import CheckResult

FIX = "./mvnw -q test -Dgroups=sensor"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def broken_report(exc: ReportError, root: Path, name: str) -> CheckResult:
    """The failure for a report that is no readable XML (walk-r: a run cut short, or an edit,
    left half a file): a file of the person's workspace, named with its cause and the run
    that writes it anew, not an error of the machine."""
    try:
        folder = exc.path.parent.relative_to(root).as_posix()
    except ValueError:
        folder = str(exc.path.parent)
    return CheckResult.failed(
        "a sensor report cannot be read: a run cut short (Ctrl-C) or an edit by hand left it "
        "broken; run the sensors again, they write every report anew",
        name=name,
        # The folder said once: with it, a report's path is 86 columns.
        expected=f"every report in {folder}/ whole, as Surefire writes it",
        found=f"{exc.path.name}: {exc.reason}",
        details={"fix": FIX},
    )


def not_fresh(
    ctx: CheckContext,
    reports: dict[str, SurefireReport | None],
    before: FromBefore,
    name: str,
) -> CheckResult | None:
    """The failure for reports that are no run since the step began and since the latest
    change the sensors read: by their files' times, and by the memory of the runs checks read
    (a run of before the step, edited or not; a run read before the change, touched since)."""
    # Fresh means since the step (re)started: reports left from before a `lab reset` or a
    # `lab start` prove nothing about this attempt, even with no file changed since.
    entered = ctx.step.entered_at or 0.0
    early = [s for s, r in reports.items() if r is not None and r.mtime < entered]
    if early:
        return run_again(
            name,
            "from before this step started",
            "reports written since you reached this step",
            "from before the step: " + ", ".join(early),
        )
    newest = newest_change(ctx)
    stale = [s for s, r in reports.items() if r is not None and r.mtime <= newest]
    if stale:
        return run_again(
            name,
            "older than your latest change",
            "reports newer than every changed file",
            "stale: " + ", ".join(stale),
        )
    if before.edited:
        return run_again(
            name,
            "those of a run from before this step, edited by hand (its test times kept)",
            "reports a run wrote since you reached this step",
            before.edited,
        )
    if before.at:
        return run_again(
            name,
            "byte for byte the ones of a run from before this step (kept and copied back, or "
            "touched)",
            "reports a run wrote since you reached this step",
            f"the same {_plural(len([r for r in reports.values() if r]), 'report')} a check "
            f"read at {before.at}",
        )
    if before.read_at is not None and before.read_at < newest:
        # Newer files, but a check read their run before the change: touched since.
        return run_again(
            name,
            "of a run from before your latest change, made to look newer (touched)",
            "reports of a run made after your latest change",
            "a check read this run at "
            + time.strftime("%H:%M:%S", time.localtime(before.read_at))
            + ", before your change at "
            + time.strftime("%H:%M:%S", time.localtime(newest)),
        )
    return None


def unwritten(
    ctx: CheckContext, fresh: bool, reports: dict[str, SurefireReport | None], name: str
) -> CheckResult | None:
    """The failure for reports no run of these sources wrote (with ``fresh``, also those whose
    parts do not agree as a run's do), or None."""
    missing = _not_from_a_run(ctx, reports)
    if missing:
        return _no_run_wrote(
            "a report does not list every test of its sensor: a run of these sources writes "
            "a <testcase> per @Test method",
            "each sensor's report listing every @Test method of its class",
            missing,
            name,
        )
    unlike = _not_surefires(reports) if fresh else []
    if unlike:
        return _no_run_wrote(
            "a report is not as a Surefire run writes it: its parts do not agree",
            "each report and its .txt summary as one run of the sensors writes them",
            unlike,
            name,
        )
    return None


def _no_run_wrote(why: str, expected: str, found: list[str], name: str) -> CheckResult:
    """The failure for reports no sensor run wrote, with the run that replaces them all."""
    return CheckResult.failed(
        f"{why}, so no such run wrote it",
        name=name,
        expected=expected,
        found="\n".join(found),
        details={"fix": "./mvnw -q test -Dgroups=sensor (it replaces every report)"},
    )


def _not_from_a_run(ctx: CheckContext, reports: dict[str, SurefireReport | None]) -> list[str]:
    """A line per report that misses test cases of its sensor's source: a file a run did not
    write (by hand, or a test narrowed to one method). Counts and mtimes are easy to write;
    the names of every test method are what only the run itself lists."""
    lines = []
    for sensor, report in reports.items():
        wanted = sensor_test_methods(ctx.root, sensor)
        missing = [m for m in wanted if report is not None and m not in report.cases]
        if missing:
            listed = len(wanted) - len(missing)
            lines.append(f"{sensor}: {listed} of {len(wanted)} test cases; no {missing[0]}")
    return lines


def _not_surefires(reports: dict[str, SurefireReport | None]) -> list[str]:
    """A line per report that lacks what Surefire writes into every report it makes: the
    suite named by its class, its <properties>, a time on the suite and on every test case,
    each case of that class, and as many cases as it counts; beside it the plain summary of
    the same run, whose counts and times agree with it (surefire_written). A hand-written copy
    of the test names misses these; a copy of a whole real report is caught by _from_before."""
    lines = []
    for sensor, report in reports.items():
        if report is None:
            continue
        classname = f"{SENSOR_PACKAGE}.{sensor}"
        problem = not_written_by_a_run(report.path, classname)
        if problem:
            lines.append(f"{sensor}: {problem}")
    return lines


# What the sensors read, as the Stop hook counts it: a lab's answers/ or scenarios/ written
# after a run do not make its reports stale.
SENSOR_INPUT_DIRS = ("src/", "docs/")


def newest_change(ctx: CheckContext) -> float:
    """The mtime of the most recently changed file the sensors read (uncommitted), or 0."""
    res = proc.run(
        ["git", "status", "--porcelain", "--untracked-files=all", "--no-renames"],
        cwd=ctx.root,
        timeout=60,
    )
    newest = 0.0
    for line in res.stdout.splitlines():
        relative = line[3:]
        if not (relative == "pom.xml" or relative.startswith(SENSOR_INPUT_DIRS)):
            continue
        path = ctx.root / relative
        if path.is_file():
            newest = max(newest, path.stat().st_mtime)
    return newest


def run_again(name: str, why: str, expected: str, found: str) -> CheckResult:
    """Reports that are there and green but no evidence for this step: run the sensors again."""
    return CheckResult.failed(
        f"the reports are {why}: run the sensors again",
        name=name,
        expected=expected,
        found=found,
        details={"fix": "./mvnw -q test -Dgroups=sensor"},
    )
