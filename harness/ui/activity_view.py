"""The progress a person sees while a check works: a spinner line for anything over a second,
each hook event as it happens, Maven's output folded (``activity``, ``ProgressLines``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from harness.engine.context import CheckContext
from harness.engine.stepview import StepView
from harness.ui.console import make_console
from harness.ui.hook_event_view import hook_event_renderable
from harness.ui.prose import (
    print_prose,
    prose,
)


@contextmanager
def activity(
    console: Console, ctx: CheckContext, *, verbose: bool = False
) -> Iterator[CheckContext]:
    """Route a context's activity and Maven output into a spinner line (anything > 1 s), and
    print each hook event as it happens (``verbose``: every message whole)."""
    state: dict[str, Any] = {"label": "working…", "started": time.monotonic()}
    status: Any = (
        console.status("working…", spinner="dots")
        if console.is_terminal
        else ProgressLines(make_console(stderr=True), state)
    )

    def fit(text: str) -> str:
        # One line, always: a spinner wrapped to two lines erases a printed line when it stops
        # (the hook's last line went missing on a terminal).
        room = max(10, console.width - 4)
        return text if len(text) <= room else text[: room - 1] + "…"

    def on_activity(text: str) -> None:
        state["label"], state["started"] = text, time.monotonic()
        status.update(escape(fit(text)))
        status.start()

    def on_output(line: str) -> None:
        if line.strip():
            elapsed = time.monotonic() - float(state["started"])
            label = fit(f"{state['label']} ({elapsed:.0f} s) {line.strip()[:70]}")
            status.update(escape(label))

    inner_hook = ctx.on_hook_event

    said_before: dict[str, str] = {}  # a message -> the step that said it first
    heading = {"session": ""}  # the session whose rows are being printed

    def on_hook_event(entry: StepView) -> None:
        status.stop()
        if entry.session and entry.session != heading["session"]:
            # A step of several sessions: a heading says whose rows follow.
            heading["session"] = entry.session
            # Wrapped under its own words, never back to column 0 (Lab 01 step 3's "stops").
            print_prose(console, prose(f"▸ {entry.session}", indent=2, hanging=2, style="bold"))
        said = (entry.feedback or entry.system_message or "").strip()
        label = entry.label or f"step {entry.step}"
        first = said_before.setdefault(said, label) if said else label
        same_as = first if first != label else ""
        print_prose(console, hook_event_renderable(entry, full=verbose, same_as=same_as))
        inner_hook(entry)
        # The session goes on: the spinner stays, so a slow next step is never silent.
        status.update(escape(fit(str(state["label"]))))
        status.start()

    ctx.on_activity, ctx.on_output, ctx.on_hook_event = on_activity, on_output, on_hook_event
    status.start()  # at once: a check that reads files first is not silent meanwhile
    try:
        yield ctx
    finally:
        status.stop()
        if isinstance(status, ProgressLines):
            status.close()


class ProgressLines:
    """The spinner's stand-in where no spinner can be drawn (a pipe, a log, an editor's
    terminal pane that is no TTY): each new activity a line of its own on stderr, and a wait
    past ``EVERY`` seconds a line each ``EVERY`` seconds, so a 55 s re-verification or a 90 s
    session is never silent; stdout keeps only the results."""

    EVERY = 10.0

    def __init__(self, console: Console, state: dict[str, Any]) -> None:
        self.console, self.state, self.said = console, state, "working…"
        self.last = time.monotonic()  # when the last line was said
        self.done = threading.Event()
        self.beat = threading.Thread(target=self._beat, daemon=True)

    def update(self, _: object) -> None:
        """The spinner's redraw (a Maven line, the seconds): no line of its own here."""

    def start(self) -> None:
        if not self.beat.is_alive() and not self.done.is_set():
            self.beat.start()
        label = str(self.state["label"])
        if label != self.said:
            self.said = label
            self._say(label)

    def stop(self) -> None:
        """Printing a result needs no room made: each line stays."""

    def close(self) -> None:
        self.done.set()

    def _beat(self) -> None:
        # Checked each second: a line EVERY seconds after the last one, whenever that was.
        while not self.done.wait(1.0):
            if time.monotonic() - self.last >= self.EVERY:
                waited = time.monotonic() - float(self.state["started"])
                self._say(f"{str(self.state['label']).rstrip('…')} ({waited:.0f} s)")

    def _say(self, text: str) -> None:
        # One line, as the spinner's: a progress line is read, not copied.
        room = max(20, min(self.console.width, 100) - 2)
        line = f"… {text}" if len(text) <= room else f"… {text[: room - 1]}…"
        self.console.print(Text(line, style="dim"), soft_wrap=True)
        self.last = time.monotonic()
