"""The rich consoles every renderer uses. Colour follows NO_COLOR and whether stdout is a TTY."""

from __future__ import annotations

import os
import sys

from rich.console import Console


def make_console(*, stderr: bool = False) -> Console:
    no_color = bool(os.environ.get("NO_COLOR"))
    return Console(
        stderr=stderr,
        no_color=no_color,
        highlight=False,
        soft_wrap=False,
        # Keep output readable in CI logs and pipes, where rich would otherwise pick 80 columns.
        width=None if sys.stdout.isatty() else 120,
    )
