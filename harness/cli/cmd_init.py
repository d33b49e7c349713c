"""``lab init DIR``: provision a workspace from a fixture (and, with --remote, join a room)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from harness.cli.common import add_json_flag, emit_json, lab_command, make_console
from harness.engine.maven_trust import in_words, note_maven_record
from harness.errors import HarnessError
from harness.maven import BACKEND_NAMES, get_backend
from harness.maven.warm import WarmResult, warm_workspace
from harness.paths import in_checkout
from harness.trainer.publish import (
    SubmitSettings,
    auto_submit,
    make_settings,
    store_settings,
    stored_settings,
)
from harness.ui.console import escape
from harness.workspace import ProvisionResult, Workspace, provision
from harness.workspace.fixture import DEFAULT_FIXTURE, SHIPPED


def add_parser(subparsers: Any) -> None:
    init = subparsers.add_parser("init", help="provision a workspace from a fixture")
    init.add_argument("dir", type=Path, help="directory to create (must be new or empty)")
    init.add_argument(
        "--fixture",
        choices=list(SHIPPED),
        default=None,
        help=f"the project to work on (default: {DEFAULT_FIXTURE}; lab fixtures lists them)",
    )
    init.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default=None,
        help="where ./mvnw runs Maven: this machine or a container (default: local; an "
        "existing workspace keeps its own)",
    )
    init.add_argument(
        "--remote",
        help="the cohort remote your trainer gave you: each passed step is submitted there",
    )
    init.add_argument("--participant", help="your name in the cohort (letters, digits, . _ -)")
    init.add_argument("--cohort", help="the room's cohort name (default: default)")
    add_json_flag(init)
    init.set_defaults(func=cmd_init)


def cmd_init(args: argparse.Namespace) -> int:
    console = make_console()
    settings = None
    if args.remote or args.participant or args.cohort:
        settings = _submit_settings(args)
    with console.status("Provisioning the workspace …"):
        result = provision(args.dir, backend=args.backend, fixture_name=args.fixture)
    ws = result.workspace
    # Before any submit: the trainer sees which Maven the checks now trust (walk-q).
    trusted = note_maven_record(ws, result.maven_recorded_again)
    warm = None
    class_data = None
    if result.created and ws.fixture.compile_cache:
        # Compiled now (or copied from the cache), so the first sensor run costs a warm one.
        with console.status("Compiling the fixture (once; later workspaces copy it) …"):
            warm, class_data = warm_workspace(ws.root, get_backend(ws.backend))
    arrived = None
    if settings is not None:
        store_settings(ws, settings)
        # Tell the trainer this participant is here, and learn now whether the remote answers.
        arrived = auto_submit(ws)
    if args.json:
        emit_json(
            {
                "workspace": str(ws.root),
                "fixture": ws.fixture_name,
                "created": result.created,
                "files": result.files,
                "maven_recorded_again": list(result.maven_recorded_again or []) or None,
                "maven_told_trainer": trusted is not None,
                "maven_changes": list(result.maven_changes) or None,
                "backend": ws.backend,
                "head": ws.head(),
                "compiled": warm.how if warm else None,
                "class_data": class_data.how if class_data else None,
                "submit": settings.to_json() if settings else None,
                "arrived": arrived.to_json() if arrived else None,
            }
        )
        return 0
    _say_ready(args, result, warm, settings)
    if trusted is not None:
        told = escape(in_words(trusted))
        console.print(f"[yellow]![/] Your progress records this for your trainer: {told}.")
    if arrived is not None:
        from harness.ui.trainer_view import print_auto_submit

        print_auto_submit(console, arrived)
    return 0


def _submit_settings(args: argparse.Namespace) -> SubmitSettings:
    """The remote, name and cohort to submit with; in an existing workspace that already has
    a remote, a new --participant or --cohort keeps it (lab init . --participant ada-2)."""
    stored = None
    if (Path(args.dir) / ".git" / "hooklab").is_dir():
        try:
            stored = stored_settings(Workspace(Path(args.dir).resolve()))
        except HarnessError:
            stored = None
    remote = args.remote or (stored.url if stored else None)
    participant = args.participant or (stored.participant if stored else None)
    if not (remote and participant):
        raise HarnessError(
            "submitting needs both --remote and --participant",
            fix="lab init DIR --remote URL --participant NAME [--cohort C]",
        )
    cohort = args.cohort or (stored.cohort if stored and not args.remote else None)
    return make_settings(remote, participant, cohort)


def _say_ready(
    args: argparse.Namespace,
    result: ProvisionResult,
    warm: WarmResult | None,
    settings: SubmitSettings | None,
) -> None:
    """What lab init tells a person: where submitted steps go, the workspace, what next."""
    console = make_console()
    ws = result.workspace
    if settings is not None:
        console.print(
            f"Passed steps are submitted to [bold]{escape(settings.shown_url)}[/] as "
            f"[bold]{escape(settings.participant)}[/] (cohort {escape(settings.cohort)})."
        )
    if result.created:
        console.print(
            f"[green]✓[/] Workspace ready at [bold]{escape(str(ws.root))}[/] "
            f"({result.files} files, fixture [bold]{ws.fixture_name}[/], "
            f"backend [bold]{ws.backend}[/])."
        )
        if warm is not None and not warm.ok:
            console.print(
                "[yellow]![/] The fixture could not be compiled ahead; the first sensor run "
                "compiles it (`lab doctor` shows what Maven needs)."
            )
        lab = lab_command()
        # The participant guide's order: is the machine ready, what labs are there, go.
        console.print(
            f"Next:  cd {escape(shlex.quote(str(args.dir)))} && {escape(lab)} doctor",
            soft_wrap=True,  # a command is never broken across lines
        )
        first = _first_lab(ws.fixture_name)
        console.print(
            f"then   {escape(lab)} list   and   {escape(lab)} start {first}", soft_wrap=True
        )
        if lab != "lab":
            bin_dir = escape(str(Path(sys.executable).parent))
            how = (
                "./scripts/bootstrap.sh in your Hook Lab checkout puts it there"
                if in_checkout()
                else f"add {bin_dir} to your PATH (installed with pipx: pipx ensurepath)"
            )
            console.print(f"(lab is not on your PATH yet: {how})")
    else:
        console.print(
            f"{escape(str(ws.root))} is already a workspace; nothing was copied "
            f"(backend [bold]{ws.backend}[/])."
        )
        if result.maven_recorded_again is not None:
            from harness.ui.init_view import maven_again_notice
            from harness.ui.prose import print_prose

            print_prose(console, maven_again_notice(result.maven_changes))


def _first_lab(fixture: str) -> str:
    """The number of the fixture's first lab, as `lab start` takes it ("1", "12")."""
    from harness.engine.manifest import load_labs

    try:
        numbers = [lab.number for lab in load_labs() if lab.fixture == fixture]
    except HarnessError:
        numbers = []
    return str(int(numbers[0])) if numbers else "1"
