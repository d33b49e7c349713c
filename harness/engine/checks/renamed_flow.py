"""``renamed_flow``: a flow heading (``### A2: Title``) of a use-case spec renamed since the lab
started, and the traceability sensor's report naming an annotation that still carries the old
title. A test annotation edited instead, beside any change to a spec, is no renamed flow."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from harness.engine.context import CheckContext
from harness.engine.kinds import check_kind
from harness.maven.surefire import ReportError, sensor_reports
from harness.results import CheckResult
from harness.schema import param
from harness.workspace.snapshot import read_blob

_HEADING = re.compile(r"^###\s+(A\d+):\s*(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True, kw_only=True)
class RenamedFlowParams:
    """A ``renamed_flow`` check's parameters, typed (``KIND.params`` is derived from them)."""

    specs: str = param(doc="the use-case specs, a glob, e.g. docs/use_cases/UC-*.md")
    sensor: str = param(
        default="UseCaseTraceabilityTest", doc="the sensor whose report names the annotation"
    )
    message: str | None = param(default=None, doc="what the participant reads when the check fails")
    pass_message: str | None = param(default=None, doc="what the participant reads when it passes")


def _headings(text: str) -> dict[str, str]:
    return {flow: title for flow, title in _HEADING.findall(text)}


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


def run(ctx: CheckContext, p: RenamedFlowParams) -> CheckResult:
    name = f"renamed flow, {p.sensor}"
    base = ctx.lab_start_commit
    if not base:
        return CheckResult.errored("no lab start commit recorded; start the lab first", name=name)
    renamed = _renamed(ctx, base, p.specs)
    if not renamed:
        return CheckResult.failed(
            p.message or "no flow heading renamed yet: change the title of a ### A<n>: heading",
            name=name,
            expected=f"a ### A<n>: heading in {p.specs} with a new title (keep the A<n>:)",
            found=f"every ### A<n>: heading in {p.specs} reads as when the lab started",
        )
    try:
        report = sensor_reports(ctx.root, (p.sensor,))[p.sensor]
    except ReportError as exc:
        return CheckResult.errored(f"a sensor report is unreadable: {exc}", name=name)
    said = " ".join(" ".join(f.message.split()) for f in report.problems) if report else ""
    olds = [f'"{flow}: {title}"' for _, flow, title in renamed]
    if not any(old in said for old in olds):
        spec, flow, title = renamed[0]
        return CheckResult.failed(
            p.message
            or f"{p.sensor} names no annotation with the old title {flow}: {title}: rename a "
            "flow a test points at, then run ./mvnw -q test -Dgroups=sensor",
            name=name,
            expected=f"{p.sensor} failing on an annotation with a renamed flow's old title",
            found="\n".join(f"{s}: {f} was {t}" for s, f, t in renamed)
            + f"\n{p.sensor}: "
            + ("no report yet" if report is None else "names none of these old titles"),
            details={"fix": "./mvnw -q test -Dgroups=sensor"},
        )
    spec, flow, title = next(r for r in renamed if f'"{r[1]}: {r[2]}"' in said)
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
