"""``scenario``: a participant's scenario file has the steps it must have.

It parses the file the way ``lab check`` plays it, so a comment that mentions a trick is not a
step that tries it. Quick (no session runs): a step puts it before its ``hook_session`` check.

    [[step.check]]
    kind = "scenario"
    path = "scenarios/tricks.toml"
    has_steps = [{ do = "bash", command_contains = "| tail" }, { do = "bash", background = true }]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.claude.scenario import load_scenario
from harness.engine.checks.file import read_participant_file
from harness.engine.context import CheckContext
from harness.engine.kinds import check_kind
from harness.engine.moment import CONTAINS, describe, planned
from harness.results import CheckResult
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class ScenarioParams:
    """A ``scenario`` check's parameters, typed (``KIND.params`` is derived from them)."""

    path: str = param(doc="the scenario file, relative to the workspace")
    has_steps: list[Any] = param(
        doc="tables that must each match a step: do, any scenario field (equal), or "
        'FIELD_contains = "text", e.g. { do = "bash", command_contains = "| tail" }'
    )
    message: str | None = param(default=None, doc="what the participant reads when the check fails")
    pass_message: str | None = param(default=None, doc="what the participant reads when it passes")


def _validate(p: ScenarioParams) -> str | None:
    for i, want in enumerate(p.has_steps or []):
        if not isinstance(want, dict) or not want:
            return f'has_steps[{i + 1}] must be a table such as {{ do = "bash", command = "..." }}'
        for key, value in want.items():
            if key.endswith(CONTAINS) and not isinstance(value, str):
                return f"has_steps[{i + 1}].{key} must be a string"
    if not p.has_steps:
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


KIND = check_kind(
    "scenario",
    "a scenario file in the workspace has the steps it needs (parsed, not grepped)",
    run,
    rules=_validate,
)
