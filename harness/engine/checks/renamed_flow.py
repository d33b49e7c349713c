"""``renamed_flow``: a flow heading (``### A2: Title``) of a use-case spec renamed since the lab
started, and the traceability sensor's report naming an annotation that still carries the old
title. A test annotation edited instead, beside any change to a spec, is no renamed flow."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from harness.engine.checks.sensors_fresh import broken_report
from harness.engine.context import CheckContext
from harness.engine.kinds import Worded, check_kind
from harness.maven.surefire import ReportError, sensor_reports
from harness.results import CheckResult
from harness.schema import param
from harness.workspace.snapshot import read_blob

_HEADING = re.compile(r"^###\s+(A\d+):\s*(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True, kw_only=True)
class RenamedFlowParams(Worded):
    """A ``renamed_flow`` check's parameters, typed (``KIND.params`` is derived from them)."""

    specs: str = param(doc="the use-case specs, a glob, e.g. docs/use_cases/UC-*.md")
    sensor: str = param(
        default="UseCaseTraceabilityTest", doc="the sensor whose report names the annotation"
    )


# What a reader of the spec never sees as a heading (walk-k: the new title only inside an
# HTML comment, the old heading left as it was): comments and fenced code.
_UNSEEN = re.compile(r"<!--.*?(?:-->|\Z)|^(`{3,}|~{3,}).*?(?:^\1[^\n]*$|\Z)", re.S | re.M)


def _headings(text: str) -> dict[str, str]:
    """Each flow's title, as the spec shows it: the first heading of the flow that is no
    comment or code."""
    found: dict[str, str] = {}
    for flow, title in _HEADING.findall(_UNSEEN.sub("", text)):
        found.setdefault(flow, title)
    return found


def _renamed(ctx: CheckContext, base: str, pattern: str) -> list[tuple[str, str, str]]:
    """(spec, flow, old title) for each flow heading whose title is not what it was."""
    repo = ctx.workspace.repo
    tree = repo[base.encode()].tree
    folder = ctx.path(pattern.rsplit("/", 1)[0]) if "/" in pattern else ctx.root
    found = []
    for path in sorted(folder.glob("*")):
        rel = path.relative_to(ctx.root).as_posix()
        blob = read_blob(repo, tree, rel) if fnmatch.fnmatch(rel, pattern) else None
        if blob is None or not path.is_file():
            continue
        now = _headings(path.read_text(errors="replace"))
        for flow, title in _headings(blob.decode("utf-8", "replace")).items():
            if now.get(flow) != title:
                found.append((rel, flow, title))
    return found


_POINTED = re.compile(r'scenario="(A\d+:[^"]*)"')


def _named(ctx: CheckContext, sensor: str) -> str | CheckResult | None:
    """The sensor report's failure words, whitespace folded ("" green; None: no report)."""
    try:
        report = sensor_reports(ctx.root, (sensor,))[sensor]
    except ReportError as exc:
        return broken_report(exc, ctx.root, sensor)
    if report is None:
        return None
    return " ".join(" ".join(f.message.split()) for f in report.problems)


def _pointed_lines(sensor: str, said: str | None) -> list[str]:
    """What the report says the annotations point at, a line each, or that there is none."""
    if said is None:
        return [f"{sensor}: no report yet (run ./mvnw -q test -Dgroups=sensor)"]
    pointed = _POINTED.findall(said)
    if not pointed:
        return [f"{sensor}: names no dangling annotation"]
    return [f'{sensor} names an annotation with scenario = "{t}"' for t in pointed]


def run(ctx: CheckContext, p: RenamedFlowParams) -> CheckResult:
    name = f"renamed flow, {p.sensor}"
    base = ctx.lab_start_commit
    if not base:
        return CheckResult.errored("no lab start commit recorded; start the lab first", name=name)
    said = _named(ctx, p.sensor)
    if isinstance(said, CheckResult):
        return said
    renamed = _renamed(ctx, base, p.specs)
    if not renamed:
        # An annotation edited instead: the report may name it, with a title no spec had.
        return CheckResult.failed(
            p.message
            or "no flow heading renamed yet: the step renames a ### A<n>: heading in a spec, "
            "not the annotation in a test (git diff -- src/test shows one you changed)",
            name=name,
            expected=f"a ### A<n>: heading in {p.specs} with a new title (keep the A<n>:)",
            found="\n".join(
                [
                    f"every ### A<n>: heading in {p.specs} is as when the lab started",
                    *_pointed_lines(p.sensor, said),
                ]
            ),
        )
    olds = [f'"{flow}: {title}"' for _, flow, title in renamed]
    hit = next((r for r, old in zip(renamed, olds, strict=True) if old in (said or "")), None)
    if hit is None:
        _, flow, title = renamed[0]
        return CheckResult.failed(
            p.message
            or f"{p.sensor} names no annotation with the old title {flow}: {title}: rename a "
            "flow a test points at, then run ./mvnw -q test -Dgroups=sensor",
            name=name,
            expected=f"{p.sensor} failing on an annotation with a renamed flow's old title",
            found="\n".join(
                [f"{s}: {f} was {t}" for s, f, t in renamed] + _pointed_lines(p.sensor, said)
            ),
            details={"fix": "./mvnw -q test -Dgroups=sensor"},
        )
    spec, flow, _title = hit
    return CheckResult.passed(
        p.pass_message
        or f"{flow} of {spec.rsplit('/', 1)[-1]} renamed; {p.sensor} names the annotation it left",
        name=name,
    )


KIND = check_kind(
    "renamed_flow",
    "a use-case flow heading renamed, and the sensor naming the annotation left behind",
    run,
)
