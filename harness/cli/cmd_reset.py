"""``lab reset [N]``: put a step back to its start, your files backed up first."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command
from harness.cli.stepping import moved, working


def add_parser(subparsers: Any) -> None:
    reset = add_command(
        subparsers,
        "reset",
        "put a step back to its start (your files are backed up first)",
        cmd_reset,
        json_flag=True,
    )
    reset.add_argument("step", nargs="?", help="step number or id (default: the current step)")


def cmd_reset(args: argparse.Namespace) -> int:
    with working("reset", args) as runner:
        move = runner.reset(args.step)
    return moved(args, move)
