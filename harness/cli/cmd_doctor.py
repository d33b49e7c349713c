"""``lab doctor``: is this machine ready for the workshop?"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

from harness.cli.common import add_json_flag, emit_json, make_console
from harness.doctor import MISSING, run_checks
from harness.errors import HarnessError
from harness.ui.console import escape
from harness.ui.prose import print_prose
from harness.ui.reports import doctor_renderable, prove_client_renderable
from harness.workspace import Fixture, Workspace, get_fixture
from harness.workspace.fixture import DEFAULT_FIXTURE, SHIPPED


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check what the workshop needs: git, bash, Claude Code, and what the fixture "
        "needs (PetClinic: Java, Maven or Docker, jq; Node: node and npm)",
    )
    parser.add_argument(
        "--fixture",
        choices=list(SHIPPED),
        default=None,
        help="check for this fixture (default: the workspace's, outside one the "
        f"{DEFAULT_FIXTURE})",
    )
    parser.add_argument(
        "--fix",
        action="store_true",
        help="install what Hook Lab installs itself: the pinned Claude Code client (from npm)",
    )
    parser.add_argument(
        "--prove-client",
        action="store_true",
        help="prove the PetClinic fixture's guard hooks on the claude on your PATH (offline, "
        "scripted model, "
        "no key; your ~/.claude is never read or changed); exit 1 when any does not hold",
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
    if args.prove_client:
        return _prove_client(args, console)
    fixture, whose = _fixture(args)
    if args.json:
        findings = run_checks(fixture=fixture)
    else:
        with console.status("Checking the machine …"):
            findings = run_checks(fixture=fixture)
    ready = not any(f.state == MISSING and f.required for f in findings)
    if args.json:
        emit_json(
            {"ready": ready, "fixture": fixture.name, "checks": [f.to_json() for f in findings]}
        )
        return 0 if ready else 1
    console.print(f"For the [bold]{escape(fixture.name)}[/] fixture ({whose}).")
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


def _fixture(args: argparse.Namespace) -> tuple[Fixture, str]:
    """The fixture to check for, and why that one."""
    if args.fixture:
        return get_fixture(args.fixture), "--fixture"
    try:
        return Workspace.find().fixture, "this workspace's"
    except HarnessError:
        return get_fixture(None), "the default; lab doctor --fixture NAME checks for another"


def _prove_client(args: argparse.Namespace, console: Any) -> int:
    """The fixture hooks' proof on the participant's own claude, one row per behaviour."""
    from harness.claude.client.install import ClientInstall, wanted_version
    from harness.doctor import own_claude_version
    from harness.doctor.prove_client import ProofResult, prove_client

    pinned = wanted_version()
    path = shutil.which("claude")
    if path is None:
        raise HarnessError(
            "no claude on your PATH: there is no client of yours to prove",
            fix="install Claude Code (claude --version must work), or use the pinned one: "
            "lab doctor --fix",
        )
    version, said = own_claude_version(path)
    if version is None:
        raise HarnessError(
            f"{path} does not tell its version ({said})",
            fix="check your Claude Code installation: claude --version",
        )
    client = ClientInstall(Path(path).absolute(), version)

    def done(result: ProofResult) -> None:
        mark = "[green]✔ holds[/]" if result.holds else "[red]✘ does not hold[/]"
        console.print(f"{mark}  {escape(result.behaviour)}", highlight=False)

    with console.status(
        f"Proving the PetClinic fixture's hooks on Claude Code {version} …"
    ) as status:
        results = prove_client(
            client,
            on_status=lambda text: status.update(f"{escape(text)} …"),
            on_result=done,
        )
    holds = all(r.holds for r in results)
    if args.json:
        emit_json(
            {
                "client": {"path": str(client.path), "version": version, "pinned": pinned},
                "holds": holds,
                "proofs": [r.to_json() for r in results],
            }
        )
    else:
        print_prose(console, prove_client_renderable(str(client.path), version, pinned, results))
    return 0 if holds else 1
