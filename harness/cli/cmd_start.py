"""``lab start N``: start a lab (by number or id) at its first step."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command
from harness.cli.stepping import moved, submitted_now, working


def add_parser(subparsers: Any) -> None:
    start = add_command(
        subparsers, "start", "start a lab (by number or id)", cmd_start, json_flag=True
    )
    start.add_argument("lab", help="lab number or id, e.g. 3 or 03-stop-hook")


def cmd_start(args: argparse.Namespace) -> int:
    with working(f"start {args.lab}", args) as runner:
        move = runner.start(args.lab)
    # The trainer's view shows who has started where, not only who has passed something.
    return moved(args, move, intro=True, submitted=submitted_now(runner.ws))
