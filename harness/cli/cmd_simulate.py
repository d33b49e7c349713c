"""``lab simulate SCENARIO.toml``: play a scripted Claude Code session against the real hooks."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness.claude.engines import EMULATOR, ENGINE_CHOICES, ScriptedSession, open_session
from harness.claude.scenario import (
    ScenarioStep,
    StepReport,
    load_scenario,
    run_step,
    tools_called,
)
from harness.claude.settings import find_project_root, load_settings
from harness.claude.settings_check import check_settings
from harness.cli.common import (
    add_command,
    add_plugin_dir_flag,
    add_project_flag,
    add_unconfined_flag,
    confining,
    in_copy,
    plugin_dirs,
)
from harness.errors import ConfigError, HarnessError
from harness.jail import Confinement, describe
from harness.paths import scratch_mkdtemp
from harness.workspace.own import own_repository

_DESCRIPTION = """\
Play the steps of SCENARIO.toml as a Claude Code session in a throwaway copy of the current
project (the nearest directory above holding .claude/settings.json, its git directory and
build output included): the real hooks run with the documented JSON on stdin, and tools act on
the copy's files. Outside a Hook Lab workspace (your own repository, no lab init needed) the
copy is of the whole git repository.

Confined by default, on both engines (the real client runs inside too): every tool call runs
in a bubblewrap jail where the copy is the only writable folder, HOME and TMPDIR are throwaway
folders, there is no network, and the environment is an allow-list (PATH, USER, LANG, LC_*,
TZ, TERM, JAVA_HOME, MAVEN_OPTS, HOOKLAB_*...). The emulator's hooks start from that same
environment. Without bubblewrap it refuses; --unconfined runs the tool calls as you, with
your files, HOME, environment and network.

Scenario: [[step]] tables with do = session_start (source) | prompt (text) |
edit (file, old, new, replace_all) | write (file, content) | bash (command, background,
timeout) | tool (tool, input, result: any other tool the client has, MCP tools
mcp__server__tool included; WebSearch and MCP tools answer result, nothing is searched or
sent; WebFetch fails as it does offline) | subagent_stop (agent_type, prompt, last_message,
stop_reason) | stop (last_message), and an optional expect = allowed | blocked | asked |
stopped | error. A step's judge_ok and judge_reason say what the model answers a prompt or
agent hook in that step.

--json prints JSON Lines: one object per step, as it finishes, with step, do, detail, outcome,
tool_ran, permission, feedback (what Claude is shown), user_message, system_message,
additional_context, errors, stop_hook_active, turn_ended, tool_result,
hooks [{event, command, exit_code, timed_out, duration, type}], notes, name, expect,
expect_met, and transcript: the path of the session's transcript, kept after the run.

--engine emulator (the default) plays it on Hook Lab's built-in imitation of Claude Code;
--engine claude-code on the real, pinned Claude Code client (installed by lab doctor --fix),
driven by a scripted model on 127.0.0.1; auto picks the real client when it is installed.

--plugin-dir DIR (repeatable) loads the plugin in DIR as claude --plugin-dir does: the hooks
of its hooks/hooks.json run beside the settings' hooks, with ${CLAUDE_PLUGIN_ROOT} set to DIR.
A project that is itself a plugin (.claude-plugin/plugin.json) is loaded so too, and so are
the plugins its settings enable (enabledPlugins) from a marketplace in it
(extraKnownMarketplaces). In settings.json, a command naming ${CLAUDE_PLUGIN_ROOT} is not
run, on either engine, as the client does not run it: its row shows the client's message.

Before it plays, each hook or rule of the settings that the pinned client ignores or cannot
run (an unknown type or event, ${CLAUDE_PLUGIN_ROOT} outside a plugin, a matcher naming no
tool, a deny rule that never matches, a missing script) is named on stderr, as lab doctor does.

Exit status 1 when an expectation is not met (the step is named on stderr), when no hook of
the project ran in any step (the scenario tested nothing), or the scenario is malformed."""


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "simulate",
        "play a scripted Claude Code session against the workspace's hooks",
        run,
        description=_DESCRIPTION,
    )
    parser.add_argument("scenario", type=Path, metavar="SCENARIO.toml")
    parser.add_argument(
        "--json", action="store_true", help="JSON Lines on stdout, one object per step"
    )
    parser.add_argument(
        "--engine",
        choices=ENGINE_CHOICES,
        default=EMULATOR,
        help="emulator (built in, default), claude-code (the real client) or auto",
    )
    add_project_flag(parser, "project root (default: walk up from the current directory)")
    add_plugin_dir_flag(parser)
    add_unconfined_flag(parser)


def run(args: argparse.Namespace) -> int:
    from harness.engine.throwaway import sandbox_copy

    scenario = load_scenario(args.scenario)
    project = args.project.resolve() if args.project else find_project_root(Path.cwd())
    plugins = plugin_dirs(args)
    _warn_settings(project)
    with _preparing(args) as ready, own_repository(project, "lab simulate") as own:
        for warning in load_settings(project, plugins).warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if own is not None:
            print(own.notice("lab simulate"), file=sys.stderr)
            args.plugin_dirs = in_copy(plugins, own.root, own.copy)
            with confining(args, own.copy, "lab simulate") as jail:
                reports = _play(args, scenario, own.project, ready, jail)
        else:
            # A scenario's Maven run or edit must not touch the participant's files or reports.
            with sandbox_copy(project) as root, confining(args, root, "lab simulate") as jail:
                args.plugin_dirs = in_copy(plugins, project, root)
                reports = _play(args, scenario, root, ready, jail)
    return _verdict(args, reports)


def _warn_settings(project: Path) -> None:
    """Before the spinner: every hook the pinned client would never run, on stderr
    (``--json``'s stdout stays the steps). A missing settings file is own_repository's to
    name, with its fix."""
    from harness.ui.settings_view import print_settings_warnings

    print_settings_warnings(check_settings(project, unreadable=False))


@contextmanager
def _preparing(args: argparse.Namespace) -> Iterator[Callable[[], None]]:
    """A spinner while the throwaway copy is made and the session opens (seconds on a loaded
    laptop), until the first step's own; yields what stops it. Silent with --json."""
    if args.json:
        yield lambda: None
        return
    from harness.ui.console import make_console

    status = make_console().status("preparing a throwaway copy of the workspace …")
    status.start()
    try:
        yield status.stop
    finally:
        status.stop()


def _play(
    args: argparse.Namespace,
    scenario: Any,
    root: Path,
    ready: Callable[[], None],
    jail: Confinement | None,
) -> list[StepReport]:
    reports: list[StepReport] = []
    # The transcript the session played outlives it: the summary or each JSON line names it.
    kept = scratch_mkdtemp("hooklab-simulate-")
    options: dict[str, Any] = {
        "auto_approve": scenario.auto_approve,
        "transcript_dir": kept,
        "confinement": jail,
        "plugin_dirs": args.plugin_dirs,
    }
    if args.json:
        with open_session(args.engine, root, **options) as session:
            session.offer_tools(tools_called(scenario.steps))
            for step in scenario.steps:
                reports.append(_run(args.scenario, session, step))
                line = {**reports[-1].to_json(), "transcript": str(session.transcript_path)}
                sys.stdout.write(json.dumps(line) + "\n")
                sys.stdout.flush()
    else:
        from harness.ui.console import make_console
        from harness.ui.session_view import render_report, render_summary, step_status

        console = make_console()
        with open_session(args.engine, root, **options) as session:
            ready()
            session.offer_tools(tools_called(scenario.steps))
            for step in scenario.steps:
                with step_status(console, step):
                    reports.append(_run(args.scenario, session, step))
                render_report(console, reports[-1])
        render_summary(console, reports, session.transcript_path)
        console.print("Played on a throwaway copy of the workspace. " + describe(jail))
    return reports


def _verdict(args: argparse.Namespace, reports: list[StepReport]) -> int:
    missed = [r for r in reports if r.expect_met is False]
    if missed:
        lines = [
            f"step {r.step.number} ({r.step.do}"
            + (f" {r.step.name!r}" if r.step.name else "")
            + f"): expected {r.step.expect}, got {r.outcome.outcome}"
            for r in missed
        ]
        raise HarnessError(
            f"{args.scenario}: " + "; ".join(lines),
            fix="read what Claude was shown at that step; fix the hook or the expectation",
        )
    if reports and not any(r.outcome.hooks for r in reports):
        raise HarnessError(
            f"{args.scenario}: no hook of the project ran in any of its {len(reports)} steps, "
            "so the scenario tested none of them",
            fix="check the hooks' events and matchers against the steps (lab doctor names a "
            "matcher that matches no tool)",
        )
    return 0


def _run(scenario: Path, session: ScriptedSession, step: ScenarioStep) -> StepReport:
    """One step; a step the session refuses (a file out of the project) names its field."""
    try:
        return run_step(session, step)
    except HarnessError as exc:
        field = step.where + (".file" if "file" in step.args else "")
        raise ConfigError(scenario, field, exc.message, fix=exc.fix) from None
