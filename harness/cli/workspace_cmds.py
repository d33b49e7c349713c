"""``lab init``, ``lab sensors``, ``lab backups``, ``lab restore``: the workspace itself."""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from harness.cli.common import add_json_flag, emit_json, lab_command, make_console
from harness.errors import HarnessError
from harness.maven import BACKEND_NAMES, get_backend
from harness.maven.backend import SENSOR_GOALS
from harness.maven.surefire import ReportError, sensor_reports
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
from harness.ui.reports import (
    backups_table,
    maven_failure_text,
    maven_status,
    print_problems,
    sensor_table,
)
from harness.workspace import ProvisionResult, Workspace, all_fixtures, provision
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

    sensors = subparsers.add_parser("sensors", help="run the sensors and show their reports")
    sensors.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default=None,
        help="override the workspace's backend for this run",
    )
    sensors.add_argument(
        "--no-run", action="store_true", help="only show the reports already on disk"
    )
    add_json_flag(sensors)
    sensors.set_defaults(func=cmd_sensors)

    backups = subparsers.add_parser("backups", help="list the backups of your work")
    add_json_flag(backups)
    backups.set_defaults(func=cmd_backups)

    fixtures = subparsers.add_parser(
        "fixtures", help="list the fixtures a workspace can be provisioned from"
    )
    add_json_flag(fixtures)
    fixtures.set_defaults(func=cmd_fixtures)

    restore = subparsers.add_parser("restore", help="bring a backup of your work back")
    restore.add_argument("name", help="backup name from `lab backups`")
    restore.set_defaults(func=cmd_restore)


def cmd_init(args: argparse.Namespace) -> int:
    console = make_console()
    settings = None
    if args.remote or args.participant or args.cohort:
        settings = _submit_settings(args)
    with console.status("Provisioning the workspace …"):
        result = provision(args.dir, backend=args.backend, fixture_name=args.fixture)
    ws = result.workspace
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


def _first_lab(fixture: str) -> str:
    """The number of the fixture's first lab, as `lab start` takes it ("1", "12")."""
    from harness.engine.manifest import load_labs

    try:
        numbers = [lab.number for lab in load_labs() if lab.fixture == fixture]
    except HarnessError:
        numbers = []
    return str(int(numbers[0])) if numbers else "1"


def cmd_fixtures(args: argparse.Namespace) -> int:
    fixtures = all_fixtures()
    current = None
    with contextlib.suppress(HarnessError):  # outside a workspace: none is marked
        current = Workspace.find().fixture_name
    if args.json:
        emit_json([{**f.to_json(), "current": f.name == current} for f in fixtures])
        return 0
    from harness.ui.reports import fixtures_table

    console = make_console()
    console.print(fixtures_table(fixtures, current, DEFAULT_FIXTURE))
    console.print("Provision one with [bold]lab init DIR --fixture NAME[/].")
    return 0


def cmd_sensors(args: argparse.Namespace) -> int:
    ws = Workspace.find()
    if not ws.fixture.maven:
        raise HarnessError(
            f"the {ws.fixture_name} fixture has no Maven sensors",
            fix=f"its evidence is `{ws.fixture.evidence}`: run that in the workspace",
        )
    backend = get_backend(args.backend or ws.backend)
    console = make_console()
    run = None
    if not args.no_run:
        if args.json:
            run = backend.run(ws.root, SENSOR_GOALS)
        else:
            with maven_status(
                console, f"Running ./mvnw {' '.join(SENSOR_GOALS)} ({backend.name})"
            ) as sink:
                run = backend.run(ws.root, SENSOR_GOALS, on_output=sink)
    try:
        reports = sensor_reports(ws.root)
    except ReportError as exc:
        raise HarnessError(str(exc), fix="run the sensors again: lab sensors") from exc
    all_green = all(r is not None and r.green for r in reports.values())
    if args.json:
        emit_json(
            {
                "backend": backend.name,
                "maven": None
                if run is None
                else {"exit_code": run.returncode, "duration": round(run.duration, 3)},
                "green": all_green,
                "reports": {
                    name: None
                    if r is None
                    else {
                        "path": str(r.path),
                        "tests": r.tests,
                        "failures": r.failures,
                        "errors": r.errors,
                        "skipped": r.skipped,
                        "age_seconds": round(time.time() - r.mtime, 3),
                        "problems": [
                            {"test": p.test, "kind": p.kind, "message": p.message}
                            for p in r.problems
                        ],
                    }
                    for name, r in reports.items()
                },
            }
        )
        return 0 if all_green else 1
    console.print(sensor_table(reports))
    print_problems(console, reports)
    if run is not None:
        console.print(f"Maven exited with {run.returncode} after {run.duration:.1f} s.")
        if not run.ok and all(r is None for r in reports.values()):
            console.print("[red]No sensor report was written.[/] The end of Maven's output:")
            console.print(escape(maven_failure_text(run)[-3000:]))
    return 0 if all_green else 1


def cmd_backups(args: argparse.Namespace) -> int:
    ws = Workspace.find()
    backups = ws.backups()
    if args.json:
        emit_json(
            [
                {
                    "name": b.name,
                    "ref": b.ref,
                    "commit": b.commit,
                    "reason": b.reason,
                    "created": b.created,
                }
                for b in backups
            ]
        )
        return 0
    console = make_console()
    if not backups:
        console.print("No backups yet. `lab reset` takes one before it changes anything.")
        return 0
    console.print(backups_table(backups))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    ws = Workspace.find()
    with ws.operation(f"restore {args.name}"):
        target, safety = ws.restore(args.name)
    console = make_console()
    console.print(f"[green]✓[/] Restored {escape(target.name)}.")
    from harness.ui.lab_view import backup_renderable
    from harness.ui.prose import print_prose

    # Each way back a whole line of its own: the git command is copied, never split.
    print_prose(console, backup_renderable(safety, "What you had just before is kept too:"))
    return 0
