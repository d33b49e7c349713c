"""``lab demo``: autopilot: provision a workspace and walk every lab, step by step."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.cli.common import add_command, make_console
from harness.engine.context import CheckContext
from harness.engine.devcheck import walk_lab
from harness.engine.manifest import load_labs
from harness.engine.progress import Progress
from harness.engine.stepview import StepView
from harness.maven import get_backend
from harness.maven.warm import warm_workspace
from harness.ui.console import escape
from harness.workspace import provision


def add_parser(subparsers: Any) -> None:
    demo = add_command(
        subparsers, "demo", "autopilot: provision a workspace and walk every lab", cmd_demo
    )
    demo.add_argument("dir", nargs="?", help="workspace directory (default: a temp directory)")
    demo.add_argument("--labs", nargs="*", default=[], help="only these labs")
    demo.add_argument(
        "--fixture",
        default=None,
        metavar="NAME",
        help="the fixture to walk the labs of (default: petclinic; lab fixtures lists them)",
    )


def cmd_demo(args: argparse.Namespace) -> int:
    from harness.ui.devcheck_view import WalkView, devcheck_table
    from harness.ui.hook_event_view import hook_event_renderable
    from harness.ui.prose import print_prose

    console = make_console()
    target = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="hooklab-demo-")) / "ws"
    with console.status("provisioning the workspace…"):
        provisioned = provision(target, fixture_name=args.fixture)
    ws = provisioned.workspace
    if not provisioned.created:
        # A second demo in the same place starts over; what was there is kept in a backup.
        backup = ws.rewind(
            ws.meta["initial_commit"], "before running the demo again", action="demo"
        )
        Progress().save(ws, "demo: start over")
        if backup is not None:
            from harness.ui.lab_view import backup_renderable

            print_prose(console, backup_renderable(backup, "Earlier state backed up:"))
    console.print(f"Workspace: [bold]{escape(str(ws.root))}[/]")
    # As `lab init` leaves a workspace; a failure here only costs time later.
    with console.status("compiling the fixture (once; later workspaces copy it)…"):
        if ws.fixture.compile_cache:
            warm_workspace(ws.root, get_backend(ws.backend))
    view = WalkView(console, demo=True)
    labs = [lab for lab in load_labs() if lab.fixture == ws.fixture_name]
    if args.labs:
        labs = [
            lab
            for lab in labs
            if any(lab.id.startswith(f"{int(x):02d}" if x.isdigit() else x) for x in args.labs)
        ]
    from harness.engine.devcheck import DevCheckReport

    walks = []
    started = time.monotonic()
    status = console.status("", spinner="dots")

    def on_activity(text: str) -> None:
        status.update(text)
        status.start()

    def on_hook(entry: StepView) -> None:
        status.stop()
        print_prose(console, hook_event_renderable(entry))

    for lab in labs:
        ctx = CheckContext(ws, lab.dir, on_activity=on_activity, on_hook_event=on_hook)
        try:
            walks.append(walk_lab(lab, ws, observer=view, context=ctx))
        finally:
            status.stop()
    report = DevCheckReport(walks, time.monotonic() - started)
    console.print(devcheck_table(report, title="lab demo: every lab, step by step"))
    verdict = (
        "[bold green]every step failed before and passed after its solve[/]"
        if (report.ok)
        else "[bold red]some steps misbehaved[/]"
    )
    console.print(f"{verdict} in {report.duration:.0f} s. Workspace kept at {ws.root}")
    return 0 if report.ok else 1
