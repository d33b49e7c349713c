"""``lab hint``: the next hint for the current step."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command, emit_json, make_console
from harness.cli.stepping import holding, print_submitted, submit_json, submitted_now


def add_parser(subparsers: Any) -> None:
    add_command(
        subparsers, "hint", "show the next hint for the current step", cmd_hint, json_flag=True
    )


def cmd_hint(args: argparse.Namespace) -> int:
    with holding("hint") as runner:
        step, tier, text = runner.hint()
    submitted = submitted_now(runner.ws)
    if args.json:
        emit_json(
            {
                "step": step.id,
                "tier": tier,
                "of": len(step.hints),
                "hint": text,
                "submit": submit_json(submitted),
            }
        )
        return 0
    from harness.ui.lab_view import print_hint

    console = make_console()
    print_hint(console, step, tier, text)
    print_submitted(console, submitted)
    return 0
