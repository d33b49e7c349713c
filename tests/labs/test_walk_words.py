"""The newcomer walk of Labs 01–11 (issue 42): words the labs teach and the check reads must
agree with each other and with the tools.

Real: the labs' own manifests and check code; no workspace is needed where a rule is judged
on a line of text.
"""

from __future__ import annotations

import pytest

from harness.engine.checks import contract
from harness.engine.manifest import find_lab


def block_rules() -> list[dict[str, object]]:
    spec = next(c for c in find_lab("7").step("contract").checks if c.name == "contract")
    return [r for r in spec.params["rules"] if r["part"] == "Block"]


@pytest.mark.parametrize(
    "said",
    [
        "exit 2 with a short one-line reason on stderr (no full log, no secrets) that names the "
        "fix: ./mvnw -q test -Dgroups=sensor",
        "exit 2 and a short reason on stderr: never the whole log; run ./mvnw -q test -Dgroups=sensor",
        "exit 2, one short line on stderr without the full log: ./mvnw -q test -Dgroups=sensor",
    ],
)
def test_lab07_block_in_the_labs_own_words_holds(said: str) -> None:
    assert contract._judge("Block", said, block_rules()) == []


def test_lab07_block_that_prints_the_whole_log_still_fails() -> None:
    said = "exit 2, a short reason on stderr, then print the whole maven log: ./mvnw -q test"
    assert "no full log: one short line with the reason" in contract._judge(
        "Block", said, block_rules()
    )


def test_lab10_is_true_about_or_true() -> None:
    """`cmd || true` changes the exit code only: the whole red failure stays on the screen
    (the walk counted 16 [ERROR] lines), so neither the step nor the quiz may say it hides it."""
    step = find_lab("10").step("words")
    text = step.instructions
    assert "nothing red" not in text
    assert "`|| true` leaves the whole red output on screen and only turns the exit\ncode to 0" in (
        text
    )
    quiz = next(c for c in step.checks if c.name == "quiz")
    assert quiz.params["answers"] == {"q1": "b", "q2": "b", "q3": "c"}
    assert (
        "# q3: which trick leaves the whole red failure in the transcript and changes only the "
        "exit code?" in text
    )
