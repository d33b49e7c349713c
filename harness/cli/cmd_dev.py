"""``lab dev check`` and ``lab dev merge``: the lab author's tools (prove every lab; join the
reports of a check split over machines)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from harness.cli.common import (
    add_engine_flag,
    add_json_flag,
    emit_json,
    engine_fields,
    make_console,
)
from harness.engine.context import CheckContext
from harness.engine.devcheck import Shard, dev_check
from harness.errors import HarnessError
from harness.ui.console import escape
from harness.workspace import Workspace, get_fixture


def add_parser(subparsers: Any) -> None:
    """``lab dev check`` and ``lab dev merge``: the lab author's tools."""
    dev = subparsers.add_parser("dev", help="tools for lab authors")
    dev_sub = dev.add_subparsers(dest="dev_command", metavar="COMMAND")
    check = dev_sub.add_parser(
        "check",
        help="validate every lab: manifests, then per step setup → every check, at least "
        "one failing → solve → every check passing",
    )
    check.add_argument("labs", nargs="*", help="lab numbers or ids (default: all)")
    check.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="labs proven at once, each on its own workspace (default: one per core)",
    )
    add_engine_flag(check)
    check.add_argument(
        "--fixture",
        default=None,
        metavar="NAME",
        help="only the labs of this fixture (default in a workspace: its fixture's; "
        "elsewhere: every lab, each on its own fixture)",
    )
    add_json_flag(check)
    _add_shard_flags(check)
    check.set_defaults(func=cmd_dev_check)
    merge = dev_sub.add_parser(
        "merge",
        help="merge the reports of split dev checks (--shard K/N, or one lab per CI job) "
        "into one; fails when a lab of the course is in none of them",
    )
    merge.add_argument("reports", nargs="+", type=Path, help="files written by --report")
    merge.add_argument(
        "--junit", type=Path, metavar="FILE", help="also write the merged report as JUnit XML"
    )
    add_json_flag(merge)
    merge.set_defaults(func=cmd_dev_merge)
    dev.set_defaults(func=lambda args: (dev.print_help(), 2)[1])


def _add_shard_flags(check: argparse.ArgumentParser) -> None:
    def shard(text: str) -> Shard:
        try:
            return Shard.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc

    check.add_argument(
        "--shard",
        type=shard,
        metavar="K/N",
        help="prove only part K of N (the labs dealt round-robin by id); "
        "lab dev merge joins the parts' reports",
    )
    check.add_argument(
        "--report", type=Path, metavar="FILE", help="also write the JSON report to FILE"
    )


def cmd_dev_merge(args: argparse.Namespace) -> int:
    from harness.engine.lab_shards import junit_xml, merge_reports, read_report
    from harness.engine.manifest import lab_dirs
    from harness.ui.devcheck_view import merged_table

    parts = [(path, read_report(path)) for path in args.reports]
    merged = merge_reports(parts, [d.name for d in lab_dirs()])
    if args.junit:
        args.junit.parent.mkdir(parents=True, exist_ok=True)
        args.junit.write_text(junit_xml(merged), encoding="utf-8")
    if args.json:
        emit_json(merged)
    else:
        console = make_console()
        console.print(merged_table(merged))
        if merged["missing"]:
            console.print(f"[red]no report proves[/] {escape(', '.join(merged['missing']))}")
        console.print(
            f"{'[green]ok[/]' if merged['ok'] else '[red]problems found[/]'}: "
            f"{len(merged['labs'])} labs from {len(parts)} reports"
        )
    return 0 if merged["ok"] else 1


def cmd_dev_check(args: argparse.Namespace) -> int:
    from harness.ui.devcheck_view import WalkView, devcheck_table

    console = make_console(stderr=args.json)
    view = None if args.json else WalkView(console, demo=False)
    status = console.status("", spinner="dots")

    def factory(ws: Workspace, lab: Any) -> CheckContext:
        def on_activity(text: str) -> None:
            status.update(f"{lab.id}: {text}")
            status.start()

        return CheckContext(ws, lab.dir, on_activity=on_activity, **engine_fields(args))

    def quiet_factory(ws: Workspace, lab: Any) -> CheckContext:
        return CheckContext(ws, lab.dir, **engine_fields(args))

    fixture = args.fixture
    if fixture is None and not args.labs:
        with contextlib.suppress(HarnessError):
            fixture = Workspace.find().fixture_name  # the labs this workspace takes
    if fixture is not None:
        get_fixture(fixture)  # an unknown name: the error names the known ones
    try:
        report = dev_check(
            only=args.labs,
            fixture_name=fixture,
            observer=view,
            context_factory=quiet_factory if args.json else factory,
            shard=args.shard,
            jobs=args.jobs,
        )
    finally:
        status.stop()
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    if args.json:
        emit_json(report.to_json())
    else:
        console.print(devcheck_table(report))
        maven = sum(lab.maven_seconds for lab in report.labs)
        console.print(
            f"{'[green]ok[/]' if report.ok else '[red]problems found[/]'}: "
            f"{len(report.labs)} labs in {report.duration:.0f} s "
            f"({maven:.0f} s in Maven)"
        )
    sys.stdout.flush()
    return 0 if report.ok else 1
