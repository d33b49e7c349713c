"""Whether a report's numbers hang together as a Surefire run writes them.

A run writes two files per test class: ``TEST-<class>.xml`` and ``<class>.txt``, its plain
summary ("Tests run: 7, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.076 s"), both
from the same measurements. So on a real run of Surefire 2.22.3 (the lab machines and the
image, seen there): the summary's counts and time are the XML's; the suite's time covers its
cases' times; every failure or error the suite counts is an element of a case, whose stack
trace runs through that very test method, and whose summary line carries that case's time.
Surefire 3 (a laptop online) marks its reports with a schema ``version``; whether its summary
time is the XML's was not seen here, so for those only the counts must agree.

A hand-made report, or a kept one whose times one ``sed`` rewrote, breaks one of these. A
forger who writes both files as Surefire would is not caught here (no local check can tell a
careful copy from the original): the re-verification runs the sensors again.

What a run writes into ``<properties>``: nothing on these machines (``<properties/>``, in
process, even for -D options, .mvn/maven.config and systemPropertyVariables), so no value
of the step's can ride into a report by that way.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.maven.surefire import shape_problem

# The summary line of a test set in <class>.txt, in Surefire 2.22 and 3.x alike.
_SUMMARY = re.compile(
    r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+), "
    r"Time elapsed: ([\d.,]+) s"
)
# Surefire rounds every time to milliseconds; a sum of cases may differ by one per case.
_MS = 0.0015


def _seconds(raw: str | None) -> float | None:
    try:
        return float((raw or "").replace(",", ""))
    except ValueError:
        return None


def _summary_problem(root: ET.Element, txt_name: str, text: str | None) -> str | None:
    """The plain summary beside the XML (``text``, None when missing) must exist and agree
    with it."""
    if text is None:
        return f"no {txt_name} beside it: a run writes a plain summary with every XML report"
    found = _SUMMARY.search(text)
    if found is None:
        return f"{txt_name} has no 'Tests run: …' line: a run writes one"
    counts = tuple(root.get(a, "0") for a in ("tests", "failures", "errors", "skipped"))
    if found.groups()[:4] != counts:
        return (
            f"{txt_name} counts {', '.join(found.groups()[:4])} where the XML counts "
            f"{', '.join(counts)}: one run writes both"
        )
    if root.get("version") is not None:
        return None  # Surefire 3's schema: how its two times relate is not proven here
    xml_time, txt_time = _seconds(root.get("time")), _seconds(found.group(5))
    if xml_time is None or txt_time is None or abs(xml_time - txt_time) > _MS:
        return (
            f'the suite\'s time="{root.get("time")}" is not the {found.group(5)} s of '
            f"{txt_name}: one run measures both"
        )
    return None


def _times_problem(root: ET.Element) -> str | None:
    """The suite's time covers the time of its cases (it ran them)."""
    suite = _seconds(root.get("time"))
    cases = [_seconds(c.get("time")) for c in root.findall("testcase")]
    if suite is None or any(t is None for t in cases):
        return "a time is not a number of seconds"
    total = sum(t for t in cases if t is not None)
    if total > suite + _MS * max(1, len(cases)):
        return (
            f"its test cases took {total:.3f} s together, more than the {suite:.3f} s of the "
            "whole suite: a run times the suite around its cases"
        )
    return None


def _failures_problem(root: ET.Element, classname: str, txt_text: str) -> str | None:
    """Every failure or error counted is a case's, traced through that test method, and the
    summary names that case with its time."""
    for kind in ("failure", "error"):
        elements = [(c, e) for c in root.findall("testcase") for e in c.findall(kind)]
        if str(len(elements)) != root.get(f"{kind}s", "0"):
            return (
                f'it counts {kind}s="{root.get(f"{kind}s", "0")}" and holds {len(elements)} '
                f"<{kind}> elements"
            )
        for case, element in elements:
            name = case.get("name", "")
            frame = f"at {classname}.{name}("
            if frame not in (element.text or ""):
                return (
                    f"the {kind} of {name} has no stack trace through {name}: a run "
                    "writes where the assertion failed"
                )
            if root.get("version") is not None:
                continue  # Surefire 3 words its summary's case lines its own way
            listed = re.search(
                rf"\b{re.escape(name)}\b.*Time elapsed: ([\d.,]+) s.*<<< (FAILURE|ERROR)!",
                txt_text,
            )
            took = _seconds(listed.group(1)) if listed else None
            case_time = _seconds(case.get("time"))
            if took is None or case_time is None or abs(took - case_time) > _MS:
                return f"the summary does not list the {kind} of {name} with its time"
    return None


def _own_jvm_problem(root: ET.Element) -> str | None:
    """A report of a run whose tests had a JVM of their own, with settings the fixture does not
    give (walk-m: ``-Dsurefire.forkCount=1 -DargLine=-javaagent:…`` loaded an extension that
    swallows every failure; such a run lists its JVM's properties, argLine among them). The
    shipped run is in Maven's own JVM and lists none (Surefire 2.22; for Surefire 3's form only
    an argLine counts, its in-process properties not seen here)."""
    found = {p.get("name", ""): p.get("value", "") for p in root.iterfind("./properties/property")}
    if found.get("argLine"):
        return f"written by a run whose tests got the JVM options {found['argLine']!r} (argLine)"
    if found and root.get("version") is None:
        return (
            "written by a run whose tests had a JVM of their own (it lists that JVM's "
            "properties): the sensors run as the fixture ships them, in Maven's JVM"
        )
    return None


def not_written_by_a_run(path: Path, classname: str) -> str | None:
    """What in the report at ``path`` (of test class ``classname``) and its summary no
    Surefire run writes (None: they agree as a run's do): Surefire's shape
    (maven.surefire.shape_problem), then the summary, the times and the failures."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return "not a report Surefire wrote: no XML"
    txt = path.with_name(f"{classname}.txt")
    try:
        text: str | None = txt.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = None
    return (
        shape_problem(root, classname)
        or _own_jvm_problem(root)
        or _summary_problem(root, txt.name, text)
        or _times_problem(root)
        or _failures_problem(root, classname, text or "")
    )
