"""``lab backups`` and ``lab restore NAME``: the backups of your work, and bringing one back."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_json_flag, emit_json, make_console
from harness.ui.console import escape
from harness.ui.reports import backups_table
from harness.workspace import Workspace


def add_parser(subparsers: Any) -> None:
    backups = subparsers.add_parser("backups", help="list the backups of your work")
    add_json_flag(backups)
    backups.set_defaults(func=cmd_backups)

    restore = subparsers.add_parser("restore", help="bring a backup of your work back")
    restore.add_argument("name", help="backup name from `lab backups`")
    restore.set_defaults(func=cmd_restore)


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
