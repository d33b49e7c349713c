"""One report from the parts of a split ``lab dev check``: the JSON reports that shards
(``--shard K/N``) or per-lab CI jobs wrote, merged with ``lab dev merge``.

The merge refuses what would make the whole look better than it is: a lab proven twice, a
shard of a set missing, a file that is no dev-check report; and it names every lab of the
course that no part proved, which fails the merged report.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.engine.devcheck import Shard
from harness.errors import ConfigError
from harness.userfiles import read_text


def read_report(path: Path) -> dict[str, Any]:
    """A report written by ``lab dev check --report FILE`` (or ``--json``)."""
    text = read_text(path)  # unreadable, not UTF-8, binary: a clear error naming the file
    try:
        data: object = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            path,
            "",
            f"is not JSON (line {exc.lineno}: {exc.msg})",
            fix="give the file that lab dev check --report wrote",
        ) from None
    except RecursionError:
        raise ConfigError(
            path,
            "",
            "is not a report (nested too deep to read)",
            fix="give the file that lab dev check --report wrote",
        ) from None
    labs = data.get("labs") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or not isinstance(labs, list)
        or not all(
            isinstance(lab, dict) and isinstance(lab.get("lab"), str) and "ok" in lab
            for lab in labs
        )
    ):
        raise ConfigError(
            path,
            "labs",
            "is not a list of labs with 'lab' and 'ok'",
            fix="give the file that lab dev check --report wrote",
        )
    return data


def merge_reports(
    parts: Sequence[tuple[Path, dict[str, Any]]], course: Sequence[str]
) -> dict[str, Any]:
    """Merge the parts into one report over ``course`` (the lab ids every part was cut from)."""
    owner: dict[str, Path] = {}
    labs: list[dict[str, Any]] = []
    shards: dict[int, Path] = {}
    totals: set[int] = set()
    for path, report in parts:
        if report.get("shard"):
            _note_shard(path, str(report["shard"]), shards, totals)
        for lab in report["labs"]:
            lab_id = lab["lab"]
            if lab_id in owner:
                raise ConfigError(
                    path,
                    "labs",
                    f"lab {lab_id} is also proven in {owner[lab_id]}",
                    fix="merge reports of disjoint shards (the same N), or of one lab each",
                )
            owner[lab_id] = path
            labs.append(lab)
    _check_split(parts[0][0], shards, totals)
    missing = sorted(set(course) - set(owner))
    labs.sort(key=lambda lab: str(lab["lab"]))
    durations = [float(report.get("duration", 0.0)) for _path, report in parts]
    return {
        "ok": not missing and all(lab["ok"] for lab in labs),
        "parts": [str(path) for path, _report in parts],
        # The parts ran side by side: the longest is the wall time, the sum the machine time.
        "duration": round(max(durations, default=0.0), 2),
        "machine_seconds": round(sum(durations), 2),
        "maven_seconds": round(sum(float(lab.get("maven_seconds", 0.0)) for lab in labs), 2),
        "missing": missing,
        "labs": labs,
    }


def _note_shard(path: Path, text: str, shards: dict[int, Path], totals: set[int]) -> None:
    """Record the shard a part says it is; one shard given twice is refused."""
    try:
        shard = Shard.parse(text)
    except ValueError as exc:
        raise ConfigError(path, "shard", str(exc), fix="give an unedited report") from exc
    if shard.index in shards:
        raise ConfigError(
            path,
            "shard",
            f"shard {shard} is also {shards[shard.index]}",
            fix="give each shard's report once",
        )
    shards[shard.index] = path
    totals.add(shard.total)


def _check_split(first: Path, shards: dict[int, Path], totals: set[int]) -> None:
    """The shards are of one split (the same N), and every one of them is there."""
    if len(totals) > 1:
        splits = ", ".join(f"/{n}" for n in sorted(totals))
        raise ConfigError(
            first,
            "shard",
            f"the reports come from different splits ({splits})",
            fix="merge the shards of one split: --shard 1/N … N/N with the same N",
        )
    if totals:
        (total,) = totals
        absent = [f"{k}/{total}" for k in range(1, total + 1) if k not in shards]
        if absent:
            raise ConfigError(
                first,
                "shard",
                f"shard {', '.join(absent)} is missing",
                fix="add the report of every shard of the split",
            )


def junit_xml(merged: dict[str, Any]) -> str:
    """The merged report as JUnit XML (one suite per lab, one case per step), for CI services
    that show test reports: a failed step, a broken manifest and a lab in no report fail."""
    suites = ET.Element("testsuites", name="lab dev check")

    def case(suite: ET.Element, name: str, seconds: float, problems: Sequence[str]) -> None:
        element = ET.SubElement(
            suite, "testcase", classname=suite.get("name", ""), name=name, time=f"{seconds:.2f}"
        )
        if problems:
            failure = ET.SubElement(element, "failure", message=problems[0])
            failure.text = "\n".join(problems)

    for lab in merged["labs"]:
        suite = ET.SubElement(suites, "testsuite", name=str(lab["lab"]))
        if lab.get("manifest_error"):
            case(suite, "manifest", 0.0, [str(lab["manifest_error"])])
        for step in lab.get("steps", []):
            problems = [str(p) for p in step.get("problems", [])]
            case(suite, str(step["step"]), float(step.get("duration", 0.0)), problems)
    for lab_id in merged["missing"]:
        suite = ET.SubElement(suites, "testsuite", name=lab_id)
        case(suite, "proven", 0.0, ["no report proves this lab: its job or shard is missing"])
    for suite in suites:
        cases = suite.findall("testcase")
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
