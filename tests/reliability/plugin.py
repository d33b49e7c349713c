"""The reliability suite's own record: every test under tests/reliability declares the row it
proves, and ``docs/reliability.md`` is written from the results, never by hand.

    @fault("hook input", "stdin is {kind}", tried="...", held="...")

The texts may name the test's parameters in braces. A test without ``@fault`` stops the run.
Options (loaded for every run through ``-p tests.reliability.plugin`` in pyproject.toml):
  --reliability-doc PATH    after the run, write the table of rows and results to PATH
  --reliability-rows PATH   after collection, write the rows as JSON (what the doc must list)
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import pytest

SUITE_DIR = Path(__file__).resolve().parent
AREAS = {  # area: its heading in the document, in this order
    "hook input and tools": "Hook input and tools",
    "environment": "The environment",
    "surefire and maven": "Surefire and Maven",
    "misbehaving hooks": "Misbehaving hooks in the runtime",
    "storage and interruption": "Storage and interruption",
    "bad input": "Bad input",
    "nothing leaks": "Nothing leaks",
}
F = TypeVar("F", bound=Callable[..., Any])


def fault(area: str, what: str, *, tried: str, held: str) -> Callable[[F], F]:
    """Declare the row a reliability test proves: the fault, what was tried, what held."""
    if area not in AREAS:
        raise ValueError(f"area {area!r} is not one of {', '.join(AREAS)}")
    marker: Callable[[F], F] = pytest.mark.fault(area=area, what=what, tried=tried, held=held)
    return marker


@dataclass(frozen=True)
class Row:
    test: str  # the node id below tests/reliability, e.g. test_hooks.py::test_no_jq
    area: str
    fault: str
    tried: str
    held: str


def _row(item: pytest.Item) -> Row | None:
    mark = item.get_closest_marker("fault")
    if mark is None:
        return None
    params = {k: _shown(v) for k, v in getattr(item, "callspec", _NoParams).params.items()}
    text = {k: str(mark.kwargs[k]).format(**params) for k in ("what", "tried", "held")}
    test = item.nodeid.split("tests/reliability/", 1)[-1]
    return Row(test, mark.kwargs["area"], text["what"], text["tried"], text["held"])


class _NoParams:
    params: ClassVar[dict[str, Any]] = {}


def _shown(value: object) -> str:
    return getattr(value, "__name__", None) or str(value)


def _in_suite(item: pytest.Item) -> bool:
    return SUITE_DIR in Path(str(item.path)).resolve().parents and item.path.name.startswith(
        "test_"
    )


# ---- hooks ----------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reliability")
    group.addoption("--reliability-doc", metavar="PATH", help="write docs/reliability.md here")
    group.addoption("--reliability-rows", metavar="PATH", help="write the suite's rows as JSON")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fault(area, what, tried, held): the row a reliability test proves"
    )
    config.pluginmanager.register(_Recorder(config), "reliability-recorder")


class _Recorder:
    """Collects the rows at collection and each test's result as it is reported."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.rows: list[Row] = []
        self.results: dict[str, str] = {}

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            if not _in_suite(item):
                continue
            row = _row(item)
            if row is None:
                raise pytest.UsageError(
                    f"{item.nodeid}: a reliability test declares its row with "
                    "@fault(area, what, tried=..., held=...) (tests/reliability/plugin.py)"
                )
            self.rows.append(row)
        path = self.config.getoption("--reliability-rows")
        if path:
            Path(path).write_text(json.dumps([asdict(r) for r in self.rows], indent=2) + "\n")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if "tests/reliability/" not in report.nodeid:
            return
        key = report.nodeid.split("tests/reliability/", 1)[-1]
        if report.failed:
            self.results[key] = "FAILED"
        elif report.skipped and key not in self.results:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
            self.results[key] = "skipped: " + str(reason).removeprefix("Skipped: ")
        elif report.when == "call" and report.passed and key not in self.results:
            self.results[key] = "passed"

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        path = self.config.getoption("--reliability-doc")
        if path and not self.config.getoption("collectonly"):
            Path(path).write_text(render(self.rows, self.results))


# ---- the document ---------------------------------------------------------------------------

TITLE = "# Reliability: what was tried and what held"
GENERATED = (
    "Generated by `nox -s reliability-doc` from the results of the suite in `tests/reliability/`"
    " (each test declares its row with `@fault`); do not edit by hand. A test without a row, or a"
    " row without a test, fails `tests/test_reliability_doc.py`."
)
COLUMNS = ("fault", "what was tried", "what held", "result", "test")


def _cell(text: str) -> str:
    return _flat(text).replace("|", "\\|")


def render(rows: list[Row], results: dict[str, str]) -> str:
    counts: dict[str, int] = {}
    for row in rows:
        outcome = results.get(row.test, "not run").split(":", 1)[0]
        counts[outcome] = counts.get(outcome, 0) + 1
    summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
    lines = [
        TITLE,
        "",
        GENERATED,
        "",
        f"Last run: {time.strftime('%Y-%m-%d')}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}: {summary}.",
        "",
        "After every fault the hooks fail open (exit 0, nothing said) or do exactly what they do "
        "without it, and the participant's files, progress (`refs/hooklab/progress`) and backups "
        "(`refs/hooklab/backups/*`) are as they were.",
    ]
    for area, heading in AREAS.items():
        mine = [r for r in rows if r.area == area]
        if not mine:
            continue
        lines += ["", f"## {heading}", ""]
        lines.append("| " + " | ".join(COLUMNS) + " |")
        lines.append("|" + "---|" * len(COLUMNS))
        for row in mine:
            cells = (row.fault, row.tried, row.held, results.get(row.test, "not run"), row.test)
            lines.append("| " + " | ".join(_cell(c) for c in cells[:4]) + f" | `{row.test}` |")
    return "\n".join(lines) + "\n"


def parse_rows(doc: str) -> Iterator[tuple[str, str, str, str]]:
    """(test, fault, tried, held) of every table row in a rendered document."""
    for line in doc.splitlines():
        if not line.startswith("| ") or line.startswith("| fault |"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in _split_cells(line)]
        if len(cells) == len(COLUMNS):
            yield cells[4].strip("`"), cells[0], cells[1], cells[2]


def _split_cells(line: str) -> list[str]:
    cells, current, escaped = [], "", False
    for char in line.strip().strip("|"):
        if char == "|" and not escaped:
            cells.append(current)
            current = ""
        else:
            current += char
        escaped = char == "\\"
    cells.append(current)
    return cells


def expected_rows(rows: list[Row]) -> set[tuple[str, str, str, str]]:
    """What ``parse_rows`` reads back for these rows."""
    return {(r.test, _flat(r.fault), _flat(r.tried), _flat(r.held)) for r in rows}


def _flat(text: str) -> str:
    return " ".join(text.split())
