"""``lab trainer report``: one self-contained HTML page to project in the room."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from harness.cli.cmd_trainer import read_room, remote_args, room_reader, write_page
from harness.cli.common import make_console
from harness.trainer.page import render_page
from harness.trainer.remote import RemoteError
from harness.ui.console import escape


def add_parser(trainer_sub: Any) -> None:
    report = trainer_sub.add_parser(
        "report", help="write one self-contained HTML page to project in the room"
    )
    remote_args(report)
    report.add_argument("--html", type=Path, required=True, help="the page to write")
    report.add_argument(
        "--refresh",
        type=int,
        metavar="SECONDS",
        help="keep rewriting the page every SECONDS (it reloads itself in the browser)",
    )
    report.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    reader = room_reader(args)
    stuck_after = args.stuck_after * 60
    console = make_console()
    cohort = read_room(reader, console)
    write_page(args.html, render_page(cohort, stuck_after=stuck_after, refresh=args.refresh))
    console.print(
        f"[green]✓[/] Wrote {escape(str(args.html))}: {len(cohort.members)} participants, "
        f"{sum(len(lab.steps) for lab in cohort.labs)} steps."
    )
    if not args.refresh:
        return 0
    console.print(f"Rewriting it every {args.refresh} s; Ctrl-C to stop.")
    try:
        while True:
            time.sleep(args.refresh)
            try:
                cohort = reader.read()
            except RemoteError as exc:
                console.print(f"[yellow]read failed, page kept as it was:[/] {escape(exc.message)}")
                continue
            write_page(
                args.html, render_page(cohort, stuck_after=stuck_after, refresh=args.refresh)
            )
    except KeyboardInterrupt:
        return 130
