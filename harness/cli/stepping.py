"""What the step commands (start, check, hint, next, goto, reset, solve) share: this
workspace's lab runner, held while a command changes it; a spinner for long work; a move's
report and its exit status."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from harness.cli.common import emit_json, engine_fields, make_console
from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.results import Status
from harness.trainer.publish import AutoSubmit, auto_submit
from harness.workspace import Workspace


def lab_runner(
    args: argparse.Namespace | None = None,
    ws: Workspace | None = None,
) -> LabRunner:
    ws = ws or Workspace.find()
    fields = engine_fields(args) if args is not None else {}
    if args is not None and getattr(args, "scripted", False):
        fields["scripted"] = True
    return LabRunner(ws, context=CheckContext(ws, ws.root, **fields) if fields else None)


@contextlib.contextmanager
def holding(what: str, args: argparse.Namespace | None = None) -> Iterator[LabRunner]:
    """The runner of this workspace, held for one command that changes it."""
    ws = Workspace.find()
    with ws.operation(what):
        yield lab_runner(args=args, ws=ws)  # progress read under the hold, so it is the latest


@contextlib.contextmanager
def working(what: str, args: argparse.Namespace) -> Iterator[LabRunner]:
    """The runner of this workspace, held for one command that changes it, with a spinner
    while it works (none under --json). ``args`` may name an engine (lab check --engine)."""
    with holding(what, args) as runner, live(args, runner):
        yield runner


def live(args: argparse.Namespace, runner: LabRunner) -> Any:
    """A spinner for long work unless --json (then stay silent on stdout)."""
    if getattr(args, "json", False):
        return contextlib.nullcontext(runner.template)
    from harness.ui.activity_view import activity

    return activity(make_console(), runner.template, verbose=getattr(args, "verbose", False))


def submitted_now(ws: Workspace) -> AutoSubmit | None:
    """Send progress to the cohort remote when the workspace has one (lab init --remote).

    Never fails the command: a remote that is down costs a one-line notice, and everything
    stays pending for the next submit.
    """
    return auto_submit(ws)


def print_submitted(console: Any, submitted: AutoSubmit | None) -> None:
    from harness.ui.trainer_view import print_auto_submit

    print_auto_submit(console, submitted)


def submit_json(submitted: AutoSubmit | None) -> dict[str, Any] | None:
    return submitted.to_json() if submitted else None


def moved(
    args: argparse.Namespace,
    move: Any,
    *,
    intro: bool = False,
    submitted: AutoSubmit | None = None,
) -> int:
    """Report a move to another step (or back to a step's start); 1 when part of it failed."""
    if args.json:
        emit_json({**move.to_json(), "submit": submit_json(submitted)})
    else:
        from harness.ui.lab_view import print_moved

        console = make_console()
        print_moved(console, move, show_intro=intro)
        print_submitted(console, submitted)
    bad = [a for a in move.actions if a.status is not Status.PASS]
    return 1 if bad or any(r.status is not Status.PASS for r in move.reverified) else 0
