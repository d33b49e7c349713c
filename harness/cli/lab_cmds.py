"""Lab commands: list, start, status, check, hint, next, goto, reset, solve, watch, demo and
``dev check``. Each parses, calls the engine once and renders; exit 1 on a failed check."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.cli.common import (
    add_engine_flag,
    add_json_flag,
    emit_json,
    engine_fields,
    make_console,
)
from harness.cli.watching import add_watch_arguments, cmd_watch
from harness.engine.context import CheckContext
from harness.engine.devcheck import Shard, dev_check, walk_lab
from harness.engine.manifest import load_labs, scan_labs
from harness.engine.progress import Progress
from harness.engine.runner import LabRunner
from harness.engine.stepview import StepView
from harness.errors import HarnessError
from harness.maven import get_backend
from harness.maven.warm import warm_workspace
from harness.results import Status
from harness.trainer.publish import AutoSubmit, auto_submit
from harness.ui.console import escape
from harness.workspace import Workspace, get_fixture, provision


def add_parser(subparsers: Any) -> None:
    def cmd(name: str, help: str, func: Any, json_flag: bool = False) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help, description=help)
        parser.set_defaults(func=func)
        if json_flag:
            add_json_flag(parser)
        return parser

    cmd("list", "list the labs and your progress", cmd_list, json_flag=True)
    start = cmd("start", "start a lab (by number or id)", cmd_start, json_flag=True)
    start.add_argument("lab", help="lab number or id, e.g. 3 or 03-stop-hook")
    cmd("status", "where you are in the current lab", cmd_status, json_flag=True)
    check_step = cmd("check", "check the current step", cmd_check, json_flag=True)
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
    cmd("hint", "show the next hint for the current step", cmd_hint, json_flag=True)
    cmd("next", "move on once the current step passed", cmd_next, json_flag=True)
    goto = cmd(
        "goto",
        "jump to a step (earlier steps are solved for you; your files are backed up first)",
        cmd_goto,
        json_flag=True,
    )
    goto.add_argument("step", help="step number or id")
    reset = cmd(
        "reset",
        "put a step back to its start (your files are backed up first)",
        cmd_reset,
        json_flag=True,
    )
    reset.add_argument("step", nargs="?", help="step number or id (default: the current step)")
    solve = cmd(
        "solve", "show what solves the current step; --apply does it", cmd_solve, json_flag=True
    )
    solve.add_argument("--apply", action="store_true", help="apply the solution (backs up first)")
    watch = cmd(
        "watch",
        "re-check the current step whenever you change a file (h: next hint, q: quit)",
        cmd_watch,
    )
    add_watch_arguments(watch)
    demo = cmd("demo", "autopilot: provision a workspace and walk every lab", cmd_demo)
    demo.add_argument("dir", nargs="?", help="workspace directory (default: a temp directory)")
    demo.add_argument("--labs", nargs="*", default=[], help="only these labs")
    demo.add_argument(
        "--fixture",
        default=None,
        metavar="NAME",
        help="the fixture to walk the labs of (default: petclinic; lab fixtures lists them)",
    )
    _add_dev_parsers(subparsers)


def _add_dev_parsers(subparsers: Any) -> None:
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


def _runner(
    console: Any | None = None,
    args: argparse.Namespace | None = None,
    ws: Workspace | None = None,
) -> LabRunner:
    ws = ws or Workspace.find()
    fields = engine_fields(args) if args is not None else {}
    if args is not None and getattr(args, "scripted", False):
        fields["scripted"] = True
    return LabRunner(ws, context=CheckContext(ws, ws.root, **fields) if fields else None)


@contextlib.contextmanager
def _holding(what: str, args: argparse.Namespace | None = None) -> Iterator[LabRunner]:
    """The runner of this workspace, held for one command that changes it."""
    ws = Workspace.find()
    with ws.operation(what):
        yield _runner(args=args, ws=ws)  # progress read under the hold, so it is the latest


def cmd_list(args: argparse.Namespace) -> int:
    """The labs; a lab whose manifest does not load is named with its error, beside the
    others (exit 1, so an author's script notices). In a workspace: its fixture's labs."""
    labs, broken = scan_labs()
    fixture = None
    try:
        ws = Workspace.find()
    except HarnessError:
        progress = Progress()  # outside a workspace: list every fixture's labs
    else:
        fixture = ws.fixture_name
        labs = [lab for lab in labs if lab.fixture == fixture]  # the ones `lab start` takes here
        try:
            progress = Progress.load(ws)
        except Exception:
            progress = Progress()
    if args.json:
        rows: list[dict[str, Any]] = [
            {
                "id": lab.id,
                "title": lab.title,
                "fixture": lab.fixture,
                "steps": [s.id for s in lab.steps],
                "progress": progress.labs[lab.id].to_json() if lab.id in progress.labs else None,
            }
            for lab in labs
        ]
        rows += [{"id": name, "error": exc.message, "fix": exc.fix} for name, exc in broken.items()]
        emit_json(sorted(rows, key=lambda row: str(row["id"])))
        return 1 if broken else 0
    from harness.ui.console import print_error
    from harness.ui.lab_view import lab_table

    console = make_console()
    if not labs and not broken:
        console.print(f"No lab works on the {fixture} fixture yet (lab fixtures lists them).")
        return 0
    console.print(lab_table(labs, progress, broken=list(broken), fixture=fixture))
    for exc in broken.values():
        print_error(exc.message, exc.fix)
    if fixture is None:
        console.print("Start one in a workspace of its fixture: [bold]lab start N[/].")
    else:
        console.print("Start one with [bold]lab start N[/].")
    return 1 if broken else 0


def _live(args: argparse.Namespace, runner: LabRunner) -> Any:
    """A spinner for long work unless --json (then stay silent on stdout)."""
    import contextlib

    if getattr(args, "json", False):
        return contextlib.nullcontext(runner.template)
    from harness.ui.lab_view import activity

    return activity(make_console(), runner.template, verbose=getattr(args, "verbose", False))


def _auto_submit(ws: Workspace) -> AutoSubmit | None:
    """Send progress to the cohort remote when the workspace has one (lab init --remote).

    Never fails the command: a remote that is down costs a one-line notice, and everything
    stays pending for the next submit.
    """
    return auto_submit(ws)


def _moved(
    args: argparse.Namespace,
    moved: Any,
    *,
    intro: bool = False,
    submitted: AutoSubmit | None = None,
) -> int:
    if args.json:
        emit_json({**moved.to_json(), "submit": submitted.to_json() if submitted else None})
    else:
        from harness.ui.lab_view import print_moved
        from harness.ui.trainer_view import print_auto_submit

        console = make_console()
        print_moved(console, moved, show_intro=intro)
        print_auto_submit(console, submitted)
    bad = [a for a in moved.actions if a.status is not Status.PASS]
    return 1 if bad or any(r.status is not Status.PASS for r in moved.reverified) else 0


def cmd_start(args: argparse.Namespace) -> int:
    with _holding(f"start {args.lab}") as runner, _live(args, runner):
        moved = runner.start(args.lab)
    # The trainer's view shows who has started where, not only who has passed something.
    return _moved(args, moved, intro=True, submitted=_auto_submit(runner.ws))


def cmd_status(args: argparse.Namespace) -> int:
    runner = _runner()
    lab = runner.lab()
    if args.json:
        emit_json({"workspace": str(runner.ws.root), **runner.progress.to_json()})
        return 0
    from harness.ui.lab_view import print_status

    print_status(make_console(), lab, runner.progress)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    with _holding("check", args) as runner, _live(args, runner):
        run = runner.check(record_failure=True)
    # A failed check is submitted too: the trainer sees who is trying and not getting there.
    submitted = _auto_submit(runner.ws) if run.status is not Status.ERROR else None
    if args.json:
        emit_json({**run.to_json(), "submit": submitted.to_json() if submitted else None})
    else:
        from harness.ui.lab_view import print_step_run
        from harness.ui.trainer_view import print_auto_submit

        console = make_console()
        print_step_run(console, run)
        print_auto_submit(console, submitted)
    return 0 if run.status is Status.PASS else 1


def cmd_hint(args: argparse.Namespace) -> int:
    with _holding("hint") as runner:
        step, tier, text = runner.hint()
    submitted = _auto_submit(runner.ws)
    if args.json:
        emit_json(
            {
                "step": step.id,
                "tier": tier,
                "of": len(step.hints),
                "hint": text,
                "submit": submitted.to_json() if submitted else None,
            }
        )
        return 0
    from harness.ui.lab_view import print_hint
    from harness.ui.trainer_view import print_auto_submit

    console = make_console()
    print_hint(console, step, tier, text)
    print_auto_submit(console, submitted)
    return 0


def cmd_next(args: argparse.Namespace) -> int:
    with _holding("next") as runner, _live(args, runner):
        moved = runner.next()
    # Every move is submitted: the trainer's clock for the new step starts now.
    return _moved(args, moved, submitted=_auto_submit(runner.ws))


def cmd_goto(args: argparse.Namespace) -> int:
    with _holding(f"goto {args.step}") as runner, _live(args, runner):
        moved = runner.goto(args.step)
    return _moved(args, moved)


def cmd_reset(args: argparse.Namespace) -> int:
    with _holding("reset") as runner, _live(args, runner):
        moved = runner.reset(args.step)
    return _moved(args, moved)


def cmd_solve(args: argparse.Namespace) -> int:
    with _holding("solve") as runner, _live(args, runner):
        step, results, backup = runner.solve(args.apply)
    # Applied help is shown to the trainer (the step is marked "with lab solve").
    submitted = _auto_submit(runner.ws) if args.apply else None
    if args.json:
        emit_json(
            {
                "step": step.id,
                "applied": args.apply,
                "actions": [dict(s.params, where=s.where) for s in step.solve],
                "results": [r.to_json() for r in results],
                "backup": backup.restore_hint if backup else None,
                "submit": submitted.to_json() if submitted else None,
            }
        )
        return 0 if all(r.status is Status.PASS for r in results) else 1
    from harness.ui.lab_view import print_solution, print_solved

    console = make_console()
    if not args.apply:
        print_solution(console, step)
        return 0
    print_solved(console, results, backup)
    from harness.ui.trainer_view import print_auto_submit

    print_auto_submit(console, submitted)
    return 0 if all(r.status is Status.PASS for r in results) else 1


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
    from harness.engine.manifest import lab_dirs
    from harness.engine.shards import junit_xml, merge_reports, read_report
    from harness.ui.lab_view import merged_table

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


def cmd_demo(args: argparse.Namespace) -> int:
    from harness.ui.lab_view import WalkView, devcheck_table, hook_event_renderable
    from harness.ui.prose import print_prose

    console = make_console()
    target = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="hooklab-demo-")) / "ws"
    with console.status("provisioning the workspace…"):
        provisioned = provision(target, fixture_name=args.fixture)
    ws = provisioned.workspace
    if not provisioned.created:
        # A second demo in the same place starts over; what was there is kept in a backup.
        backup = ws.rewind(
            ws.meta["initial_commit"], "before running the demo again", action="demo"
        )
        Progress().save(ws, "demo: start over")
        if backup is not None:
            from harness.ui.lab_view import backup_renderable

            print_prose(console, backup_renderable(backup, "Earlier state backed up:"))
    console.print(f"Workspace: [bold]{escape(str(ws.root))}[/]")
    # As `lab init` leaves a workspace; a failure here only costs time later.
    with console.status("compiling the fixture (once; later workspaces copy it)…"):
        if ws.fixture.compile_cache:
            warm_workspace(ws.root, get_backend(ws.backend))
    view = WalkView(console, demo=True)
    labs = [lab for lab in load_labs() if lab.fixture == ws.fixture_name]
    if args.labs:
        labs = [
            lab
            for lab in labs
            if any(lab.id.startswith(f"{int(x):02d}" if x.isdigit() else x) for x in args.labs)
        ]
    from harness.engine.devcheck import DevCheckReport

    walks = []
    started = time.monotonic()
    status = console.status("", spinner="dots")

    def on_activity(text: str) -> None:
        status.update(text)
        status.start()

    def on_hook(entry: StepView) -> None:
        status.stop()
        print_prose(console, hook_event_renderable(entry))

    for lab in labs:
        ctx = CheckContext(ws, lab.dir, on_activity=on_activity, on_hook_event=on_hook)
        try:
            walks.append(walk_lab(lab, ws, observer=view, context=ctx))
        finally:
            status.stop()
    report = DevCheckReport(walks, time.monotonic() - started)
    console.print(devcheck_table(report, title="lab demo: every lab, step by step"))
    verdict = (
        "[bold green]every step failed before and passed after its solve[/]"
        if (report.ok)
        else "[bold red]some steps misbehaved[/]"
    )
    console.print(f"{verdict} in {report.duration:.0f} s. Workspace kept at {ws.root}")
    return 0 if report.ok else 1


def cmd_dev_check(args: argparse.Namespace) -> int:
    from harness.ui.lab_view import WalkView, devcheck_table

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
