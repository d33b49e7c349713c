"""``lab trainer status``: participants × labs, who needs help first; --watch follows the
room live, verifying each new submission as it arrives."""

from __future__ import annotations

import argparse
import csv
import sys
import threading
import time
from pathlib import Path
from typing import Any

from harness.cli.cmd_trainer import (
    add_judging_options,
    read_room,
    remote_args,
    room_reader,
    write_page,
)
from harness.cli.common import emit_json, make_console
from harness.errors import HarnessError
from harness.trainer.arrival import RoomVerifier, WatchSettings
from harness.trainer.cohort import Cohort, CohortReader
from harness.trainer.page import render_page
from harness.trainer.remote import RemoteError
from harness.ui.console import escape

MIN_INTERVAL = 0.2


def _interval(text: str) -> float:
    """Seconds between refreshes: a number, at least MIN_INTERVAL (0 would busy-loop)."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from exc
    if not value >= MIN_INTERVAL:
        raise argparse.ArgumentTypeError(
            f"{text} is too short: at least {MIN_INTERVAL:g} seconds, e.g. --interval 5"
        )
    return value


def add_parser(trainer_sub: Any) -> None:
    status = trainer_sub.add_parser(
        "status", help="participants × labs: who needs help first, then everyone's progress"
    )
    remote_args(status)
    fmt = status.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print machine-readable JSON")
    fmt.add_argument("--csv", action="store_true", help="print one CSV row per participant")
    fmt.add_argument(
        "--watch",
        action="store_true",
        help="refresh the table live, verifying each new submission as it arrives",
    )
    status.add_argument(
        "--interval",
        type=_interval,
        default=5.0,
        help=f"seconds between refreshes with --watch (at least {MIN_INTERVAL:g})",
    )
    status.add_argument(
        "--all",
        action="store_true",
        help="every row, however tall: in a terminal the table otherwise fits the screen",
    )
    watching = status.add_argument_group("with --watch: each new submission verified as it arrives")
    watching.add_argument(
        "--no-verify", action="store_true", help="only show the room, verify nothing"
    )
    watching.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="participants verified at once (default and most: cores)",
    )
    add_judging_options(watching)
    watching.add_argument(
        "--html",
        type=Path,
        metavar="PAGE",
        help="also keep this page up to date (lab trainer report's)",
    )
    status.set_defaults(func=cmd_status)


def cmd_status(args: argparse.Namespace) -> int:
    reader = room_reader(args)
    stuck_after = args.stuck_after * 60
    machine = args.json or args.csv
    console = make_console(stderr=machine)
    if args.watch:
        return _watch(args, reader, console)
    if args.html or args.no_verify or args.jobs:
        raise HarnessError(
            "--html, --jobs and --no-verify go with --watch (verifying as it arrives)",
            fix="add --watch, or write the page once: lab trainer report URL --html PAGE",
        )
    cohort = read_room(reader, console)
    if args.json:
        emit_json(cohort.to_json(stuck_after))
    elif args.csv:
        csv.writer(sys.stdout, lineterminator="\n").writerows(cohort.csv_rows())
    else:
        from harness.ui.trainer_view import cohort_renderable

        # In a terminal the table fits the screen, who needs help first; piped: every row.
        # (one line less: the shell's prompt comes after it)
        height = console.height - 1 if console.is_terminal and not args.all else None
        console.print(
            cohort_renderable(cohort, stuck_after=stuck_after, width=console.width, height=height)
        )
    return 0


def _watch(args: argparse.Namespace, reader: CohortReader, console: Any) -> int:
    changed = threading.Event()
    verifier = None if args.no_verify else _verifier(args, reader, changed.set)
    cohort = read_room(reader, console)
    if verifier is not None:
        verifier.offer(cohort)
        verifier.start()
    show = _Shown(args, console, verifier)
    try:
        if not console.is_terminal:
            # Piped or logged: a whole table per round, one after the other (the page, with
            # --html, follows every verdict).
            while True:
                show.mark(cohort)
                console.print(show.view(cohort))
                console.file.flush()  # a tee or a log file sees each round as it comes
                next_read = time.monotonic() + args.interval
                while time.monotonic() < next_read and changed.wait(
                    max(0.0, next_read - time.monotonic())
                ):
                    changed.clear()
                    show.mark(cohort)
                cohort = _read_again(reader, cohort, console)
                show.offer(cohort)
        from harness.ui.lab_view import live_view

        with live_view(console, show.view(cohort)) as live:
            next_read = time.monotonic() + args.interval
            while True:
                # A verdict redraws at once; the remote is read every interval.
                changed.wait(max(0.0, next_read - time.monotonic()))
                changed.clear()
                if time.monotonic() >= next_read:
                    next_read = time.monotonic() + args.interval
                    try:
                        cohort = reader.read()
                        show.problem = ""
                        show.offer(cohort)
                    except RemoteError as exc:
                        # The remote hiccuped: keep the last table, say so, try again.
                        show.problem = f"last read failed: {exc.problem}"
                show.mark(cohort)
                live.update(show.view(cohort))
    except KeyboardInterrupt:
        console.print("stopped watching")
        return 130
    finally:
        if verifier is not None:
            verifier.stop()


def _verifier(
    args: argparse.Namespace, reader: CohortReader, on_change: Any
) -> RoomVerifier | None:
    from harness.trainer import verify_jail as sandbox

    if not args.no_sandbox and sandbox.bwrap() is None:
        missing = sandbox.missing_sandbox()
        raise HarnessError(
            "lab trainer status --watch verifies each submission as it arrives, running the "
            "participants' scripts (mvnw, hooks) only in a sandbox, and bubblewrap (bwrap) is "
            "not installed here",
            fix=f"{missing.fix}; or --no-verify to only follow the room",
        )
    settings = WatchSettings(args.engine, args.backend, not args.no_sandbox)
    return RoomVerifier(reader.url, reader.cohort, settings, jobs=args.jobs, on_change=on_change)


class _Shown:
    """What --watch draws: the table (and the page, with --html), the verifies marked on it."""

    def __init__(self, args: argparse.Namespace, console: Any, verifier: RoomVerifier | None):
        self.args, self.console, self.verifier = args, console, verifier
        self.problem = ""

    def offer(self, cohort: Cohort) -> None:
        if self.verifier is not None:
            self.verifier.offer(cohort)

    def mark(self, cohort: Cohort) -> None:
        if self.verifier is not None:
            self.verifier.mark(cohort)
        if self.args.html:
            stuck_after = self.args.stuck_after * 60
            write_page(self.args.html, render_page(cohort, stuck_after=stuck_after, refresh=5))

    def view(self, cohort: Cohort) -> Any:
        from harness.ui.trainer_view import cohort_renderable

        footer = f"refreshing every {self.args.interval:g} s · Ctrl-C to stop"
        if self.verifier is not None:
            footer = f"verifying as it arrives ({self.verifier.workers} at once) · {footer}"
        if self.problem:
            footer = f"{footer} · {self.problem}"
        # Measured every round: the terminal may have been resized meanwhile.
        height = self.console.height - 1 if self.console.is_terminal else None
        return cohort_renderable(
            cohort,
            stuck_after=self.args.stuck_after * 60,
            footer=footer,
            width=self.console.width,
            height=height,
        )


def _read_again(reader: CohortReader, last: Cohort, console: Any) -> Cohort:
    try:
        return reader.read()
    except RemoteError as exc:
        console.print(f"last read failed: {escape(exc.problem)}; the table above still holds")
        return last
