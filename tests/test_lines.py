"""The tests' line matcher (tests/lines.py) fails where a substring test would pass."""

from __future__ import annotations

import pytest

from tests.lines import fnmatch_lines, no_fnmatch_line

OUT = "lab check\n  step 1 passed  \n  step 2 not passed\nDone.\n"


def test_patterns_match_whole_lines_in_order() -> None:
    assert fnmatch_lines(OUT, ["*step 1 passed", "Done."]) == ["  step 1 passed", "Done."]


def test_a_pattern_is_a_whole_line_not_a_substring() -> None:
    with pytest.raises(AssertionError, match="no line below matches 'step 2 passed'"):
        fnmatch_lines(OUT, ["step 2 passed"])  # "not passed" holds the words, not the line


def test_order_matters_and_the_failure_shows_what_matched() -> None:
    with pytest.raises(AssertionError) as failed:
        fnmatch_lines(OUT, ["Done.", "*step 1*"])
    assert "'Done.' matched line 4" in str(failed.value)
    assert "no line below matches '*step 1*'" in str(failed.value)


def test_consecutive_wants_the_next_line() -> None:
    fnmatch_lines(OUT, ["*step 1*", "*step 2*"], consecutive=True)
    with pytest.raises(AssertionError, match="on the next line"):
        fnmatch_lines(OUT, ["lab check", "Done."], consecutive=True)


def test_no_fnmatch_line() -> None:
    no_fnmatch_line(OUT, "*Traceback*")
    with pytest.raises(AssertionError, match="matches line 3"):
        no_fnmatch_line(OUT, "*not passed")
