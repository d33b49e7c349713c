"""``lab submit`` (participants) and ``lab trainer status|report|verify`` (trainers)."""

from __future__ import annotations

import argparse
import csv
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from harness.claude.vocabulary import ENGINES, Engine
from harness.cli.common import add_json_flag, emit_json, make_console
from harness.errors import ConfigError, HarnessError
from harness.maven import BACKEND_NAMES
from harness.trainer.arrival import RoomVerifier, WatchSettings
from harness.trainer.ci import DEFAULT_OUTPUT, workflow
from harness.trainer.claims import verify_participant
from harness.trainer.cohort import Cohort, CohortReader, cohorts_on
from harness.trainer.member import STUCK_AFTER
from harness.trainer.page import render_page
from harness.trainer.publish import (
    DEFAULT_COHORT,
    check_name,
    normalise_name,
    pending_updates,
    resolve_settings,
    stored_settings,
    submit,
)
from harness.trainer.remote import RemoteError, normalise_url, redact_url
from harness.trainer.room_shards import (
    KEY_ENV,
    cohort_verdicts_prefix,
    ensure_key_file,
    missing_key,
    parse_shard,
    push_verdicts,
    verdict_key,
)
from harness.trainer.verified import (
    URL_ENV,
    VERIFIED,
    ParticipantVerdict,
    from_report,
    load_step_cache,
    runner_name,
    save_step_cache,
    save_verdicts,
    verify_all,
)
from harness.trainer.verify_report import StepVerdict
from harness.ui.console import escape
from harness.workspace import Workspace

MIN_INTERVAL = 0.2


def add_parser(subparsers: Any) -> None:
    _add_submit(subparsers)
    trainer = subparsers.add_parser("trainer", help="see and check a cohort (for trainers)")
    trainer_sub = trainer.add_subparsers(dest="trainer_command", metavar="COMMAND")
    trainer.set_defaults(func=lambda args: (trainer.print_help(), 2)[1])
    _add_status(trainer_sub)
    _add_report(trainer_sub)
    _add_verify(trainer_sub)
    _add_ci(trainer_sub)


def _add_submit(subparsers: Any) -> None:
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


def _interval(text: str) -> float:
    """Seconds between refreshes: a number, at least MIN_INTERVAL (0 would busy-loop)."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from exc
    if not value >= MIN_INTERVAL:
        raise argparse.ArgumentTypeError(
            f"{text} is too short: at least {MIN_INTERVAL:g} seconds, e.g. --interval 5"
        )
    return value


def _add_status(trainer_sub: Any) -> None:
    status = trainer_sub.add_parser(
        "status", help="participants × labs: who needs help first, then everyone's progress"
    )
    _remote_args(status)
    fmt = status.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print machine-readable JSON")
    fmt.add_argument("--csv", action="store_true", help="print one CSV row per participant")
    fmt.add_argument(
        "--watch",
        action="store_true",
        help="refresh the table live, verifying each new submission as it arrives",
    )
    status.add_argument(
        "--interval",
        type=_interval,
        default=5.0,
        help=f"seconds between refreshes with --watch (at least {MIN_INTERVAL:g})",
    )
    status.add_argument(
        "--all",
        action="store_true",
        help="every row, however tall: in a terminal the table otherwise fits the screen",
    )
    watching = status.add_argument_group("with --watch: each new submission verified as it arrives")
    watching.add_argument(
        "--no-verify", action="store_true", help="only show the room, verify nothing"
    )
    watching.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="participants verified at once (default and most: cores)",
    )
    _add_judging_options(watching)
    watching.add_argument(
        "--html",
        type=Path,
        metavar="PAGE",
        help="also keep this page up to date (lab trainer report's)",
    )
    status.set_defaults(func=cmd_status)


def _add_report(trainer_sub: Any) -> None:
    report = trainer_sub.add_parser(
        "report", help="write one self-contained HTML page to project in the room"
    )
    _remote_args(report)
    report.add_argument("--html", type=Path, required=True, help="the page to write")
    report.add_argument(
        "--refresh",
        type=int,
        metavar="SECONDS",
        help="keep rewriting the page every SECONDS (it reloads itself in the browser)",
    )
    report.set_defaults(func=cmd_report)


def _add_verify(trainer_sub: Any) -> None:
    verify = trainer_sub.add_parser(
        "verify",
        help="clone a participant's submission and re-run the checks of every claimed step",
    )
    verify.add_argument("remote", help="git URL or path of the cohort remote")
    verify.add_argument(
        "participant", nargs="?", help="the participant's name in the cohort (or --all)"
    )
    verify.add_argument("--cohort", default=DEFAULT_COHORT, help="cohort name")
    verify.add_argument(
        "--all",
        action="store_true",
        help="verify every participant, several at once; status and the page show the verdicts",
    )
    verify.add_argument(
        "--jobs", type=int, metavar="N", help="participants verified at once (default: cores)"
    )
    verify.add_argument(
        "--shard",
        type=parse_shard,
        metavar="I/N",
        help="with --all: only slice I of N (by a hash of each name: a newcomer moves nobody), "
        "one slice a machine (lab trainer ci)",
    )
    verify.add_argument(
        "--push",
        action="store_true",
        help="with --all: also keep the verdicts in the room (refs/hooklab/verified/), where "
        "status and the page read them on any machine (a CI runner's)",
    )
    _add_judging_options(verify)
    verify.add_argument(
        "--fresh",
        action="store_true",
        help="re-run every claimed step, even one already verified at the same state",
    )
    # verify --all's children: the parent read the room (its flags) and records the verdict
    verify.add_argument("--for-all", action="store_true", help=argparse.SUPPRESS)
    add_json_flag(verify)
    verify.set_defaults(func=cmd_verify, usage_error=verify.error)


def _add_judging_options(parser: Any) -> None:
    """How a verify judges claims: the same options for verify and status --watch."""
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=Engine.EMULATOR.value,
        help="Claude Code engine for hook sessions",
    )
    parser.add_argument(
        "--backend", choices=BACKEND_NAMES, default=None, help="where Maven runs (default: local)"
    )
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the participants' scripts as you, outside bubblewrap (only on a machine "
        "you can afford to lose)",
    )


def _add_ci(trainer_sub: Any) -> None:
    ci = trainer_sub.add_parser(
        "ci",
        help="write a GitHub Actions workflow that verifies the room in slices on CI runners",
        description="Write a workflow for the room's repository on GitHub: N jobs, each "
        "running lab trainer verify --all --shard I/N --push in the sandbox, the verdicts "
        "kept in the room, where lab trainer status and the page show them.",
    )
    ci.add_argument("--shards", type=int, default=4, metavar="N", help="jobs (default: 4)")
    ci.add_argument("--cohort", default=DEFAULT_COHORT, help="cohort name")
    ci.add_argument(
        "--source",
        metavar="OWNER/REPO@REF",
        help="Hook Lab's repository on GitHub and the tag or commit to verify with "
        "(default: this checkout's origin and commit)",
    )
    ci.add_argument(
        "--every", type=int, metavar="MINUTES", help="also run on a schedule (default: by hand)"
    )
    ci.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help=f"the workflow file (default: {DEFAULT_OUTPUT}, in the room's checkout)",
    )
    add_json_flag(ci)
    ci.set_defaults(func=cmd_ci)


def _remote_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("remote", help="git URL or path of the cohort remote")
    parser.add_argument("--cohort", default=DEFAULT_COHORT, help="cohort name")
    parser.add_argument(
        "--stuck-after",
        type=float,
        default=STUCK_AFTER / 60,
        metavar="MINUTES",
        help="call a participant stuck after this long on one step (or idle after finishing)",
    )
    parser.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the names expected in the room, one a line: who never arrived shows too",
    )


def _roster(path: Path | None) -> list[str]:
    """The roster's names, as lab submit keys them (José Díaz: josé-díaz)."""
    if path is None:
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            str(path), "--roster", f"cannot read it ({exc})", fix="a text file, one name a line"
        ) from exc
    names = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if text:
            names.append(check_name(normalise_name(text), f"line {number}", str(path)))
    return names


def _reader(args: argparse.Namespace) -> CohortReader:
    return CohortReader(args.remote, args.cohort, roster=_roster(args.roster))


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


def _read(reader: CohortReader, console: Any) -> Cohort:
    with console.status(
        f"Reading cohort {escape(reader.cohort)} from {escape(reader.shown_url)} …"
    ):
        cohort = reader.read()
    if not any(m.arrived for m in cohort.members):
        others = [c for c in cohorts_on(reader.url) if c != reader.cohort]
        hint = f" (cohorts there: {', '.join(others)})" if others else ""
        console.print(
            f"Nobody has submitted to cohort {escape(reader.cohort)} on "
            f"{escape(reader.shown_url)} yet{escape(hint)}."
        )
    return cohort


def cmd_status(args: argparse.Namespace) -> int:
    reader = _reader(args)
    stuck_after = args.stuck_after * 60
    machine = args.json or args.csv
    console = make_console(stderr=machine)
    if args.watch:
        return _watch(args, reader, console)
    if args.html or args.no_verify or args.jobs:
        raise HarnessError(
            "--html, --jobs and --no-verify go with --watch (verifying as it arrives)",
            fix="add --watch, or write the page once: lab trainer report URL --html PAGE",
        )
    cohort = _read(reader, console)
    if args.json:
        emit_json(cohort.to_json(stuck_after))
    elif args.csv:
        csv.writer(sys.stdout, lineterminator="\n").writerows(cohort.csv_rows())
    else:
        from harness.ui.trainer_view import cohort_renderable

        # In a terminal the table fits the screen, who needs help first; piped: every row.
        # (one line less: the shell's prompt comes after it)
        height = console.height - 1 if console.is_terminal and not args.all else None
        console.print(
            cohort_renderable(cohort, stuck_after=stuck_after, width=console.width, height=height)
        )
    return 0


def _watch(args: argparse.Namespace, reader: CohortReader, console: Any) -> int:
    changed = threading.Event()
    verifier = None if args.no_verify else _verifier(args, reader, changed.set)
    cohort = _read(reader, console)
    if verifier is not None:
        verifier.offer(cohort)
        verifier.start()
    show = _Shown(args, console, verifier)
    try:
        if not console.is_terminal:
            # Piped or logged: a whole table per round, one after the other (the page, with
            # --html, follows every verdict).
            while True:
                show.mark(cohort)
                console.print(show.view(cohort))
                console.file.flush()  # a tee or a log file sees each round as it comes
                next_read = time.monotonic() + args.interval
                while time.monotonic() < next_read and changed.wait(
                    max(0.0, next_read - time.monotonic())
                ):
                    changed.clear()
                    show.mark(cohort)
                cohort = _read_again(reader, cohort, console)
                show.offer(cohort)
        from harness.ui.lab_view import live_view

        with live_view(console, show.view(cohort)) as live:
            next_read = time.monotonic() + args.interval
            while True:
                # A verdict redraws at once; the remote is read every interval.
                changed.wait(max(0.0, next_read - time.monotonic()))
                changed.clear()
                if time.monotonic() >= next_read:
                    next_read = time.monotonic() + args.interval
                    try:
                        cohort = reader.read()
                        show.problem = ""
                        show.offer(cohort)
                    except RemoteError as exc:
                        # The remote hiccuped: keep the last table, say so, try again.
                        show.problem = f"last read failed: {exc.problem}"
                show.mark(cohort)
                live.update(show.view(cohort))
    except KeyboardInterrupt:
        console.print("stopped watching")
        return 130
    finally:
        if verifier is not None:
            verifier.stop()


def _verifier(
    args: argparse.Namespace, reader: CohortReader, on_change: Any
) -> RoomVerifier | None:
    from harness.trainer import verify_jail as sandbox

    if not args.no_sandbox and sandbox.bwrap() is None:
        missing = sandbox.missing_sandbox()
        raise HarnessError(
            "lab trainer status --watch verifies each submission as it arrives, running the "
            "participants' scripts (mvnw, hooks) only in a sandbox, and bubblewrap (bwrap) is "
            "not installed here",
            fix=f"{missing.fix}; or --no-verify to only follow the room",
        )
    settings = WatchSettings(args.engine, args.backend, not args.no_sandbox)
    return RoomVerifier(reader.url, reader.cohort, settings, jobs=args.jobs, on_change=on_change)


class _Shown:
    """What --watch draws: the table (and the page, with --html), the verifies marked on it."""

    def __init__(self, args: argparse.Namespace, console: Any, verifier: RoomVerifier | None):
        self.args, self.console, self.verifier = args, console, verifier
        self.problem = ""

    def offer(self, cohort: Cohort) -> None:
        if self.verifier is not None:
            self.verifier.offer(cohort)

    def mark(self, cohort: Cohort) -> None:
        if self.verifier is not None:
            self.verifier.mark(cohort)
        if self.args.html:
            stuck_after = self.args.stuck_after * 60
            _write_page(self.args.html, render_page(cohort, stuck_after=stuck_after, refresh=5))

    def view(self, cohort: Cohort) -> Any:
        from harness.ui.trainer_view import cohort_renderable

        footer = f"refreshing every {self.args.interval:g} s · Ctrl-C to stop"
        if self.verifier is not None:
            footer = f"verifying as it arrives ({self.verifier.workers} at once) · {footer}"
        if self.problem:
            footer = f"{footer} · {self.problem}"
        # Measured every round: the terminal may have been resized meanwhile.
        height = self.console.height - 1 if self.console.is_terminal else None
        return cohort_renderable(
            cohort,
            stuck_after=self.args.stuck_after * 60,
            footer=footer,
            width=self.console.width,
            height=height,
        )


def _read_again(reader: CohortReader, last: Cohort, console: Any) -> Cohort:
    try:
        return reader.read()
    except RemoteError as exc:
        console.print(f"last read failed: {escape(exc.problem)}; the table above still holds")
        return last


def _write_page(path: Path, html: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)  # a browser reloading mid-write never sees half a page


def cmd_report(args: argparse.Namespace) -> int:
    reader = _reader(args)
    stuck_after = args.stuck_after * 60
    console = make_console()
    cohort = _read(reader, console)
    _write_page(args.html, render_page(cohort, stuck_after=stuck_after, refresh=args.refresh))
    console.print(
        f"[green]✓[/] Wrote {escape(str(args.html))}: {len(cohort.members)} participants, "
        f"{sum(len(lab.steps) for lab in cohort.labs)} steps."
    )
    if not args.refresh:
        return 0
    console.print(f"Rewriting it every {args.refresh} s; Ctrl-C to stop.")
    try:
        while True:
            time.sleep(args.refresh)
            try:
                cohort = reader.read()
            except RemoteError as exc:
                console.print(f"[yellow]read failed, page kept as it was:[/] {escape(exc.message)}")
                continue
            _write_page(
                args.html, render_page(cohort, stuck_after=stuck_after, refresh=args.refresh)
            )
    except KeyboardInterrupt:
        return 130


def cmd_ci(args: argparse.Namespace) -> int:
    text = workflow(args.shards, args.cohort, args.source, args.every).render()
    path: Path = args.output
    backup = path.with_name(path.name + ".bak")
    kept = path.is_file() and path.read_text(encoding="utf-8") != text
    if kept:
        backup.write_bytes(path.read_bytes())  # an edited workflow is never lost
    _write_page(path, text)
    key = ensure_key_file()  # the trainer's; the workflow gets it as a repository secret
    if args.json:
        emit_json(
            {
                "workflow": str(path),
                "shards": args.shards,
                "backup": str(backup) if kept else None,
                "key_file": str(key),
                "secret": KEY_ENV,
            }
        )
        return 0
    from harness.ui.prose import print_prose, prose

    kept_as = f" (the earlier file is kept as {backup})" if kept else ""
    print_prose(
        make_console(),
        prose(
            f"✓ Wrote {path}: {args.shards} slices of cohort {args.cohort}{kept_as}.\n"
            f"The verdicts it keeps in the room are signed with the key in {key} (yours "
            f"alone: participants can push to the room too). Give it to the workflow as the "
            f"repository secret {KEY_ENV}: `gh secret set {KEY_ENV} < {key}`\n"
            "Commit the workflow to the room repository's default branch and push, run it "
            f"from the Actions tab, then: `lab trainer status ROOM --cohort {args.cohort}`"
        ),
    )
    return 0


def _verify_remote(args: argparse.Namespace) -> str:
    # "-": the remote comes in the environment (verify --all's children: a URL's credentials
    # never on a command line another user's ps shows)
    if args.remote == "-" and os.environ.get(URL_ENV):
        return os.environ[URL_ENV]
    return str(args.remote)


def cmd_verify(args: argparse.Namespace) -> int:
    args.remote = _verify_remote(args)
    if not args.all and (args.shard or args.push):
        # exits 2, as argparse does for any usage error
        args.usage_error(
            f"{'--shard' if args.shard else '--push'} goes with --all: lab trainer verify "
            f"ROOM --all {'--shard ' + str(args.shard) if args.shard else '--push'}"
        )
    if args.push and verdict_key() is None:
        raise missing_key()  # before the work, not after it
    if args.all:
        return _verify_all(args)
    if not args.participant:
        raise HarnessError(
            "lab trainer verify needs a participant's name, or --all",
            fix=f"lab trainer verify {redact_url(args.remote)} NAME --cohort {args.cohort}, "
            "or … --all",
        )
    return _verify_participant(args)


def _verify_all(args: argparse.Namespace) -> int:
    from harness.ui.trainer_view import verdicts_table

    console = make_console(stderr=args.json)
    reader = CohortReader(args.remote, args.cohort)
    cohort = _read(reader, console)
    names = [m.name for m in cohort.members if m.arrived and not m.deleted]
    slice_of = f" (slice {args.shard} of {len(names)})" if args.shard else ""
    names = args.shard.pick(names) if args.shard else names
    options = ["--engine", args.engine] + (["--backend", args.backend] if args.backend else [])
    options += ["--no-sandbox"] if args.no_sandbox else []
    options += ["--fresh"] if args.fresh else []
    with console.status(f"Verifying {len(names)} participants{slice_of} …") as status:

        def on_done(verdict: ParticipantVerdict, done: int, of: int) -> None:
            status.update(f"Verified {done}/{of} · last: {escape(verdict.participant)}")
            if not args.json:
                console.print(
                    f"[{done}/{of}] {escape(verdict.participant)}: "
                    f"{escape(verdict.summary)} ({verdict.seconds:.0f} s)"
                )

        verdicts = verify_all(
            reader.url,
            reader.cohort,
            names,
            jobs=args.jobs,
            options=options,
            on_done=on_done,
            flags={m.name: m.flags() for m in cohort.members},
        )
        if args.push:
            status.update(f"Keeping {len(verdicts)} verdicts in the room …")
            push_verdicts(reader.url, reader.cohort, verdicts)
    if args.json:
        emit_json(
            {
                "remote": reader.shown_url,
                "cohort": reader.cohort,
                "shard": str(args.shard) if args.shard else None,
                "runner": runner_name(),
                "pushed": bool(args.push),
                "participants": [v.to_json() for v in verdicts],
            }
        )
    else:
        console.print(verdicts_table(verdicts))
        if args.push:
            from harness.ui.prose import print_prose, prose

            where = cohort_verdicts_prefix(reader.cohort).decode()
            print_prose(
                console,
                prose(
                    f"Kept {len(verdicts)} verdicts in the room ({where}NAME), judged on "
                    f"{runner_name()}."
                ),
            )
    return 0 if all(v.state == VERIFIED for v in verdicts) else 1


def _verify_participant(args: argparse.Namespace) -> int:
    from harness.ui.trainer_view import verdict_line, verify_summary

    console = make_console(stderr=args.json)
    status = console.status("", spinner="dots")

    def on_activity(text: str) -> None:
        status.update(escape(text))
        status.start()

    def on_verdict(verdict: StepVerdict) -> None:
        status.stop()
        if not args.json:
            console.print(verdict_line(verdict))

    try:
        flags = [] if args.for_all else _flags_of(args, on_activity)
        url, room = normalise_url(args.remote), normalise_name(args.cohort)
        report = verify_participant(
            args.remote,
            args.participant,
            cohort=args.cohort,
            engine=args.engine,
            backend=args.backend,
            sandboxed=not args.no_sandbox,
            on_activity=on_activity,
            on_verdict=on_verdict,
            reuse=None if args.fresh else load_step_cache(url, room),
            flags=flags,
        )
    finally:
        status.stop()
    save_step_cache(url, room, report.fresh_verdicts())
    if not args.for_all:
        # recorded like one of --all: status and the page show it
        save_verdicts(
            url, room, [from_report(report.participant, report.to_json(), report.duration)]
        )
    if args.json:
        emit_json(report.to_json())
    else:
        console.print(verify_summary(report))
    return 0 if report.ok else 1


def _flags_of(args: argparse.Namespace, on_activity: Any) -> list[dict[str, str]]:
    """The participant's record as the room shows it: replaced, a copy, deleted."""
    on_activity(f"reading cohort {args.cohort}")
    cohort = CohortReader(args.remote, args.cohort).read()
    member = next((m for m in cohort.members if m.name == args.participant), None)
    return member.flags() if member is not None else []
