"""The colours a word of the shared vocabulary is shown in: one table per vocabulary, so every
view paints an outcome the same way."""

from __future__ import annotations

from harness.claude.vocabulary import Outcome

# An error is the tool refusing its own input (no hook ran): yellow, like a check that could
# not run, never red, which says a hook or rule refused.
OUTCOME_STYLE: dict[Outcome, str] = {
    Outcome.ALLOWED: "green",
    Outcome.BLOCKED: "red",
    Outcome.ASKED: "yellow",
    Outcome.STOPPED: "magenta",
    Outcome.ERROR: "yellow",
}


def outcome_style(word: str) -> str:
    """The style of an outcome given as its word (step JSON carries words); white if unknown."""
    try:
        return OUTCOME_STYLE[Outcome(word)]
    except ValueError:
        return "white"
