"""The rich consoles every renderer uses. Colour follows NO_COLOR and whether stdout is a TTY."""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.markup import escape

__all__ = ["Console", "escape", "make_console", "print_error"]


def make_console(*, stderr: bool = False) -> Console:
    no_color = bool(os.environ.get("NO_COLOR"))
    return Console(
        stderr=stderr,
        no_color=no_color,
        highlight=False,
        soft_wrap=False,
        width=_width(),
    )


def _width() -> int | None:
    """None (rich asks the terminal) on a terminal or with COLUMNS set. Piped (``lab check |
    head``) in a terminal, that terminal's width, so lines are laid out as the person sees them;
    in CI logs, 120 columns, where rich would otherwise pick 80."""
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return None
    for stream in (sys.stderr, sys.stdin):
        try:
            if stream is not None and stream.isatty():
                return os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError):
            continue
    return 120


def print_error(message: str, fix: str | None = None) -> None:
    """A user-facing error on stderr: what is wrong, then the command or step that fixes it."""
    from rich.text import Text

    from harness.ui.prose import Block, Prose, print_prose

    console = make_console(stderr=True)
    # Messages quote user input (paths, fields like hooks.Stop[0]): plain Text, never markup.
    blocks = [Block(Text(message), Text("error: ", style="bold red"), Text("  "))]
    if fix:
        blocks.append(Block(Text(fix), Text("  fix: ", style="bold"), Text(" " * 7)))
    print_prose(console, Prose(blocks))
