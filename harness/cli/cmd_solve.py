"""``lab solve [--apply]``: show what solves the current step, or do it (backed up first)."""

from __future__ import annotations

import argparse
from typing import Any

from harness.cli.common import add_command, emit_json, make_console
from harness.cli.stepping import print_submitted, submit_json, submitted_now, working
from harness.results import Status


def add_parser(subparsers: Any) -> None:
    solve = add_command(
        subparsers,
        "solve",
        "show what solves the current step; --apply does it",
        cmd_solve,
        json_flag=True,
    )
    solve.add_argument("--apply", action="store_true", help="apply the solution (backs up first)")


def cmd_solve(args: argparse.Namespace) -> int:
    with working("solve", args) as runner:
        step, results, backup = runner.solve(args.apply)
        lab = runner.lab()
        lab_dir, root = lab.dir, runner.ws.root
        mine = runner.progress.lab_progress(lab.id).step(step.id)
        marked = mine.solved_with_help and not mine.passed
    # Applied help is shown to the trainer (the step is marked "with lab solve").
    submitted = submitted_now(runner.ws) if args.apply else None
    if args.json:
        emit_json(
            {
                "step": step.id,
                "applied": args.apply,
                "solved_with_help": marked,
                "actions": [dict(s.params, where=s.where) for s in step.solve],
                "results": [r.to_json() for r in results],
                "backup": backup.restore_hint if backup else None,
                "submit": submit_json(submitted),
            }
        )
        return 0 if all(r.status is Status.PASS for r in results) else 1
    from harness.ui.lab_view import print_solved
    from harness.ui.solution_view import file_sources, print_solution

    console = make_console()
    if not args.apply:
        print_solution(console, step, file_sources(lab_dir, root))
        if marked:
            console.print(
                "Seen: this step now counts as done with lab solve, as your trainer will see "
                "(hints are counted the same way)."
            )
        return 0
    print_solved(console, results, backup)
    print_submitted(console, submitted)
    return 0 if all(r.status is Status.PASS for r in results) else 1
