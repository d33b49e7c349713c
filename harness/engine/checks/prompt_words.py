"""A prompt hook's words, read as a judge would be asked: does the prompt ask for evidence (did
the tests run and pass?), or does it tell the judge the answer? Lab 10 step 1 (the ``settings``
check's ``prompts_ask``).

A list of bad words never ends (walk-j: "Let Claude stop", "Claude saying so is enough"), so
the prompt keeps to the words of the question: every word is one that asks about the evidence
(tests, sensors, reports, the transcript, what ran and passed, when). Besides, what this reads:
the evidence named, a question, what they did (ran, passed), no verdict stated ("so the answer
is ok"), no order to say ok ("always answer ok"), and no words that deny the question
(denial_words: "either way", "never mind")."""

from __future__ import annotations

import re

from harness.engine.checks.denial_words import denial

_EVIDENCE = re.compile(r"\b(?:tests?|sensors?|reports?|surefire|evidence)\b", re.I)
_ASKS = re.compile(r"\?|\b(?:whether|check|verify|confirm|look\s+for|find\s+out)\b", re.I)
_OUTCOME = re.compile(
    r"\b(?:ran|run|runs|running|pass|passed|passes|green|fail\w*|show\w*|exist\w*|fresh|newer)\b",
    re.I,
)
# A verdict stated: "The tests ran, so the answer is ok", "assume they passed".
_VERDICT = re.compile(
    r"\b(?:so|therefore|thus|hence|assume\w*)\b[^.?!]*\b(?:ok|yes|true|fine|pass\w*|green)\b"
    r"|\bthe\s+answer\s+is\b",
    re.I,
)
# An order to say ok: "Always answer ok", "Answer ok true." (not "Answer ok only if …").
_ALWAYS = re.compile(
    r"\balways\b[^.?!]*\b(?:ok|yes|true|approve|allow|pass)\b"
    r"|\bok\b[^.?!]*\bor\s+not\b",  # "answer ok if the tests ran or not"
    re.I,
)
_ORDER = re.compile(
    r"(?:^|[.?!:]\s+)(?:just\s+)?(?:answer|say|return|respond|reply|output)\W+(?:with\W+)?"
    r"(?:ok(?:\W*:?\W*true)?|yes)\b(?![^.?!]*\b(?:if|only|when|unless)\b)",
    re.I,
)


# The words a judge's question is made of. Anything else (treat, enough, let, stop, says, true,
# never, ...) tells the judge something other than what to look for.
_QUESTION_WORDS = frozenset(
    """a after all an and answer any are arguments as at before block by change changed changes
    check claude claude's command commands current dgroups did do does don't each edit
    edited edits error errors event evidence exit fail failed failing fails failure failures
    file files find for fresh from green has have hold hook hooks how if in is it its json
    last latest look made maven mvnw newer no not of ok only or output pass passed passes
    please q ran read red report reports require result results run running runs sensor
    sensors sh show shown shows since stale surefire target test tested tests than that the
    their them then there this to transcript trust turn unless was were what when whether
    which with word words you your""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def _not_a_question_word(prompt: str) -> str | None:
    words: list[str] = _WORD.findall(prompt.replace("$ARGUMENTS", " "))
    for word in words:
        if word.lower().strip("'") not in _QUESTION_WORDS:
            return word
    return None


# The question's own words turned round (walk-l): "run or pass", "not run", "run and fail",
# "before the last change", or half of it ("Did the tests run?"). After the question mark, a
# condition may say "not" ("If not, say what is missing").
_RAN = re.compile(r"\b(?:ran|run|runs|running)\b", re.I)
_PASSED = re.compile(r"\b(?:pass|passed|passes|green)\b", re.I)
_TURNED = re.compile(r"\b(?:not|no|never|fail\w*|before|or|red|stale)\b|n't\b", re.I)
_EXAMPLE = "e.g. “Did the tests run and pass after the last change? $ARGUMENTS”"


def _turned(prompt: str) -> str | None:
    """Why the question itself (up to its question mark) does not ask whether the tests ran
    and passed; None when it does."""
    asked = prompt.split("?", 1)[0] if "?" in prompt else prompt
    word = _TURNED.search(asked)
    if word is not None:
        return (
            f"“{word.group(0)}” turns the question round: ask whether they ran and passed after "
            f"the last change, {_EXAMPLE}"
        )
    if not (_RAN.search(asked) and _PASSED.search(asked)):
        return f"it does not ask both whether the tests ran and whether they passed, {_EXAMPLE}"
    return None


def why_not_asking(prompt: str) -> str | None:
    """Why ``prompt`` does not ask a judge for evidence, in plain words; None when it does."""
    denied = denial(prompt)
    if denied:
        return f"“{denied.words}” {denied.means}: the judge must answer from the evidence"
    for pattern in (_ALWAYS, _ORDER):
        told = pattern.search(prompt)
        if told:
            said = told.group(0).lstrip(".?!: ")
            return f"“{said}” tells the judge to answer ok whatever it finds"
    stated = _VERDICT.search(prompt)
    if stated:
        return f"“{stated.group(0)}” states the verdict instead of asking for it"
    if not _EVIDENCE.search(prompt):
        return "it names no evidence: ask about the tests (the sensors, their reports)"
    if not _ASKS.search(prompt):
        return "it asks nothing: put the question to the judge (did the tests run and pass?)"
    if not _OUTCOME.search(prompt):
        return "it does not ask what the tests did: whether they ran and passed"
    turned = _turned(prompt)
    if turned is not None:
        return turned
    other = _not_a_question_word(prompt)
    if other is not None:
        return (
            f"“{other}” is not a word of the question: the judge's prompt asks only about the "
            "evidence, e.g. “Did the tests run and pass after the last change? $ARGUMENTS”"
        )
    return None
