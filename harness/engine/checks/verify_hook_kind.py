"""``verify_hook``: grade a participant's Stop hook against the contract (harness/grading).

The grader breaks and fixes the hook's artefact with the lab's commands, so it runs on a
throwaway copy of the workspace. Without harness/grading this check reports ``error``
("grader not available"): a missing harness part is never the participant's fault.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.engine.checks.hook_in_place import in_place_problem
from harness.engine.context import CheckContext
from harness.engine.kinds import check_kind
from harness.engine.throwaway import sandbox_copy
from harness.results import CheckResult, Status
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class VerifyHookParams:
    """A ``verify_hook`` check's parameters, typed (``KIND.params`` is derived from them)."""

    script: str = param(
        default="scripts/check-before-stop.sh",
        doc="the participant's Stop hook, relative to the workspace",
        inside="the workspace",
    )
    break_cmd: str = param(doc="makes the hook's claim false (bash -c)")
    fix_cmd: str = param(doc="makes the claim true again")
    stale_cmd: str | None = param(default=None, doc="leaves the artefact in place but out of date")
    other_breaks: list[str] = param(
        default=[],
        doc="more commands that make the claim false (a red report, a missing one), each run "
        "after a fix: the hook must block after every one",
    )
    timeout: float | None = param(
        default=None,
        positive=True,
        doc="the hook's timeout in seconds (default: as the settings register the script, else 10)",
    )
    message: str | None = param(
        default=None,
        doc="what the participant reads when the check fails, before the grader's own words",
    )
    pass_message: str | None = param(default=None, doc="what the participant reads when it passes")


def run(ctx: CheckContext, p: VerifyHookParams) -> CheckResult:
    name = f"verify-hook {p.script}"
    try:
        from harness.grading import verify_hook
    except ImportError:
        return CheckResult.errored(
            "grader not available: harness/grading is not installed", name=name
        )
    if not ctx.path(p.script).is_file():
        return CheckResult.missing_file(p.script, name=name, expected="your Stop hook script")
    ctx.on_activity(f"grading {p.script} against the Stop-hook contract")
    with sandbox_copy(ctx.root) as copy:
        try:
            result = verify_hook(
                copy,
                p.script,
                break_cmd=p.break_cmd,
                fix_cmd=p.fix_cmd,
                stale_cmd=p.stale_cmd,
                other_breaks=tuple(p.other_breaks),
                timeout=p.timeout,
                progress=ctx.on_activity,
            )
        except Exception as exc:  # the grader is harness code: its crash is an error
            return CheckResult.errored(
                f"the grader crashed: {type(exc).__name__}: {exc}", name=name
            )
    result.name = result.name or name
    if result.status is Status.PASS:
        # Graded on a copy: the hook must answer in the workspace as in a copy (walk-i).
        elsewhere = in_place_problem(ctx.root, p.script, p.timeout or 10.0, p.break_cmd)
        if elsewhere is not None:
            headline, found, fix = elsewhere
            result = CheckResult.failed(headline, name=name, found=found, details={"fix": fix})
    if result.status is Status.FAIL and p.message:
        result.message = f"{p.message} ({result.message})"
    elif result.status is Status.PASS and p.pass_message:
        result.message = p.pass_message
    return result


KIND = check_kind(
    "verify_hook",
    "grade the participant's Stop hook against the contract (lab verify-hook)",
    run,
    slow=lambda p: True,
)
