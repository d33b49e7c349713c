"""``verify_hook``: grade a participant's Stop hook against the contract (harness/grading).

Until the grader is installed this check reports ``error`` ("grader not available"): the
harness is missing a part, which is never the participant's fault.
"""

from __future__ import annotations

import importlib
from typing import Any

from harness.engine.context import CheckContext
from harness.engine.kinds import Kind, Params
from harness.engine.schema import Field
from harness.results import CheckResult, Status


def _grader() -> Any:
    try:
        module = importlib.import_module("harness.grading")
    except ImportError:
        return None
    for name in ("verify_hook", "grade_stop_hook", "grade"):
        func = getattr(module, name, None)
        if callable(func):
            return func
    return None


def run(ctx: CheckContext, p: Params) -> CheckResult:
    name = f"verify-hook {p['script']}"
    grader = _grader()
    if grader is None:
        return CheckResult.errored("grader not available: harness/grading is not installed "
                                   "in this Hook Lab", name=name)
    path = ctx.path(p["script"])
    if not path.is_file():
        return CheckResult.failed(f"{p['script']} does not exist yet", name=name,
                                  expected="your Stop hook script", found="no such file")
    ctx.on_activity(f"grading {p['script']} against the Stop-hook contract")
    try:
        result = grader(ctx.root, script=p["script"], **(p["options"] or {}))
    except Exception as exc:  # the grader is harness code: its crash is an error, not a fail
        return CheckResult.errored(f"the grader crashed: {type(exc).__name__}: {exc}", name=name)
    if isinstance(result, CheckResult):
        result.name = result.name or name
        return result
    status = getattr(result, "status", None)
    if isinstance(status, Status):
        return CheckResult(status, str(getattr(result, "message", "")), name=name,
                           details={"grading": getattr(result, "to_json", dict)()})
    return CheckResult.errored(f"the grader returned {type(result).__name__}", name=name)


KIND = Kind(
    name="verify_hook",
    summary="grade the participant's Stop hook against the contract (lab verify-hook)",
    params=(
        Field("kind", str, required=True),
        Field("script", str, default="scripts/check-before-stop.sh",
              doc="the participant's Stop hook, relative to the workspace"),
        Field("options", dict, default={}, doc="passed to the grader as keyword arguments"),
    ),
    run=run,
    slow=lambda p: True,
)
