"""``settings``: the workspace's hook settings hold no entry the pinned client cannot run.

What counts is ``harness.claude.settings_check``'s: an unknown hook type or event,
``${CLAUDE_PLUGIN_ROOT}`` outside a plugin, a matcher naming no tool, a deny rule that never
matches, a missing script. ``registers`` also wants a script run as a command hook on an
event: a prompt hook whose words name the script, or a stub whose comment does, runs nothing."""

from __future__ import annotations

from dataclasses import dataclass

from harness.claude.events import Event
from harness.claude.settings import load_settings
from harness.claude.settings_check import check_settings
from harness.engine.context import CheckContext
from harness.engine.kinds import check_kind
from harness.results import CheckResult
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class SettingsParams:
    """A ``settings`` check's parameters, typed (``KIND.params`` is derived from them)."""

    registers: dict[str, str] = param(
        default={},
        doc='{EVENT = "path"}: a "command" hook on the event runs that workspace script, e.g. '
        '{ Stop = ".claude/hooks/require-sensors.sh" }',
    )
    message: str | None = param(default=None, doc="what the participant reads when it fails")
    pass_message: str | None = param(default=None, doc="what the participant reads when it passes")


def _validate(p: SettingsParams) -> str | None:
    known = [e.value for e in Event]
    for event, script in p.registers.items():
        if event not in known:
            return f"registers: {event!r} is no event Hook Lab plays ({', '.join(known)})"
        if not isinstance(script, str) or not script:
            return f'registers.{event} must be a script\'s path, e.g. ".claude/hooks/x.sh"'
    return None


def run(ctx: CheckContext, p: SettingsParams) -> CheckResult:
    name = "settings"
    warnings = check_settings(ctx.root)
    if not warnings:
        unregistered = _unregistered(ctx, p.registers)
        if unregistered is not None:
            return unregistered
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


def _unregistered(ctx: CheckContext, registers: dict[str, str]) -> CheckResult | None:
    if not registers:
        return None
    settings = load_settings(ctx.root)
    for event, script in registers.items():
        hooks = settings.commands_for(Event(event), None)
        # Started, not only named (``exit 0 # require-sensors.sh`` names it and starts exit).
        if any(hook.started_script == script for hook in hooks):
            continue
        name = script.rsplit("/", 1)[-1]
        named = [h for h in hooks if name in h.label]
        return CheckResult.failed(
            f"no command hook on {event} runs {script}: keep its entry "
            f'{{ "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR/{script}\\"" }} '
            f"in the {event} group",
            name="settings",
            expected=f'a "command" hook on {event} that runs {script}',
            found="\n".join(f"a {h.kind} hook that only names it: {h.source}" for h in named)
            or f"no hook on {event} names {name}",
        )
    return None


KIND = check_kind(
    "settings",
    "no hook or rule in .claude/settings*.json that Claude Code ignores or cannot run",
    run,
    rules=_validate,
)
