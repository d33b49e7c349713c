"""``hook_session``: a scripted Claude Code session through harness/claude against the
workspace's real hooks, with an expected outcome per step.

The session's tools act for real, so by default it runs on a throwaway copy of the workspace
(``sandbox``): checking never changes the participant's files or hook state.

This module holds the check's parameters and its result; session_play.py plays the session on
each engine and session_judge.py judges its steps (each a ``Moment`` to the expectations).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.claude.engines import (
    CLAUDE_CODE,
    EMULATOR,
    ENGINE_CHOICES,
)
from harness.claude.engines import resolve_engine as resolve_engine_name
from harness.claude.scenario import (
    Scenario,
    load_scenario,
    parse_steps,
)
from harness.claude.settings import load_settings
from harness.claude.vocabulary import BOTH, OUTCOMES, STEP_KINDS
from harness.engine.check_names import check_name
from harness.engine.checks import tricks as trick_check
from harness.engine.checks.local_settings import hooks_elsewhere_that_held
from harness.engine.checks.made_up_name import with_made_up_name
from harness.engine.checks.session_judge import (
    ASSERTION_FIELDS,
    LET_GO,
    NO_PREDICTION,
    PREDICTED,
    StepAsserts,
    disagreements,
)
from harness.engine.checks.session_play import Play, play_engines, steps_json
from harness.engine.checks.settings_env import env_cause
from harness.engine.context import CheckContext
from harness.engine.kinds import Worded, check_kind
from harness.engine.moment import describe
from harness.engine.stepview import StepView
from harness.errors import ConfigError, HarnessError
from harness.maven.share import Call
from harness.results import CheckResult
from harness.schema import Field, check_table, item_path, param
from harness.userfiles import json_fix

KIND_NAME = "hook_session"
# The keys of one expect_sequence item: the session step it stands for, matched in order.
SEQUENCE_FIELDS = (
    Field("do", str, choices=STEP_KINDS, doc="the step's kind"),
    Field("outcome", str, choices=OUTCOMES, doc="the outcome the step had"),
    Field("feedback_contains", str, doc="what Claude is shown contains this"),
    Field("message_contains", str, doc="anything said (feedback, system or user message)"),
    Field("detail_contains", str, doc="the step's detail (file, command, agent) contains this"),
    Field("marker_exists", str, inside="the git directory", doc="hook state in .git exists"),
    Field(
        "sensor_run",
        bool,
        doc="a Bash call whose command itself runs every sensor (./mvnw … test "
        "-Dgroups=sensor first, not echoed, not after another command)",
    ),
    Field(
        "let_go",
        bool,
        doc="a stop that went through on stop_hook_active: true (false: the hook itself "
        "allowed it, on the proof it looks for)",
    ),
    Field(
        "predicted",
        bool,
        doc="the participant's step carries its own expect (for a step that asks for one)",
    ),
)


def parse_inline(raw: object, path: object, where: str) -> tuple[Scenario, list[StepAsserts]]:
    """A check's inline steps (``where``: the check's field path): the scenario, and each
    step's assertions. Validated by the scenario schema with the assertions on top."""
    steps, extras = parse_steps(raw, path, f"{where}.steps", extra=ASSERTION_FIELDS)
    return Scenario(Path(str(path)), steps), [StepAsserts(**extra) for extra in extras]


@dataclass(frozen=True, kw_only=True)
class SessionParams(Worded):
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
    files_after: dict[str, Any] = param(
        default={},
        doc="{path = text}: each workspace file, in the session's copy when it ends (with "
        "turns_apart: the last turn's), contains the text (a command that only mentions a "
        "file, or changes nothing, fails); or {path = { contains, means, why }}: the failure "
        "then names what the file lacks (means) and why it matters (why)",
    )
    blocked_stops_at_least: int = param(
        default=0, minimum=0, doc="the session must contain at least this many blocked stops"
    )
    causes: list[dict[str, Any]] = param(
        default=[],
        doc="tables { said, message }: when what a failing step's hooks said contains said, "
        "message is the failure's headline (the real cause, e.g. a hold for smoke.sh)",
    )

    @property
    def label(self) -> str:
        """How a step is named: the steps of a scenario file always carry the file's name, so
        they are never confused with the items of the expected sequence."""
        return f"{Path(self.scenario).name} step" if self.scenario else "session step"


def _validate(p: SessionParams) -> str | None:
    if (p.steps is None) == (p.scenario is None):
        return "give exactly one of steps (inline) or scenario (a scenario file)"
    for i, cause in enumerate(p.causes):
        if not isinstance(cause, dict) or set(cause) != {"said", "message"}:
            return f'causes[{i + 1}] must be a table {{ said = "...", message = "..." }}'
    if p.tricks:
        problem = trick_check.validate(p.tricks)
        if problem:
            return problem
    if any(not _wanted_text(v) for v in p.files_after.values()):
        return (
            "files_after maps a workspace file to the text it must contain: a string, or a "
            'table { contains = "...", means = "...", why = "..." }'
        )
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


def _wanted_text(value: object) -> bool:
    """A files_after value: a text, or a table of a text and the words that name it."""
    if isinstance(value, str):
        return bool(value)
    return (
        isinstance(value, dict)
        and set(value) == {"contains", "means", "why"}
        and all(isinstance(v, str) and v for v in value.values())
    )


def _tables(p: SessionParams, path: object, where: str) -> None:
    """The inline steps and the expect_sequence items, each field against its schema."""
    if p.steps is not None:
        parse_inline(p.steps, path, where)
    for i, want in enumerate(p.expect_sequence):
        here = item_path(f"{where}.expect_sequence", i)
        check_table(want, SEQUENCE_FIELDS, path=path, where=here)


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
                s.scenario, name=_title(s), expected=f"a scenario file {s.scenario}"
            )
        )
    try:
        scenario = load_scenario(scenario_path)
    except ConfigError as exc:
        if not theirs:
            raise
        raise _NotYet(
            CheckResult.failed(
                str(exc), name=_title(s), expected="a valid scenario file", found=exc.problem
            )
        ) from None
    return scenario, [StepAsserts() for _ in scenario.steps]


def _title(s: SessionParams) -> str:
    """The check's name on the screen: its title, its scenario file, else words."""
    return check_name(KIND_NAME, {"title": s.title, "scenario": s.scenario})


class _NotYet(Exception):
    """The participant's scenario file is not there or not valid yet: the check fails."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__(result.message)
        self.result = result


def run(ctx: CheckContext, s: SessionParams) -> CheckResult:
    s = with_made_up_name(s, ctx.root)  # {random}: a probe no exemption knows (Lab 08)
    try:
        scenario, asserts = _script(ctx, s)
    except _NotYet as not_yet:
        return not_yet.result
    except HarnessError as exc:
        return CheckResult.errored(f"the lab's session script is broken: {exc}", name=_title(s))
    title = _title(s)
    broken = _settings_broken(ctx, title)
    if broken is not None:
        return broken
    try:
        engines = session_engines(ctx, s)
    except HarnessError as exc:
        return CheckResult.errored(f"cannot start a session: {exc}", name=title)
    played = play_engines(ctx, s, scenario, asserts, title, engines)
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


def _verdict(
    s: SessionParams,
    scenario: Scenario,
    asserts: list[StepAsserts],
    title: str,
    plays: dict[str, Play],
    workspace: Path,
    shared: list[Call] | None = None,
) -> CheckResult:
    """The result: the last engine's play, with the other's failures and where they differ."""
    last_engine = list(plays)[-1]
    play = plays[last_engine]
    failures = list(play.failures)
    if len(plays) == 2:  # the differential: both engines must tell the same story
        failures += disagreements(plays, workspace)
        for engine, other in plays.items():
            if engine != last_engine:
                failures += [f"on the {engine}: {f}" for f in other.failures]
    details: dict[str, Any] = {"session": steps_json(play.steps), "engine": last_engine}
    if len(plays) == 2:
        details["sessions"] = {engine: steps_json(other.steps) for engine, other in plays.items()}
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
        # A hook of settings.local.json or a plugin held it: say where, as settings.json has
        # none, and that it goes there (walk h, walk n).
        elsewhere = hooks_elsewhere_that_held(workspace, play.steps)
        if elsewhere:
            name, where, _ = elsewhere[0]
            headline = f"{headline}; the hook that held it is in {name}"
            details["fix"] = f"take the hook out of {name} ({where}), or change it there"
        # The settings' "env" took a program the hooks use off their PATH (walk-m G3).
        env = env_cause(workspace)
        if env is not None and env.lost:
            headline = f"{headline}; {env.said()}"
            details["fix"] = env.fix()
        return CheckResult.failed(
            headline,
            name=title,
            expected=expected,
            found="\n".join([*shown, *failures, *(line for _, _, line in elsewhere)]),
            output=_output(play.steps),
            details=details,
        )
    if shown:
        details["evidence"] = "\n".join(shown)
    return CheckResult.passed(
        s.pass_message or "every hook outcome as expected", name=title, details=details
    )


PREDICTIONS_WRONG = "the hooks did what this step wants, but"
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
        wanted += "; then " + ", then ".join(describe(w) for w in s.expect_sequence)
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
    held_by = [entry.said for entry in steps if entry.problems]
    for cause in s.causes:  # the real cause, when the hooks named it
        if any(str(cause["said"]) in said for said in held_by):
            return str(cause["message"])
    return s.message or "the hooks did not behave as this step expects"


def _describe_expected(scenario: Scenario, asserts: list[StepAsserts], s: SessionParams) -> str:
    if s.scenario_in == "workspace":
        return _what_the_step_wants(scenario, s)
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


def _what_the_step_wants(scenario: Scenario, s: SessionParams) -> str:
    """What a check of the person's own scenario expects: the step's wants, never the file's
    steps (walk, Lab 04 step 3: ``expected: sed.toml step 2 (bash sed …): blocked`` was the
    person's own step and guess, shown as if the check wanted it)."""
    lines = [describe(want) for want in s.expect_sequence]
    lines += [
        f"when the session ends, {rel} contains {text!r}" for rel, text in s.files_after.items()
    ]
    if s.final:
        lines.append(f"the last step {s.final}")
    if any(step.expect for step in scenario.steps):
        lines.append("each expect line in your file names the outcome its step had")
    return "\n".join(lines) or "the session this step asks for"


# A plugin's folder in the copy a check ran in: /tmp/…/hooklab-sandbox-…/ws/.claude/plugins/
_IN_A_COPY = re.compile(r"/\S*/hooklab-sandbox-[^/]+/ws/(\.claude/plugins/)")


def _output(steps: list[StepView]) -> str:
    """The hook side of failing steps: event JSON, exit codes, stderr. A plugin hook's
    command, filled in with the folder of the copy the check ran in, is named from the
    workspace (.claude/plugins/…), as the person finds it."""
    chunks = []
    for entry in steps:
        if not entry.problems:
            continue
        chunks.append(f"--- {entry.label} {entry.do} -> {entry.outcome}")
        for event in entry.events:
            chunks.append("event: " + json.dumps(event)[:800])
        for hook in entry.hooks:
            command = _IN_A_COPY.sub(r"\1", hook.command)
            chunks.append(
                f"hook {command}: exit {hook.exit_code}"
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


KIND = check_kind(
    KIND_NAME,
    "a scripted Claude Code session against the workspace's hooks, outcome per step",
    run,
    slow=lambda p: True,
    assets=_assets,
    rules=_validate,
    tables=_tables,
)
