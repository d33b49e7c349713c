"""``lab trainer ci``: a GitHub Actions workflow that verifies the room in slices."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.cli.cmd_trainer import write_page
from harness.cli.common import add_json_flag, emit_json, make_console
from harness.trainer.ci import DEFAULT_OUTPUT, workflow
from harness.trainer.publish import DEFAULT_COHORT
from harness.trainer.room_shards import KEY_ENV, ensure_key_file


def add_parser(trainer_sub: Any) -> None:
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


def cmd_ci(args: argparse.Namespace) -> int:
    text = workflow(args.shards, args.cohort, args.source, args.every).render()
    path: Path = args.output
    backup = path.with_name(path.name + ".bak")
    kept = path.is_file() and path.read_text(encoding="utf-8") != text
    if kept:
        backup.write_bytes(path.read_bytes())  # an edited workflow is never lost
    write_page(path, text)
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
