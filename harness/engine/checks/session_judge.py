"""How a ``hook_session`` is judged: each played step against its expect and assertions, the
session's steps against the expected sequence (``Moment.matches``), and the emulator's steps
against the real client's when both played."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.claude.engines import CLAUDE_CODE, EMULATOR
from harness.claude.scenario import ScenarioStep
from harness.claude.scripted import StepOutcome
from harness.claude.vocabulary import Outcome, StepKind
from harness.engine.moment import SENSOR_RUN, describe
from harness.engine.sensor_run import why_no_sensor_run
from harness.engine.stepview import StepView
from harness.schema import Field

if TYPE_CHECKING:
    from harness.engine.checks.hook_session import SessionParams
    from harness.engine.checks.session_play import Play

# Assertions a step may carry on top of the scenario fields harness/claude defines.
ASSERTION_FIELDS = (
    Field(
        "feedback_contains",
        str,
        doc="what Claude is shown (a blocking hook's stderr, a reason) contains this",
    ),
    Field("feedback_not_contains", str, doc="what Claude is shown does not contain this"),
    Field("message_contains", str, doc="anything said: feedback, system or user message"),
    Field(
        "file_unchanged",
        str,
        inside="the workspace",
        doc="the step leaves this workspace file as it was",
    ),
    Field("marker_exists", str, inside="the git directory", doc="hook state in .git exists"),
    Field("marker_absent", str, inside="the git directory", doc="hook state in .git is absent"),
    Field("quiet", bool, doc="every hook exited 0 and printed nothing (fail open)"),
)


@dataclass(frozen=True)
class StepAsserts:
    """What one inline step must show beyond its outcome (None: not asserted)."""

    feedback_contains: str | None = None
    feedback_not_contains: str | None = None
    message_contains: str | None = None
    file_unchanged: str | None = None
    marker_exists: str | None = None
    marker_absent: str | None = None
    quiet: bool | None = None

    def given(self) -> list[str]:
        """The assertions written, in a person's words, in declaration order."""
        return [
            _ASSERTION_WORDS[f.name](getattr(self, f.name))
            for f in ASSERTION_FIELDS
            if getattr(self, f.name) is not None
        ]


# What each assertion asks, said as a person would ("every hook silent", not quiet=True).
_ASSERTION_WORDS: dict[str, Callable[[Any], str]] = {
    "feedback_contains": lambda v: f"Claude is told {v!r}",
    "feedback_not_contains": lambda v: f"Claude is not told {v!r}",
    "message_contains": lambda v: f"a message says {v!r}",
    "file_unchanged": lambda v: f"{v} stays as it was",
    "marker_exists": lambda v: f"the marker .git/{v} exists",
    "marker_absent": lambda v: f"no marker .git/{v}",
    "quiet": lambda v: "every hook exits 0 and says nothing" if v else "a hook speaks",
}


NO_PREDICTION = "has no prediction: the step asks you to predict"


def _said(outcome: StepOutcome) -> str:
    return "\n".join(
        t for t in (outcome.feedback, outcome.system_message, outcome.user_message) if t
    )


PREDICTED = "you predicted "  # a wrong expect: the participant's guess, not the hooks, was off
LET_GO = (
    "stop_hook_active: true (the stop right after a blocked one, in the same turn), so the "
    "Stop hook let the turn end; give each trick its own turn with a prompt before it"
)


def let_go(outcome: StepOutcome) -> bool:
    """A stop that went through because the hook lets go on the second stop of a turn."""
    return outcome.outcome == Outcome.ALLOWED and bool(outcome.stop_hook_active)


def judge_step(
    step: ScenarioStep,
    asserts: StepAsserts,
    outcome: StepOutcome,
    root: Path,
    git_dir: Path,
    before: bytes | None,
    yours: bool = True,
) -> list[str]:
    problems = []
    if step.expect is not None and outcome.outcome != step.expect:
        # A lab's own inline step is no guess of the participant's: it says what must happen.
        said = PREDICTED if yours else "this check needs "
        wrong = f"{said}{step.expect}, it was {outcome.outcome}"
        problems.append(f"{wrong}: {LET_GO}" if let_go(outcome) else wrong)
    text = asserts.feedback_contains
    if text is not None and text not in outcome.feedback:
        problems.append(f"feedback lacks {text!r}")
    text = asserts.feedback_not_contains
    if text is not None and text in outcome.feedback:
        problems.append(f"feedback should not contain {text!r}")
    text = asserts.message_contains
    if text is not None and text not in _said(outcome):
        problems.append(f"nothing said contains {text!r}")
    if asserts.file_unchanged is not None:
        path = root / asserts.file_unchanged
        now = path.read_bytes() if path.is_file() else None
        if now != before:
            problems.append(f"{asserts.file_unchanged} was changed")
    if asserts.marker_exists is not None and not (git_dir / asserts.marker_exists).exists():
        problems.append(f"no marker {asserts.marker_exists} in the git directory")
    if asserts.marker_absent is not None and (git_dir / asserts.marker_absent).exists():
        problems.append(f"marker {asserts.marker_absent} should not exist")
    if asserts.quiet:
        loud = [
            r for r in outcome.hooks if r.exit_code != 0 or r.stdout.strip() or r.stderr.strip()
        ]
        if loud:
            problems.append(
                "a hook did not stay silent: "
                + "; ".join(
                    f"{Path(r.command.strip(chr(34))).name} exit {r.exit_code}"
                    + (
                        f", said {(r.stderr or r.stdout).strip()[:120]!r}"
                        if (r.stderr or r.stdout).strip()
                        else ""
                    )
                    for r in loud
                )
            )
    return problems


def session_problems(s: SessionParams, steps: list[StepView], sequence: list[str]) -> list[str]:
    """What went wrong in a session played (or put back together from its turns): each step's
    problems, then the expected sequence's, then the whole session's."""
    problems = []
    for entry in steps:
        if entry.problems:
            # Whole: a path or command a person looks up or copies is never cut.
            detail = f" {' '.join(entry.detail.split())}" if entry.detail else ""
            problems.append(f"{entry.label} ({entry.do}{detail}): " + "; ".join(entry.problems))
    problems += sequence
    last = steps[-1].outcome if steps else None
    if s.final is not None and last != s.final:
        problems.append(
            f"the last step of your session should be {s.final}; "
            + (f"it was {last}" if last else "the session has no step")
        )
    blocked = sum(1 for e in steps if e.do == StepKind.STOP and e.outcome == Outcome.BLOCKED)
    if s.blocked_stops_at_least and blocked < s.blocked_stops_at_least:
        problems.append(
            f"{blocked} of your stops were blocked; this step needs at least "
            f"{s.blocked_stops_at_least}"
        )
    return problems


def disagreements(plays: dict[str, Play], workspace: Path) -> list[str]:
    """Steps where the emulator and the real client differ (the real client is right)."""
    from harness.claude.differential import normalise

    real, emulated = plays[CLAUDE_CODE].steps, plays[EMULATOR].steps
    found = []
    racing = False  # a background command of this turn may still be running
    for ours, theirs in zip(emulated, real, strict=False):
        racing = theirs.background or (racing and ours.do != StepKind.PROMPT)
        for key in ("outcome", "tool_ran", "turn_ended", "feedback"):
            if key == "feedback" and racing and not theirs.background:
                # What the hooks read while it runs (no reports yet, old ones, new ones) is
                # a race on the client as on the emulator: the outcome is compared, not it.
                continue
            mine, truth = getattr(ours, key), getattr(theirs, key)
            if key == "feedback":
                mine = normalise(str(mine), Path(ours.root))
                truth = normalise(str(truth), Path(theirs.root))
            if mine != truth:
                found.append(
                    f"{ours.label} ({ours.do}): the emulator says {key} {_shown(mine)}, "
                    f"real Claude Code {_shown(truth)}"
                )
    return found


def _shown(value: object) -> str:
    """A value as a person reads it: an outcome's word, not its enum's name."""
    return repr(value.value if isinstance(value, Enum) else value)


def sequence_problems(wanted: list[Any], steps: list[StepView], git_dir: Path) -> list[str]:
    """Each wanted step must match a session step, in order (other steps may come between;
    after a sensor run, nothing that changes files: the run's reports are what counts)."""
    i = 0
    run: tuple[int, Any] | None = None  # the last sensor run matched, and its item
    for want in wanted:
        start = i
        while i < len(steps) and not steps[i].moment.matches(want):
            i += 1
        if run is not None and i < len(steps):
            between = _after_the_run(steps, run, i)
            if between:
                return [between]
            run = None
        if i < len(steps) and want.get(SENSOR_RUN):
            run = (i, want)
        item = describe(want)
        if i == len(steps) and want.get("predicted"):
            # The step is there and did the right thing; only the participant's guess is not.
            bare = {k: v for k, v in want.items() if k != "predicted"}
            hit = next((s for s in steps[start:] if s.moment.matches(bare)), None)
            if hit is not None:
                outcome = f' = "{hit.outcome}"' if want.get("outcome") else ""
                return [
                    f"{hit.label} ({hit.do}) {NO_PREDICTION} its outcome, so add the line "
                    f"expect{outcome} to it"
                ]
        if i == len(steps):
            problem = f"your session lacks {item}" + (
                f" after {steps[start - 1].label}" if start else ""
            )
            if want.get(SENSOR_RUN):
                problem += _no_sensor_run(steps[start:])
            released = _released(steps)
            if released:
                problem += f" ({released})"
            return [problem]
        if want.get("marker_exists") and not (git_dir / want["marker_exists"]).exists():
            return [f"{steps[i].label} left no marker .git/{want['marker_exists']}"]
        i += 1
    return []


def _no_sensor_run(steps: list[StepView]) -> str:
    """The command that meant to be the sensor run and is not, quoting why (Lab 03 step 2: a
    -P or -D the plain list does not take was refused without a word of it)."""
    for step in steps:
        command = str(step.moment.args.get("command") or step.detail)
        why = why_no_sensor_run(command) if step.do == StepKind.BASH else ""
        if why:
            return f"; {step.label} ({' '.join(command.split())}) is no sensor run: {why}"
    return ""


def _released(steps: list[StepView]) -> str:
    """What happened to each stop the hook let go on ``stop_hook_active`` (walk-r: a double
    stop was put down to "a trick without its own prompt", which it was not): it was the
    second stop of its turn, no prompt since the stop the hook held."""
    said = []
    for k, step in enumerate(steps):
        if not step.let_go:
            continue
        held = next((s.label for s in reversed(steps[:k]) if s.do == StepKind.STOP), None)
        since = f" (no prompt since {held}, the stop the hook held)" if held else ""
        said.append(
            f"{step.label} went through on stop_hook_active: true: it was the second stop "
            f"of its turn{since}, and the hook lets that one end the turn"
        )
    return "; ".join(said)


_CHANGES = frozenset({StepKind.BASH, StepKind.WRITE, StepKind.EDIT})


def _after_the_run(steps: list[StepView], run: tuple[int, Any], upto: int) -> str:
    """What changed files between the last sensor run (from ``run`` on) and step ``upto``
    (walk-i: a red run, then green reports copied in, then the stop the hook allowed).

    Only for a scenario the person wrote, step by step. A live session is Claude's, and Claude
    often runs a harmless command after the sensors, so there the proof is the hook's own
    (moment.moments_of): a red run is no sensor run, and a stop let go on stop_hook_active
    after a hold is no allowed stop."""
    at, want = run
    for k in range(at + 1, upto):
        if steps[k].moment.matches(want):
            at = k  # a later run counts: the last one before the step is the one read
    later = [s for s in steps[at + 1 : upto] if s.do in _CHANGES]
    if not later:
        return ""
    return (
        f"{later[0].label} ({later[0].do}) comes after the sensor run ({steps[at].label}) and "
        f"before {steps[upto].label}: run the sensors last, after every change, so their "
        "reports are what the hook reads"
    )
