"""``hook_session``: a scripted Claude Code session through harness/claude against the
workspace's real hooks, with an expected outcome per step.

The session's tools act for real, so by default it runs on a throwaway copy of the workspace
(``sandbox``): checking never changes the participant's files or hook state.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any

from harness.claude.engines import (
    CLAUDE_CODE,
    EMULATOR,
    ENGINE_CHOICES,
    ScriptedSession,
    open_session,
)
from harness.claude.engines import resolve_engine as resolve_engine_name
from harness.claude.scenario import (
    Scenario,
    ScenarioStep,
    load_scenario,
    parse_steps,
    run_step,
)
from harness.claude.session import StepOutcome
from harness.claude.settings import load_settings
from harness.claude.vocabulary import BOTH, OUTCOMES, STEP_KINDS, Engine, Outcome, StepKind
from harness.engine.checks import tricks as trick_check
from harness.engine.context import CheckContext
from harness.engine.kinds import Kind
from harness.engine.parallel import side_by_side
from harness.engine.stepview import StepView
from harness.engine.throwaway import path_without, sandbox_copy
from harness.errors import ConfigError, HarnessError
from harness.maven.share import Call, MavenShare, maven_share
from harness.paths import scratch_mkdtemp
from harness.results import CheckResult
from harness.schema import Field, check_table, fields_of, item_path, param
from harness.userfiles import json_fix

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


# The keys of one expect_sequence item: the session step it stands for, matched in order.
SEQUENCE_FIELDS = (
    Field("do", str, choices=STEP_KINDS, doc="the step's kind"),
    Field("outcome", str, choices=OUTCOMES, doc="the outcome the step had"),
    Field("feedback_contains", str, doc="what Claude is shown contains this"),
    Field("message_contains", str, doc="anything said (feedback, system or user message)"),
    Field("detail_contains", str, doc="the step's detail (file, command, agent) contains this"),
    Field("marker_exists", str, inside="the git directory", doc="hook state in .git exists"),
    Field(
        "predicted",
        bool,
        doc="the participant's step carries its own expect (for a step that asks for one)",
    ),
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


def parse_inline(raw: object, path: object, where: str) -> tuple[Scenario, list[StepAsserts]]:
    """A check's inline steps (``where``: the check's field path): the scenario, and each
    step's assertions. Validated by the scenario schema with the assertions on top."""
    steps, extras = parse_steps(raw, path, f"{where}.steps", extra=ASSERTION_FIELDS)
    return Scenario(Path(str(path)), steps), [StepAsserts(**extra) for extra in extras]


@dataclass(frozen=True, kw_only=True)
class SessionParams:
    """A ``hook_session`` check's parameters, typed (``KIND.params`` is derived from them)."""

    title: str | None = param(default=None, doc="a short name for the session in results")
    steps: list[Any] | None = param(
        default=None,
        doc="inline scenario steps (do, expect, … plus assertions "
        "feedback_contains, message_contains, file_unchanged, marker_exists, "
        "marker_absent, quiet)",
    )
    scenario: str | None = param(
        default=None, doc="a scenario file instead of inline steps", inside="its folder"
    )
    scenario_in: str = param(
        default="lab",
        choices=("lab", "workspace"),
        doc="where the scenario file lives: the lab folder or the participant's workspace",
    )
    sandbox: bool = param(default=True, doc="run on a throwaway copy of the workspace")
    without_git: bool = param(default=False, doc="the copy has no .git (fail-open labs)")
    hide_programs: list[str] = param(
        default=[], doc='programs the hooks must not find on PATH, e.g. ["jq"]'
    )
    env: dict[str, Any] = param(default={}, doc="extra environment for hooks and tools")
    auto_approve: bool = param(default=False, doc="the simulated user says yes when asked")
    engine: str | None = param(
        default=None,
        choices=ENGINE_CHOICES,
        doc="emulator, claude-code, or auto (the real client when installed); "
        "lab check --engine overrides it",
    )
    final: str | None = param(
        default=None, choices=OUTCOMES, doc="the outcome the last step must have"
    )
    expect_sequence: list[dict[str, Any]] = param(
        default=[],
        doc=f"tables {{{', '.join(f.name for f in SEQUENCE_FIELDS)}}} that must happen "
        "in this order, other steps between (for participant-written scenarios)",
    )
    tricks: list[dict[str, Any]] = param(
        default=[],
        doc="a verdict per trick of a participant's scenario: tables {name, do, "
        "FIELD_contains, …} matched like the scenario check's has_steps; each trick's tool "
        "must really run and the stop after it be blocked (see checks/tricks.py)",
    )
    turns_apart: bool = param(
        default=False,
        doc="play each turn (from a prompt to the next) as its own session after the "
        "session start, in its own sandbox, side by side; judged as one session",
    )
    blocked_stops_at_least: int = param(
        default=0, minimum=0, doc="the session must contain at least this many blocked stops"
    )
    message: str | None = param(default=None, doc="what the participant reads when the check fails")
    pass_message: str | None = param(default=None, doc="what the participant reads when it passes")

    @property
    def label(self) -> str:
        """How a step is named: the steps of a scenario file always carry the file's name, so
        they are never confused with the items of the expected sequence."""
        return f"{Path(self.scenario).name} step" if self.scenario else "session step"


def _validate(p: SessionParams) -> str | None:
    if (p.steps is None) == (p.scenario is None):
        return "give exactly one of steps (inline) or scenario (a scenario file)"
    if p.tricks:
        problem = trick_check.validate(p.tricks)
        if problem:
            return problem
    if p.turns_apart:
        if p.sandbox is False:
            return "turns_apart plays each turn in a sandbox of its own: it needs sandbox = true"
        wanted = p.expect_sequence or []
        if any(isinstance(w, dict) and "marker_exists" in w for w in wanted):
            return (
                "expect_sequence.marker_exists reads one session's git directory; with "
                "turns_apart each turn has its own (assert the marker on the step instead)"
            )
    return None


def _tables(p: SessionParams, path: object, where: str) -> None:
    """The inline steps and the expect_sequence items, each field against its schema."""
    if p.steps is not None:
        parse_inline(p.steps, path, where)
    for i, want in enumerate(p.expect_sequence):
        here = item_path(f"{where}.expect_sequence", i)
        check_table(want, SEQUENCE_FIELDS, path=path, where=here)


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


def _judge(
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


def _script(ctx: CheckContext, s: SessionParams) -> tuple[Scenario, list[StepAsserts]]:
    """The session to play: inline steps, or a scenario file in the lab folder or (written by
    the participant) in the workspace. Raises ``_NotYet`` for a participant's file that is
    missing or invalid: that is the participant's to fix, not the lab's."""
    if s.scenario is None:
        return parse_inline(s.steps, "lab.toml", "check")
    base = ctx.lab_dir if s.scenario_in == "lab" else ctx.root
    scenario_path = base / s.scenario
    theirs = s.scenario_in == "workspace"
    if theirs and not scenario_path.is_file():
        raise _NotYet(
            CheckResult.missing_file(
                s.scenario, name="hook session", expected=f"a scenario file {s.scenario}"
            )
        )
    try:
        scenario = load_scenario(scenario_path)
    except ConfigError as exc:
        if not theirs:
            raise
        raise _NotYet(
            CheckResult.failed(
                str(exc), name="hook session", expected="a valid scenario file", found=exc.problem
            )
        ) from None
    return scenario, [StepAsserts() for _ in scenario.steps]


class _NotYet(Exception):
    """The participant's scenario file is not there or not valid yet: the check fails."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__(result.message)
        self.result = result


def run(ctx: CheckContext, s: SessionParams) -> CheckResult:
    try:
        scenario, asserts = _script(ctx, s)
    except _NotYet as not_yet:
        return not_yet.result
    except HarnessError as exc:
        return CheckResult.errored(
            f"the lab's session script is broken: {exc}", name="hook session"
        )
    title = s.title or (Path(s.scenario).name if s.scenario else "hook session")
    broken = _settings_broken(ctx, title)
    if broken is not None:
        return broken
    try:
        engines = session_engines(ctx, s)
    except HarnessError as exc:
        return CheckResult.errored(f"cannot start a session: {exc}", name=title)
    played = _play_engines(ctx, s, scenario, asserts, title, engines)
    if isinstance(played, CheckResult):
        return played
    plays, shared = played
    return _verdict(s, scenario, asserts, title, plays, ctx.root, shared)


def _settings_broken(ctx: CheckContext, title: str) -> CheckResult | None:
    """The workspace's settings as the participant left them: a typo there is their work to
    fix (where the file breaks, and how to find it), not a harness error."""
    try:
        load_settings(ctx.root)
    except ConfigError as exc:
        rel = exc.path
        return CheckResult.failed(
            f"{rel} is not valid, so Claude Code would run none of its hooks: "
            f"{exc.field + ': ' if exc.field else ''}{exc.problem}",
            name=title,
            expected=f"{rel} that Claude Code can load",
            found=f"{rel}: {exc.field + ': ' if exc.field else ''}{exc.problem}",
            details={"fix": json_fix(rel, exc.problem)},
        )
    except HarnessError:
        return None  # no settings at all: the session says so in its own words
    return None


def _play_engines(
    ctx: CheckContext,
    s: SessionParams,
    scenario: Scenario,
    asserts: list[StepAsserts],
    title: str,
    engines: list[str],
) -> tuple[dict[str, _Play], list[Call] | None] | CheckResult:
    """The session on each engine (the first to fail to play ends it), its steps told; and
    the Maven calls the two engines shared (None: they shared none)."""
    plays: dict[str, _Play] = {}
    # Two engines on their own sandboxes play side by side; their steps are told afterwards,
    # one engine after the other, as when they played in turn.
    apart = len(engines) > 1 and s.sandbox
    played_ctx = replace(ctx, on_hook_event=lambda _entry: None) if apart else ctx

    with contextlib.ExitStack() as stack:
        # Only sessions on sandboxes of their own share Maven: without a sandbox the second
        # engine plays on the files the first one's session already changed, so no call of
        # its is the same run as the first's. Turns played apart all start from one state,
        # so a turn repeating another's Maven call on the same files shares it too.
        shares = (apart and ctx.share_maven) or (s.turns_apart and s.sandbox)
        share = stack.enter_context(maven_share()) if shares else None

        def play_on(engine: str) -> _Play | CheckResult:
            plan = _Plan(s, scenario, asserts, title, engine, share)
            if s.turns_apart:
                return _play_turns_apart(played_ctx, plan)
            return _play(played_ctx, plan)

        played = side_by_side(play_on, engines, jobs=None if apart else 1)
        shared = share.calls() if share is not None else None
    for engine, play in zip(engines, played, strict=True):
        if isinstance(play, CheckResult):
            return play
        plays[engine] = play
        if apart:
            for entry in play.steps:
                ctx.on_hook_event(entry)
    return plays, shared


def _verdict(
    s: SessionParams,
    scenario: Scenario,
    asserts: list[StepAsserts],
    title: str,
    plays: dict[str, _Play],
    workspace: Path,
    shared: list[Call] | None = None,
) -> CheckResult:
    """The result: the last engine's play, with the other's failures and where they differ."""
    last_engine = list(plays)[-1]
    play = plays[last_engine]
    failures = list(play.failures)
    if len(plays) == 2:  # the differential: both engines must tell the same story
        failures += _disagreements(plays, workspace)
        for engine, other in plays.items():
            if engine != last_engine:
                failures += [f"on the {engine}: {f}" for f in other.failures]
    details: dict[str, Any] = {"session": _json(play.steps), "engine": last_engine}
    if len(plays) == 2:
        details["sessions"] = {engine: _json(other.steps) for engine, other in plays.items()}
    if shared is not None:  # which calls ran for real, which the other engine's run served
        details["maven_calls"] = [call.to_json() for call in shared if call.program == "mvn"]
        details["smoke_calls"] = [call.to_json() for call in shared if call.program != "mvn"]
    verdicts = trick_check.judge(s.tricks, scenario, play.steps) if s.tricks else []
    shown = [v.line() for v in verdicts]
    if verdicts:
        details["tricks"] = [v.__dict__ for v in verdicts]
    if failures or not all(v.ok for v in verdicts):
        headline = _headline(s, failures, verdicts, play.steps)
        expected = (
            tricks_expected(s)
            if verdicts
            else PREDICTIONS_EXPECTED
            if headline.startswith(PREDICTIONS_WRONG)
            else _describe_expected(scenario, asserts, s)
        )
        return CheckResult.failed(
            headline,
            name=title,
            expected=expected,
            found="\n".join([*shown, *failures]),
            output=_output(play.steps),
            details=details,
        )
    if shown:
        details["evidence"] = "\n".join(shown)
    return CheckResult.passed(
        s.pass_message or "every hook outcome as expected", name=title, details=details
    )


PREDICTIONS_WRONG = "the hooks did what this step wants, but"
NO_PREDICTION = "has no prediction: the step asks you to predict"
PREDICTIONS_EXPECTED = "every expect in your file to name the outcome the step really had"
TRICKS_EXPECTED = "every trick's command really runs and the stop after it is blocked"


def tricks_expected(s: SessionParams) -> str:
    """What a tricks check wants, from its own parameters: only what this step asks for (what
    each trick's stop must carry, the sequence after the tricks), nothing another lab's asks."""
    carried = {k: v for t in s.tricks for k, v in (t.get("stop_has") or {}).items()}
    said = ", ".join(f"{key} = {trick_check.as_toml(value)}" for key, value in carried.items())
    wanted = (
        f"every trick's command really runs, and the stop after it has {said} and is blocked"
        if said
        else TRICKS_EXPECTED
    )
    if s.expect_sequence:
        wanted += "; then " + ", then ".join(describe_item(w) for w in s.expect_sequence)
    elif s.final:
        wanted += f"; the last step {s.final}"
    return wanted


def _headline(
    s: SessionParams,
    failures: list[str],
    verdicts: list[trick_check.TrickVerdict],
    steps: list[StepView],
) -> str:
    """The failure in the participant's words: tricks first, then a wrong prediction."""
    if not all(v.ok for v in verdicts):
        return trick_check.headline(verdicts)
    judged = [entry.problems for entry in steps if entry.problems]
    predictions_only = len(judged) == len(failures) and all(
        len(problems) == 1 and problems[0].startswith(PREDICTED) and LET_GO not in problems[0]
        for problems in judged
    )
    if failures and all(NO_PREDICTION in f for f in failures):
        return f"{PREDICTIONS_WRONG} you did not predict the outcome (expect = ...)"
    if failures and predictions_only:
        # The hooks did what the step wants; only the participant's expect was off.
        wrong = len(failures)
        return (
            f"{PREDICTIONS_WRONG} your prediction was wrong"
            if wrong == 1
            else f"{PREDICTIONS_WRONG} {wrong} of your predictions were wrong"
        )
    return s.message or "the hooks did not behave as this step expects"


def _json(steps: list[StepView]) -> list[dict[str, Any]]:
    return [step.to_json() for step in steps]


@dataclass(frozen=True)
class _Plan:
    """What one engine is to play: the session's parameters, its scenario and each step's
    asserts, under the check's title; ``share``: the Maven runs the engines share, if any."""

    params: SessionParams
    scenario: Scenario
    asserts: list[StepAsserts]
    title: str
    engine: str
    share: MavenShare | None = None
    # Who takes part in the share: the engine, or one turn of it (a party never takes its own
    # earlier run, so each turn played apart is a party of its own).
    party: str | None = None


@dataclass
class _Play:
    """One engine's run of the session: each step as shown, and what went wrong."""

    steps: list[StepView]
    failures: list[str]


def _play(ctx: CheckContext, plan: _Plan) -> _Play | CheckResult:
    s, scenario, title, engine = plan.params, plan.scenario, plan.title, plan.engine
    share = plan.share
    label = s.label
    with contextlib.ExitStack() as stack:
        root = ctx.root
        if s.sandbox:
            root = stack.enter_context(sandbox_copy(ctx.root, with_git=not s.without_git))
        elif s.without_git:
            return CheckResult.errored("without_git needs sandbox = true", name=title)
        env: dict[str, str] = {k: str(v) for k, v in s.env.items()}
        if s.hide_programs:
            env["PATH"] = stack.enter_context(path_without(s.hide_programs))
        if share is not None and not _maven_in_background(scenario):
            env = share.environment(plan.party or engine, env)
        transcripts = scratch_mkdtemp("hooklab-transcripts-")
        stack.callback(shutil.rmtree, transcripts, True)
        git_dir = root / ".git"
        auto_approve = scenario.auto_approve or s.auto_approve
        payloads: list[dict[str, Any]] = []  # every event's JSON, as the hooks read it
        try:
            session = open_session(
                engine,
                root,
                transcript_dir=transcripts,
                auto_approve=auto_approve,
                env=env,
                on_payload=payloads.append,
            )
            stack.enter_context(session)
        except HarnessError as exc:
            return CheckResult.errored(f"cannot start a session: {exc}", name=title)
        on = Engine(engine).label
        ctx.on_activity(f"playing a Claude Code session on {on}: {title}")
        steps: list[StepView] = []
        for step, asserted in zip(scenario.steps, plan.asserts, strict=True):
            played = _play_step(
                ctx, session, step, asserted, label, root, payloads, on=on, title=title
            )
            if isinstance(played, CheckResult):
                played.details = {"session": _json(steps), "engine": engine}
                return played
            steps.append(played)
            ctx.on_hook_event(played)
        # Markers live in the sandbox's git directory: judge them before it is removed.
        sequence = _sequence_problems(s.expect_sequence, steps, git_dir)
    return _Play(steps, _session_problems(s, steps, sequence))


def _maven_in_background(scenario: Scenario) -> bool:
    """A session with a background command (it may start Maven, directly or not) does not
    share Maven: the session sees when that run ends (a stop while it runs finds no reports),
    and a restored run would end at another moment than a real one."""
    return any(step.do == StepKind.BASH and step.args.get("background") for step in scenario.steps)


def _session_problems(s: SessionParams, steps: list[StepView], sequence: list[str]) -> list[str]:
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


def _play_step(
    ctx: CheckContext,
    session: ScriptedSession,
    step: ScenarioStep,
    asserted: StepAsserts,
    label: str,
    root: Path,
    payloads: list[dict[str, Any]],
    *,
    on: str,
    title: str,
) -> StepView | CheckResult:
    """One step on the session, judged: its view (an errored result when the engine could not
    play it)."""
    watched = asserted.file_unchanged
    before = None
    if watched is not None and (root / watched).is_file():
        before = (root / watched).read_bytes()
    seen = len(payloads)
    command = str(step.args.get("command", ""))
    # Every command is announced (smoke.sh takes seconds too), so the live view shows what runs
    # and the Maven timer sees the Maven ones.
    runs_command = step.do == StepKind.BASH and bool(command)
    named = named_files(command, root) if runs_command else {}
    if runs_command:
        ctx.on_activity(f"session step {step.number}: {command}")
    try:
        outcome = run_step(session, step).outcome
    except HarnessError as exc:
        return CheckResult.errored(
            f"session step {step.number} could not run on {on}: {exc}", name=title
        )
    if runs_command:
        ctx.on_activity(f"playing a Claude Code session on {on}: {title}")
    yours = not label.startswith("session step")  # inline steps are the lab's, not yours
    problems = _judge(step, asserted, outcome, root, root / ".git", before, yours)
    note = unchanged_note(named, root) if outcome.tool_ran else ""
    if note and problems:
        problems.append(note)  # the cause, next to what went wrong
    return StepView.of(
        step,
        outcome,
        label=f"{label} {step.number}",
        events=payloads[seen:],
        problems=problems,
        root=str(root),
        look_for=asserted.feedback_contains or "",
        session=title if ctx.step.sessions > 1 else "",
        note=note,
    )


IN_PLACE = ("sed", "perl")  # editors whose -i changes the files they name, in place
NAMED_CAP = 1_000_000  # bytes: a file named by an in-place edit is a text file, not a jar


def named_files(command: str, root: Path) -> dict[str, bytes]:
    """The workspace files an in-place edit names (``sed -i '…' docs/x.md``), each with its
    bytes before the command runs: afterwards they tell whether it changed any. Any other
    command: none (nothing is read)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return {}
    if not any(w in IN_PLACE for w in words) or not any(w.startswith("-i") for w in words):
        return {}
    named = {}
    for word in words[1:]:
        path = root / word
        if word.startswith(("-", "/")) or ".." in word or not path.is_file():
            continue
        if path.stat().st_size <= NAMED_CAP:
            named[word] = path.read_bytes()
    return named


def unchanged_note(named: dict[str, bytes], root: Path) -> str:
    """An in-place edit (sed -i, perl -i) that changed none of the files it names: said, since
    its outcome alone (allowed, where a hook reports changes) hides why."""
    if not named or any(
        (root / rel).is_file() and (root / rel).read_bytes() != data for rel, data in named.items()
    ):
        return ""
    files = ", ".join(named)
    return (
        f"the command ran but changed no file: its pattern matched nothing in {files} "
        "(compare it with the line as the file has it)"
    )


Turn = tuple[Scenario, list[StepAsserts], int]


def split_turns(scenario: Scenario, asserts: list[StepAsserts]) -> list[Turn]:
    """The session's opening (everything before the first prompt), then each turn from a
    prompt to the next, as (scenario, assertions, replayed): every turn after the opening
    starts with the opening's session_start steps again, ``replayed`` of them."""
    cuts = [i for i, step in enumerate(scenario.steps) if step.do == StepKind.PROMPT]
    bounds = [0, *[c for c in cuts if c > 0], len(scenario.steps)]
    starts = [i for i in range(bounds[1]) if scenario.steps[i].do == StepKind.SESSION_START]
    turns = []
    for n, (begin, end) in enumerate(itertools.pairwise(bounds)):
        picked = list(range(begin, end)) if n == 0 else [*starts, *range(begin, end)]
        turns.append(
            (
                replace(scenario, steps=tuple(scenario.steps[i] for i in picked)),
                [asserts[i] for i in picked],
                0 if n == 0 else len(starts),
            )
        )
    return turns


def _play_turns_apart(ctx: CheckContext, plan: _Plan) -> _Play | CheckResult:
    """Each turn as its own session from the session start, in its own sandbox, side by side
    (one per core); the steps are then judged as one session, in the scenario's order."""
    s = plan.params
    turns = split_turns(plan.scenario, plan.asserts)
    # What is judged on the whole session is judged below, on the turns put back together.
    part = replace(s, expect_sequence=[], final=None, blocked_stops_at_least=0)
    quiet = replace(ctx, on_hook_event=lambda _entry: None)  # told in order below

    def play_turn(n: int) -> _Play | CheckResult:
        scenario, asserts, _replayed = turns[n]
        party = f"{plan.engine}.turn{n}"
        return _play(
            quiet, replace(plan, params=part, scenario=scenario, asserts=asserts, party=party)
        )

    order = _turn_order(turns) if plan.share is not None else list(range(len(turns)))
    played = dict(zip(order, side_by_side(play_turn, order), strict=True))
    steps: list[StepView] = []
    for n, (_scenario, _asserts, replayed) in enumerate(turns):
        play = played[n]
        if isinstance(play, CheckResult):
            return play
        steps += play.steps[replayed:]  # a replayed session start is told once, in the opening
    for entry in steps:
        ctx.on_hook_event(entry)
    sequence = _sequence_problems(s.expect_sequence, steps, ctx.git_dir())
    return _Play(steps, _session_problems(s, steps, sequence))


def _turn_order(turns: list[Turn]) -> list[int]:
    """The order to start the turns in: the longest first, so the last to finish is a short
    one (the results keep the scenario's order). A turn's Maven runs make it long, a file it
    changes before one longer still (that run compiles). A turn whose Maven work repeats an
    earlier turn's (the same file changes, then the same ./mvnw arguments) is served from
    that run by the share, so it starts last: waiting there, it holds no worker that a real
    run of another turn could use."""
    seen: set[tuple[str, ...]] = set()
    costs: dict[int, float] = {}
    repeats = []
    for n, (scenario, _asserts, _replayed) in enumerate(turns):
        signature = _maven_signature(scenario)
        if signature is not None and signature in seen:
            repeats.append(n)
            continue
        if signature is not None:
            seen.add(signature)
        costs[n] = _turn_cost(scenario)
    first = sorted(costs, key=lambda n: -costs[n])  # stable: equal costs keep their order
    return first + repeats


def _turn_cost(scenario: Scenario) -> float:
    """A rough length of a turn: each foreground ./mvnw call counts 2, 3 once a step of the
    turn has changed a file (that run compiles); a background one 0.5 (the session ends
    without waiting for it); any other step 0."""
    cost = 0.0
    changed = False
    for step in scenario.steps:
        changed = changed or step.do in (StepKind.EDIT, StepKind.WRITE)
        calls = (
            _MVNW_ARGS.findall(str(step.args.get("command", "")))
            if step.do == StepKind.BASH
            else []
        )
        cost += len(calls) * (0.5 if step.args.get("background") else 2 + changed)
    return cost


_MVNW_ARGS = re.compile(r"\./mvnw\b([^|;&>]*)")


def _maven_signature(scenario: Scenario) -> tuple[str, ...] | None:
    """What decides a turn's Maven runs: each step that may change files, with a sensor run
    reduced to its ./mvnw arguments (``| tail`` or ``|| true`` around it change nothing
    Maven sees); None for a turn that runs no Maven or runs it in the background (no share)."""
    if _maven_in_background(scenario):
        return None
    signature = []
    runs_maven = False
    for step in scenario.steps:
        if step.do in (
            StepKind.PROMPT,
            StepKind.STOP,
            StepKind.SESSION_START,
            StepKind.SUBAGENT_STOP,
        ):
            continue
        command = str(step.args.get("command", "")) if step.do == StepKind.BASH else ""
        calls = _MVNW_ARGS.findall(command)
        if calls:
            runs_maven = True
            signature += [f"mvnw {' '.join(args.split())}" for args in calls]
        else:
            signature.append(json.dumps([step.do, step.args], sort_keys=True, default=str))
    return tuple(signature) if runs_maven else None


def _disagreements(plays: dict[str, _Play], workspace: Path) -> list[str]:
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


def _sequence_problems(wanted: list[Any], steps: list[StepView], git_dir: Path) -> list[str]:
    """Each wanted step must match a session step, in order (other steps may come between)."""
    i = 0
    for want in wanted:
        start = i
        while i < len(steps) and not _step_matches(want, steps[i]):
            i += 1
        item = describe_item(want)
        if i == len(steps) and want.get("predicted"):
            # The step is there and did the right thing; only the participant's guess is not.
            bare = {k: v for k, v in want.items() if k != "predicted"}
            hit = next((s for s in steps[start:] if _step_matches(bare, s)), None)
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
            released = [s.label for s in steps if s.let_go]
            if released:
                problem += (
                    f" ({', '.join(released)} went through on stop_hook_active: true: "
                    "a trick without its own prompt shifts every later step)"
                )
            return [problem]
        if want.get("marker_exists") and not (git_dir / want["marker_exists"]).exists():
            return [f"{steps[i].label} left no marker .git/{want['marker_exists']}"]
        i += 1
    return []


_NOUNS: dict[str, str] = {
    StepKind.EDIT: "an edit",
    StepKind.WRITE: "a write",
    StepKind.BASH: "a bash command",
    StepKind.STOP: "a stop",
    StepKind.PROMPT: "a prompt",
    StepKind.SESSION_START: "a session_start",
    StepKind.SUBAGENT_STOP: "a subagent_stop",
}


def describe_item(want: dict[str, Any]) -> str:
    """``{do = "edit", detail_contains = "UC-005", outcome = "blocked"}`` → "an edit
    mentioning 'UC-005' that is blocked": what the session should show, as a person says it."""
    do = want.get("do")
    head = _NOUNS.get(str(do), f"a {do} step") if do else "a step"
    if want.get("detail_contains") is not None:
        head += f" mentioning {want['detail_contains']!r}"
    clauses = []
    if want.get("outcome"):
        clauses.append(f"is {want['outcome']}")
    if want.get("feedback_contains") is not None:
        clauses.append(f"tells Claude {want['feedback_contains']!r}")
    if want.get("message_contains") is not None:
        clauses.append(f"says {want['message_contains']!r}")
    if want.get("marker_exists"):
        clauses.append(f"leaves the marker .git/{want['marker_exists']}")
    if want.get("predicted"):
        clauses.append("has your prediction (an expect line)")
    return head + (" that " + " and ".join(clauses) if clauses else "")


def _step_matches(want: dict[str, Any], step: StepView) -> bool:
    return (
        (want.get("do") is None or want["do"] == step.do)
        and (want.get("outcome") is None or want["outcome"] == step.outcome)
        and (want.get("feedback_contains") is None or want["feedback_contains"] in step.feedback)
        and (want.get("message_contains") is None or want["message_contains"] in step.said)
        and (want.get("detail_contains") is None or want["detail_contains"] in step.detail)
        and (not want.get("predicted") or step.expect is not None)
    )


def _describe_expected(scenario: Scenario, asserts: list[StepAsserts], s: SessionParams) -> str:
    label = s.label
    lines = []
    for step, extra in zip(scenario.steps, asserts, strict=True):
        bits: list[str] = [step.expect] if step.expect else []
        bits += extra.given()
        if bits:
            detail = (
                step.args.get("command")
                or step.args.get("file")
                or step.args.get("agent_type")
                or ""
            )
            shown = f" {' '.join(str(detail).split())}" if detail else ""
            lines.append(f"{label} {step.number} ({step.do}{shown}): {', '.join(bits)}")
    if s.final:
        lines.append(f"last step: {s.final}")
    return "\n".join(lines)


def _output(steps: list[StepView]) -> str:
    """The hook side of failing steps: event JSON, exit codes, stderr."""
    chunks = []
    for entry in steps:
        if not entry.problems:
            continue
        chunks.append(f"--- {entry.label} {entry.do} -> {entry.outcome}")
        for event in entry.events:
            chunks.append("event: " + json.dumps(event)[:800])
        for hook in entry.hooks:
            chunks.append(
                f"hook {hook.command}: exit {hook.exit_code}"
                + (" (timed out)" if hook.timed_out else "")
            )
            # What the step's row shows already (the hook's message to Claude) is not repeated.
            if hook.stderr.strip() and hook.stderr.strip() not in entry.said:
                chunks.append("stderr: " + hook.stderr.strip()[:800])
    return "\n".join(chunks)


def session_engines(ctx: CheckContext, s: SessionParams) -> list[str]:
    """The engines a session plays on: the command line's choice (``both``: the emulator,
    then the real client, compared step by step), else the lab's (``auto`` takes the real
    client when it is installed), else the context's default."""
    wanted = ctx.engine if ctx.engine_forced or not s.engine else s.engine
    if wanted == BOTH:
        return [EMULATOR, resolve_engine_name(CLAUDE_CODE)]
    return [resolve_engine_name(wanted)]


def _assets(p: SessionParams) -> list[str]:
    return [p.scenario] if p.scenario and p.scenario_in == "lab" else []


KIND = Kind(
    name="hook_session",
    summary="a scripted Claude Code session against the workspace's hooks, outcome per step",
    params=(Field("kind", str, required=True), *fields_of(SessionParams)),
    typed=SessionParams,
    call=run,
    slow=lambda p: True,
    assets=_assets,
    rules=_validate,
    tables=_tables,
)
