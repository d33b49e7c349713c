"""``lab status``: where you are in the current lab."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command, emit_json, make_console
from harness.cli.stepping import lab_runner


def add_parser(subparsers: Any) -> None:
    add_command(
        subparsers, "status", "where you are in the current lab", cmd_status, json_flag=True
    )


def cmd_status(args: argparse.Namespace) -> int:
    runner = lab_runner()
    lab = runner.lab()
    if args.json:
        emit_json({"workspace": str(runner.ws.root), **runner.progress.to_json()})
        return 0
    from harness.ui.lab_view import print_status

    print_status(make_console(), lab, runner.progress)
    return 0
