"""``lab check``: check the current step; exit 1 when it fails."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command, add_engine_flag, emit_json, make_console
from harness.cli.stepping import print_submitted, submit_json, submitted_now, working
from harness.results import Status


def add_parser(subparsers: Any) -> None:
    check_step = add_command(
        subparsers, "check", "check the current step", cmd_check, json_flag=True
    )
    check_step.add_argument(
        "--verbose",
        action="store_true",
        help="show every hook message whole (long ones are cut after 12 lines otherwise)",
    )
    add_engine_flag(check_step)
    check_step.add_argument(
        "--scripted",
        action="store_true",
        help="pass a live step on its scripted session instead of your own Claude Code "
        "session (without model access); progress records it as scripted",
    )


def cmd_check(args: argparse.Namespace) -> int:
    with working("check", args) as runner:
        run = runner.check(record_failure=True)
    # A failed check is submitted too: the trainer sees who is trying and not getting there.
    submitted = submitted_now(runner.ws) if run.status is not Status.ERROR else None
    if args.json:
        emit_json({**run.to_json(), "submit": submit_json(submitted)})
    else:
        from harness.ui.lab_view import print_step_run

        console = make_console()
        print_step_run(console, run)
        print_submitted(console, submitted)
    return 0 if run.status is Status.PASS else 1
