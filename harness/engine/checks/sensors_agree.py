"""Whether the sensors, run by Hook Lab itself, agree with the reports a person's run left.

A report says what the run that wrote it saw, and that run was the person's (or their
session's): its switches (``-f`` another pom, ``--define argLine=-javaagent:…``), its
environment (``MAVEN_OPTS``, ``~/.mavenrc``, a ``java`` earlier on the PATH) or a hook that
rewrote the command can make red sensors write green reports (walk-m R and S; walk-o AC, F,
J, U and P). The workspace's code cannot lie that way. So where a check takes green reports
as evidence, Hook Lab also runs the sensors on a throwaway copy of the workspace as it is now
(its sources, not its ``target/``: compiled classes can be put there by hand; and the
fixture's own pom.xml, ./mvnw and .mvn/: walk-q put the class path in pom.xml), through its own
clean Maven environment (harness/maven/backend.py ``own_run_env``), and each sensor the
reports call green must be green there as well.

Nor can a hand: a report written by hand whose parts agree (walk-r: one red report, one failure
with made-up words, the other four missing) gives another verdict than the run. So each report
must give its sensor the run's verdict, the same test cases failing with the same messages, and
a report the run wrote must not be missing. One run serves both, and the compiled test classes
it leaves say what a build of these sources compiles (a step with ``compiled``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from harness.engine.checks.sensors_fresh import broken_report
from harness.engine.context import CheckContext
from harness.engine.throwaway import sandbox_copy
from harness.maven.backend import SENSOR_GOALS
from harness.maven.surefire import (
    SENSOR_PACKAGE,
    SENSORS,
    ReportError,
    SurefireReport,
    sensor_reports,
)
from harness.maven.warm import restore_cached
from harness.results import CheckResult

PLAIN_RUN = "./mvnw " + " ".join(SENSOR_GOALS)
DISAGREE = "your reports say "  # how disagreement() begins


# How the build runs, as the lab shipped it: a class path in pom.xml or a switch in ./mvnw
# would make red sources green in Hook Lab's own run too (walk-q). The backend choice stays.
_BUILD_FILES = ("pom.xml", "mvnw", ".mvn")
_KEPT_IN_MVN = ("hooklab-backend",)
_BUILD_OUTPUT = frozenset({"target"})
TEST_CLASSES = Path("target") / "test-classes"


def _shipped_build(copy: Path, fixture: Path) -> None:
    for name in _BUILD_FILES:
        shipped, ours = fixture / name, copy / name
        if not shipped.exists():
            continue
        kept = {k: (ours / k).read_bytes() for k in _KEPT_IN_MVN if (ours / k).is_file()}
        if ours.is_dir() and not ours.is_symlink():
            shutil.rmtree(ours)
        elif ours.exists() or ours.is_symlink():
            ours.unlink()
        if shipped.is_dir():
            shutil.copytree(shipped, ours, symlinks=True)
            for k, data in kept.items():
                (ours / k).write_bytes(data)
        else:
            shutil.copy2(shipped, ours)


@dataclass(frozen=True)
class OwnRun:
    """Hook Lab's own run of the sensors on a copy of the workspace's sources."""

    reports: dict[str, SurefireReport | None]  # None: no report of that sensor
    output: str
    copy: str  # the copy's path, as the run's messages may name it
    classes: dict[str, bytes | None] = field(default_factory=dict)  # each sensor's test class


def own_run(ctx: CheckContext, sensors: Iterable[str] = SENSORS) -> OwnRun:
    """The sensors run on a throwaway copy of the workspace as it is now, through Hook Lab's
    own clean Maven environment: the reports of ``sensors`` and their compiled test classes."""
    wanted = tuple(sensors)
    ctx.on_activity(f"running {PLAIN_RUN} on a copy of your sources, as Hook Lab runs it")
    # Its sources only: classes can be put in target/ by hand.
    with sandbox_copy(ctx.root, leave_out=_BUILD_OUTPUT, prefix="hooklab-agree-") as copy:
        _shipped_build(copy, ctx.workspace.fixture.dir)
        if ctx.workspace.fixture.compile_cache:
            # Hook Lab's own compiled classes of these very sources, when it holds them (not
            # the person's target/): the run then compiles nothing, a few seconds a check.
            restore_cached(copy)
        maven = ctx.maven().run(copy, SENSOR_GOALS, timeout=600)
        classes = {s: _bytes(test_class(copy, s)) for s in wanted}
        try:
            reports = sensor_reports(copy, wanted)
        except ReportError:
            reports = dict.fromkeys(wanted)
        return OwnRun(reports, maven.output, str(copy), classes)


CLASSES = (TEST_CLASSES / Path(*SENSOR_PACKAGE.split("."))).as_posix()


def test_class(root: Path, sensor: str) -> Path:
    """Where a build of ``root`` puts the compiled test class of ``sensor``."""
    return root / CLASSES / f"{sensor}.class"


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def red_in_our_run(ctx: CheckContext, green: Iterable[str]) -> tuple[list[str], str]:
    """The sensors of ``green`` that Hook Lab's own run of the workspace's sources does not
    find green (no report counts as not green), and that run's output."""
    wanted = tuple(green)
    if not wanted:
        return [], ""
    run = own_run(ctx, wanted)
    red = [s for s in wanted if (r := run.reports.get(s)) is None or not r.green]
    return red, run.output


HAND_OR_SWITCH = (
    "the reports were written or edited by hand, or the run that wrote them was not the "
    "sensors' own (a switch such as -f or --define, MAVEN_OPTS, ~/.mavenrc, another java, a "
    "hook that changed the command)"
)


def disagreement(red: list[str]) -> str:
    """Why green reports are not believed when Hook Lab's own run found ``red`` red."""
    names = ", ".join(red)
    return (
        f"{DISAGREE}{names} passed, but the sensors run on your sources as Hook Lab "
        f"runs them ({PLAIN_RUN}, no MAVEN_OPTS, no ~/.mavenrc) fail: {HAND_OR_SWITCH}"
    )


def _failed(report: SurefireReport) -> dict[str, list[str]]:
    """Each failing test case of ``report`` ("method (error)" for an error) with the lines of
    its messages, whitespace folded and sorted: a rule may list what it found in the order a
    folder is read, which two copies of one tree need not share."""
    out: dict[str, list[str]] = {}
    for problem in report.problems:
        kind = "" if problem.kind == "failure" else f" ({problem.kind})"  # an error is named
        case = problem.test.rsplit(".", 1)[-1] + kind
        lines = [" ".join(line.split()) for line in problem.message.splitlines()]
        out.setdefault(case, []).extend(line for line in lines if line)
    return {case: sorted(lines) for case, lines in out.items()}


def _named(cases: Iterable[str]) -> str:
    return ", ".join(sorted(cases)) or "none"


def _one_differs(
    sensor: str, theirs: SurefireReport, ours: SurefireReport, copy: str, here: str
) -> str:
    """How ``theirs`` (the person's report) says otherwise than Hook Lab's ``ours`` ("": the
    same verdict: the same test count, the same cases failing with the same messages)."""
    mine = _failed(theirs)
    own = {
        case: sorted(line.replace(copy, here) for line in lines)
        for case, lines in _failed(ours).items()
    }
    if set(mine) != set(own):
        return f"{sensor}: your report fails {_named(mine)}; Hook Lab's run fails {_named(own)}"
    counts = ("tests", "failures", "errors")
    if any(getattr(theirs, c) != getattr(ours, c) for c in counts):
        said = ", ".join(f"{getattr(theirs, c)} {c}" for c in counts)
        run = ", ".join(f"{getattr(ours, c)} {c}" for c in counts)
        return f"{sensor}: your report counts {said}; Hook Lab's run {run}"
    for case in sorted(mine):
        if mine[case] != own[case]:
            first = next((line for line in own[case] if line not in mine[case]), "")
            return f"{sensor}: the failure of {case} does not read as in Hook Lab's run" + (
                f", which says: {first}" if first else ""
            )
    return ""


def verdicts_differ(theirs: dict[str, SurefireReport | None], run: OwnRun, here: str) -> list[str]:
    """A line per sensor whose report says otherwise than Hook Lab's own run of the same
    sources (empty: every verdict the same). A report the run wrote that the person has not
    is named: the step's run writes one per sensor."""
    lines = []
    for sensor, ours in run.reports.items():
        mine = theirs.get(sensor)
        if mine is None and ours is not None:
            lines.append(f"{sensor}: no report of yours; {PLAIN_RUN} writes one")
        elif mine is not None and ours is None:
            lines.append(f"{sensor}: Hook Lab's run wrote no report of it (see its output)")
        elif mine is not None and ours is not None:
            line = _one_differs(sensor, mine, ours, run.copy, here)
            if line:
                lines.append(line)
    return lines


def agreement(
    ctx: CheckContext, expect: dict[str, str], name: str, *, compiled: bool = False
) -> CheckResult | None:
    """Why the person's reports are not believed (None: they are): Hook Lab's own run of the
    same sources gives a sensor another verdict, or writes a report they lack; with
    ``compiled``, no build of this step compiled the sensors as that run does."""
    try:
        theirs = sensor_reports(ctx.root, SENSORS)
    except ReportError as exc:
        return broken_report(exc, ctx.root, name)
    run = own_run(ctx)
    green = [s for s, outcome in expect.items() if outcome == "green"]
    red = [s for s in green if (r := run.reports.get(s)) is None or not r.green]
    differs = verdicts_differ(theirs, run, str(ctx.root))
    unwritten = any(r is None for r in run.reports.values())
    fix = {"fix": f"run {PLAIN_RUN} as it is (no other switch) and fix what it names"}
    if red or differs:
        return CheckResult.failed(
            disagreement(red) if red else _differs_headline(differs),
            name=name,
            expected="each sensor's report as Hook Lab's own run of your sources writes it: "
            "the same test cases failing, with the same messages",
            found="\n".join(differs or ["red in Hook Lab's run: " + ", ".join(red)]),
            # found names every case that fails; the output only where a report is missing
            # (a compile error), its copy's path in words.
            output=run.output.replace(run.copy, "(Hook Lab's copy)") if unwritten else "",
            details=fix,
        )
    unbuilt = _not_built(ctx, run) if compiled else []
    if unbuilt:
        return CheckResult.failed(
            "no build since this step began compiled the sensors as your sources compile: "
            "a run of the sensors compiles them before it writes its reports",
            name=name,
            expected=f"each sensor's class in {CLASSES}/ compiled by a run of this step, "
            "byte for byte as Hook Lab compiles your sources",
            found="\n".join(unbuilt),
            details={"fix": "./mvnw -q test -Dgroups=sensor"},
        )
    return None


def _differs_headline(differs: list[str]) -> str:
    if all(" no report of yours; " in line for line in differs):
        return (
            f"a report is missing that {PLAIN_RUN} writes: a run of the sensors writes one "
            "for each of them"
        )
    return (
        "your reports do not say what the sensors say when Hook Lab runs them on your "
        f"sources ({PLAIN_RUN}, no MAVEN_OPTS, no ~/.mavenrc): {HAND_OR_SWITCH}"
    )


def _not_built(ctx: CheckContext, run: OwnRun) -> list[str]:
    """A line per sensor whose compiled test class is not one this step's build wrote from
    the sources as they are: missing (the step cleared target/), older than the step, or
    other bytes than Hook Lab's own compile of them."""
    entered = ctx.step.entered_at or 0.0
    lines = []
    for sensor, ours in run.classes.items():
        path = test_class(ctx.root, sensor)
        rel = path.name  # the folder is said once, in expected: a path each is 85 columns
        try:
            mtime, data = path.stat().st_mtime, path.read_bytes()
        except OSError:
            lines.append(f"{rel}: missing")
            continue
        if mtime < entered - 1:  # the clock's second: a build right after the step began
            lines.append(f"{rel}: compiled before this step began")
        elif ours is not None and data != ours:
            lines.append(f"{rel}: not compiled from your sources as they are now")
    return lines
