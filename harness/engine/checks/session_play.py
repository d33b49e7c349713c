"""How a ``hook_session`` is played: on each engine (side by side on sandboxes of their own),
step by step, or turn by turn apart, the Maven runs shared where they repeat; each step
judged as it is played (session_judge.py)."""

from __future__ import annotations

import contextlib
import difflib
import itertools
import json
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.claude.engines import CLAUDE_CODE, ScriptedSession, open_session, resolve_engine
from harness.claude.scenario import Scenario, ScenarioStep, run_step
from harness.claude.session_home import client_layout, session_home
from harness.claude.vocabulary import Engine, StepKind
from harness.engine.checks import build_output
from harness.engine.checks.session_judge import (
    StepAsserts,
    judge_step,
    sequence_problems,
    session_problems,
)
from harness.engine.context import CheckContext
from harness.engine.parallel import side_by_side
from harness.engine.stepview import StepView
from harness.engine.throwaway import path_without, sandbox_copy
from harness.errors import HarnessError
from harness.maven.share import Call, MavenShare, maven_share
from harness.results import CheckResult

if TYPE_CHECKING:
    from harness.claude.scripted import StepOutcome
    from harness.engine.checks.hook_session import SessionParams


def play_engines(
    ctx: CheckContext,
    s: SessionParams,
    scenario: Scenario,
    asserts: list[StepAsserts],
    title: str,
    engines: list[str],
) -> tuple[dict[str, Play], list[Call] | None] | CheckResult:
    """The session on each engine (the first to fail to play ends it), its steps told; and
    the Maven calls the two engines shared (None: they shared none)."""
    plays: dict[str, Play] = {}
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

        def play_on(engine: str) -> Play | CheckResult:
            plan = Plan(s, scenario, asserts, title, engine, share)
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


def steps_json(steps: list[StepView]) -> list[dict[str, Any]]:
    return [step.to_json() for step in steps]


@dataclass(frozen=True)
class Plan:
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
class Play:
    """One engine's run of the session: each step as shown, and what went wrong."""

    steps: list[StepView]
    failures: list[str]
    # what the session's copy held on the tests' class path that is not the project's
    stray: list[str] = field(default_factory=list)
    # what the session's copy lacked when it ended (files_after)
    left: list[str] = field(default_factory=list)


def _play(ctx: CheckContext, plan: Plan) -> Play | CheckResult:
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
        # The transcript where the client keeps one, under the HOME the hooks see (walk-q).
        home = stack.enter_context(session_home())
        real_client = resolve_engine(engine) == CLAUDE_CODE
        layout = client_layout(home, root, real_client=real_client, confinement=None)
        env = {**layout.get("env", {}), **env}
        git_dir = root / ".git"
        auto_approve = scenario.auto_approve or s.auto_approve
        payloads: list[dict[str, Any]] = []  # every event's JSON, as the hooks read it
        try:
            session = open_session(
                engine,
                root,
                transcript_dir=layout["transcript_dir"],
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
                played.details = {"session": steps_json(steps), "engine": engine}
                return played
            steps.append(played)
            ctx.on_hook_event(played)
        # Markers live in the sandbox's git directory: judge them before it is removed.
        sequence = sequence_problems(s.expect_sequence, steps, git_dir)
        left = files_after_problems(s.files_after, root)
        fixture = ctx.workspace.fixture.dir
        stray = build_output.not_the_projects(root, fixture)
    sequence += left + build_output.problems(stray, fixture)
    return Play(steps, session_problems(s, steps, sequence), stray, left)


def files_after_problems(wanted: dict[str, Any], root: Path) -> list[str]:
    """What the session's copy lacks when it ends: a command that only names a file (``echo
    UC-002``) or changes nothing is caught here, whatever a hook said about it."""
    problems = []
    for rel, value in wanted.items():
        path = root / rel
        text = value["contains"] if isinstance(value, dict) else str(value)
        if not path.is_file():
            problems.append(f"when the session ended, {rel} was not there")
        elif text not in path.read_text(errors="replace"):
            problems.append(
                f"when the session ended, {rel} did not have {value['means']}: {value['why']}"
                if isinstance(value, dict)
                else f"when the session ended, {rel} did not contain {text!r}: no step of the "
                "session changed it so"
            )
    return problems


def _maven_in_background(scenario: Scenario) -> bool:
    """A session with a background command (it may start Maven, directly or not) does not
    share Maven: the session sees when that run ends (a stop while it runs finds no reports),
    and a restored run would end at another moment than a real one."""
    return any(step.do == StepKind.BASH and step.args.get("background") for step in scenario.steps)


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
    named = named_files(command, root) if runs_command else None
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
    problems = judge_step(step, asserted, outcome, root, root / ".git", before, yours)
    note = unchanged_note(named, root) if outcome.tool_ran else _escaped_line_end(step, outcome)
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
SCRIPT_NEXT = ("-e", "--expression", "-f", "--file")  # the option whose next word is the script


@dataclass(frozen=True)
class NamedEdit:
    """What a sed or perl command names: whether it edits in place (-i), the workspace files
    it names with their bytes before it runs, and the names that are no file there."""

    program: str
    in_place: bool
    files: dict[str, bytes]
    missing: tuple[str, ...]


def _is_script_option(word: str) -> bool:
    """-e, -ne, -pe: the script is the next word (not -ie: that is -i with the suffix "e")."""
    short = word[:1] == "-" and word[1:2] not in ("", "-")
    return word in SCRIPT_NEXT or (short and word.endswith("e") and "i" not in word)


def named_files(command: str, root: Path) -> NamedEdit | None:
    """The workspace files a sed or perl command names (``sed -i '…' docs/x.md``), each with
    its bytes before the command runs: afterwards they tell whether it changed any. Any other
    command: None (nothing is read)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    at = next((i for i, w in enumerate(words) if w in IN_PLACE), None)
    if at is None:
        return None
    in_place, script, operands = False, False, []
    rest = iter(words[at + 1 :])
    for word in rest:
        if word in ("&&", "||", "|", ";") or word.endswith(";"):
            break
        if word.startswith("-") and len(word) > 1:
            in_place |= word.startswith("--in-place") or (word[1] != "-" and "i" in word)
            if _is_script_option(word):
                script = next(rest, "") != "" or script
            continue
        if not script:
            script = True  # the first word that is no option: the script
            continue
        operands.append(word)
    files, missing = {}, []
    for word in operands:
        path = root / word
        if word.startswith("/") or ".." in word:
            continue
        if not path.exists():
            missing.append(word)
        elif path.is_file() and path.stat().st_size <= NAMED_CAP:
            files[word] = path.read_bytes()
    return NamedEdit(words[at], in_place, files, tuple(missing))


def _close_name(rel: str, root: Path) -> str:
    """The file beside where ``rel`` points whose name is nearest to it ("" for none)."""
    folder = (root / rel).parent
    if not folder.is_dir():
        return ""
    names = [p.name for p in folder.iterdir() if p.is_file()]
    close = difflib.get_close_matches(Path(rel).name, names, n=1, cutoff=0.6)
    return str(Path(rel).parent / close[0]) if close else ""


def _escaped_line_end(step: ScenarioStep, outcome: StepOutcome) -> str:
    """Why an edit's old text was not found when it holds a backslash and an n (walk-r: a
    TOML literal string '…\\n' keeps both characters; the file has a line end there)."""
    old = str(step.args.get("old", ""))
    if step.do != StepKind.EDIT or "\\n" not in old or "not found" not in outcome.feedback:
        return ""
    return (
        "the old text holds \\n as two characters, a backslash and an n: a TOML literal "
        "string ('…') keeps them so; leave the line end out, or write the text in a basic "
        'string ("…"), where \\n is a line end'
    )


def unchanged_note(named: NamedEdit | None, root: Path) -> str:
    """A sed or perl command that changed none of the files it names, and why: a name that is
    no file, no -i (it prints the result and changes nothing), or a pattern that matched
    nothing. Said, since its outcome alone (allowed, where a hook reports changes) hides why."""
    if named is None or any(
        (root / rel).is_file() and (root / rel).read_bytes() != data
        for rel, data in named.files.items()
    ):
        return ""
    said = "the command ran but changed no file: "
    if named.missing:
        rel = named.missing[0]
        close = _close_name(rel, root)
        return said + f"{rel} does not exist" + (f" (did you mean {close}?)" if close else "")
    if not named.files:
        return ""
    files = ", ".join(named.files)
    if not named.in_place:
        return said + (
            f"{named.program} without -i prints the changed text and leaves {files} as it was "
            f"(`{named.program} -i` changes the file in place)"
        )
    return said + (
        f"its pattern matched nothing in {files} (compare it with the line as the file has it)"
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


def _play_turns_apart(ctx: CheckContext, plan: Plan) -> Play | CheckResult:
    """Each turn as its own session from the session start, in its own sandbox, side by side
    (one per core); the steps are then judged as one session, in the scenario's order."""
    s = plan.params
    turns = split_turns(plan.scenario, plan.asserts)
    # What is judged on the whole session is judged below, on the turns put back together.
    part = replace(s, expect_sequence=[], final=None, blocked_stops_at_least=0, files_after={})
    quiet = replace(ctx, on_hook_event=lambda _entry: None)  # told in order below

    def play_turn(n: int) -> Play | CheckResult:
        scenario, asserts, _replayed = turns[n]
        party = f"{plan.engine}.turn{n}"
        # The files the session leaves are those of its last turn: it ends the session.
        last = replace(part, files_after=s.files_after) if n == len(turns) - 1 else part
        return _play(
            quiet, replace(plan, params=last, scenario=scenario, asserts=asserts, party=party)
        )

    order = _turn_order(turns) if plan.share is not None else list(range(len(turns)))
    played = dict(zip(order, side_by_side(play_turn, order), strict=True))
    steps: list[StepView] = []
    stray: list[str] = []
    for n, (_scenario, _asserts, replayed) in enumerate(turns):
        play = played[n]
        if isinstance(play, CheckResult):
            return play
        steps += play.steps[replayed:]  # a replayed session start is told once, in the opening
        stray += [rel for rel in play.stray if rel not in stray]
    for entry in steps:
        ctx.on_hook_event(entry)
    sequence = sequence_problems(s.expect_sequence, steps, ctx.git_dir())
    last = played[len(turns) - 1]
    sequence += last.left if isinstance(last, Play) else []
    sequence += build_output.problems(stray, ctx.workspace.fixture.dir)
    return Play(steps, session_problems(s, steps, sequence))


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
