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
        # Keep output readable in CI logs and pipes, where rich would otherwise pick 80 columns;
        # an explicit COLUMNS still wins.
        width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 120,
    )


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
