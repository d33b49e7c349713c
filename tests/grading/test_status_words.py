"""A grade's statuses are results.Status, one StrEnum for checks, steps and grades: JSON keeps
the words it held before, and the graders spell none of them as a literal of their own."""

from __future__ import annotations

import ast
import json

from harness.grading.stop_grade import BLOCKS, grade_check
from harness.results import Status
from tests.builders import REPO_ROOT

# The grader and its views; "error" is left out: a guard's case verdict has its own "error".
GRADERS = [
    *(REPO_ROOT / "harness" / "grading").glob("*.py"),
    REPO_ROOT / "harness/ui/grading_view.py",
]
WORDS = {"pass", "fail", "skip"}


def test_status_keeps_the_words_json_holds() -> None:
    assert [s.value for s in Status] == ["pass", "fail", "error", "skip"]
    assert json.loads(json.dumps({"status": Status.SKIP})) == {"status": "skip"}


def test_a_grade_check_holds_a_status_and_writes_its_word() -> None:
    check = grade_check(BLOCKS, Status.SKIP, "exit 2", "timed out")
    assert check.skipped and not check.failed and check.status is Status.SKIP
    assert check.to_json()["status"] == "skip"


def test_no_grader_spells_a_status_of_its_own() -> None:
    spelled = [
        f"{path.relative_to(REPO_ROOT)}:{node.lineno} {node.value!r}"
        for path in GRADERS
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in WORDS
    ]
    assert not spelled, f"use results.Status instead: {spelled}"
