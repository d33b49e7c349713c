"""``settings``: the workspace's hook settings hold no entry the pinned client cannot run.

What counts is ``harness.claude.settings_check``'s: an unknown hook type or event,
``${CLAUDE_PLUGIN_ROOT}`` outside a plugin, a matcher naming no tool, a deny rule that never
matches, a missing script. ``registers`` also wants a script run as a command hook on an
event: a prompt hook whose words name the script, or a stub whose comment does, runs nothing;
and one Claude Code waits for: an ``async`` hook decides nothing. ``timeouts`` bounds how
long such a hook may hold a stop."""

from __future__ import annotations

import json
from dataclasses import dataclass

from harness.claude.events import Event
from harness.claude.settings import DEFAULT_TIMEOUT, PROMPT_TYPE, load_settings
from harness.claude.settings_check import check_settings
from harness.engine.checks.prompt_words import why_not_asking
from harness.engine.checks.settings_env import env_cause
from harness.engine.context import CheckContext
from harness.engine.kinds import Worded, check_kind
from harness.results import CheckResult
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class SettingsParams(Worded):
    """A ``settings`` check's parameters, typed (``KIND.params`` is derived from them)."""

    registers: dict[str, str] = param(
        default={},
        doc='{EVENT = "path"}: a "command" hook on the event runs that workspace script, e.g. '
        '{ Stop = ".claude/hooks/require-sensors.sh" }',
    )
    timeouts: dict[str, float] = param(
        default={},
        doc='{"path" = seconds}: the command hook that runs that workspace script waits at most '
        "so long (a hook past its timeout decides nothing; with none given Claude Code waits "
        '600 s), e.g. { "scripts/check-before-stop.sh" = 10 }',
    )
    prompts_ask: str | None = param(
        default=None,
        doc="an event: each prompt hook on it asks the judge for evidence (did the tests run "
        "and pass?) and does not tell it the answer (checks/prompt_words.py)",
    )


def _validate(p: SettingsParams) -> str | None:
    known = [e.value for e in Event]
    for event, script in p.registers.items():
        if event not in known:
            return f"registers: {event!r} is no event Hook Lab plays ({', '.join(known)})"
        if not isinstance(script, str) or not script:
            return f'registers.{event} must be a script\'s path, e.g. ".claude/hooks/x.sh"'
    for script, seconds in p.timeouts.items():
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
            return f"timeouts.{script} must be a number of seconds above 0, e.g. 10"
    if p.prompts_ask is not None and p.prompts_ask not in known:
        return f"prompts_ask: {p.prompts_ask!r} is no event Hook Lab plays ({', '.join(known)})"
    return None


def run(ctx: CheckContext, p: SettingsParams) -> CheckResult:
    name = "settings"
    warnings = check_settings(ctx.root)
    if not warnings:
        # A failed CheckResult is falsy: each is asked for None, not chained with `or`.
        for failed in (
            _env_set(ctx, p.registers),
            _unregistered(ctx, p.registers),
            _in_background(ctx, p.registers),
            _too_slow(ctx, p.timeouts),
            _not_asking(ctx, p.prompts_ask),
        ):
            if failed is not None:
                return failed
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


def _env_set(ctx: CheckContext, registers: dict[str, str]) -> CheckResult | None:
    """A settings "env" where the step names a hook that must run as registered: Claude Code
    runs every hook with it (walk-m G3: a PATH without jq, and every hook of a real session
    let everything through while each check's copy ran them as shipped)."""
    cause = env_cause(ctx.root) if registers else None
    if cause is None:
        return None
    scripts = ", ".join(script.rsplit("/", 1)[-1] for script in registers.values())
    return CheckResult.failed(
        f"{cause.said()}: {scripts} would not run as registered",
        name="settings",
        expected='settings that give the hooks the environment Claude Code starts with (no "env")',
        found=f'{cause.file}: "env": {", ".join(cause.names)}',
        details={"fix": cause.fix()},
    )


def _in_background(ctx: CheckContext, registers: dict[str, str]) -> CheckResult | None:
    """The first hook of ``registers`` marked async: Claude Code starts it and goes on without
    its answer, so it holds no turn and refuses nothing, while the settings look right (walk-i,
    Lab 07 step 3: "runs on Stop", then a session whose feedback lacked the hook)."""
    settings = load_settings(ctx.root)
    for event, script in registers.items():
        for hook in settings.commands_for(Event(event), None):
            if hook.started_script != script or not hook.run_async:
                continue
            field = "asyncRewake" if hook.rewake else "async"
            so = "it can never hold the turn" if event == "Stop" else "its answer decides nothing"
            return CheckResult.failed(
                f'the {event} hook that runs {script} is `"{field}": true`: Claude Code starts '
                f"it in the background and does not wait for its answer, so {so}; drop "
                f'`"{field}": true` from its entry',
                name="settings",
                expected=f"a {event} hook that runs {script} and Claude Code waits for",
                found=f'{hook.source}: "{field}": true',
            )
    return None


def _too_slow(ctx: CheckContext, timeouts: dict[str, float]) -> CheckResult | None:
    """The first command hook running a script of ``timeouts`` that may wait longer than its
    step asks: a hook that hangs holds every stop for its whole timeout."""
    settings = load_settings(ctx.root)
    for script, most in timeouts.items():
        for event in Event:
            for hook in settings.commands_for(event, None):
                if hook.kind != "command" or hook.started_script != script:
                    continue
                if hook.timeout > most:
                    default = (
                        ' (what Claude Code waits when the entry gives no "timeout")'
                        if hook.timeout == DEFAULT_TIMEOUT
                        else ""
                    )
                    return CheckResult.failed(
                        f"the {event.value} hook that runs {script} may wait {hook.timeout:g} s: "
                        f'give its entry "timeout": {most:g}',
                        name="settings",
                        expected=f"a timeout of at most {most:g} s",
                        found=f"{hook.source}: {hook.timeout:g} s{default}",
                    )
    return None


def _not_asking(ctx: CheckContext, event: str | None) -> CheckResult | None:
    """The first prompt hook on ``event`` whose words tell the judge the answer."""
    if event is None:
        return None
    hooks = load_settings(ctx.root).commands_for(Event(event), None)
    if not any(hook.kind == PROMPT_TYPE for hook in hooks):
        return CheckResult.failed(
            f"no prompt hook on {event} yet: add one whose words ask the judge for evidence, "
            f'e.g. {{ "type": "prompt", "prompt": "Did the tests run and pass after the last '
            f'change? $ARGUMENTS" }}',
            name="settings",
            expected=f'a "prompt" hook on {event}',
            found="\n".join(f"a {h.kind} hook: {h.source}" for h in hooks) or f"no hook on {event}",
        )
    for hook in hooks:
        why = why_not_asking(hook.label) if hook.kind == PROMPT_TYPE else None
        if why is not None:
            return CheckResult.failed(
                f"the prompt hook's words should ask the judge for evidence: {why}",
                name="settings",
                expected="a prompt that asks whether the tests ran and passed after the last "
                "change, and leaves the answer to the judge",
                found=f"{hook.source}: {json.dumps(hook.label)}",
            )
    return None


KIND = check_kind(
    "settings",
    "no hook or rule in .claude/settings*.json that Claude Code ignores or cannot run",
    run,
    rules=_validate,
)
