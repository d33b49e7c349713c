"""``lab trainer``: see and check a cohort (for trainers). Each subcommand has its module
(cmd_trainer_status, _report, _verify, _ci); here is what they share: the room's arguments,
its roster, reading it, the judging options and writing a page whole."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.claude.vocabulary import ENGINES, Engine
from harness.errors import ConfigError
from harness.maven import BACKEND_NAMES
from harness.trainer.cohort import Cohort, CohortReader, cohorts_on
from harness.trainer.member import STUCK_AFTER
from harness.trainer.publish import DEFAULT_COHORT, check_name, normalise_name
from harness.ui.console import escape


def add_parser(subparsers: Any) -> None:
    # Imported here, not above: each subcommand's module imports the pieces below.
    from harness.cli import (
        cmd_trainer_ci,
        cmd_trainer_report,
        cmd_trainer_status,
        cmd_trainer_verify,
    )

    trainer = subparsers.add_parser("trainer", help="see and check a cohort (for trainers)")
    trainer_sub = trainer.add_subparsers(dest="trainer_command", metavar="COMMAND")
    trainer.set_defaults(func=lambda args: (trainer.print_help(), 2)[1])
    cmd_trainer_status.add_parser(trainer_sub)
    cmd_trainer_report.add_parser(trainer_sub)
    cmd_trainer_verify.add_parser(trainer_sub)
    cmd_trainer_ci.add_parser(trainer_sub)


def add_judging_options(parser: Any) -> None:
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


def remote_args(parser: argparse.ArgumentParser) -> None:
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


def roster(path: Path | None) -> list[str]:
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


def room_reader(args: argparse.Namespace) -> CohortReader:
    return CohortReader(args.remote, args.cohort, roster=roster(args.roster))


def read_room(reader: CohortReader, console: Any) -> Cohort:
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


def write_page(path: Path, html: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)  # a browser reloading mid-write never sees half a page
