"""``lab sensors``: run the fixture's Maven sensors and show their reports."""

from __future__ import annotations

import argparse
import time
from typing import Any

from harness.cli.common import add_json_flag, emit_json, make_console
from harness.errors import HarnessError
from harness.maven import BACKEND_NAMES, get_backend
from harness.maven.backend import SENSOR_GOALS
from harness.maven.surefire import ReportError, sensor_reports
from harness.ui.console import escape
from harness.ui.reports import maven_failure_text, maven_status, print_problems, sensor_table
from harness.workspace import Workspace


def add_parser(subparsers: Any) -> None:
    sensors = subparsers.add_parser("sensors", help="run the sensors and show their reports")
    sensors.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default=None,
        help="override the workspace's backend for this run",
    )
    sensors.add_argument(
        "--no-run", action="store_true", help="only show the reports already on disk"
    )
    add_json_flag(sensors)
    sensors.set_defaults(func=cmd_sensors)


def cmd_sensors(args: argparse.Namespace) -> int:
    ws = Workspace.find()
    if not ws.fixture.maven:
        raise HarnessError(
            f"the {ws.fixture_name} fixture has no Maven sensors",
            fix=f"its evidence is `{ws.fixture.evidence}`: run that in the workspace",
        )
    backend = get_backend(args.backend or ws.backend)
    console = make_console()
    run = None
    if not args.no_run:
        if args.json:
            run = backend.run(ws.root, SENSOR_GOALS)
        else:
            with maven_status(
                console, f"Running ./mvnw {' '.join(SENSOR_GOALS)} ({backend.name})"
            ) as sink:
                run = backend.run(ws.root, SENSOR_GOALS, on_output=sink)
    try:
        reports = sensor_reports(ws.root)
    except ReportError as exc:
        raise HarnessError(str(exc), fix="run the sensors again: lab sensors") from exc
    all_green = all(r is not None and r.green for r in reports.values())
    if args.json:
        emit_json(
            {
                "backend": backend.name,
                "maven": None
                if run is None
                else {"exit_code": run.returncode, "duration": round(run.duration, 3)},
                "green": all_green,
                "reports": {
                    name: None
                    if r is None
                    else {
                        "path": str(r.path),
                        "tests": r.tests,
                        "failures": r.failures,
                        "errors": r.errors,
                        "skipped": r.skipped,
                        "age_seconds": round(time.time() - r.mtime, 3),
                        "problems": [
                            {"test": p.test, "kind": p.kind, "message": p.message}
                            for p in r.problems
                        ],
                    }
                    for name, r in reports.items()
                },
            }
        )
        return 0 if all_green else 1
    console.print(sensor_table(reports))
    print_problems(console, reports)
    if run is not None:
        console.print(f"Maven exited with {run.returncode} after {run.duration:.1f} s.")
        if not run.ok and all(r is None for r in reports.values()):
            console.print("[red]No sensor report was written.[/] The end of Maven's output:")
            console.print(escape(maven_failure_text(run)[-3000:]))
    return 0 if all_green else 1
