"""Scenario files: a session as data, one ``[[step]]`` table per thing that happens.

    [session]                 # optional
    auto_approve = false      # say yes when a hook or rule asks

    [[step]]
    do = "edit"               # session_start | prompt | edit | write | bash | subagent_stop | stop
    file = "docs/use_cases/UC-005-add-visit.md"
    old = "**Status:** Approved"
    new = "**Status:** Done"
    expect = "blocked"        # optional: allowed | blocked | asked | stopped | error

Paths are relative to the project root and stay inside it. Errors name the file, the step and
the field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.engines import ScriptedSession
from harness.claude.events import SESSION_START_SOURCES
from harness.claude.session import OUTCOMES, StepOutcome
from harness.claude.tools import MAX_BASH_TIMEOUT
from harness.errors import ConfigError
from harness.paths import escape_problem
from harness.userfiles import read_toml

# do -> (required fields with types, optional fields with types)
_FIELDS: dict[str, tuple[dict[str, type], dict[str, type]]] = {
    "session_start": ({}, {"source": str}),
    "prompt": ({"text": str}, {}),
    "edit": ({"file": str, "old": str, "new": str}, {"replace_all": bool}),
    "write": ({"file": str, "content": str}, {}),
    "bash": ({"command": str}, {"background": bool, "timeout": float, "description": str}),
    "subagent_stop": (
        {"agent_type": str, "prompt": str, "last_message": str},
        {"stop_reason": str, "agent_id": str},
    ),
    "stop": ({}, {"last_message": str}),
}
_COMMON = {"do", "expect", "name"}
_TYPE_NAMES = {str: "a string", bool: "true or false", float: "a number"}


@dataclass(frozen=True)
class ScenarioStep:
    number: int
    do: str
    args: dict[str, Any]
    expect: str | None = None
    name: str = ""


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


def _check_type(value: object, kind: type) -> bool:
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, kind)


def parse_scenario(data: dict[str, Any], path: Path) -> Scenario:
    unknown_top = sorted(set(data) - {"step", "session"})
    if unknown_top:
        raise ConfigError(
            path,
            unknown_top[0],
            "is not a scenario section",
            fix="use [[step]] tables and an optional [session] table",
        )
    auto_approve = False
    session = data.get("session", {})
    if not isinstance(session, dict):
        raise ConfigError(path, "session", "must be a table", fix="write [session]")
    for key, value in session.items():
        if key != "auto_approve" or not isinstance(value, bool):
            raise ConfigError(
                path,
                f"session.{key}",
                "is not a session setting" if key != "auto_approve" else "must be true or false",
                fix="only auto_approve = true|false is supported",
            )
        auto_approve = value
    raw_steps = data.get("step")
    if isinstance(raw_steps, dict):
        raise ConfigError(
            path, "step", "is one table, not a list of steps", fix="write [[step]], two brackets"
        )
    if not isinstance(raw_steps, list) or not raw_steps:
        raise ConfigError(path, "step", "no steps", fix='add [[step]] tables with do = "..."')
    steps = []
    for number, raw in enumerate(raw_steps, start=1):
        where = f"step {number}"
        if not isinstance(raw, dict):
            raise ConfigError(
                path,
                where,
                f"must be a table, not {raw!r}"[:200],
                fix='write each step as a [[step]] table with do = "..."',
            )
        do = raw.get("do")
        if not isinstance(do, str) or do not in _FIELDS:
            problem = "is missing" if do is None else f"is {do!r}, not a known action"
            raise ConfigError(path, f"{where}.do", problem, fix="use one of " + ", ".join(_FIELDS))
        required, optional = _FIELDS[do]
        for key in sorted(set(raw) - _COMMON - set(required) - set(optional)):
            allowed = ", ".join([*required, *optional]) or "no other fields"
            raise ConfigError(
                path,
                f"{where}.{key}",
                f"is not a field of do = {do!r}",
                fix=f"{do} takes: {allowed} (plus expect, name)",
            )
        for key, kind in required.items():
            if key not in raw:
                raise ConfigError(
                    path,
                    f"{where}.{key}",
                    f"is required for do = {do!r}",
                    fix=f"add {key} = ... ({_TYPE_NAMES[kind]})",
                )
        for key, kind in {**required, **optional}.items():
            if key in raw and not _check_type(raw[key], kind):
                raise ConfigError(
                    path,
                    f"{where}.{key}",
                    f"must be {_TYPE_NAMES[kind]}",
                    fix=f"write {key} as {_TYPE_NAMES[kind]}",
                )
        if do == "bash" and "timeout" in raw and not 0 < raw["timeout"] <= MAX_BASH_TIMEOUT:
            raise ConfigError(
                path,
                f"{where}.timeout",
                f"{raw['timeout']!r} is out of range",
                fix=f"seconds, more than 0 and at most {MAX_BASH_TIMEOUT:g} (Bash's own limit)",
            )
        escape = escape_problem(raw["file"], "the project") if "file" in required else None
        if escape:
            raise ConfigError(
                path,
                f"{where}.file",
                escape,
                fix="name the file relative to the project root, without '..'",
            )
        if do == "session_start" and raw.get("source", "startup") not in SESSION_START_SOURCES:
            raise ConfigError(
                path,
                f"{where}.source",
                f"{raw['source']!r} is not a session source",
                fix="use one of " + ", ".join(SESSION_START_SOURCES),
            )
        expect = raw.get("expect")
        if expect is not None and expect not in OUTCOMES:
            raise ConfigError(
                path,
                f"{where}.expect",
                f"{expect!r} is not an outcome",
                fix="use one of " + ", ".join(OUTCOMES),
            )
        name = raw.get("name", "")
        if not isinstance(name, str):
            raise ConfigError(path, f"{where}.name", "must be a string", fix='name = "..."')
        args = {k: v for k, v in raw.items() if k not in _COMMON}
        steps.append(ScenarioStep(number, do, args, expect, name))
    return Scenario(path, tuple(steps), auto_approve)


def load_scenario(path: Path) -> Scenario:
    return parse_scenario(read_toml(path), path)


def _action(session: ScriptedSession, step: ScenarioStep) -> Callable[[], StepOutcome]:
    a = step.args
    actions: dict[str, Callable[[], StepOutcome]] = {
        "session_start": lambda: session.session_start(a.get("source", "startup")),
        "prompt": lambda: session.prompt(a["text"]),
        "edit": lambda: session.edit(a["file"], a["old"], a["new"], a.get("replace_all", False)),
        "write": lambda: session.write(a["file"], a["content"]),
        "bash": lambda: session.bash(
            a["command"],
            background=a.get("background", False),
            timeout=a.get("timeout"),
            description=a.get("description", ""),
        ),
        "subagent_stop": lambda: session.subagent_stop(
            a["agent_type"],
            a["prompt"],
            a["last_message"],
            a.get("stop_reason", "end_turn"),
            a.get("agent_id"),
        ),
        "stop": lambda: session.stop(a.get("last_message", "")),
    }
    return actions[step.do]


def run_step(session: ScriptedSession, step: ScenarioStep) -> StepReport:
    return StepReport(step, _action(session, step)())


def run_scenario(scenario: Scenario, session: ScriptedSession) -> Iterator[StepReport]:
    """Run the steps in order, yielding each report as soon as the step is done."""
    for step in scenario.steps:
        yield run_step(session, step)
