"""The settings entries the pinned client ignores or cannot run, as a person reads them."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from harness.claude.settings_check import SettingsWarning
from harness.ui.console import make_console
from harness.ui.prose import Block, Prose, print_prose


def settings_warnings_renderable(warnings: Sequence[SettingsWarning]) -> Prose:
    """Per entry: where (file and field path), what the client says (its own words when it
    has them), and the fix on a line of its own; wrapped lines keep their indent."""
    blocks: list[Block] = []
    for warning in warnings:
        said = f"Claude Code says: {warning.said}" if warning.client else warning.said
        blocks.append(
            Block(
                Text(f"{warning.where}: {said}"),
                Text("warning: ", style="bold yellow"),
                Text("  "),
            )
        )
        if warning.fix:
            blocks.append(Block(Text(warning.fix), Text("  fix: ", style="bold"), Text(" " * 7)))
    return Prose(blocks)


def print_settings_warnings(
    warnings: Sequence[SettingsWarning], console: Console | None = None
) -> None:
    """On stderr unless a console is given; nothing when there is nothing to say."""
    if warnings:
        print_prose(console or make_console(stderr=True), settings_warnings_renderable(warnings))
