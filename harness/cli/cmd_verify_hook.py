"""``lab verify-hook SCRIPT``: grade a hook by the events it is registered on. A Stop hook
against the Stop-hook contract (``--break CMD --fix CMD``); a guard (PreToolUse,
PermissionRequest, UserPromptSubmit) against its case table (``--cases FILE``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.claude.events import Event
from harness.claude.plugins import flag_folders, plugin_holding
from harness.claude.settings_check import SettingsWarning, check_settings
from harness.claude.vocabulary import AUTO, BOTH, ENGINE_CHOICES, StepKind
from harness.cli.common import (
    add_command,
    add_json_flag,
    add_plugin_dir_flag,
    add_project_flag,
    add_unconfined_flag,
    confining,
    emit_json,
    in_copy,
    make_console,
    own_repository,
    plugin_dirs,
)
from harness.cli.verify_guard import grade_guard_cli, write_junit
from harness.errors import HarnessError
from harness.grading import grade_stop_hook
from harness.grading.guard import GUARD_EVENTS
from harness.grading.registration import Registered, registered_entries
from harness.jail import describe

_DESCRIPTION = """\
Grade SCRIPT by the events the project's .claude/settings.json registers it on: a Stop hook
against the Stop-hook contract, a guard (PreToolUse, PermissionRequest, UserPromptSubmit)
against a case table you write (--cases). A hook is never graded as a kind it is not; a
script registered nowhere is graded as a Stop hook when --break is given.

GUARDS. --cases FILE is a TOML case table, each case a tool call or a prompt and the verdict
wanted:
  [[case]]
  name = "rm -rf of the home folder"   # optional
  tool = "Bash"                        # Bash | Edit | Write
  input = { command = "rm -rf ~" }     # as the model sends it
  want = "blocked"                     # blocked | allowed | asked
  [[case]]
  prompt = "deploy to production"      # a prompt instead of a tool call
  want = "allowed"
Each case plays in a scripted session on each --engine (the verdict is the client's) and is
fed to the command by hand. The guard is registered alone, as the settings register it, and
every tool a case calls is allowed by a rule, so a verdict is the guard's (a PermissionRequest
guard answers the prompt instead). The contract is checked too: no crash on its own cases
(an exit other than 0 or 2), exit 0 on garbage and on empty stdin, only JSON on stdout, a
reason with every refusal, quiet on tools its matcher does not name, within its timeout, and
one verdict per case on every engine (the row that disagrees is named). It ends with
"N passed, M failed"; --junit-xml FILE writes the same for CI.

STOP HOOKS. Grade SCRIPT as a Stop hook of the project in the current directory (or
--project DIR), the full cycle of the contract: broken → exit 2 with a short reason on stderr;
fixed → exit 0; a scripted session is held and Claude is shown the reason; with
stop_hook_active: true the hook lets go (exit 0, ideally a systemMessage); fixed → the turn
ends; a stale artefact blocks; every run within --timeout; no secret from the environment in
any output.

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

--json for a guard prints {"passed", "summary", "kind": "guard", "events", "engines",
"checks": [{"name", "title", "status", "found", "rows", "fix"}], "cases": [{"case", "name",
"tool", "input", "prompt", "want", "engine", "got", "passed", "said", "exit_code",
"seconds"}], "by_hand", "seconds", "copy", "settings_warnings"}.
--json for a Stop hook prints {"passed", "summary", "kind": "stop", "script", "command",
"timeout", "checks": [{"name", "title", "status" (pass|fail|skip), "passed", "expected",
"found", "problem", "detail", "fix"}], "timeout_source", "copy", "settings_warnings": [{"file",
"path", "said", "fix", "client"}]}; settings_warnings are the project's hooks the pinned client
would never run (printed before the grade without --json). Exit status 0 when no check fails, 1
otherwise or on bad input."""

_EXAMPLE = """\
example, a PreToolUse guard of your own repository, on both engines, with a JUnit report:
  lab verify-hook .claude/hooks/block-rm-rf.sh --cases tests/rm-rf-cases.toml \\
      --junit-xml verify-hook.xml

example, in a workspace, grading the workshop's own Stop hook (it passes; the hook guards
changes git sees, so --break and --stale change a file, and docs/draft.md stays behind):
  lab verify-hook .claude/hooks/require-sensors.sh \\
      --break 'echo draft > docs/draft.md' \\
      --fix './mvnw -q test -Dgroups=sensor' \\
      --stale 'touch docs/draft.md'

Lab 07 grades your own scripts/check-before-stop.sh the same way."""


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "verify-hook",
        "grade a hook script: a Stop hook by its contract, a guard by its case table",
        cmd_verify_hook,
        description=_DESCRIPTION,
        epilog=_EXAMPLE,
    )
    parser.add_argument("script", type=Path, metavar="SCRIPT", help="the hook script")
    parser.add_argument(
        "--cases",
        type=Path,
        default=None,
        metavar="FILE",
        help="a guard's case table (TOML, see above)",
    )
    parser.add_argument(
        "--engine",
        choices=(*ENGINE_CHOICES, BOTH),
        default=AUTO,
        help="where a guard's cases play (default auto: both when the pinned client is "
        "installed, else the emulator)",
    )
    parser.add_argument(
        "--junit-xml",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the grade as JUnit XML, one test per case and engine and per clause",
    )
    _add_stop_flags(parser)
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="the hook's timeout in seconds (default: the one .claude/settings.json registers "
        "the script with, else 10)",
    )
    add_project_flag(parser, "the project (CLAUDE_PROJECT_DIR); default: the current directory")
    add_json_flag(parser)
    add_plugin_dir_flag(parser)
    add_unconfined_flag(parser)


def _add_stop_flags(parser: argparse.ArgumentParser) -> None:
    """A Stop hook's --break, --fix and --stale (a guard's cases replace them)."""
    parser.add_argument(
        "--break",
        dest="break_cmd",
        default=None,
        metavar="CMD",
        help="Stop hook: makes the hook's claim false (e.g. removes the artefact)",
    )
    parser.add_argument(
        "--fix",
        dest="fix_cmd",
        default=None,
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
        "--other-break",
        dest="other_breaks",
        action="append",
        default=[],
        metavar="CMD",
        help="another way the claim is false (a red report, a missing one), run after --fix; "
        "the hook must block after each (repeatable)",
    )


def cmd_verify_hook(args: argparse.Namespace) -> int:
    project = (args.project or Path.cwd()).resolve()
    if not project.is_dir():
        raise HarnessError(
            f"--project {project} is not a directory",
            fix="give the workspace directory, or cd into it and drop --project",
        )
    script = args.script if args.script.is_absolute() else Path.cwd() / args.script
    plugins = plugin_dirs(args)
    console = make_console(stderr=args.json)
    with own_repository(project, "lab verify-hook", need_settings=False) as own:
        if own is not None:
            script = own.in_copy(script)
            plugins = in_copy(plugins, own.root, own.copy)
            from harness.ui.prose import print_prose, prose

            print_prose(console, prose(own.notice("lab verify-hook")))  # wrapped at words
        where = own.project if own is not None else project
        unfired = check_settings(where)  # the project's hooks the client would never run
        guard = _guard_entries(args, where, script)
        if guard:
            return grade_guard_cli(args, console, where, script, guard, unfired, own is None)
        options = _stop_options(args, script)
        # A script of a plugin (one given, or the project itself) runs as the plugin runs it.
        options["plugin_root"] = plugin_holding(script, flag_folders(where, plugins))
        with confining(args, own.copy if own is not None else project, "lab verify-hook") as jail:
            options = {**options, "confinement": jail}
            return _grade(args, console, project, where, script, options, unfired)
    return 0


def _guard_entries(args: argparse.Namespace, project: Path, script: Path) -> list[Registered]:
    """The entries to grade as a guard; none for a Stop hook. A hook is graded as what the
    settings register it as: never a Stop-hook grade for a hook that is not on Stop."""
    entries = registered_entries(project, script)
    events = list(dict.fromkeys(e.event for e in entries))
    guard = [e for e in entries if e.event in {g.value for g in GUARD_EVENTS}]
    on_stop = Event.STOP.value in events
    name = script.name
    if guard and (args.cases is not None or not on_stop):
        if args.cases is None:
            kinds = " and ".join(dict.fromkeys(e.event for e in guard))
            raise HarnessError(
                f"{name} is a {kinds} hook in the project's settings, not a Stop hook: "
                "verify-hook grades a guard against a case table of the calls it should "
                "block, allow or ask about",
                fix=f"write one (see lab verify-hook --help) and run lab verify-hook {name} "
                "--cases cases.toml",
            )
        return guard
    if args.cases is not None:
        said = ", ".join(events) if events else "no event"
        raise HarnessError(
            f"{name} is registered on {said} in the project's .claude/settings.json, so "
            "there is no guard to grade against --cases",
            fix=f"register {name} as a PreToolUse, PermissionRequest or UserPromptSubmit "
            "hook in .claude/settings.json (with its matcher), then run this again",
        )
    if events and not on_stop:
        raise HarnessError(
            f"{name} is a {' and '.join(events)} hook: verify-hook grades Stop hooks and "
            "guards (PreToolUse, PermissionRequest, UserPromptSubmit)",
            fix="play it in a scenario instead: lab simulate (see lab simulate --help)",
        )
    return []


def _stop_options(args: argparse.Namespace, script: Path) -> dict[str, Any]:
    if args.break_cmd is None or args.fix_cmd is None:
        missing = " and ".join(
            flag for flag, v in (("--break", args.break_cmd), ("--fix", args.fix_cmd)) if not v
        )
        raise HarnessError(
            f"grading {script.name} as a Stop hook needs {missing}",
            fix=f"lab verify-hook {script.name} --break CMD --fix CMD (see lab verify-hook "
            "--help); for a guard, register it and give --cases FILE",
        )
    return {
        "break_cmd": args.break_cmd,
        "fix_cmd": args.fix_cmd,
        "stale_cmd": args.stale_cmd,
        "other_breaks": tuple(args.other_breaks),
        "timeout": args.timeout,
    }


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
        _write_junit(args, grade.junit_xml())
        emit_json(
            {
                **grade.to_json(),
                "kind": StepKind.STOP.value,
                "copy": copy,
                "confined": options["confinement"] is not None,
                "settings_warnings": [w.to_json() for w in unfired],
            }
        )
        return 0 if grade.passed else 1
    from harness.ui.grading_view import render_grade
    from harness.ui.prose import print_prose, prose
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
    # Wrapped at its words (a soft wrap split "HOME and" at the terminal's edge).
    print_prose(console, prose(describe(options["confinement"])))
    _write_junit(args, grade.junit_xml())
    console.print(grade.counts(), soft_wrap=True)
    return 0 if grade.passed else 1


def _write_junit(args: argparse.Namespace, xml: str) -> None:
    if args.junit_xml is not None:
        write_junit(args.junit_xml, xml)


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
