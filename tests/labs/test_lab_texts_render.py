"""Every lab's intro, instructions and hints, rendered as a participant sees them at 60, 80
and 120 columns: commands and code lines whole, lists numbered as written, no doubled blank
lines, nothing cut."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import pytest
from markdown_it import MarkdownIt
from rich.console import Console

from harness.engine.manifest import Lab, load_labs
from harness.ui.lab_view import hint_panel, intro_panel, step_panel
from tests.lines import shell_joined

WIDTHS = (60, 80, 120)
GUTTER = re.compile(r"^[│╭╰]─? ?")


def texts() -> Iterator[tuple[str, Lab, object, str]]:
    for lab in load_labs():
        yield f"{lab.id} intro", lab, intro_panel(lab), lab.intro
        for step in lab.steps:
            yield f"{lab.id} {step.id}", lab, step_panel(lab, step), step.instructions
            for tier, hint in enumerate(step.hints, start=1):
                shown = hint_panel(step, tier, hint)
                yield f"{lab.id} {step.id} hint {tier}", lab, shown, hint


CASES = list(texts())
SAMPLE = "Run `lab check`:\n\n1. `./mvnw -q test`\n2. read the report\n\n```\nlab hint\n```\n"


def test_the_texts_and_what_they_hold_are_found() -> None:
    """The loops below are only as good as what they loop over: every lab's texts are here,
    the helpers find code and numbered items, and some lab texts do have both."""
    labs = {case[1].id for case in CASES}
    assert len(labs) == len(load_labs()) and len(labs) >= 10
    assert code_of(SAMPLE) == (["lab check", "./mvnw -q test"], ["lab hint"])
    assert ordered_items(SAMPLE) == [("1", "`./mvnw -q test`"), ("2", "read the report")]
    with_code = [c for c in CASES if any(code_of(c[3]))]
    with_lists = [c for c in CASES if ordered_items(c[3])]
    assert len(with_code) > len(CASES) // 4 and with_lists


def render(renderable: object, width: int) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, no_color=True, highlight=False)
    console.print(renderable, crop=False)
    return [GUTTER.sub("", line).rstrip() for line in out.getvalue().splitlines()]


def code_of(source: str) -> tuple[list[str], list[str]]:
    """Inline code spans and code block lines of a Markdown text."""
    spans, lines = [], []
    for token in MarkdownIt().parse(source):
        if token.type in ("fence", "code_block"):
            lines += [line.strip() for line in token.content.splitlines() if line.strip()]
        for child in token.children or []:
            if child.type == "code_inline":
                spans.append(child.content)
    return spans, lines


def comment_wrapped(piece: str, lines: list[str]) -> bool:
    """A code comment too wide for the terminal may wrap, every piece a comment again
    ("#   …"): copied, it is still valid TOML. Commands never wrap."""
    if not piece.startswith("#"):
        return False
    want = " ".join(piece.split())
    for start, line in enumerate(lines):
        if not line.lstrip().startswith("#"):
            continue
        joined = line
        for more in lines[start + 1 : start + 5]:
            if not more.lstrip().startswith("#"):
                break
            joined += " " + re.sub(r"^\s*#+\s*", "", more)
            if want in " ".join(joined.split()):
                return True
    return False


def ordered_items(source: str) -> list[tuple[str, str]]:
    """(number, text of the item's first line) for every item of every numbered list."""
    tokens = MarkdownIt().parse(source)
    items = []
    for i, token in enumerate(tokens):
        if token.type == "list_item_open" and token.info:
            inline = next(t for t in tokens[i:] if t.type == "inline")
            items.append((token.info, inline.content.splitlines()[0]))
    return items


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(("where", "lab", "shown", "source"), CASES, ids=[c[0] for c in CASES])
def test_text_renders_as_written(
    where: str, lab: Lab, shown: object, source: str, width: int
) -> None:
    lines = render(shown, width)
    words = re.sub(r"[`*#>\[\]]", "", source).split()
    assert words and words[0] in "\n".join(lines), f"{where}: its text is not shown"
    spans, code_lines = code_of(source)
    for piece in [*spans, *code_lines]:
        whole = any(piece in line for line in lines) or " ".join(piece.split()) in shell_joined(
            "\n".join(lines)
        )
        assert whole or comment_wrapped(piece, lines), f"{piece!r} broken or lost:\n" + "\n".join(
            lines
        )
    for number, first in ordered_items(source):
        start = f"{number}. " + " ".join(re.sub(r"[`*]", "", first).split()[:2])
        assert any(line.lstrip().startswith(start) for line in lines), (start, lines)
    blank_runs = [i for i in range(1, len(lines)) if not lines[i] and not lines[i - 1]]
    assert not blank_runs, "doubled blank lines:\n" + "\n".join(lines)


@pytest.mark.parametrize(("where", "lab", "shown", "source"), CASES, ids=[c[0] for c in CASES])
def test_a_numbered_item_holds_one_thing(where: str, lab: Lab, shown: object, source: str) -> None:
    """An item like "2. `| tail`, 3. `> /dev/null`" renders as one item numbered 2: the
    numbers a participant reads would not match the numbers written."""
    for number, first in ordered_items(source):
        assert not re.search(r"(^|[,;] )\d+\. ", first.removeprefix(number)), (number, first)
