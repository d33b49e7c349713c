"""``lab watch``: re-check the current step on every change the participant makes, with keys
inside it (``h`` the next hint, ``q`` quit), as rustlings users asked for.

Two feeders put events on one queue: the workspace's file-system events (debounced, build
output and .git ignored: harness/workspace/watch.py) and, on a terminal, single key presses.
The main thread alone checks and draws, so a check is never interrupted half-way.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import select
import sys
import termios
import threading
import tty
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from harness.cli.common import add_command, make_console
from harness.engine.lab_runner import LabRunner, StepRun
from harness.engine.progress import Progress
from harness.results import Status
from harness.trainer.publish import auto_submit
from harness.workspace import Workspace, WorkspaceBusy
from harness.workspace.watch import QUIET_MS, watch_changes

if TYPE_CHECKING:  # for the annotation only: the views are imported where they are used
    from harness.ui.prose import Framed

Event = tuple[str, Any]  # ("change", [paths]) | ("key", "h") | ("stopped", reason)


@contextlib.contextmanager
def single_keys(stream: TextIO) -> Iterator[bool]:
    """Key presses arrive one by one, unechoed, while the block runs (a terminal only); the
    terminal is put back however the block ends. Yields whether keys can be read."""
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            raise OSError
        saved = termios.tcgetattr(fd)
    except (OSError, ValueError, termios.error):
        yield False
        return
    try:
        tty.setcbreak(fd)  # Ctrl-C still interrupts: cbreak keeps the signal keys
        yield True
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _feed_keys(fd: int, events: queue.Queue[Event], stop: threading.Event) -> None:
    while not stop.is_set():
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        data = os.read(fd, 32)
        if not data:
            return  # the terminal went away
        for char in data.decode("utf-8", "replace"):
            events.put(("key", char.lower()))


def _feed_changes(
    ws: Workspace, events: queue.Queue[Event], stop: threading.Event, quiet_ms: int
) -> None:
    try:
        for paths in watch_changes(ws.root, stop, quiet_ms=quiet_ms):
            events.put(("change", paths))
    except Exception as exc:  # the watcher died (a removed workspace): say so, stop cleanly
        events.put(("stopped", f"watching {ws.root} failed: {exc}"))


def _check(runner: LabRunner) -> StepRun | None:
    try:
        with runner.ws.operation("watch"):
            runner.progress = Progress.load(runner.ws)  # a hint or a move given meanwhile
            return runner.check()
    except WorkspaceBusy:
        return None  # another command is at work: check on the next change


def _hint(runner: LabRunner) -> Framed | None:
    from harness.ui.lab_view import hint_panel

    try:
        with runner.ws.operation("hint"):
            runner.progress = Progress.load(runner.ws)
            step, tier, text = runner.hint()
    except WorkspaceBusy:
        return None
    return hint_panel(step, tier, text, again="press h again")


def _with_waiting_changes(events: queue.Queue[Event], changed: list[str]) -> list[str]:
    """``changed`` and the changes that arrived during the last check: one check covers them
    all. A key that waited among them keeps its turn."""
    while True:
        try:
            kind, what = events.get_nowait()
        except queue.Empty:
            return changed
        if kind != "change":
            events.put((kind, what))
            return changed
        changed = sorted({*changed, *what})


def cmd_watch(args: argparse.Namespace) -> int:
    from harness.ui.lab_view import live_view, watch_renderable

    ws = Workspace.find()
    runner = LabRunner(ws)
    runner.current()  # no lab started: the usual error, before anything is drawn
    console = make_console()
    events: queue.Queue[Event] = queue.Queue()
    stop = threading.Event()
    threading.Thread(
        target=_feed_changes, args=(ws, events, stop, args.debounce), daemon=True
    ).start()
    run: StepRun | None = None
    changed: list[str] = []
    hint: Framed | None = None
    count = 0
    try:
        with (
            single_keys(sys.stdin) as keys,
            live_view(console, watch_renderable(None, [], True, keys=keys)) as live,
        ):
            if keys:
                threading.Thread(
                    target=_feed_keys, args=(sys.stdin.fileno(), events, stop), daemon=True
                ).start()

            def draw(checking: bool) -> None:
                live.update(
                    watch_renderable(run, changed, checking, keys=keys, hint=hint, count=count)
                )

            def check() -> None:
                nonlocal run, count
                count += 1
                draw(checking=True)
                run = _check(runner) or run
                draw(checking=False)
                if run is not None and run.status is Status.PASS:
                    auto_submit(ws)  # quietly: the next lab check reports a failure

            check()
            while True:
                kind, what = events.get()
                if kind == "stopped":
                    console.print(what)
                    return 1
                if kind == "key" and what == "q":
                    break
                if kind == "key" and what == "h":
                    hint = _hint(runner) or hint
                    draw(checking=False)
                elif kind == "change":
                    changed = _with_waiting_changes(events, list(what))
                    hint = None
                    check()
    except KeyboardInterrupt:
        console.print("stopped watching")
        return 130
    finally:
        stop.set()
    console.print("stopped watching")
    return 0


def add_parser(subparsers: Any) -> None:
    watch = add_command(
        subparsers,
        "watch",
        "re-check the current step whenever you change a file (h: next hint, q: quit)",
        cmd_watch,
    )
    watch.add_argument(
        "--debounce",
        type=int,
        default=QUIET_MS,
        metavar="MS",
        help=f"check once the files have been quiet this long (default {QUIET_MS} ms)",
    )
