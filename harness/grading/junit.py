"""A grade as JUnit XML, the report CI servers read beside a BATS or pytest run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.etree import ElementTree


@dataclass(frozen=True)
class JUnitCase:
    classname: str
    name: str
    passed: bool
    message: str = ""  # a failure's one line
    text: str = ""  # a failure's detail
    seconds: float = 0.0


def junit_xml(suite: str, cases: Sequence[JUnitCase]) -> str:
    root = ElementTree.Element(
        "testsuite",
        name=suite,
        tests=str(len(cases)),
        failures=str(sum(1 for c in cases if not c.passed)),
    )
    for case in cases:
        node = ElementTree.SubElement(
            root, "testcase", classname=case.classname, name=case.name, time=f"{case.seconds:.3f}"
        )
        if not case.passed:
            failure = ElementTree.SubElement(node, "failure", message=case.message)
            failure.text = case.text or None
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
