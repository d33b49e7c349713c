"""``lab list``: the labs and your progress (in a workspace: its fixture's labs)."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command, emit_json, make_console
from harness.engine.manifest import scan_labs
from harness.engine.progress import Progress
from harness.errors import HarnessError
from harness.workspace import Workspace


def add_parser(subparsers: Any) -> None:
    add_command(subparsers, "list", "list the labs and your progress", cmd_list, json_flag=True)


def cmd_list(args: argparse.Namespace) -> int:
    """The labs; a lab whose manifest does not load is named with its error, beside the
    others (exit 1, so an author's script notices). In a workspace: its fixture's labs."""
    labs, broken = scan_labs()
    fixture = None
    try:
        ws = Workspace.find()
    except HarnessError:
        progress = Progress()  # outside a workspace: list every fixture's labs
    else:
        fixture = ws.fixture_name
        labs = [lab for lab in labs if lab.fixture == fixture]  # the ones `lab start` takes here
        try:
            progress = Progress.load(ws)
        except Exception:
            progress = Progress()
    if args.json:
        rows: list[dict[str, Any]] = [
            {
                "id": lab.id,
                "title": lab.title,
                "fixture": lab.fixture,
                "steps": [s.id for s in lab.steps],
                "progress": progress.labs[lab.id].to_json() if lab.id in progress.labs else None,
            }
            for lab in labs
        ]
        rows += [{"id": name, "error": exc.message, "fix": exc.fix} for name, exc in broken.items()]
        emit_json(sorted(rows, key=lambda row: str(row["id"])))
        return 1 if broken else 0
    from harness.ui.console import print_error
    from harness.ui.lab_view import lab_table

    console = make_console()
    if not labs and not broken:
        console.print(f"No lab works on the {fixture} fixture yet (lab fixtures lists them).")
        return 0
    console.print(lab_table(labs, progress, broken=list(broken), fixture=fixture))
    for exc in broken.values():
        print_error(exc.message, exc.fix)
    if fixture is None:
        console.print("Start one in a workspace of its fixture: [bold]lab start N[/].")
    else:
        console.print("Start one with [bold]lab start N[/].")
    return 1 if broken else 0
