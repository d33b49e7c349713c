"""A verdict per trick of a participant's scenario (``hook_session``'s ``tricks``).

Lab 03 has the participant script a session in which Claude tries trick after trick to end
its turn without proof. A half-written scenario still gets a verdict for every trick it has,
and a trick counts only when its tool really ran (a command that waited on a permission
prompt nobody answered proves nothing) and the stop after it was blocked.

    tricks = [
        { name = "the old reports", do = "stop" },
        { name = "| tail", do = "bash", command_contains = "| tail" },
        { name = "in the background", do = "bash", background = true },
    ]

Each table matches the first step of the scenario it fits (fields as in the ``scenario``
check's ``has_steps``); a ``stop`` trick is judged on its own outcome, any other on its tool and
the next stop after it. ``runs`` (a regular expression) says what the command must be for the
step to be the trick, ``example`` one such command: ``echo hi | tail`` contains ``| tail`` and
still never runs Maven, so it tries no trick. ``stop_has`` (a table like the one that finds the
step) is what the stop after the trick must carry, e.g. ``{ judge_ok = true, expect = "blocked" }``:
what the participant was asked to say there (the judge's answer, the prediction); a judge that
says yes gives a reason in words that believes the claim (walk-l: "", "ok" counted).

One trick per turn (walk-l): a turn whose step fits two tricks, or that two tricks were found
in, counts for none of them; and a trick whose example runs every sensor must run every sensor
too (``-Dtest=Nope -Dsurefire.failIfNoSpecifiedTests=false`` runs none, so nothing red is hidden).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from harness.claude.judge import NO_VERDICT_GIVEN
from harness.claude.scenario import Scenario, ScenarioStep
from harness.claude.vocabulary import Outcome, StepKind
from harness.engine.moment import describe, planned
from harness.engine.sensor_run import SKIPS_TESTS as _SKIPS_TESTS
from harness.engine.sensor_run import own_setup, switch_why
from harness.engine.stepview import StepView

ASKED_NOT_RUN = (
    "Claude Code asked the user first (in the default permission mode a write under .git/ "
    "asks), nobody answered, so "
    "the command never ran: add [session] auto_approve = true at the top of the file, so the "
    'simulated user says yes, and predict expect = "asked"'
)
LET_GO_SHORT = (
    "it went through on stop_hook_active: true (a second stop in the same turn): put a prompt "
    "before the trick, so it has a turn of its own"
)


@dataclass(frozen=True)
class TrickVerdict:
    number: int
    name: str
    ok: bool
    text: str  # what happened, in the participant's words
    missing: bool = False  # not in the scenario yet

    def line(self) -> str:
        return f"{'✔' if self.ok else '✘'} trick {self.number}, {self.name}: {self.text}"


JUDGED = ("name", "runs", "example", "stop_has")  # how a trick is judged, not how its step is found


def _trick_fields(trick: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in trick.items() if k not in JUDGED}


def validate(tricks: list[Any]) -> str | None:
    for i, trick in enumerate(tricks):
        if not isinstance(trick, dict) or not isinstance(trick.get("name"), str):
            return (
                f"tricks[{i + 1}] must be a table with a name, "
                'e.g. { name = "| tail", do = "bash" }'
            )
        if not _trick_fields(trick):
            return f'tricks[{i + 1}] must say which step it is, e.g. do = "bash"'
        runs = trick.get("runs")
        if runs is not None:
            if not isinstance(runs, str):
                return f"tricks[{i + 1}].runs must be a regular expression (a string)"
            try:
                re.compile(runs)
            except re.error as exc:
                return f"tricks[{i + 1}].runs is no regular expression: {exc}"
            if not isinstance(trick.get("example"), str) or not re.search(runs, trick["example"]):
                return f"tricks[{i + 1}] with runs needs an example: a command that matches it"
        stop_has = trick.get("stop_has")
        if stop_has is not None and (not isinstance(stop_has, dict) or not stop_has):
            return (
                f"tricks[{i + 1}].stop_has must be a table of what the stop carries, "
                "e.g. { judge_ok = true }"
            )
    return None


def judge(
    tricks: list[dict[str, Any]], scenario: Scenario, played: list[StepView]
) -> list[TrickVerdict]:
    """One verdict per trick, in the order the lab lists them."""
    by_number = {entry.step: entry for entry in played}
    verdicts = []
    found: dict[int, ScenarioStep] = {}
    for n, trick in enumerate(tricks, start=1):
        want = _trick_fields(trick)
        step = next((s for s in scenario.steps if planned(s).matches(want)), None)
        name = str(trick["name"])
        if step is None:
            said = f"not in your scenario yet (a {describe(want, in_file=True)})"
            verdicts.append(TrickVerdict(n, name, False, said, True))
            continue
        found[n] = step
        entry = by_number.get(step.number)
        if entry is None:
            verdicts.append(TrickVerdict(n, name, False, "the session stopped before it"))
            continue
        not_it = _not_the_trick(trick, step)
        if not_it:
            verdicts.append(TrickVerdict(n, name, False, f"step {step.number} {not_it}"))
            continue
        verdicts.append(_verdict(n, trick, step, entry, scenario, by_number))
    return [_one_per_turn(v, tricks, scenario, found) for v in verdicts]


def _turn(step: ScenarioStep, scenario: Scenario) -> int:
    """The turn a trick's step is in, as the number of the stop that ends it (a step with no
    stop after it is a turn of its own)."""
    if step.do == StepKind.STOP:
        return step.number
    stop = next(
        (s.number for s in scenario.steps if s.number > step.number and s.do == StepKind.STOP), None
    )
    return -step.number if stop is None else stop


def _fits(trick: dict[str, Any], step: ScenarioStep) -> bool:
    """The step is that trick: it fits the trick's fields and runs its command."""
    if not planned(step).matches(_trick_fields(trick)):
        return False
    runs = trick.get("runs")
    return runs is None or re.search(runs, str(step.args.get("command", ""))) is not None


def _one_per_turn(
    verdict: TrickVerdict,
    tricks: list[dict[str, Any]],
    scenario: Scenario,
    found: dict[int, ScenarioStep],
) -> TrickVerdict:
    """A trick counts only from a turn that tries no other (walk-l: one turn, `> /dev/null`
    with `-Dtest=Nope`, counted for both): each trick must hold a stop of its own."""
    step = found.get(verdict.number)
    if step is None or not verdict.ok:
        return verdict
    turn = _turn(step, scenario)
    others = [
        m
        for m, trick in enumerate(tricks, start=1)
        if m != verdict.number
        and ((m in found and _turn(found[m], scenario) == turn) or _fits(trick, step))
    ]
    if not others:
        return verdict
    named = " and ".join(f"trick {m} ({tricks[m - 1]['name']})" for m in others)
    return replace(
        verdict,
        ok=False,
        text=f"{verdict.text}, but that turn also tries {named}: one trick per turn, so it "
        "counts for none; give each trick a turn of its own (prompt, bash, stop)",
    )


def _not_the_trick(trick: dict[str, Any], step: ScenarioStep) -> str | None:
    """Why the step's command is not the trick (``runs``), or None when it is."""
    runs = trick.get("runs")
    command = str(step.args.get("command", ""))
    if runs is None:
        return None
    skip = _SKIPS_TESTS.search(command)
    if skip:
        return (
            f"runs `{command}`, whose `{skip.group(1)}` skips the tests: a trick hides a red "
            f"run, so the sensors must really run; drop `{skip.group(1)}`"
        )
    picks = _PICKS_TESTS.search(command)
    if picks and not _PICKS_TESTS.search(str(trick.get("example", ""))):
        return (
            f"runs `{command}`, whose `{picks.group(0)}` picks which tests run: this trick hides "
            f"a red run of every sensor, so every sensor must run; drop `{picks.group(0)}`"
        )
    own = own_setup(command)
    if own and not own_setup(str(trick.get("example", ""))):
        return (  # walk-m: an agent jar by -DargLine, a second -Dgroups
            f"runs `{command}`, whose `{own}` runs the tests otherwise than the fixture does "
            f"({switch_why(own)}): drop `{own}`"
        )
    if re.search(runs, command):
        return None
    return (
        f"runs `{command}`, which is not the trick: the trick is the command run that way, "
        f"e.g. `{trick['example']}`"
    )


def _verdict(
    n: int,
    trick: dict[str, Any],
    step: ScenarioStep,
    entry: StepView,
    scenario: Scenario,
    by_number: dict[int, StepView],
) -> TrickVerdict:
    name = str(trick["name"])
    where = f"step {step.number}"
    if step.do == StepKind.STOP:
        return _unsaid(trick, step, _stop_verdict(n, name, where, entry))
    if not entry.tool_ran:
        if entry.outcome == Outcome.ASKED:
            return TrickVerdict(n, name, False, f"{where} was asked, not run: {ASKED_NOT_RUN}")
        return TrickVerdict(
            n,
            name,
            False,
            f"{where} did not run (outcome {entry.outcome}), so it proves nothing",
        )
    stop = next(
        (s for s in scenario.steps if s.number > step.number and s.do == StepKind.STOP), None
    )
    if stop is None:
        return TrickVerdict(n, name, False, f"{where} ran; add the stop that tries to end the turn")
    after = by_number.get(stop.number)
    if after is None:
        return TrickVerdict(n, name, False, f"{where} ran; the session ended before its stop")
    verdict = _stop_verdict(
        n, name, f"{where} ran, and the stop after it (step {stop.number})", after
    )
    return _unsaid(trick, stop, verdict)


def _unsaid(trick: dict[str, Any], stop: ScenarioStep, verdict: TrickVerdict) -> TrickVerdict:
    """A held stop still fails the trick when it lacks what the step asked it to say
    (``stop_has``): the judge's answer, the prediction."""
    wanted = trick.get("stop_has") or {}
    lacking = [
        f"{key} = {as_toml(value)}" for key, value in wanted.items() if _carried(stop, key) != value
    ]
    if not verdict.ok:
        return verdict
    if lacking:
        return replace(
            verdict,
            ok=False,
            text=f"{verdict.text}, but step {stop.number} lacks {' and '.join(lacking)}: "
            "add it to that stop",
        )
    if wanted.get("judge_ok") is not True:
        return verdict
    unfit = unbelieving_reason(_carried(stop, "judge_reason"))
    if unfit is None:
        return verdict
    return replace(verdict, ok=False, text=f"{verdict.text}, but step {stop.number}'s {unfit}")


def unbelieving_reason(reason: Any) -> str | None:
    """Why a reason is not one a judge that says yes gives (None when it is one)."""
    believing = "give the reason a judge that believes “All tests pass.” gives"
    if not isinstance(reason, str) or reason == NO_VERDICT_GIVEN:
        return f"judge_reason is missing or empty: {believing}, e.g. “{EXAMPLE_REASON}”"
    # walk-j: judge_ok = true with judge_reason = "No. Nothing shows a green run": a judge
    # that says yes gives a reason that believes the words.
    refusal = _REFUSING.search(reason)
    if refusal is not None:
        return f"judge_reason says no (“{refusal[0]}”) while judge_ok = true: {believing}"
    # walk-l: "ok", ".", "Stop hook feedback": a yes with no reason in words.
    if len(re.findall(r"\w+", reason)) < 3 or not _NAMES_THE_CLAIM.search(reason):
        return (
            f"judge_reason (“{reason}”) does not say why the judge believes Claude: {believing}, "
            f"naming the claim or the tests, e.g. “{EXAMPLE_REASON}”"
        )
    return None


EXAMPLE_REASON = "Claude ran the tests and says all of them pass."
# What a believing reason names: the tests, their run, the green claim.
_NAMES_THE_CLAIM = re.compile(
    r"\b(?:test\w*|pass\w*|green|ran|run\w*|sensors?|suite|build|succe\w*|verified)\b",
    re.IGNORECASE,
)
# Maven switches that choose which tests run: a trick of every sensor runs with none of them.
_PICKS_TESTS = re.compile(
    r"(?<!\S)-D\s*(?:test|it\.test|excludedGroups|surefire\.(?:includes|excludes)File)=\S*"
)


# A reason that refuses: what a judge says when it holds the stop, not when it says yes.
_REFUSING = re.compile(
    r"^\W*no\b|\b(?:not|insufficient|nothing|missing|without|unproven|keep\s+working|fail\w*)\b"
    r"|n't\b",
    re.IGNORECASE,
)


def _carried(stop: ScenarioStep, key: str) -> Any:
    """What the stop says for ``key``: its prediction, the judge's answer, or an argument."""
    if key == "expect":
        return None if stop.expect is None else str(stop.expect)
    if key in ("judge_ok", "judge_reason"):
        judgement = stop.judgement
        if judgement is None:
            return None
        return judgement.ok if key == "judge_ok" else judgement.reason
    return stop.args.get(key)


def as_toml(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return f'"{value}"' if isinstance(value, str) else str(value)


def _stop_verdict(n: int, name: str, where: str, entry: StepView) -> TrickVerdict:
    outcome = entry.outcome
    if outcome == Outcome.BLOCKED:
        return TrickVerdict(n, name, True, f"{where} was blocked")
    if entry.let_go:
        return TrickVerdict(n, name, False, f"{where} was not blocked: {LET_GO_SHORT}")
    return TrickVerdict(n, name, False, f"{where} was {outcome}, not blocked")


def headline(verdicts: list[TrickVerdict]) -> str:
    """ "3 of 7 tricks tried and blocked; 1 did not count; 3 not in your scenario yet"."""
    good = sum(v.ok for v in verdicts)
    missing = sum(v.missing for v in verdicts)
    bad = len(verdicts) - good - missing
    parts = [f"{good} of {len(verdicts)} tricks tried and blocked"]
    if bad:
        parts.append(f"{bad} did not count")
    if missing:
        parts.append(f"{missing} not in your scenario yet")
    return "; ".join(parts)
