"""Markdown (lab instructions, hints, intros) as prose's blocks: one pass over markdown-it's
tokens, keeping lists' markers and indents, quotes, code blocks unwrapped and inline code whole
(prose.markdown is the way in)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from harness.ui.prose import CODE_STYLE, COMMAND_STYLE, Block

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@functools.cache
def _markdown_parser() -> MarkdownIt:
    # Imported on first use: markdown-it is 130 modules a command that prints no lab text
    # (lab status, lab check's verdicts) would load for nothing at its start.
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough")


def _prefixes(lists: list[dict[str, object]], quote: int) -> tuple[Text, Text]:
    """The first line's and the other lines' prefix of a block inside ``quote`` quotes and
    the open ``lists``."""
    first = Text("▌ " * quote, style="dim")
    rest = first.copy()
    for entry in lists:
        marker = entry.get("marker")
        if isinstance(marker, str):  # the item's first line carries its marker, once
            first.append(marker)
            rest.append(" " * len(marker))
            entry["marker"] = None
        else:
            width = int(str(entry["width"]))
            first.append(" " * width)
            rest.append(" " * width)
    return first, rest


def markdown_blocks(source: str) -> list[Block]:
    """One loop over markdown-it's tokens; its state is the open lists and quotes."""
    blocks: list[Block] = []
    lists: list[dict[str, object]] = []  # open lists: {"tight", "marker": str|None, "width"}
    quote = 0

    def prefixes() -> tuple[Text, Text]:
        return _prefixes(lists, quote)

    def gap() -> None:
        if blocks and blocks[-1].text.plain != "" and not (lists and lists[-1]["tight"]):
            blocks.append(Block(Text()))

    tokens = _markdown_parser().parse(source)
    for i, token in enumerate(tokens):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            if not lists:
                gap()
            tight = i + 2 < len(tokens) and tokens[i + 2].hidden
            lists.append({"tight": tight, "marker": None, "width": 0})
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            marker = f"{token.info}{token.markup} " if token.info else "• "
            lists[-1]["marker"] = marker
            lists[-1]["width"] = len(marker)
        elif kind == "blockquote_open":
            gap()
            quote += 1
        elif kind == "blockquote_close":
            quote -= 1
        elif kind == "inline" and token.children is not None:
            gap()
            text, spans = _inline(token.children)
            if tokens[i - 1].type == "heading_open":
                text.stylize("bold")
            first, rest = prefixes()
            blocks.append(Block(text, first, rest, protected=spans))
        elif kind in ("fence", "code_block"):
            gap()
            first, rest = prefixes()
            code = Text(token.content.rstrip("\n"), style=CODE_STYLE)
            blocks.append(
                Block(code, Text.assemble(first, "  "), Text.assemble(rest, "  "), wrap=False)
            )
            if lists:
                blocks.append(Block(Text()))
        elif kind == "hr":
            gap()
            blocks.append(Block(Text("─" * 20, style="dim")))
        elif kind == "html_block":
            gap()
            first, rest = prefixes()
            blocks.append(Block(Text(token.content.rstrip("\n")), first, rest))
    while blocks and not blocks[-1].text.plain:
        blocks.pop()
    return blocks


def _inline(children: Sequence[Token]) -> tuple[Text, list[tuple[int, int]]]:
    text = Text()
    spans: list[tuple[int, int]] = []
    styles: list[str] = []
    for child in children:
        kind = child.type
        if kind in ("text", "html_inline"):
            text.append(child.content, style=" ".join(styles) or None)
        elif kind == "code_inline":
            start = len(text.plain)
            text.append(child.content, style=COMMAND_STYLE)
            spans.append((start, len(text.plain)))
        elif kind == "softbreak":
            text.append(" ")
        elif kind == "hardbreak":
            text.append("\n")
        elif kind in ("strong_open", "em_open", "s_open"):
            styles.append({"strong_open": "bold", "em_open": "italic"}.get(kind, "strike"))
        elif kind in ("strong_close", "em_close", "s_close") and styles:
            styles.pop()
        elif kind == "image":
            text.append(child.content)
    return text, spans
