"""``lab submit``: send your verified progress to the cohort remote."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_json_flag, emit_json, make_console
from harness.errors import HarnessError
from harness.trainer.publish import (
    DEFAULT_COHORT,
    pending_updates,
    resolve_settings,
    stored_settings,
    submit,
)
from harness.trainer.remote import RemoteError
from harness.ui.console import escape
from harness.workspace import Workspace


def add_parser(subparsers: Any) -> None:
    sub = subparsers.add_parser(
        "submit",
        help="send your verified progress to the cohort remote",
        description="Push your progress (each passed step with its evidence) to the cohort "
        "remote. Settings come from `lab init --remote URL --participant NAME`; the options "
        "here override them for this submit.",
    )
    sub.add_argument("--remote", help="git URL or path of the cohort remote")
    sub.add_argument("--participant", help="your name in the cohort (letters, digits, . _ -)")
    sub.add_argument("--cohort", help=f"the room's cohort name (default: {DEFAULT_COHORT})")
    sub.add_argument(
        "--force",
        action="store_true",
        help="replace your own record from an earlier workspace (only when the trainer says "
        "so: the old record is kept and the trainer's table shows it replaced)",
    )
    add_json_flag(sub)
    sub.set_defaults(func=cmd_submit)


def cmd_submit(args: argparse.Namespace) -> int:
    ws = Workspace.find()
    settings = resolve_settings(ws, args.remote, args.participant, args.cohort)
    pending = pending_updates(ws, settings)
    console = make_console(stderr=args.json)
    try:
        with (
            ws.operation("submit"),
            console.status(f"Submitting to {escape(settings.shown_url)} …"),
        ):
            done = submit(ws, settings, force=args.force)
    except RemoteError as exc:
        pending = pending_updates(ws, settings)
        raise HarnessError(
            f"{exc.message}; nothing is lost: your progress stays in this workspace "
            f"({pending} update{'s' if pending != 1 else ''} pending) and the next submit "
            "sends it",
            fix=exc.fix,
        ) from exc
    if args.json:
        emit_json(done.to_json())
        return 0
    from harness.ui.trainer_view import print_submission

    print_submission(console, done, pending)
    if stored_settings(ws) is None:
        hidden = settings.shown_url != settings.url
        console.print(
            "To submit after every passed step on its own: "
            f"lab init . --remote {escape(settings.shown_url)} --participant "
            f"{escape(settings.participant)} --cohort {escape(settings.cohort)}"
            + (" (with the URL whole: its credentials are not printed)" if hidden else ""),
            soft_wrap=True,
        )
    return 0
