"""Words by which a line denies what it claims: "I trust Claude", "nobody checks that", "answer
ok either way", "the build is ready? who knows". One small judge, read by the contract check
(Lab 07, Lab 12) and the prompt hook's words (Lab 10), so each trick found is closed for both.

Each entry is a plain phrase and what it means, not a pattern. A phrase counts only as whole
words, and not when a negation just before it turns it round ("we do not trust Claude", "never
take its word"): the honest contract says so. "never" and "instead" deny only in their denying
use: "what it never does", "exits 0 instead", not "never the full log", "instead of stdout".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (phrases, what a line that says one of them does), read top to bottom.
DENIALS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (
            "trust",
            "trusts",
            "take its word",
            "takes its word",
            "take claude's word",
            "take their word",
            "take his word",
            "or so claude says",
            "or so it says",
            "we believe it",
            "believe claude",
            "claude's word",
            "allegedly",
            "supposedly",
        ),
        "takes Claude's word instead of checking",
    ),
    (
        (
            "nobody checks",
            "no one checks",
            "nobody verifies",
            "no one verifies",
            "nobody looks",
            "nothing checks",
            "never checked",
            "is not checked",
            "unchecked",
            "not consulted",
            "never consulted",
            "not looked at",
        ),
        "says nothing checks it",
    ),
    (
        (
            "irrelevant",
            "does not matter",
            "doesn't matter",
            "do not matter",
            "don't matter",
            "never mind",
            "no matter",
            "regardless",
            "either way",
            "anyway",
            "in any case",
            "whatever happens",
            "or whatever",
            "all the same",
            "who cares",
            "any code will do",
            "anything will do",
            "no matter what",
        ),
        "says the outcome does not matter",
    ),
    (
        (  # the evidence named, then waved aside: "Whatever the transcript shows, they did."
            "whatever the transcript shows",
            "whatever the transcript says",
            "whatever the evidence shows",
            "whatever the evidence says",
            "whatever the tests show",
            "whatever the tests say",
            "whatever the reports show",
            "whatever the reports say",
            "whatever the run shows",
            "whatever it shows",
            "whatever they show",
            "whatever it finds",
            "whatever you find",
        ),
        "waves the evidence aside",
    ),
    (
        (  # the answer given before the evidence is read: "Assume they did.", "as a yes"
            "assume they did",
            "assume they passed",
            "assume they ran",
            "assume it did",
            "assume it passed",
            "assume so",
            "assume yes",
            "assume success",
            "assume the tests",
            "assume that",
            "presume",
            "presumed",
            "as a yes",
            "as a pass",
            "as passed",
            "as passing",
            "as green",
            "take it that",
            "take it as",
            "pretend",
        ),
        "gives the answer before the evidence is read",
    ),
    (
        (  # the part made a choice: "both optional", "or let it go when in a hurry"
            "optional",
            "if you like",
            "if it likes",
            "if you want",
            "in a hurry",
            "when busy",
            "a busy hook",
            "may exit early",
            "may skip",
            "can skip",
        ),
        "makes it optional",
    ),
    (
        (
            "who knows",
            "no idea",
            "not sure",
            "unsure",
            "hopefully",
            "we hope",
            "might be",
            "may or may not",
            "or maybe not",
            "probably not",
            "i guess",
            "we guess",
        ),
        "doubts what it says instead of saying it",
    ),
    (
        ("a lie", "is untrue", "are untrue", "is fake", "are fake", "not true", "a joke"),
        "calls itself untrue",
    ),
    (
        (
            "we skip it",
            "we skip this",
            "we skip that",
            "skip this check",
            "skip this step",
            "skip this part",
            "we ignore it",
            "we ignore this",
            "we ignore that",
            "ignore this check",
            "ignore the result",
            "ignore the tests",
            "ignore the reports",
            "ignore the evidence",
            "ignore whether",
            "ignore the surefire",
            "ignore the sensors",
            "ignore the build",
            "ignore npm test",
        ),
        "says the check is skipped",
    ),
    (
        (
            "never does",
            "never do",
            "never did",
            "never happens",
            "never runs",
            "never blocks",
            "never exits 2",
            "never fails",
            "never ran",
        ),
        "says it never happens",
    ),
    (("instead",), "says something else happens instead"),
)

# A negation right before a phrase turns it round: "we do not trust", "never take its word".
_TURNED = re.compile(r"\b(?:not|never|n't|no|nor|don.t|do\s+not|cannot)\W+(?:\w+\W+)?$", re.I)


@dataclass(frozen=True)
class Denial:
    """The words found, as the person wrote them, and what they do to the line."""

    words: str
    means: str


def _phrase(words: str) -> re.Pattern[str]:
    body = r"\W+".join(re.escape(w) for w in words.split())
    after = r"(?!\s+of\b)" if words == "instead" else ""  # "instead of stdout" is honest
    return re.compile(rf"(?<![\w']){body}(?![\w']){after}", re.IGNORECASE)


_TABLE = tuple((tuple(_phrase(p) for p in phrases), means) for phrases, means in DENIALS)


def denial(text: str) -> Denial | None:
    """The first phrase of ``text`` that denies what the text claims, or None."""
    found: list[tuple[int, Denial]] = []
    for phrases, means in _TABLE:
        for pattern in phrases:
            for hit in pattern.finditer(text):
                if _TURNED.search(text, 0, hit.start()) is None or _own_word(hit):
                    found.append((hit.start(), Denial(hit.group(0), means)))
                    break
    return min(found, key=lambda f: f[0])[1] if found else None


def _own_word(hit: re.Match[str]) -> bool:
    """Phrases that carry their own negation ("does not matter", "never mind") are denials
    whatever stands before them."""
    return bool(re.match(r"(?:does|is|are|never|no|not)\b", hit.group(0), re.IGNORECASE))
