"""``lab next``: move on once the current step passed."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command
from harness.cli.stepping import moved, submitted_now, working


def add_parser(subparsers: Any) -> None:
    add_command(
        subparsers, "next", "move on once the current step passed", cmd_next, json_flag=True
    )


def cmd_next(args: argparse.Namespace) -> int:
    with working("next", args) as runner:
        move = runner.next()
    # Every move is submitted: the trainer's clock for the new step starts now.
    return moved(args, move, submitted=submitted_now(runner.ws))
