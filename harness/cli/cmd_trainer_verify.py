"""``lab trainer verify``: clone a participant's submission (or every one, --all) and re-run
the checks of every claimed step."""

from __future__ import annotations

import argparse
import os
from typing import Any

from harness.cli.cmd_trainer import add_judging_options, read_room
from harness.cli.common import add_json_flag, emit_json, make_console
from harness.errors import HarnessError
from harness.trainer.claims import verify_participant
from harness.trainer.cohort import CohortReader
from harness.trainer.publish import DEFAULT_COHORT, normalise_name
from harness.trainer.remote import normalise_url, redact_url
from harness.trainer.room_shards import (
    cohort_verdicts_prefix,
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


def add_parser(trainer_sub: Any) -> None:
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
    add_judging_options(verify)
    verify.add_argument(
        "--fresh",
        action="store_true",
        help="re-run every claimed step, even one already verified at the same state",
    )
    # verify --all's children: the parent read the room (its flags) and records the verdict
    verify.add_argument("--for-all", action="store_true", help=argparse.SUPPRESS)
    add_json_flag(verify)
    verify.set_defaults(func=cmd_verify, usage_error=verify.error)


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
    cohort = read_room(reader, console)
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
