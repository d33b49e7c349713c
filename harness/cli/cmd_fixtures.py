"""``lab fixtures``: the fixtures a workspace can be provisioned from."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from harness.cli.common import add_json_flag, emit_json, make_console
from harness.errors import HarnessError
from harness.workspace import Workspace, all_fixtures
from harness.workspace.fixture import DEFAULT_FIXTURE


def add_parser(subparsers: Any) -> None:
    fixtures = subparsers.add_parser(
        "fixtures", help="list the fixtures a workspace can be provisioned from"
    )
    add_json_flag(fixtures)
    fixtures.set_defaults(func=cmd_fixtures)


def cmd_fixtures(args: argparse.Namespace) -> int:
    fixtures = all_fixtures()
    current = None
    with contextlib.suppress(HarnessError):  # outside a workspace: none is marked
        current = Workspace.find().fixture_name
    if args.json:
        emit_json([{**f.to_json(), "current": f.name == current} for f in fixtures])
        return 0
    from harness.ui.reports import fixtures_table

    console = make_console()
    console.print(fixtures_table(fixtures, current, DEFAULT_FIXTURE))
    console.print("Provision one with [bold]lab init DIR --fixture NAME[/].")
    return 0
