"""The Claude Code hook runtime as a library: settings, matchers, hook runs, outcomes, sessions.

Knows nothing of labs, Maven, rich or the CLI. The pieces, top down:

``open_session(engine, project_dir, settings=None, *, cwd=None, transcript_dir=None,
permission_mode="default", auto_approve=False, env=None, on_payload=None)``
    (harness.claude.engines) A scripted session (``ScriptedSession``, scripted.py) whose
    tools act on the real workspace, on the emulator (``EmulatedSession``, the same
    arguments) or on the real, pinned client (``ClaudeCodeSession`` in client/driver.py).
    Each method returns a
    ``StepOutcome`` (``do``, ``outcome`` allowed|blocked|asked|stopped|error, ``tool_ran``,
    ``feedback`` shown to Claude, ``user_message``, ``system_message``,
    ``stop_hook_active``, ``turn_ended``, ``hooks``; the words are declared in
    ``vocabulary``)::

        session_start(source="startup")
        prompt(text)
        edit(file, old, new, replace_all=False)
        write(file, content)
        bash(command, *, background=False, timeout=None, description="")
        tool(name, tool_input)    # any other tool, as the model names it
        subagent_stop(agent_type, prompt, last_message, stop_reason="end_turn", agent_id=None)
        stop(last_message="")
        close()            # kills background shells; a session is also a context manager

    The stop loop: after a blocked stop the next Stop payload has ``stop_hook_active: true``;
    eight consecutive blocks are honoured and the ninth is overridden, ending the turn (as the
    real client does: stop-block-cap in docs/claude-code-semantics.md); a prompt that goes
    through starts a new count.

``dispatch.dispatch(event, payload, settings, project_dir, *, cwd=None, env=None) -> EventOutcome``
    One event through its matching hooks (parallel, deduplicated, each with its timeout).
    ``EventOutcome`` holds ``runs`` (``HookRun(event, command, exit_code, stdout, stderr,
    timed_out, duration)``), ``blocked``, ``reason``, ``permission_decision``,
    ``continue_``/``stopped``, ``stop_reason``, ``system_messages``, ``additional_context``,
    ``user_messages``, ``errors`` and ``notes``. ``route(event, runs)`` is the pure part.

``load_settings(project_dir) -> Settings`` merges ``.claude/settings.json`` and
``.claude/settings.local.json``; ``parse_settings(data, where)`` validates a dict;
``find_project_root(start)`` walks up to the directory holding ``.claude/settings.json``.
``matches(matcher, value)`` is the matcher rule. ``load_scenario(path)`` and
``run_scenario(scenario, session)`` drive a session from a TOML file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy import lazy_names

if TYPE_CHECKING:
    from harness.claude.dispatch import EventOutcome, route
    from harness.claude.emulator import EmulatedSession
    from harness.claude.events import Event
    from harness.claude.matchers import matches
    from harness.claude.permissions import PermissionRule, Permissions
    from harness.claude.runner import OUTPUT_CAP, HookRun
    from harness.claude.scenario import (
        Scenario,
        ScenarioStep,
        StepReport,
        load_scenario,
        run_scenario,
        run_step,
    )
    from harness.claude.scripted import STOP_BLOCK_CAP, ScriptedSession, StepOutcome
    from harness.claude.settings import (
        HookCommand,
        MatcherGroup,
        Settings,
        find_project_root,
        load_settings,
        parse_settings,
    )

# Where each name lives, imported on first use (harness.lazy).
_HOMES = {
    "EmulatedSession": "harness.claude.emulator",
    "Event": "harness.claude.events",
    "EventOutcome": "harness.claude.dispatch",
    "HookCommand": "harness.claude.settings",
    "HookRun": "harness.claude.runner",
    "MatcherGroup": "harness.claude.settings",
    "OUTPUT_CAP": "harness.claude.runner",
    "PermissionRule": "harness.claude.permissions",
    "Permissions": "harness.claude.permissions",
    "STOP_BLOCK_CAP": "harness.claude.scripted",
    "Scenario": "harness.claude.scenario",
    "ScenarioStep": "harness.claude.scenario",
    "ScriptedSession": "harness.claude.scripted",
    "Settings": "harness.claude.settings",
    "StepOutcome": "harness.claude.scripted",
    "StepReport": "harness.claude.scenario",
    "find_project_root": "harness.claude.settings",
    "load_scenario": "harness.claude.scenario",
    "load_settings": "harness.claude.settings",
    "matches": "harness.claude.matchers",
    "parse_settings": "harness.claude.settings",
    "route": "harness.claude.dispatch",
    "run_scenario": "harness.claude.scenario",
    "run_step": "harness.claude.scenario",
}


__getattr__ = lazy_names(__name__, _HOMES)


__all__ = [
    "OUTPUT_CAP",
    "STOP_BLOCK_CAP",
    "EmulatedSession",
    "Event",
    "EventOutcome",
    "HookCommand",
    "HookRun",
    "MatcherGroup",
    "PermissionRule",
    "Permissions",
    "Scenario",
    "ScenarioStep",
    "ScriptedSession",
    "Settings",
    "StepOutcome",
    "StepReport",
    "find_project_root",
    "load_scenario",
    "load_settings",
    "matches",
    "parse_settings",
    "route",
    "run_scenario",
    "run_step",
]
