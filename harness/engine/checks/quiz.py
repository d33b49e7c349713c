"""``quiz``: answers the participant wrote into a TOML file in the workspace, compared with the
expected ones. Wrong answers are named with a pointer to read, the right answer is not given."""

from __future__ import annotations

from typing import Any

from harness.engine.context import CheckContext
from harness.engine.kinds import Kind, Params
from harness.errors import ConfigError
from harness.results import CheckResult
from harness.schema import Field
from harness.userfiles import read_toml


def _norm(value: Any) -> Any:
    if isinstance(value, list):  # an answer nested deeper is wrong, never a crash
        return sorted({str(v).strip().lower() for v in value})
    return str(value).strip().lower()


def _validate(p: Params) -> str | None:
    if not p.get("answers"):
        return 'answers must name at least one question, e.g. answers = { q1 = "b" }'
    for q, a in p["answers"].items():
        if not isinstance(a, str | list):
            return f"answers.{q} must be a string or an array of strings"
    return None


def run(ctx: CheckContext, p: Params) -> CheckResult:
    rel = p["file"]
    name = f"quiz {rel}"
    path = ctx.path(rel)
    if not path.is_file():
        return CheckResult.missing_file(rel, name=name, expected=f"your answers in {rel}")
    try:
        given = read_toml(path, rel)
    except ConfigError as exc:
        return CheckResult.failed(
            exc.message,
            name=name,
            expected='lines like q1 = "b"',
            found=exc.problem,
            details={"fix": exc.fix} if exc.fix else {},
        )
    expected: dict[str, Any] = p["answers"]
    explain: dict[str, str] = p["explain"] or {}
    missing = [q for q in expected if q not in given or given[q] in ("", [])]
    wrong = [q for q in expected if q not in missing and _norm(given[q]) != _norm(expected[q])]
    right = len(expected) - len(missing) - len(wrong)
    # In the quiz's own order: q1 before q3, whatever is wrong with each.
    found = "\n".join(
        f"{q}: not answered"
        if q in missing
        else f"{q}: {given[q]!r} is not right" + (f" — {explain[q]}" if q in explain else "")
        for q in expected
        if q in missing or q in wrong
    )
    details = {"right": right, "of": len(expected), "missing": missing, "wrong": wrong}
    if missing or wrong:
        return CheckResult.failed(
            f"{right} of {len(expected)} answers right",
            name=name,
            expected=f"{len(expected)} right answers in {rel}",
            found=found,
            details=details,
        )
    return CheckResult.passed(f"all {len(expected)} answers right", name=name, details=details)


KIND = Kind(
    name="quiz",
    summary="answers in a TOML file in the workspace, compared with the expected answers",
    params=(
        Field("kind", str, required=True),
        Field(
            "file",
            str,
            required=True,
            doc="the answers file, e.g. answers/adr-quiz.toml",
            inside="the workspace",
        ),
        Field(
            "answers",
            dict,
            required=True,
            doc="expected answers per question: a string, or an array when several letters",
        ),
        Field(
            "explain",
            dict,
            default={},
            doc="per question: where to read up when the answer is wrong",
        ),
    ),
    run=run,
    validate=_validate,
)
