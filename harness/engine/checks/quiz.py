"""``quiz``: answers the participant wrote into a TOML file in the workspace, compared with the
expected ones. A first wrong try says how many answers are wrong, not which; from the second
try on (lab check counts them in the progress) the wrong ones are named with a pointer to read,
and each try after a wrong one waits a while first (see COOL_DOWN). The right answer is never
given."""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from harness.engine.checks.file import read_participant_file
from harness.engine.context import CheckContext
from harness.engine.kinds import check_kind
from harness.results import CheckResult
from harness.schema import param
from harness.userfiles import read_toml


def _norm(value: Any) -> Any:
    if isinstance(value, list):
        # an answer nested deeper is wrong, never a crash
        return sorted({" ".join(str(v).split()).lower() for v in value})
    return " ".join(str(value).split()).lower()


_LETTER = re.compile(r"[a-z]")
# "(b)", "b)", "b.", "(b) failures", "b) failures": the letter a participant marked.
_MARKED = re.compile(r"\(?([a-z])[).:]?(?:\s+.*)?")


def _as_letter(given: Any, options: dict[str, str]) -> Any:
    """The participant's answer as an option letter when it names one: the letter itself,
    the letter as the quiz prints it ("(b) failures"), or the option's own text."""
    if isinstance(given, list):
        return [_as_letter(v, options) for v in given]
    text = _norm(given)
    by_text = {_norm(t): letter for letter, t in options.items()}
    if text in by_text:
        return by_text[text]
    marked = _MARKED.fullmatch(text)
    if marked and (not options or marked.group(1) in options):
        rest = text[marked.end(1) :].lstrip(").: ")
        if not rest or rest == _norm(options.get(marked.group(1), rest)):
            return marked.group(1)
    return given


def _letter_quiz(expected: Any) -> bool:
    wanted = expected if isinstance(expected, list) else [expected]
    return all(isinstance(w, str) and _LETTER.fullmatch(_norm(w)) for w in wanted)


def _not_a_letter(given: Any, options: dict[str, str]) -> bool:
    values = given if isinstance(given, list) else [given]
    # An answer nested in arrays is no letter either, but it is simply wrong, not a misread option.
    return any(
        (isinstance(v, str) and not _LETTER.fullmatch(_norm(v)))
        or (isinstance(v, str) and bool(options) and _norm(v) not in options)
        or isinstance(v, int | float)  # q1 = 1: a number where a letter goes
        for v in values
    )


def _how(q: str, expected: Any) -> str:
    """How an answer to ``q`` is written, without giving it away."""
    if isinstance(expected, list):
        return f'a list of letters, all that apply, e.g. {q} = ["a", "c"]'
    if _letter_quiz(expected):
        return f'the letter of an option between the quotes, e.g. {q} = "a"'
    return f'your answer between the quotes, e.g. {q} = "3"'


def _one_as_list(given: Any, expected: Any) -> Any:
    """q4 = "b" where the quiz wants a list: the participant meant ["b"]."""
    return [given] if isinstance(expected, list) and isinstance(given, str) else given


@dataclass(frozen=True, kw_only=True)
class QuizParams:
    """A ``quiz`` check's parameters, typed (``KIND.params`` is derived from them)."""

    file: str = param(doc="the answers file, e.g. answers/adr-quiz.toml", inside="the workspace")
    answers: dict[str, Any] = param(
        doc="expected answers per question: a string, or an array when several letters"
    )
    options: dict[str, Any] = param(
        default={},
        doc='per question: its options as { a = "text", b = "text" }, so an answer '
        "may give the option's text instead of its letter",
    )
    explain: dict[str, Any] = param(
        default={}, doc="per question: where to read up when the answer is wrong"
    )


def _validate(p: QuizParams) -> str | None:
    if not p.answers:
        return 'answers must name at least one question, e.g. answers = { q1 = "b" }'
    for q, a in p.answers.items():
        if not isinstance(a, str | list):
            return f"answers.{q} must be a string or an array of strings"
    for q, opts in (p.options or {}).items():
        if q not in p.answers:
            return f"options.{q}: there is no answer {q} in answers"
        if not isinstance(opts, dict) or not all(isinstance(t, str) for t in opts.values()):
            return f'options.{q} must be a table such as {{ a = "errors", b = "failures" }}'
    return None


def run(ctx: CheckContext, p: QuizParams) -> CheckResult:
    rel = p.file
    name = f"quiz {rel}"
    given = read_participant_file(
        ctx,
        rel,
        lambda path: read_toml(path, rel),
        name=name,
        wanted=f"your answers in {rel}",
        form='lines like q1 = "b"',
    )
    if isinstance(given, CheckResult):
        return given
    expected: dict[str, Any] = p.answers
    options: dict[str, dict[str, str]] = p.options or {}
    missing = [q for q in expected if q not in given or given[q] in ("", [])]
    answers = {q: _one_as_list(given[q], expected[q]) for q in expected if q not in missing}
    answers = {
        q: _as_letter(a, options.get(q, {})) if _letter_quiz(expected[q]) else a
        for q, a in answers.items()
    }
    wrong = [q for q in answers if _norm(answers[q]) != _norm(expected[q])]
    right = len(expected) - len(missing) - len(wrong)

    # An answer missing or no option at all is named: that gives nothing away. Until every
    # question has an answer, none is judged (a half-filled quiz would tell one answer's fate).
    unanswered = [
        q
        for q in expected
        if q in missing or (q in wrong and _no_option(answers[q], expected[q], options.get(q, {})))
    ]
    details: dict[str, object] = {"of": len(expected), "missing": missing}
    if unanswered:
        # Not judged, so not counted: no wrong try, no wait.
        return CheckResult.failed(
            f"{len(unanswered)} of {len(expected)} questions still to answer",
            name=name,
            expected=f"an answer to every question in {rel}",
            found="\n".join(_problem(q, given, answers, p) for q in unanswered),
            details=details,
        )
    too_soon = _too_soon(ctx, name, details)
    if too_soon is not None:
        return too_soon
    # Only a wrong set counts as a try (the back-off and the naming of wrong answers count
    # them): a passed quiz checked again, or by lab watch, raises no wait.
    details.update(right=right, wrong=wrong, quiz_try=bool(wrong))
    if not wrong:
        return CheckResult.passed(f"all {len(expected)} answers right", name=name, details=details)
    first = ctx.step.quiz_tries < 1
    # One phrasing on every try (walk-s: "2 of 5 wrong", then "3 of 5 right" for one state).
    return CheckResult.failed(
        f"{len(wrong)} of {len(expected)} answers wrong",
        name=name,
        expected=f"{len(expected)} right answers in {rel}",
        # A first try is told how many, not which: a loop of letters learns nothing it can
        # narrow down, and a second look at the sources is the cheaper way. Later tries name
        # them in the quiz's own order, q1 before q3.
        found=FIRST_TRY
        if first
        else "\n".join(_problem(q, given, answers, p) for q in expected if q in wrong),
        details=details,
    )


# After a wrong try the next one waits, twice as long each time: a person who reads the
# sources again takes longer than that anyway, while a loop trying letters (one question named
# per try from the second on) needs hours instead of seconds. The trainer sees every try.
COOL_DOWN = 30.0  # seconds after the first wrong try
COOL_DOWN_MAX = 480.0
WAIT = (
    "a wrong try makes the next one wait (30 s, then twice as long each time): enough to read "
    "again, too long for guessing letters in a loop"
)


def _too_soon(ctx: CheckContext, name: str, details: dict[str, object]) -> CheckResult | None:
    """A try within the wait after a wrong one, not judged at all (None: judge it): a pass now
    would tell a loop which set is right."""
    wait = _cool_down(ctx)
    if not wait:
        return None
    return CheckResult.failed(
        f"too soon after a wrong try: not judged; lab check again in {wait} s",
        name=name,
        expected=f"a try {wait} s from now or later",
        found=WAIT,
        details={**details, "fix": f"read the sources again, then lab check in {wait} s"},
    )


def _cool_down(ctx: CheckContext) -> int:
    """Seconds before a new try is judged (0: now)."""
    tries, at = ctx.step.quiz_tries, ctx.step.quiz_tried_at
    if tries < 1 or at is None:
        return 0
    pause = min(COOL_DOWN * 2 ** (tries - 1), COOL_DOWN_MAX)
    left: int = math.ceil(at + pause - time.time())
    return max(0, left)


FIRST_TRY = (
    "which ones is not said on a first try: read the questions and the sources again, change "
    "what you doubt, and lab check again (from then on, the wrong ones are named)"
)


def _no_option(answer: Any, expected: Any, options: dict[str, str]) -> bool:
    """A letter question answered with something that is none of its options, or a list
    where the question takes one answer (q2 = ["a"]): a form to fix, not a wrong try."""
    if isinstance(answer, list) and not isinstance(expected, list):
        return True
    return _letter_quiz(expected) and _not_a_letter(answer, options)


def _problem(q: str, given: dict[str, Any], answers: dict[str, Any], p: QuizParams) -> str:
    """What is wrong with the answer to ``q``, without giving the right one away."""
    expected, options = p.answers[q], (p.options or {}).get(q, {})
    if q not in answers:
        return f"{q}: not answered yet: write {_how(q, expected)}"
    if isinstance(answers[q], list) and not isinstance(expected, list):
        written = _toml(given[q])
        return f"{q}: {written} is a list, and {q} takes one answer: write {_how(q, expected)}"
    if _no_option(answers[q], expected, options):
        letters = ", ".join(sorted(options)) or "a, b, c …"
        written = _toml(given[q])
        return f"{q}: {written} is not one of the options ({letters}): write {_how(q, expected)}"
    explain = (p.explain or {}).get(q)
    return f"{q}: {_toml(given[q])} is not right" + (f" — {explain}" if explain else "")


KIND = check_kind(
    "quiz",
    "answers in a TOML file in the workspace, compared with the expected answers",
    run,
    rules=_validate,
)


def _toml(value: object) -> str:
    """An answer as the participant wrote it in TOML ("b", ["c", "d"], 1), not as Python
    prints it: JSON's strings, arrays, numbers and booleans are TOML's too."""
    return json.dumps(value, ensure_ascii=False)
