"""``settings``: the workspace's hook settings hold no entry the pinned client cannot run.

What counts is ``harness.claude.settings_check``'s: an unknown hook type or event,
``${CLAUDE_PLUGIN_ROOT}`` outside a plugin, a matcher naming no tool, a deny rule that never
matches, a missing script."""

from __future__ import annotations

from dataclasses import dataclass

from harness.claude.settings_check import check_settings
from harness.engine.context import CheckContext
from harness.engine.kinds import check_kind
from harness.results import CheckResult
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class SettingsParams:
    """A ``settings`` check's parameters, typed (``KIND.params`` is derived from them)."""

    message: str | None = param(default=None, doc="what the participant reads when it fails")
    pass_message: str | None = param(default=None, doc="what the participant reads when it passes")


def run(ctx: CheckContext, p: SettingsParams) -> CheckResult:
    name = "settings"
    warnings = check_settings(ctx.root)
    if not warnings:
        return CheckResult.passed(
            p.pass_message or "Claude Code runs every hook the settings register", name=name
        )
    first = warnings[0]
    said = f"Claude Code says: {first.said}" if first.client else first.said
    return CheckResult.failed(
        p.message or f"{first.where}: {said}; fix: {first.fix}",
        name=name,
        expected="every hook entry and rule one Claude Code runs",
        found="\n".join(
            f"{w.where}: {w.said}" + (" (Claude Code's words)" if w.client else "")
            for w in warnings
        ),
    )


KIND = check_kind(
    "settings",
    "no hook or rule in .claude/settings*.json that Claude Code ignores or cannot run",
    run,
)
