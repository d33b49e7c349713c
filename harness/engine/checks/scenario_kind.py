"""``scenario``: a participant's scenario file has the steps it must have.

It parses the file the way ``lab check`` plays it, so a comment that mentions a trick is not a
step that tries it. Quick (no session runs): a step puts it before its ``hook_session`` check.

    [[step.check]]
    kind = "scenario"
    path = "scenarios/tricks.toml"
    has_steps = [{ do = "bash", command_contains = "| tail" }, { do = "bash", background = true }]

``audit`` names a subagent whose report (a ``subagent_stop``'s ``last_message``) must say the
use case is covered: an audit that reports gaps earns no asserting status (Lab 04 step 2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.claude.scenario import load_scenario
from harness.claude.vocabulary import StepKind
from harness.engine.checks.file import read_participant_file
from harness.engine.context import CheckContext
from harness.engine.kinds import Worded, check_kind
from harness.engine.moment import CONTAINS, describe, planned
from harness.results import CheckResult
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class ScenarioParams(Worded):
    """A ``scenario`` check's parameters, typed (``KIND.params`` is derived from them)."""

    path: str = param(doc="the scenario file, relative to the workspace")
    has_steps: list[Any] = param(
        default=[],
        doc="tables that must each match a step: do, any scenario field (equal), or "
        'FIELD_contains = "text", e.g. { do = "bash", command_contains = "| tail" }',
    )
    audit: str | None = param(
        default=None,
        doc="an agent type: each subagent_stop of it reports the use case covered (covered "
        "or tested, no gap, nothing missing), e.g. aiup-vaadin-jooq:uc-coverage",
    )
    audit_of: str | None = param(
        default=None,
        doc="with audit: the use case each audit is of; its prompt names that one and no other "
        "(the marker hook marks every id the prompt names), e.g. UC-005",
    )


def _validate(p: ScenarioParams) -> str | None:
    for i, want in enumerate(p.has_steps or []):
        if not isinstance(want, dict) or not want:
            return f'has_steps[{i + 1}] must be a table such as {{ do = "bash", command = "..." }}'
        for key, value in want.items():
            if key.endswith(CONTAINS) and not isinstance(value, str):
                return f"has_steps[{i + 1}].{key} must be a string"
    if p.audit_of and not p.audit:
        return "audit_of needs audit (the agent type whose audits it reads)"
    if not p.has_steps and not p.audit:
        return 'say which steps the scenario needs: has_steps = [{ do = "stop" }]'
    return None


def run(ctx: CheckContext, p: ScenarioParams) -> CheckResult:
    rel = p.path
    name = f"scenario {rel}"
    scenario = read_participant_file(
        ctx,
        rel,
        load_scenario,
        name=name,
        wanted=f"a scenario file {rel}",
        form="a scenario file lab check can play",
        said=lambda exc: f"{rel}: {exc.field + ': ' if exc.field else ''}{exc.problem}",
    )
    if isinstance(scenario, CheckResult):
        return scenario
    gaps = _audit_gaps(rel, scenario.steps, p.audit, p.audit_of)
    if gaps is not None:
        return CheckResult.failed(gaps[0], name=name, expected=gaps[1], found=gaps[2])
    moments = [planned(s) for s in scenario.steps]
    missing = [want for want in p.has_steps if not any(m.matches(want) for m in moments)]
    if missing:
        return CheckResult.failed(
            p.message or f"{rel} lacks {len(missing)} of the steps it needs",
            name=name,
            expected="\n".join(describe(w, in_file=True) for w in p.has_steps),
            found="\n".join(f"no {describe(w, in_file=True)}" for w in missing),
        )
    return CheckResult.passed(
        p.pass_message or f"all {len(p.has_steps)} steps are there", name=name
    )


# An audit's report of a gap: "2 gaps found", "A2 is missing a test", "not covered". "No
# gaps", "nothing missing", "without a gap" report none.
_GAP = re.compile(
    r"\b(?:gaps?|missing|uncovered|untested|lacks?|lacking|incomplete|not\s+(?:yet\s+)?"
    r"(?:covered|tested|fully covered)|fail\w*|without\s+(?:a\s+)?tests?"
    # A gap named after a "covered" (walk-g): "fully covered, except A2: no test exercises it".
    r"|except|apart\s+from|other\s+than|partly|partially|not\s+all|ha(?:s|ve)\s+no\s+tests?"
    r"|no\s+tests?\s+(?:exercises?|covers?|checks?|tests?|for))\b",
    re.IGNORECASE,
)
# A count of less than all: "1 of 3 flows tested" (walk-o E3).
_PART_COUNT = re.compile(r"\b(\d+)\s+(?:of|out\s+of)\s+(\d+)\b", re.IGNORECASE)
_NONE_BEFORE = re.compile(r"\b(?:no|none|nothing|zero|without)(?:\s+\w+){0,2}\s+$", re.I)
_COVERED = re.compile(r"\b(?:covered|tested|ha(?:s|ve)\s+(?:a\s+)?tests?)\b", re.IGNORECASE)


# A covered report says so plainly: every word is one of these (or an id: UC-005, A2, BR-001,
# a number), and "no"/"nothing" only before "gaps"/"missing". A list of gap words alone never
# ends (walk-i: "would be covered once A2 gets one", "covered: false", "only in its main flow").
_PLAIN = frozenset(
    """a all an and are audit audited audits both br by case cases complete completely
    coverage covered each entirely every flow flows found fully gap gaps has have in is its
    main missing no nothing of own path paths report rule rules scenario scenarios step steps
    test tested tests the their to uc use with""".split()  # noqa: SIM905 (a word list reads better)
)
_ID = re.compile(r"^(?:[a-z]{1,3}-?\d+|[1-9]\d*)$")  # "0 tests" counts a gap
# Marks a reader sees and words do not say (walk-k: ~~struck~~, ❌, ✗, ☐, a > quote, 1/3, a
# table's — against a flow): anything but letters, digits, spaces and plain punctuation.
_UNPLAIN_MARK = re.compile(r"[^\w\s.,:;'\"()\-#*!’]|~|_")
_NONE_OF = frozenset({"gap", "gaps", "missing"})


def _unplain(report: str) -> str | None:
    """The first word by which a report says more than that the use case is covered."""
    if "?" in report:
        return "?"
    mark = _UNPLAIN_MARK.search(report)
    if mark is not None:
        return mark.group(0)
    words: list[str] = re.findall(r"[A-Za-z]+(?:-\d+)?|\d+", report)
    for at, word in enumerate(words):
        low = word.lower()
        after = [w.lower() for w in words[at + 1 : at + 3]]
        if after[:1] in (["is"], ["was"]):  # "nothing is missing"
            after = after[1:]
        if low in ("no", "nothing") and after[:1] and after[0] not in _NONE_OF:
            return word
        if low in ("no", "nothing") and not after:
            return word
        before = [w.lower() for w in words[max(0, at - 2) : at]]
        if low == "missing" and not ({"no", "nothing"} & set(before)):
            return word
        if low not in _PLAIN and not _ID.match(low):
            return word
    return None


def audit_gap(report: str) -> str | None:
    """Why an audit's report does not say the use case is covered: ``reports a gap (“…”)``,
    a word that is no plain report of coverage, or that it names no coverage at all; None
    when it reports the use case covered, in plain words."""
    for hit in _GAP.finditer(report):
        if hit.group(0).lower().startswith("without") or not _NONE_BEFORE.search(
            report, 0, hit.start()
        ):
            return f"reports a gap (“{hit.group(0)}”)"
    for count in _PART_COUNT.finditer(report):
        if int(count.group(1)) < int(count.group(2)):
            return f"reports a gap (“{count.group(0)}”)"
    if not _COVERED.search(report):
        return "does not say the use case is covered"
    word = _unplain(report)
    if word is not None:
        return (
            f"says more than that it is covered (“{word}”): an audit that found the use case "
            "covered says so plainly, e.g. “UC-005 is fully covered by tests.”"
        )
    return None


def _audit_gaps(
    rel: str, steps: Any, agent: str | None, of: str | None = None
) -> tuple[str, str, str] | None:
    """(headline, expected, found) when an audit by ``agent`` reports gaps, is of another use
    case than ``of``, or none ran."""
    if agent is None:
        return None
    audits = [
        s for s in steps if s.do == StepKind.SUBAGENT_STOP and s.args.get("agent_type") == agent
    ]
    expected = f"a subagent_stop of {agent} whose last_message reports the use case covered"
    if not audits:
        return (
            f"{rel} has no audit yet: add a subagent_stop of {agent} whose last_message "
            "reports the use case covered",
            expected,
            f"no subagent_stop of {agent} in {rel}",
        )
    for step in audits:
        other = _audited_elsewhere(rel, step, of) if of else None
        if other is not None:
            return other
        said = str(step.args.get("last_message", ""))
        why = audit_gap(said)
        if why is not None:
            return (
                f"the audit in {rel} (step {step.number}) {why}: an asserting status wants an "
                "audit that found the use case covered; write its last_message as that report "
                "(every flow and rule has a test), or, in a real session, fix the gaps and "
                "audit again",
                expected,
                f"step {step.number}: last_message = {said}",
            )
    return None


_USE_CASE = re.compile(r"\bUC-\d+\b", re.IGNORECASE)


def _audited_elsewhere(rel: str, step: Any, of: str) -> tuple[str, str, str] | None:
    """(headline, expected, found) when an audit's prompt is not of ``of`` alone: another use
    case named ("audit UC-002 and not UC-005"), or ``of`` not named. The marker hook marks
    every id the prompt names: its Done is earned by an audit of that use case only."""
    prompt = str(step.args.get("prompt", ""))
    named = list(dict.fromkeys(u.upper() for u in _USE_CASE.findall(prompt)))
    if named == [of.upper()]:
        return None
    listed = ", ".join(named) or "no use case"
    return (
        f"the audit in {rel} ({step.where}) is not of {of} alone: its prompt names {listed}; "
        f"the hook marks every use case the prompt names as audited, so write the prompt as "
        f"an audit of {of} only",
        f"a subagent_stop whose prompt asks for an audit of {of}, naming no other use case",
        f"{step.where} prompt: {prompt}",
    )


KIND = check_kind(
    "scenario",
    "a scenario file in the workspace has the steps it needs (parsed, not grepped)",
    run,
    rules=_validate,
)
