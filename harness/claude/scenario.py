"""Scenario files: a session as data, one ``[[step]]`` table per thing that happens.

    [session]                 # optional
    auto_approve = false      # say yes when a hook or rule asks

    [[step]]
    do = "edit"               # session_start | prompt | edit | write | bash | tool
                              # | subagent_stop | stop
    file = "docs/use_cases/UC-005-add-visit.md"
    old = "**Status:** Approved"
    new = "**Status:** Done"
    expect = "blocked"        # optional: allowed | blocked | asked | stopped | error
    judge_ok = false          # optional: what the model answers a prompt/agent hook here
    judge_reason = "no test output in the transcript"

Paths are relative to the project root and stay inside it. The fields are declared with
``harness.schema`` (as lab manifests are): errors name the file, the field path
(``step[2].file``, items counted from 1 as runs number steps) and the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.engines import ScriptedSession
from harness.claude.events import SESSION_START_SOURCES
from harness.claude.judge import NO_VERDICT_GIVEN, Judgement
from harness.claude.scripted import StepOutcome
from harness.claude.tools import MAX_BASH_TIMEOUT, is_mcp_tool
from harness.claude.vocabulary import OUTCOMES, Outcome, StepKind
from harness.errors import ConfigError
from harness.schema import Field, check_table, found, item_path
from harness.userfiles import read_toml

_PROJECT = "the project"
# The fields of each action (do = ...), as the session's methods take them.
ACTIONS: dict[str, tuple[Field, ...]] = {
    StepKind.SESSION_START: (
        Field("source", str, choices=SESSION_START_SOURCES, doc="why the session starts"),
    ),
    StepKind.PROMPT: (Field("text", str, required=True, doc="what the user types"),),
    StepKind.EDIT: (
        Field("file", str, required=True, inside=_PROJECT, doc="the file, from the project root"),
        Field("old", str, required=True, doc="the text to replace"),
        Field("new", str, required=True, doc="its replacement"),
        Field("replace_all", bool, doc="replace every occurrence"),
    ),
    StepKind.WRITE: (
        Field("file", str, required=True, inside=_PROJECT, doc="the file, from the project root"),
        Field("content", str, required=True, doc="the whole new content"),
    ),
    StepKind.BASH: (
        Field("command", str, required=True, doc="run with bash -c in the project"),
        Field("background", bool, doc="run in the background"),
        Field(
            "timeout",
            float,
            positive=True,
            maximum=MAX_BASH_TIMEOUT,
            doc="seconds before the command is cut off (Claude Code allows up to 600)",
        ),
        Field("description", str, doc="what the command is for"),
    ),
    StepKind.TOOL: (
        Field("tool", str, required=True, doc="any other tool, e.g. Read (as the model names it)"),
        Field("input", dict, default={}, doc="its input, as the model sends it"),
        Field(
            "result",
            str,
            doc="what the tool returns (WebSearch, an mcp__server__tool): nothing is fetched",
        ),
    ),
    StepKind.SUBAGENT_STOP: (
        Field("agent_type", str, required=True, doc="the subagent, e.g. reviewer"),
        Field("prompt", str, required=True, doc="the subagent's assignment"),
        Field("last_message", str, required=True, doc="what it answers when it stops"),
        Field("stop_reason", str, doc="how its last turn ended (end_turn)"),
        Field("agent_id", str, doc="the agent's id (the engine picks one when not given)"),
    ),
    StepKind.STOP: (Field("last_message", str, doc="what Claude says as it stops"),),
}
STEP_FIELDS = (
    Field("do", str, required=True, choices=tuple(ACTIONS), doc="what happens"),
    Field("expect", str, choices=OUTCOMES, doc="the outcome the step must have"),
    Field("name", str, default="", doc="a name for the step in results"),
    Field(
        "judge_ok",
        bool,
        doc="what the model answers a prompt or agent hook in this step: true lets it go",
    ),
    Field("judge_reason", str, doc="the reason the model gives with that answer"),
)
SCENARIO_FIELDS = (
    Field(
        "step",
        list,
        required=True,
        item_type=dict,
        doc="the steps, as [[step]] tables",
        # An empty file (Lab 03's tricks.toml before the first trick) said "step: missing
        # required field" / "add step (an array of tables, required)": a parser's words.
        missing="the file has no [[step]] yet: there is no step to play",
        fix="write each step as a [[step]] table; the first, for example:\n"
        '    [[step]]\n    do = "session_start"',
    ),
    Field("session", dict, default={}, doc="[session] settings: auto_approve"),
)
SESSION_FIELDS = (
    Field("auto_approve", bool, default=False, doc="the simulated user says yes when asked"),
)


@dataclass(frozen=True)
class ScenarioStep:
    number: int
    do: str
    args: dict[str, Any]
    expect: Outcome | None = None
    name: str = ""
    judgement: Judgement | None = None  # the model's answer to a prompt or agent hook

    @property
    def where(self) -> str:
        """The step's field path in a scenario file: ``step[7]`` is step 7, as runs say."""
        return f"step[{self.number}]"


@dataclass(frozen=True)
class Scenario:
    path: Path
    steps: tuple[ScenarioStep, ...]
    auto_approve: bool = False


@dataclass
class StepReport:
    """One step's outcome next to what the scenario expected."""

    step: ScenarioStep
    outcome: StepOutcome
    expect_met: bool | None = field(init=False)

    def __post_init__(self) -> None:
        self.expect_met = (
            None if self.step.expect is None else self.outcome.outcome == self.step.expect
        )

    def to_json(self) -> dict[str, Any]:
        data = self.outcome.to_json()
        data["name"] = self.step.name
        data["expect"] = self.step.expect
        data["expect_met"] = self.expect_met
        return data


def parse_steps(
    raw: object, path: object, where: str, *, extra: Sequence[Field] = ()
) -> tuple[tuple[ScenarioStep, ...], tuple[dict[str, Any], ...]]:
    """The steps of a scenario file (``where`` = ``step``) or of a check (``…steps``), and
    for each the values of the ``extra`` fields it may carry on top (a check's assertions)."""
    if not isinstance(raw, list) or not raw:
        raise ConfigError(path, where, "no steps", fix='add [[step]] tables with do = "..."')
    steps: list[ScenarioStep] = []
    extras: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        here = item_path(where, i)
        do = item.get("do") if isinstance(item, dict) else None
        if not isinstance(item, dict):
            raise ConfigError(
                path, here, f"expected a step table, found {found(item)}", fix='do = "..."'
            )
        if do is None:
            raise ConfigError(
                path, f"{here}.do", "missing required field", fix=STEP_FIELDS[0].describe()
            )
        if not isinstance(do, str) or do not in ACTIONS:
            check_table({"do": do}, STEP_FIELDS[:1], path=path, where=here)  # names the fix
            raise AssertionError("unreachable: the schema refuses an unknown action")
        fields = (*STEP_FIELDS, *ACTIONS[do], *extra)
        checked = check_table(item, fields, path=path, where=here, what="step table")
        args = {f.name: checked[f.name] for f in ACTIONS[do] if f.name in item}
        _check_result(args, path, here)
        extras.append({f.name: checked[f.name] for f in extra if f.name in item})
        expect = checked["expect"]
        outcome = None if expect is None else Outcome(expect)
        judgement = None
        if checked["judge_ok"] is not None or checked["judge_reason"] is not None:
            ok = checked["judge_ok"] is not False
            judgement = Judgement(ok, checked["judge_reason"] or NO_VERDICT_GIVEN)
        steps.append(ScenarioStep(i + 1, do, args, outcome, checked["name"], judgement))
    return tuple(steps), tuple(extras)


def _check_result(args: dict[str, Any], path: object, here: str) -> None:
    """A ``result`` only where it stands in for the tool: WebSearch and MCP tools. Read reads
    the file; WebFetch fails offline on the client before it fetches, whatever is given."""
    tool = args.get(StepKind.TOOL)
    if "result" not in args or tool is None or tool == "WebSearch" or is_mcp_tool(str(tool)):
        return
    raise ConfigError(
        path,
        f"{here}.result",
        f"{tool} answers for itself: a result stands in only for WebSearch and MCP tools"
        + (" (WebFetch fails offline, as the client's does)" if tool == "WebFetch" else ""),
        fix="remove result",
    )


def parse_scenario(data: dict[str, Any], path: Path) -> Scenario:
    top = check_table(data, SCENARIO_FIELDS, path=path, where="", what="scenario")
    session = check_table(top["session"], SESSION_FIELDS, path=path, where="session")
    steps, _ = parse_steps(top["step"], path, "step")
    return Scenario(path, steps, session["auto_approve"])


def load_scenario(path: Path) -> Scenario:
    return parse_scenario(read_toml(path), path)


def _action(session: ScriptedSession, step: ScenarioStep) -> Callable[[], StepOutcome]:
    a = step.args
    actions: dict[str, Callable[[], StepOutcome]] = {
        StepKind.SESSION_START: lambda: session.session_start(a.get("source", "startup")),
        StepKind.PROMPT: lambda: session.prompt(a["text"]),
        StepKind.EDIT: lambda: session.edit(
            a["file"], a["old"], a["new"], a.get("replace_all", False)
        ),
        StepKind.WRITE: lambda: session.write(a["file"], a["content"]),
        StepKind.BASH: lambda: session.bash(
            a["command"],
            background=a.get("background", False),
            timeout=a.get("timeout"),
            description=a.get("description", ""),
        ),
        StepKind.TOOL: lambda: session.tool(a[StepKind.TOOL], a.get("input", {}), a.get("result")),
        StepKind.SUBAGENT_STOP: lambda: session.subagent_stop(
            a["agent_type"],
            a["prompt"],
            a["last_message"],
            a.get("stop_reason", "end_turn"),
            a.get("agent_id"),
        ),
        StepKind.STOP: lambda: session.stop(a.get("last_message", "")),
    }
    return actions[step.do]


def run_step(session: ScriptedSession, step: ScenarioStep) -> StepReport:
    session.judgement = step.judgement or Judgement()
    return StepReport(step, _action(session, step)())


def tools_called(steps: Sequence[ScenarioStep]) -> set[str]:
    """The tools the ``tool`` steps call: a session is offered the MCP ones before it starts
    (``offer_tools``), as the client lists its tools once, when it starts."""
    return {str(s.args[StepKind.TOOL]) for s in steps if s.do == StepKind.TOOL}


def run_scenario(scenario: Scenario, session: ScriptedSession) -> Iterator[StepReport]:
    """Run the steps in order, yielding each report as soon as the step is done."""
    session.offer_tools(tools_called(scenario.steps))
    for step in scenario.steps:
        yield run_step(session, step)
