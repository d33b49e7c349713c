"""``lab goto N``: jump to a step; earlier steps are solved, your files backed up first."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command
from harness.cli.stepping import moved, working


def add_parser(subparsers: Any) -> None:
    goto = add_command(
        subparsers,
        "goto",
        "jump to a step (earlier steps are solved for you; your files are backed up first)",
        cmd_goto,
        json_flag=True,
    )
    goto.add_argument("step", help="step number or id")


def cmd_goto(args: argparse.Namespace) -> int:
    with working(f"goto {args.step}", args) as runner:
        move = runner.goto(args.step)
    return moved(args, move)
