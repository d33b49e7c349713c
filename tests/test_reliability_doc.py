"""docs/reliability.md is generated from the reliability suite (nox -s reliability-doc); here
its rows are checked against the suite's own: a new test without a row fails, and so does a
row whose test is gone or says something else now."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.builders import REPO_ROOT
from tests.reliability.plugin import Row, expected_rows, parse_rows, render

DOC = REPO_ROOT / "docs" / "reliability.md"


def suite_rows(tmp_path: Path) -> list[Row]:
    rows_file = tmp_path / "rows.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--reliability-rows={rows_file}",
            "tests/reliability",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [Row(**row) for row in json.loads(rows_file.read_text())]


def test_the_committed_doc_has_exactly_the_suites_rows(tmp_path: Path) -> None:
    rows = suite_rows(tmp_path)
    assert len(rows) >= 60, len(rows)
    committed = set(parse_rows(DOC.read_text()))
    wanted = expected_rows(rows)
    missing, stale = sorted(wanted - committed), sorted(committed - wanted)
    assert not missing and not stale, (
        "docs/reliability.md is out of date; regenerate it with nox -s reliability-doc\n"
        f"missing rows: {missing}\nrows without their test: {stale}"
    )


def test_a_row_without_its_test_and_a_test_without_a_row_are_told_apart() -> None:
    rows = [
        Row("test_a.py::test_one", "environment", "no git", "hooks | bash", "exit 0"),
        Row("test_a.py::test_two[x]", "bad input", "a file", "lab list", "exit 1"),
    ]
    doc = render(rows, {"test_a.py::test_one": "passed"})
    assert set(parse_rows(doc)) == expected_rows(rows)
    assert set(parse_rows(render(rows[:1], {}))) != expected_rows(rows)
    assert "| not run |" in doc and "| passed |" in doc
