"""``lab verify-hook SCRIPT --break CMD --fix CMD``: grade a Stop hook against its contract."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.claude.plugins import flag_folders, plugin_holding
from harness.claude.settings_check import SettingsWarning, check_settings
from harness.cli.common import (
    add_json_flag,
    add_plugin_dir_flag,
    add_unconfined_flag,
    confining,
    emit_json,
    in_copy,
    make_console,
    own_repository,
    plugin_dirs,
)
from harness.errors import HarnessError
from harness.grading import grade_stop_hook
from harness.jail import describe

_DESCRIPTION = """\
Grade SCRIPT as a Stop hook of the project in the current directory (or --project DIR), the
full cycle of the contract: broken → exit 2 with a short reason on stderr; fixed → exit 0; a
scripted session is held and Claude is shown the reason; with stop_hook_active: true the hook
lets go (exit 0, ideally a systemMessage); fixed → the turn ends; a stale artefact blocks; every
run within --timeout; no secret from the environment in any output.

SCRIPT is registered alone as the project's Stop hook in a temporary settings object, with
the timeout .claude/settings.json registers it with (else 10 s; --timeout overrides);
the settings are never changed. --break, --fix and --stale run with bash -c in the project
directory and must exit 0; a Hook Lab workspace is left fixed. Any other git repository (your
own project, no lab init needed) is graded on a throwaway copy of it.

--plugin-dir DIR: SCRIPT belongs to the plugin in DIR and runs as its hooks/hooks.json runs
it, with CLAUDE_PLUGIN_ROOT set to DIR (as it does when the project is itself a plugin).

Confined by default: --break, --fix, --stale and the scripted session's tool calls run in a
bubblewrap jail where the project graded (the copy, or the workspace) is the only writable
folder, HOME and TMPDIR are throwaway folders, there is no network, and the environment is
an allow-list. Without bubblewrap it refuses; --unconfined runs them as you, with your files,
HOME, environment and network.

--json prints {"passed", "summary", "script", "command", "timeout", "checks": [{"name",
"title", "status" (pass|fail|skip), "passed", "expected", "found", "problem", "detail",
"fix"}], "timeout_source", "copy", "settings_warnings": [{"file", "path", "said", "fix",
"client"}]}; settings_warnings are the project's hooks the pinned client would never run (printed
before the grade without --json). Exit status 0 when no check fails, 1 otherwise or on bad input."""

_EXAMPLE = """\
example, in a workspace, grading the workshop's own Stop hook (it passes; the hook guards
changes git sees, so --break and --stale change a file, and docs/draft.md stays behind):
  lab verify-hook .claude/hooks/require-sensors.sh \\
      --break 'echo draft > docs/draft.md' \\
      --fix './mvnw -q test -Dgroups=sensor' \\
      --stale 'touch docs/draft.md'

Lab 07 grades your own scripts/check-before-stop.sh the same way."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify-hook",
        help="grade a Stop hook script against the Stop-hook contract",
        description=_DESCRIPTION,
        epilog=_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("script", type=Path, metavar="SCRIPT", help="the Stop hook script")
    parser.add_argument(
        "--break",
        dest="break_cmd",
        required=True,
        metavar="CMD",
        help="makes the hook's claim false (e.g. removes the artefact)",
    )
    parser.add_argument(
        "--fix",
        dest="fix_cmd",
        required=True,
        metavar="CMD",
        help="makes the claim true (e.g. builds the artefact fresh)",
    )
    parser.add_argument(
        "--stale",
        dest="stale_cmd",
        default=None,
        metavar="CMD",
        help="run after --fix: leaves the artefact in place but out of date "
        "(without it the stale check is skipped)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="the hook's timeout in seconds (default: the one .claude/settings.json registers "
        "the script with, else 10)",
    )
    parser.add_argument(
        "--project",
        type=Path,
        default=None,
        metavar="DIR",
        help="the project (CLAUDE_PROJECT_DIR); default: the current directory",
    )
    add_json_flag(parser)
    add_plugin_dir_flag(parser)
    add_unconfined_flag(parser)
    parser.set_defaults(func=cmd_verify_hook)


def cmd_verify_hook(args: argparse.Namespace) -> int:
    project = (args.project or Path.cwd()).resolve()
    if not project.is_dir():
        raise HarnessError(
            f"--project {project} is not a directory",
            fix="give the workspace directory, or cd into it and drop --project",
        )
    script = args.script if args.script.is_absolute() else Path.cwd() / args.script
    plugins = plugin_dirs(args)
    options: dict[str, Any] = {
        "break_cmd": args.break_cmd,
        "fix_cmd": args.fix_cmd,
        "stale_cmd": args.stale_cmd,
        "timeout": args.timeout,
    }
    console = make_console(stderr=args.json)
    with own_repository(project, "lab verify-hook", need_settings=False) as own:
        if own is not None:
            script = own.in_copy(script)
            plugins = in_copy(plugins, own.root, own.copy)
            console.print(own.notice("lab verify-hook"), soft_wrap=True)
        where = own.project if own is not None else project
        # A script of a plugin (one given, or the project itself) runs as the plugin runs it.
        options["plugin_root"] = plugin_holding(script, flag_folders(where, plugins))
        unfired = check_settings(where)  # the project's hooks the client would never run
        with confining(args, own.copy if own is not None else project, "lab verify-hook") as jail:
            options = {**options, "confinement": jail}
            return _grade(args, console, project, where, script, options, unfired)
    return 0


def _grade(
    args: argparse.Namespace,
    console: Any,
    project: Path,
    where: Path,
    script: Path,
    options: dict[str, Any],
    unfired: tuple[SettingsWarning, ...],
) -> int:
    """Grade in ``where`` (``project`` itself, or its copy), on the screen or as JSON, after
    naming the hooks and rules the client would never run."""
    copy = where != project
    if args.json:
        grade = grade_stop_hook(where, script, **options)
        emit_json(
            {
                **grade.to_json(),
                "copy": copy,
                "confined": options["confinement"] is not None,
                "settings_warnings": [w.to_json() for w in unfired],
            }
        )
        return 0 if grade.passed else 1
    from harness.ui.grading_view import render_grade
    from harness.ui.settings_view import print_settings_warnings

    print_settings_warnings(unfired, console)

    try:
        with console.status("grading …", spinner="dots") as status:
            grade = grade_stop_hook(
                where,
                script,
                progress=lambda what: status.update(f"grading: {what} …"),
                **options,
            )
    except KeyboardInterrupt:
        if copy:
            raise  # only the copy was broken, and it goes with the copy
        _interrupted(project, args.break_cmd, args.fix_cmd)
        return 130
    render_grade(console, grade)
    console.print(describe(options["confinement"]), soft_wrap=True)
    return 0 if grade.passed else 1


def _interrupted(project: Path, break_cmd: str, fix_cmd: str) -> None:
    """Ctrl-C part-way: the grader breaks and fixes the artefact in the workspace itself, so
    say what may be left broken and the command that mends it."""
    from harness.ui.console import print_error

    reports = project / "target" / "surefire-reports"
    left = (
        "target/surefire-reports has no report now"
        if not any(reports.glob("TEST-*.xml"))
        else "the reports may be from the break, not the fix"
    )
    print_error(
        f"lab verify-hook stopped part-way: it runs '{break_cmd}' and then '{fix_cmd}' in "
        f"{project}, so {left}",
        fix=f"{fix_cmd} (or run lab verify-hook again to its end)",
    )
