"""docs/claude-code-semantics.md is generated from the differential suite and must match it."""

from __future__ import annotations

import json
import tomllib

from harness.claude.client.install import PINNED_VERSION
from tests.differential.semantics_doc import OBSERVED, PAGE, RULES, changes, render
from tests.differential.test_differential import CASES


def test_the_page_was_generated_from_every_current_case_on_the_pinned_client() -> None:
    observed = json.loads(OBSERVED.read_text())
    assert observed["claude_code"] == PINNED_VERSION, "regenerate: nox -s semantics-doc"
    missing = {c.name for c in CASES} - set(observed["cases"])
    gone = set(observed["cases"]) - {c.name for c in CASES}
    assert not missing and not gone, f"regenerate with nox -s semantics-doc ({missing or gone})"
    page = PAGE.read_text()
    for rule in tomllib.loads(RULES.read_text()).values():
        assert f"## {rule['title']}" in page
    for case in CASES:
        assert f"(`{case.name}`," in page


def test_render_marks_a_difference_and_compare_lists_a_changed_observation() -> None:
    step = {"step": 1, "do": "stop", "detail": ""}
    real = {"outcome": "blocked", "tool_ran": None, "turn_ended": False, "feedback": "x"}
    emulated = {**real, "outcome": "allowed", "turn_ended": True}
    results = {
        "claude_code": "9.9.9",
        "cases": [
            {
                "case": "c1",
                "rule": "stop-exit2",
                "title": "T",
                "agrees": False,
                "steps": [{**step, "claude-code": real, "emulator": emulated}],
            }
        ],
    }
    page = render(results, {"stop-exit2": {"title": "Stop", "rule": "R"}})
    assert "emulator **DIFFERS**" in page and "**allowed**" in page
    old = {"claude_code": "1", "cases": {"c1": [{**step, **real}]}}
    new = {"claude_code": "2", "cases": {"c1": [{**step, **real, "outcome": "allowed"}]}}
    assert changes(old, new) == ["c1 step 1 stop: outcome 'blocked' -> 'allowed'"]
