"""``lab doctor``: is this machine ready for the workshop?"""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_json_flag, emit_json, make_console
from harness.doctor import MISSING, run_checks
from harness.ui.prose import print_prose
from harness.ui.reports import doctor_renderable


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check Java, Maven, jq, git, bash, Docker, Node and Claude Code"
    )
    parser.add_argument(
        "--fix",
        action="store_true",
        help="install what Hook Lab installs itself: the pinned Claude Code client (from npm)",
    )
    add_json_flag(parser)
    parser.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    console = make_console(stderr=args.json)
    if args.fix:
        from harness.claude.client.install import install_client, wanted_version

        with console.status(f"Installing Claude Code {wanted_version()} from npm …"):
            client = install_client(on_output=lambda line: console.log(line))
        console.print(f"Claude Code {client.version} is installed at {client.path}")
    if args.json:
        findings = run_checks()
    else:
        with console.status("Checking the machine …"):
            findings = run_checks()
    ready = not any(f.state == MISSING and f.required for f in findings)
    if args.json:
        emit_json({"ready": ready, "checks": [f.to_json() for f in findings]})
        return 0 if ready else 1
    print_prose(console, doctor_renderable(findings))
    packages = next(f for f in findings if f.name == "system packages")
    if packages.fix:
        # One line, never wrapped, so it can be copied as it is (the bootstrap prints the same).
        console.print(f"To install what is missing: {packages.fix}", markup=False, soft_wrap=True)
    console.print(
        "[green]Ready for the workshop.[/]"
        if ready
        else "[red]Not ready:[/] fix the rows marked missing, then run lab doctor again."
    )
    return 0 if ready else 1
