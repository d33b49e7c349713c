"""Which run a sensor report is of, by what that run measured, against the runs checks read
before (the progress record's memory): a copy of an earlier run's reports, kept aside and
brought back into a later step, is no new run, however it is touched or edited around."""

from __future__ import annotations

import hashlib
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from harness.engine.context import CheckContext
from harness.engine.progress import ReportsSeen
from harness.maven.surefire import SENSORS, ReportError, SurefireReport, sensor_reports


def run_times(data: bytes) -> bytes:
    """What one run measured in a report: the suite's time and each case's name and time, in
    file order. Two real runs differ in them; an earlier run's report keeps them however it is
    edited around them (whitespace, attributes reordered, a failure written into a green one).
    Unparsable: the bytes."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return data
    cases = [f"{c.get('name', '')}={c.get('time', '')}" for c in root.iter("testcase")]
    return "\n".join([root.get("time", ""), *cases]).encode()


@dataclass(frozen=True)
class FromBefore:
    """What the memory knows of the reports on disk: ``at`` when every one is of a run a check
    read before the step began (kept aside and brought back), ``edited`` a report the step
    reads of such a run in other bytes now, ``read_at`` when a check first read the newest of
    their runs (touched since then, they still are that run)."""

    at: str | None = None
    edited: str | None = None
    read_at: float | None = None


def from_before(ctx: CheckContext, reports: dict[str, SurefireReport | None]) -> FromBefore:
    """Each sensor report on disk, its run judged by what it measured (not its bytes), against
    the runs checks read before (the progress record's memory); a run not seen yet is noted.
    Every sensor's report counts, not only those the step reads: a real run rewrites all five,
    so one report's times repeating an earlier run's is no replay."""
    seen = ctx.step.reports_seen or ReportsSeen()  # outside a runner: no memory
    entered = ctx.step.entered_at or 0.0
    try:
        on_disk = sensor_reports(ctx.root, SENSORS)
    except ReportError:
        on_disk = {}
    firsts, edited = [], None
    for sensor, report in sorted({**on_disk, **reports}.items()):
        try:
            data = report.path.read_bytes() if report is not None else None
        except OSError:
            data = None
        if data is None:
            continue
        key, now = run_key(sensor, data), hashlib.sha256(data).hexdigest()[:32]
        first = seen.first(key)
        if first is None:
            seen.note(key, time.time(), now)
            firsts.append(time.time())
            continue
        firsts.append(first[0])
        if sensor in reports and edited is None and first[0] < entered and first[1] != now:
            at = time.strftime("%Y-%m-%d %H:%M", time.localtime(first[0]))
            edited = f"{sensor}: the test times of the run a check read at {at}, other bytes"
    if not firsts:
        return FromBefore()
    replayed = max(firsts) < entered
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(min(firsts))) if replayed else None
    return FromBefore(when, edited, max(firsts))


def remember_sensor_runs(ctx: CheckContext) -> None:
    """Note the runs of the sensor reports on disk in the progress record's memory (a run lab
    itself made: a solve's), so a copy of them brought back later is no new run."""
    if ctx.step.reports_seen is not None:
        from_before(ctx, {})


def run_key(sensor: str, data: bytes) -> str:
    return hashlib.sha256(sensor.encode() + b"\0" + run_times(data)).hexdigest()[:32]
