"""A spinner for the second or so ``lab`` spends importing before a command can say a word.

On a loaded laptop the imports alone took 1.5 s, and a command's own spinner starts only
after them: the terminal stood still that long, then the command's own waits came on top.
This one needs nothing but the standard library (it runs before rich is imported), draws on
the terminal only (stderr a TTY, no --json, NO_COLOR or not: it has no colour), waits a few
tenths of a second first so quick commands never flash it, and erases its line when the
command takes over.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_DELAY = 0.3  # s before the first frame
_TICK = 0.1


@contextmanager
def starting(words: list[str]) -> Iterator[None]:
    """While the body imports and parses: after ``_DELAY``, ``⠋ lab CMD: starting …``."""
    stream = sys.stderr
    quiet = not words or "--json" in words or not stream.isatty()
    if quiet:
        yield
        return
    done = threading.Event()
    drawn = threading.Event()
    label = f" lab {words[0]}: starting …"

    def spin() -> None:
        if done.wait(_DELAY):
            return
        n = 0
        while not done.is_set():
            stream.write(f"\r{_FRAMES[n % len(_FRAMES)]}{label}")
            stream.flush()
            drawn.set()
            n += 1
            done.wait(_TICK)

    thread = threading.Thread(target=spin, name="lab-starting", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if drawn.is_set():
            stream.write("\r\x1b[K")  # the line is the command's again
            stream.flush()
