"""``sensors``: run the sensors through the workspace's Maven backend and judge each report.

The verdict comes from the Surefire reports, never from Maven's console, the same positive
evidence the hooks demand.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.engine.checks import build_output
from harness.engine.checks.runs_seen import from_before
from harness.engine.checks.sensors_agree import agreement
from harness.engine.checks.sensors_fresh import broken_report, not_fresh, unwritten
from harness.engine.context import CheckContext
from harness.engine.kinds import Worded, check_kind
from harness.engine.throwaway import sandbox_copy
from harness.maven.backend import SENSOR_GOALS
from harness.maven.memo import THROWAWAY_ENV
from harness.maven.surefire import (
    ReportError,
    SurefireReport,
    sensor_reports,
)
from harness.paths import escape_problem
from harness.results import CheckResult, Status
from harness.schema import param

OUTCOMES = ("green", "red", "absent", "present")


@dataclass(frozen=True, kw_only=True)
class SensorsParams(Worded):
    """A ``sensors`` check's parameters, typed (``KIND.params`` is derived from them)."""

    expect: dict[str, Any] = param(
        default={},
        doc='per sensor: "green", "red", "absent" or "present", '
        'e.g. { ArchitectureTest = "green" }',
    )
    failure_contains: dict[str, Any] = param(
        default={},
        doc="per sensor: text one of its failure messages must contain, or a list of texts "
        'each some failure message contains, e.g. { ArchitectureTest = "repository" }',
    )
    run: bool = param(
        default=True, doc="run Maven first (false: judge the reports already in target/)"
    )
    sandbox_files: dict[str, Any] = param(
        default={},
        doc="files (path = content) written into a throwaway copy of the workspace "
        "before the run, e.g. to break a rule and watch the sensor catch it; {random} in a "
        "path, a content, failure_contains or a message is one type name made up per run",
    )
    fresh: bool = param(
        default=False,
        doc="with run = false: every report must be newer than every changed file the "
        "sensors read (src/, docs/, pom.xml)",
    )
    agree: bool = param(
        default=True,
        doc="with run = false: Hook Lab also runs the sensors on a copy of the sources, and "
        "every sensor's report must give the verdict of that run: the same test cases failing "
        "with the same messages, none of its reports missing (a switch, MAVEN_OPTS, a hook or "
        "a hand can make a report say otherwise); false only where no Maven can run",
    )
    compiled: bool = param(
        default=False,
        doc="with run = false and agree: each sensor's class in target/test-classes was "
        "compiled since the step began, byte for byte as Hook Lab's own run compiles the "
        "sources (reports by hand then still need the build); the step's setup clears "
        'target/ (do = "delete")',
    )
    args: list[str] = param(default=[], doc="Maven arguments (default: -q test -Dgroups=sensor)")
    timeout: float = param(default=600.0, positive=True, doc="seconds before Maven is stopped")


def _validate(p: SensorsParams) -> str | None:
    for table in ("expect", "failure_contains"):
        for sensor, value in (getattr(p, table) or {}).items():
            if table == "failure_contains" and _texts(value) is not None:
                continue
            if not isinstance(value, str):
                return f"{table}.{sensor} must be a string"
            if table == "expect" and value not in OUTCOMES:
                return f'{table}.{sensor}: unknown outcome "{value}" (known: {", ".join(OUTCOMES)})'
    for rel in p.sandbox_files or {}:
        problem = escape_problem(rel, "the workspace")
        if problem:
            return f"sandbox_files: {problem}"
    if p.sandbox_files and not p.run:
        return "sandbox_files needs run = true"
    if p.compiled and (p.run or not p.agree):
        return "compiled needs run = false and agree = true"
    if not p.expect and not p.failure_contains:
        return 'say what to expect, e.g. expect = { ArchitectureTest = "green" }'
    return None


def _state(report: SurefireReport | None) -> str:
    if report is None:
        return "absent"
    if report.green:
        return f"green ({report.tests} tests)"
    if report.tests == 0:
        return "ran no test"
    return f"red ({_counted(report)} of {_plural(report.tests, 'test')})"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _counted(report: SurefireReport) -> str:
    """ "1 failure, 0 errors": the counts a participant reads off the report."""
    return f"{_plural(report.failures, 'failure')}, {_plural(report.errors, 'error')}"


def _red_but_fresh(
    expect: dict[str, str], wrong: list[str], reports: dict[str, SurefireReport | None]
) -> str:
    """A headline for a run that happened and is red where the step wants green, or ""."""
    red = [s for s in wrong if expect.get(s) == "green" and (r := reports.get(s)) and r.tests]
    if not red or len(red) != len(wrong):
        return ""
    named = ", ".join(f"{s} ({_counted(r)})" for s in red if (r := reports.get(s)))
    return f"the sensors ran (the reports are fresh), but the run is red: {named}"


def _matches(outcome: str, report: SurefireReport | None) -> bool:
    if outcome == "absent":
        return report is None
    if outcome == "present":
        return report is not None
    if report is None:
        return False
    return report.green if outcome == "green" else not report.green


# In sandbox_files, failure_contains and the messages: a type name made up for each run. A
# probe a step names (or a check reveals) can be special-cased by a rule; a fresh one cannot.
RANDOM_NAME = "{random}"
# Two or three words, CamelCase, no digits: a made-up name no cheap pattern (a digit, a word
# list of ten) tells from a real class name. None ends in a word the rules look for.
_WORDS = """
    Pet Owner Visit Vet Clinic Ward Shelter Kennel Patient Care Archive Ledger Vault Shelf
    Index Box Keeper Stash Log Record Booking Species Breed Dose Vaccine Appointment Invoice
    Payment Billing Schedule Slot Room Desk Front Intake Triage Referral Lab Sample Result
    Chart History Note Contact Address Phone Reminder Notice Report Summary Audit Trail
    Cache Batch Queue Entry Catalog Roster Shift Staff Nurse Surgeon Surgery Recovery Diet
    Feed Weight Growth Litter Puppy Kitten Horse Bird Reptile Exotic Insurance Claim Policy
    Coverage Discount Loyalty Member Card Tag Chip Licence Permit Import Export Transfer
    Sync Daily Weekly Monthly Annual Legacy Draft Pending Active Closed Remote
"""
_NAME_WORDS = tuple(_WORDS.split())


def _made_up_name(taken: set[str]) -> str:
    """A fresh CamelCase name of two or three words, none of ``taken`` (the fixture's types)."""
    pick = secrets.SystemRandom()
    while True:
        name = "".join(pick.sample(_NAME_WORDS, pick.choice((2, 2, 3))))
        if name not in taken and not any(t.startswith(name) for t in taken):
            return name


def _type_names(root: Path) -> set[str]:
    return {f.stem for f in (root / "src").rglob("*.java")} if (root / "src").is_dir() else set()


def _with_random_name(p: SensorsParams, root: Path | None = None) -> SensorsParams:
    """``p`` with every RANDOM_NAME replaced by one made-up name (``p`` if it has none)."""
    if not any(RANDOM_NAME in rel for rel in p.sandbox_files or {}):
        return p
    name = _made_up_name(_type_names(root) if root is not None else set())

    def fill(text: str) -> str:
        return text.replace(RANDOM_NAME, name)

    return replace(
        p,
        sandbox_files={fill(k): fill(str(v)) for k, v in p.sandbox_files.items()},
        failure_contains={
            k: fill(v) if isinstance(v, str) else [fill(t) for t in v]
            for k, v in (p.failure_contains or {}).items()
        },
        message=None if p.message is None else fill(p.message),
        pass_message=None if p.pass_message is None else fill(p.pass_message),
    )


def run(ctx: CheckContext, p: SensorsParams) -> CheckResult:
    if not p.sandbox_files:
        return _run(ctx, p)
    p = _with_random_name(p, ctx.root)
    # Break a rule on a throwaway copy: the participant's files stay as they are.
    with sandbox_copy(ctx.root) as copy:
        for rel, content in p.sandbox_files.items():
            target = copy / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(str(content))
        return _run(ctx.in_sandbox(copy), p)


def _run(ctx: CheckContext, p: SensorsParams) -> CheckResult:
    """One verdict: run Maven or not, read the reports, refuse stale ones, judge each sensor."""
    expect: dict[str, str] = dict(p.expect or {})
    contains: dict[str, str] = dict(p.failure_contains or {})
    sensors = tuple(dict.fromkeys([*expect, *contains]))
    name = "sensors " + ", ".join(sensors)
    started = time.time()
    stray = build_output.refusal(ctx.root, ctx.workspace.fixture.dir, name)
    if stray is not None:
        return stray
    run_maven = bool(p.run or ctx.step.rebuild_evidence)
    output = _run_maven(ctx, p, name) if run_maven else ""
    if isinstance(output, CheckResult):
        return output
    reports = _read_reports(ctx, p, sensors, name, started if run_maven else None)
    if isinstance(reports, CheckResult):
        return reports
    details: dict[str, object] = {"reports": _reports_json(reports)}
    if (
        run_maven
        and all(r is None for r in reports.values())
        and any(o != "absent" for o in expect.values())
    ):
        if "COMPILATION ERROR" in output or "BUILD FAILURE" in output:
            return CheckResult.failed(
                "the build failed before any sensor ran: look at the compiler output",
                name=name,
                expected=_expected(expect, contains),
                found="no report",
                output=output,
                details=details,
            )
        return CheckResult.errored(
            "Maven ran but wrote no sensor report", name=name, output=output, details=details
        )
    verdict = _verdict(ctx, p, reports, name, output, details)
    if run_maven or p.sandbox_files or not p.agree or verdict.status is not Status.PASS:
        return verdict
    # Hook Lab's own run of the same sources must give each sensor the same verdict.
    refused = agreement(ctx, expect, name, compiled=p.compiled)
    return verdict if refused is None else refused


def _run_maven(ctx: CheckContext, p: SensorsParams, name: str) -> str | CheckResult:
    """Maven's output, or an error when it could not run at all (never the participant's)."""
    args = tuple(p.args or SENSOR_GOALS)
    ctx.on_activity(f"running ./mvnw {' '.join(args)}")
    backend = ctx.maven()
    # On the check's own throwaway copy, the run is the harness's, not the participant's: the
    # test suite's memo (harness/maven/memo.py) may stand in for it.
    own = {THROWAWAY_ENV: "1"} if ctx.root_override is not None else None
    maven = backend.run(ctx.root, args, on_output=ctx.on_output, timeout=p.timeout, env=own)
    if maven.returncode in (124, 127):
        return CheckResult.errored(
            f"Maven could not run through the {backend.name} backend "
            f"(exit {maven.returncode}); this is not your mistake",
            name=name,
            output=maven.output,
            details={"fix": "lab doctor"},
        )
    return maven.output


def _read_reports(
    ctx: CheckContext,
    p: SensorsParams,
    sensors: tuple[str, ...],
    name: str,
    ran_at: float | None,
) -> dict[str, SurefireReport | None] | CheckResult:
    """Each sensor's report: after a run (``ran_at``) only those it wrote; without one, with
    ``fresh``, none older than the participant's latest change."""
    try:
        reports = sensor_reports(ctx.root, sensors)
    except ReportError as exc:
        return broken_report(exc, ctx.root, name)
    if ran_at is not None:
        # Reports the run did not write are leftovers and prove nothing about it.
        written = {s: r if r is None or r.mtime >= ran_at - 1 else None for s, r in reports.items()}
        if ctx.root_override is None:
            from_before(ctx, written)  # the check's own run, in the workspace: noted
        return written
    before = from_before(ctx, reports)  # noted for every check, refused when fresh
    late = not_fresh(ctx, reports, before, name) if p.fresh else None
    if late is not None:
        return late
    no_run = unwritten(ctx, p.fresh, reports, name)
    return reports if no_run is None else no_run


def _reports_json(reports: dict[str, SurefireReport | None]) -> dict[str, object]:
    return {
        s: None
        if r is None
        else {
            "tests": r.tests,
            "failures": r.failures,
            "errors": r.errors,
            "problems": [f.message[:500] for f in r.problems],
        }
        for s, r in reports.items()
    }


def _verdict(
    ctx: CheckContext,
    p: SensorsParams,
    reports: dict[str, SurefireReport | None],
    name: str,
    output: str,
    details: dict[str, object],
) -> CheckResult:
    """Each sensor's report against what the step expects of it."""
    expect: dict[str, str] = dict(p.expect or {})
    contains: dict[str, str] = dict(p.failure_contains or {})
    wrong = [s for s, outcome in expect.items() if not _matches(outcome, reports.get(s))]
    unnamed: list[str] = []  # what no failure names (walk-n: a rule that spares *Dao)
    for sensor, text in contains.items():
        report = reports.get(sensor)
        messages = [] if report is None else [f.message for f in report.problems]
        missed = [t for t in _texts(text) or () if not any(t in m for m in messages)]
        if missed:
            wrong.append(sensor)
            unnamed += [f"{sensor} names no {t}" for t in missed]
    if wrong:
        # The lab's message is about a run that is missing; a fresh red run is said as such
        # (not a sandbox's: its files are the check's probe, and the lab's message names it).
        red = "" if p.sandbox_files else _red_but_fresh(expect, wrong, reports)
        if red:
            details["fix"] = "fix what the failure names, then ./mvnw -q test -Dgroups=sensor"
        return CheckResult.failed(
            red or p.message or "the sensors did not report what this step expects",
            name=name,
            expected=_expected(expect, contains),
            found="\n".join([_found(reports), *unnamed]),
            output=output,
            details=details,
        )
    # Show the failure the step is about (e.g. the dangling annotation): it is the lesson.
    evidence = [
        m
        for sensor, text in contains.items()
        if (report := reports.get(sensor)) is not None
        and (
            m := next(
                (f.message for f in report.problems if (_texts(text) or [""])[0] in f.message), None
            )
        )
    ]
    if evidence:
        details["evidence"] = "\n".join(_excerpt(m) for m in evidence)
    return CheckResult.passed(
        p.pass_message or "the sensor reports are as expected",
        name=name,
        found="\n".join(f"{s}: {_state(r)}" for s, r in reports.items()),
        details=details,
        evidence=_report_files(ctx, reports),
    )


# Lines of a failure message shown as a pass's evidence: a rule's headline and its findings.
EVIDENCE_LINES = 6


def _excerpt(message: str) -> str:
    """The head of a failure message, saying how much of it is left out (walk-s: "(4
    violations)" above three of them read as if the rule had found three)."""
    lines = message.splitlines()
    if len(lines) <= EVIDENCE_LINES:
        return "\n".join(lines)
    left = len(lines) - EVIDENCE_LINES + 1
    return "\n".join([*lines[: EVIDENCE_LINES - 1], f"… and {left} more lines of this message"])


def _report_files(ctx: CheckContext, reports: dict[str, SurefireReport | None]) -> dict[str, bytes]:
    """The bytes of every report the verdict read, by workspace-relative path."""
    files: dict[str, bytes] = {}
    for report in reports.values():
        if report is None:
            continue
        try:
            files[report.path.relative_to(ctx.root).as_posix()] = report.path.read_bytes()
        except (OSError, ValueError):
            continue  # gone since it was read: the record simply lacks it, verify will say so
    return files


def _expected(expect: dict[str, str], contains: dict[str, str]) -> str:
    lines = [f"{s}: {o}" for s, o in expect.items()]
    lines += [
        f"{s}: a failure mentioning {t!r}"
        for s, text in contains.items()
        for t in _texts(text) or ()
    ]
    return "\n".join(lines)


def _texts(value: object) -> list[str] | None:
    """failure_contains' value as its texts: one string, or a list of them (None: neither)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(t, str) for t in value):
        return value
    return None


def _found(reports: dict[str, SurefireReport | None]) -> str:
    lines = []
    for sensor, report in reports.items():
        lines.append(f"{sensor}: {_state(report)}")
        for problem in (report.problems if report else ())[:3]:
            first = " ".join(problem.message.split())
            if len(first) > 400:  # cut between words, never inside a name
                first = first[:400].rsplit(" ", 1)[0] + " … (lab sensors --no-run shows it all)"
            lines.append(f"  {problem.short}: {first}")
    return "\n".join(lines)


KIND = check_kind(
    "sensors",
    "run the sensors via the workspace's Maven backend and judge each Surefire report",
    run,
    slow=lambda p: p.run,
    rules=_validate,
)
