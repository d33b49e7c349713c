"""Text laid out for a terminal of any width without breaking what people type.

Rich wraps at any space and folds long words: at 60 or even 120 columns that splits
``./mvnw -q test -Dgroups=sensor`` or a backup's ``git checkout`` over two lines, and hook
feedback that wraps loses its indent. Here the unit of wrapping is a word, a command or a
code span, never a part of one; wrapped lines keep their indent; and a unit longer than the
terminal is left whole for the terminal's own soft wrap (copy and paste keep it one line)
instead of being cut. Print these renderables with ``crop=False`` (``print_prose``).

Commands are found two ways: spans the text marks with backticks, and a heuristic for
commands in text we do not write ourselves (the hooks' messages): ``./anything`` or a known
program followed by its arguments (options, paths, placeholders, quoted strings).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

COMMAND_STYLE = "bold cyan"
CODE_STYLE = "cyan"

# What a bare word after `lab` must be for the pair to be a command, not prose ("the lab is").
# ui/ may not import the CLI: tests/ui/test_prose.py keeps this equal to build_parser()'s.
LAB_SUBCOMMANDS = frozenset(
    {
        *("init", "sensors", "backups", "restore", "doctor", "simulate", "verify-hook"),
        *("list", "start", "status", "check", "hint", "next", "goto", "reset", "solve"),
        *("watch", "demo", "dev", "submit", "trainer", "replay", "fixtures"),
    }
)
PROGRAMS = frozenset(
    {
        *("git", "mvn", "bash", "sh", "chmod", "sed", "rm", "touch", "cat", "jq", "cd"),
        *("export", "sudo", "apt-get", "docker", "python3", "pip", "npm", "node"),
    }
)
PHASES = frozenset(["test", "verify", "package", "install", "compile", "clean", "validate"])
_ARGUMENT = re.compile(
    r"""
    -{1,2}[\w.=/:@+,-]*         # an option: -q, -Dgroups=sensor, --break, --
    | [A-Z][A-Z0-9_]*           # a placeholder: N, STEP, NAME, DIR
    | \d[\w.-]*                 # a number or a numbered id: 3, 03-stop-hook
    | [\w.@+~$-]*[/=][\w./=:@+~$*-]*   # a path or an assignment
    | [\w.-]+\.[A-Za-z]{1,5}    # a file name: smoke.sh, tricks.toml
    | \. | \*                   # "git checkout REF -- ."
    """,
    re.VERBOSE,
)
_LEAD = "([\"'`"
_TRAIL = ")].,;:!?\"'`"


# ---- finding the units --------------------------------------------------------------------
def _core(token: str) -> str:
    """The word without the punctuation of the sentence around it: "(run" → "run"."""
    bare = token.lstrip(_LEAD)
    if bare.rstrip(")],;:") in {".", "--"}:  # "-- ." and "-- .)" end a git checkout
        return bare.rstrip(")],;:")
    return bare.rstrip(_TRAIL)


def _closes_clause(token: str) -> bool:
    """A token after which a command ends: "sensor).", "again,", ".)" (not "." or "--")."""
    if token in {".", "--"}:
        return False
    return token[-1] in ",;:)]" or (token.endswith(".") and not token.endswith(".."))


def command_spans(plain: str) -> list[tuple[int, int]]:
    """Character ranges of commands in running text (see the module docstring)."""
    tokens = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", plain)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        core = _core(tokens[i][2])
        nxt = _core(tokens[i + 1][2]) if i + 1 < len(tokens) else ""
        if core == "lab":
            starts = nxt in LAB_SUBCOMMANDS
        elif core == "git":
            starts = bool(re.fullmatch(r"[a-z][a-z-]+", nxt))
        else:
            starts = core in PROGRAMS or (core.startswith(("./", "../")) and len(core) > 2)
        if not starts or _closes_clause(tokens[i][2]):
            if starts:  # a one-word command at the end of a clause: "run ./smoke.sh."
                spans.append(_trimmed(tokens[i], tokens[i]))
            i += 1
            continue
        j = i
        if core in {"lab", "git"}:
            j += 1  # the subcommand
        quote = ""
        while j + 1 < len(tokens) and (quote or not _closes_clause(tokens[j][2])):
            word = tokens[j + 1][2]
            if quote:
                j += 1
                if word.rstrip(_TRAIL.replace(quote, "")).endswith(quote):
                    quote = ""
                continue
            if word[0] in "'\"":
                quote = word[0]
                j += 1
                if len(word) > 1 and word.rstrip(_TRAIL.replace(quote, "")).endswith(quote):
                    quote = ""
                continue
            if not (_ARGUMENT.fullmatch(_core(word)) or _core(word) in PHASES):
                break
            j += 1
        spans.append(_trimmed(tokens[i], tokens[j]))
        i = j + 1
    return spans


# A Java annotation with its arguments, as sensors print them: `@UseCase(id="UC-003",
# scenario="A1: Invalid Input")` is pasted into a test whole, so it is never wrapped inside.
_ANNOTATION = re.compile(r"@[A-Za-z_][\w.]*\([^()\n]*\)")


def annotation_spans(plain: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _ANNOTATION.finditer(plain)]


def _guessed(plain: str, room: int) -> list[tuple[int, int]]:
    """The units guessed in a line: annotations that fit ``room``, and commands."""
    return [*_fitting(annotation_spans(plain), plain, room), *command_spans(plain)]


def _fitting(spans: list[tuple[int, int]], plain: str, room: int) -> list[tuple[int, int]]:
    """The annotations kept whole: those whose word (with what is glued to it, such as a
    client's ``\\n</tool_use_error>``) fits beside the indent. A wider one is wrapped as
    words inside the indent, not left to the terminal's break at column 0 (walk-r)."""
    kept = []
    for a, b in spans:
        end = plain.find(" ", b)
        if (len(plain) if end < 0 else end) - (plain.rfind(" ", 0, a) + 1) <= room:
            kept.append((a, b))
    return kept


def _trimmed(first: tuple[int, int, str], last: tuple[int, int, str]) -> tuple[int, int]:
    start = first[0] + len(first[2]) - len(first[2].lstrip(_LEAD))
    end_token = last[2]
    # The sentence's punctuation is not part of the command; a closing quote and the "." of
    # "git checkout REF -- ." are.
    kept = end_token.rstrip(")],;:")
    if kept.lstrip(_LEAD) not in {".", "--"}:
        kept = end_token.rstrip(")],;:.!?")
    return start, last[1] - (len(end_token) - len(kept))


def backticked(text: Text) -> tuple[Text, list[tuple[int, int]]]:
    """Remove `backtick` marks, styling and protecting what they enclose."""
    plain = text.plain
    out = Text(style=text.style, end="")
    spans: list[tuple[int, int]] = []
    pos = 0
    for match in re.finditer(r"`([^`\n]+)`", plain):
        out.append_text(text[pos : match.start()])
        start = len(out.plain)
        inner = text[match.start(1) : match.end(1)]
        inner.stylize(COMMAND_STYLE)
        out.append_text(inner)
        spans.append((start, len(out.plain)))
        pos = match.end()
    out.append_text(text[pos:])
    return out, spans


def _units(text: Text, protected: Sequence[tuple[int, int]]) -> list[Text]:
    """Split at spaces, except inside protected ranges: each unit is wrapped as a whole.

    A run of spaces keeps all but one with the unit before it, so joining the units with
    single spaces gives the line back as it was (columns of a row stay aligned).
    """
    plain = text.plain
    ranges = sorted(protected)
    bounds: list[tuple[int, int]] = []
    start: int | None = None
    i = 0
    while i < len(plain):
        inside = next((r for r in ranges if r[0] <= i < r[1]), None)
        if inside is not None:
            start = i if start is None else start
            i = inside[1]
        elif plain[i] == " ":
            if start is not None:
                bounds.append((start, i))
                start = None
            i += 1
        else:
            start = i if start is None else start
            i += 1
    if start is not None:
        bounds.append((start, len(plain)))
    units = []
    for n, (a, b) in enumerate(bounds):
        # The spaces up to the next unit, all but the one the join puts back.
        end = bounds[n + 1][0] - 1 if n + 1 < len(bounds) else b
        units.append(text[a : max(b, end)])
    return units


# ---- laying out ---------------------------------------------------------------------------
@dataclass
class Block:
    """One paragraph: its text, the prefix of its first line and of every wrapped line."""

    text: Text
    first: Text = field(default_factory=Text)
    rest: Text | None = None  # None: as wide as ``first``, in spaces
    wrap: bool = True  # False: preformatted (code), each line as it is
    # With wrap False: even a comment too wide is left whole (a file's content to copy).
    verbatim: bool = False
    protected: list[tuple[int, int]] = field(default_factory=list)
    # Kept on one line when that fits the terminal, else wrapped between its protected parts
    # (a command and its outcome: together at 120 columns, each whole at 100).
    together: list[tuple[int, int]] = field(default_factory=list)
    # The column a unit too wide for ``rest`` goes to when it fits there (else moved left just
    # enough): one column for every such command of a list (walk-r F9: 6, 10 or 11 spaces).
    moved: int | None = None


def lay_out(block: Block, width: int) -> list[Text]:
    rest = block.rest if block.rest is not None else Text(" " * block.first.cell_len)
    lines: list[Text] = []
    together = _split_ranges(block, block.together)
    for n, source in enumerate(_split_lines(block)):
        text, protected = source
        # Together only where the pair fits beside the wrapped lines' indent: moved left to fit
        # a pair wider than that went to column 0 (Lab 04's sed under "⚙  3 bash").
        room = width - rest.cell_len
        protected += [(a, b) for a, b in next(together) if b - a <= room]
        prefix = block.first if n == 0 else rest
        if not block.wrap and not _FOLD.get():  # folding, a code line wraps like prose
            if block.verbatim:
                lines.append(Text.assemble(prefix, text))
            else:
                lines.extend(_code_line(prefix, rest, text, width))
            continue
        # A hook's own indentation ("  ./mvnw …") is kept on every line the text wraps to.
        indent = len(text.plain) - len(text.plain.lstrip(" "))
        lead = Text(" " * indent)
        body = text[indent:]
        shifted = [(a - indent, b - indent) for a, b in protected if b > indent]
        # The caller's units win: a guessed command overlapping one ("bash" of the event
        # column, then the command) would glue the two together.
        for a, b in _guessed(body.plain, width - rest.cell_len - indent):
            if all(b <= c or a >= d for c, d in shifted):
                shifted.append((a, b))
        units = _units(body, shifted)
        line = Text.assemble(prefix, lead)
        filled = False
        split_last = False  # the last unit was a command given over lines of its own
        for unit in units:
            # Only what the terminal would break: a command that fits moved left stays whole.
            pieces = _shell_lines(unit, width - rest.cell_len - indent - 2, width)
            if pieces and not _FOLD.get():
                # A command too wide for the terminal: over lines of its own, split where the
                # shell reads it the same (walk-m: an rm of 111 columns was cut by the edge).
                lines += _command_lines(line, filled, pieces, Text.assemble(rest, lead), width)
                line, filled, split_last = Text.assemble(rest, lead), False, True
                continue
            split_last = False
            if filled and line.cell_len + 1 + unit.cell_len > width:
                lines.append(line)
                line = Text.assemble(rest, lead)
                filled = False
            if not filled and line.cell_len + unit.cell_len > width >= unit.cell_len:
                # A path or command wider than what the indent leaves: rather than let the
                # terminal break it at the edge, give it a line of its own, moved left just
                # enough to fit whole.
                indent_only = Text.assemble(rest, lead)
                if indent_only.plain.strip():
                    pass  # a gutter or marker that must stay: the terminal wraps it
                else:
                    if line.plain.strip():
                        lines.append(line)  # the label stays where it is, the unit goes below
                    line = Text(" " * _moved(block, indent_only.cell_len, width - unit.cell_len))
            if unit.cell_len > width and _FOLD.get():
                # A live region (lab watch) cannot leave a unit to the terminal's soft wrap:
                # it would be cut at the edge. Fold it over whole lines instead.
                if line.plain.strip():
                    lines.append(line)
                chunks = [unit[at : at + width] for at in range(0, len(unit.plain), width)]
                lines.extend(chunks[:-1])
                line = chunks[-1]
                filled = True
                continue
            if filled:
                line.append(" ")
            line.append_text(unit)
            filled = True
        if not split_last:
            lines.append(line)
    return lines


def _moved(block: Block, indent: int, room: int) -> int:
    """The column of a unit too wide for the indent: the block's ``moved`` when it fits there,
    else just far enough left to end at the edge."""
    column = min(indent, room)
    return block.moved if block.moved is not None and block.moved <= column else column


# What else starts a command a unit may hold (a backticked `printf '…' > file`, `lab check`).
_SHELL_FIRST = frozenset({"lab", "git", "printf", "echo", "for", "find", "cp", "mv", "mkdir"})
CONTINUED = Text("  ")  # the indent of a command's continued line (after "\\")


def _command_lines(
    line: Text, filled: bool, pieces: list[Text], indent: Text, width: int
) -> list[Text]:
    """``line`` so far, then a command's ``pieces`` (``_shell_lines``): the first beside a
    label ("fix:") when it fits there, else below; a continued line indented, or moved left
    just enough for a path wider than that to fit whole."""
    out = []
    if filled or not line.plain.strip() or line.cell_len + pieces[0].cell_len > width:
        if line.plain.strip():
            out.append(line)
        line = indent.copy()
    out.append(Text.assemble(line, pieces[0]))
    continued = Text.assemble(indent, CONTINUED)
    for piece in pieces[1:]:
        room = max(0, width - piece.cell_len)
        if continued.plain.strip() or continued.cell_len <= room:
            out.append(Text.assemble(continued, piece))
        else:
            out.append(Text.assemble(" " * room, piece))
    return out


def _shell_words(plain: str) -> list[tuple[int, int]]:
    """Where the shell splits ``plain`` into words: at spaces outside quotes and escapes."""
    words: list[tuple[int, int]] = []
    start: int | None = None
    quote = ""
    i = 0
    while i < len(plain):
        char = plain[i]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                i += 1
        elif char == "\\":
            start = i if start is None else start
            i += 1
        elif char in "'\"":
            start = i if start is None else start
            quote = char
        elif char == " ":
            if start is not None:
                words.append((start, i))
                start = None
        elif start is None:
            start = i
        i += 1
    if start is not None:
        words.append((start, len(plain)))
    return words


def _shell_lines(unit: Text, room: int, width: int) -> list[Text] | None:
    """A command wider than the terminal's ``width`` as lines of ``room`` the shell reads as
    the one command: each but the last ends in `` \\``, and no word is cut. None for what fits,
    is no command (a path, a prompt) or cannot be split."""
    if unit.cell_len <= width:
        return None
    plain = unit.plain
    first = plain.split(" ", 1)[0].lstrip("`")  # a marked command: `sed -i '…' FILE`
    is_command = first in PROGRAMS or first in _SHELL_FIRST or first.startswith(("./", "../"))
    words = _shell_words(plain) if is_command else []
    # A comment's "\\" is no continuation: a command with one stays whole, to the soft wrap.
    if len(words) < 2 or any(plain[a] == "#" for a, _ in words):
        return None
    pieces: list[Text] = []
    start, end = words[0]
    for a, b in words[1:]:
        if b - start + 2 > room:  # the word does not fit beside " \\": a new line
            pieces.append(Text.assemble(unit[start:end], " \\"))
            start = a
        end = b
    pieces.append(unit[start:end])
    return pieces if len(pieces) > 1 else None


_COMMENT = re.compile(r"( *)(#+) ")


def _code_line(prefix: Text, rest: Text, text: Text, width: int) -> list[Text]:
    """A code line as it is, except a comment too wide for the terminal: it wraps at its
    spaces, each piece a comment again ("#   …"), so copied lines still are valid TOML or
    shell. Commands are never wrapped: what is copied must run."""
    comment = _COMMENT.match(text.plain)
    if comment is None or prefix.cell_len + text.cell_len <= width:
        return [Text.assemble(prefix, text)]
    lead = Text(comment.group(1) + comment.group(2) + "   ", style=text.style)
    head = Text.assemble(prefix, text[: comment.end()])
    wrapped = lay_out(Block(text[comment.end() :], head, Text.assemble(rest, lead)), width)
    return wrapped


def _split_lines(block: Block) -> Iterator[tuple[Text, list[tuple[int, int]]]]:
    pieces = block.text.split("\n", allow_blank=True)
    yield from zip(pieces, _split_ranges(block, block.protected), strict=False)


def _split_ranges(
    block: Block, ranges: Sequence[tuple[int, int]]
) -> Iterator[list[tuple[int, int]]]:
    """``ranges`` of the block's text, line by line, each counted from its line's start."""
    offset = 0
    for piece in block.text.split("\n", allow_blank=True):
        length = len(piece.plain)
        yield [
            (max(a, offset) - offset, min(b, offset + length) - offset)
            for a, b in ranges
            if a < offset + length and b > offset
        ]
        offset += length + 1


class Prose:
    """Blocks of text, laid out to the width at hand (see the module docstring)."""

    def __init__(self, blocks: Iterable[Block], *, gutter: Text | None = None) -> None:
        self.blocks = list(blocks)
        self.gutter = gutter or Text()

    def lines(self, width: int) -> list[Text]:
        inner = max(width - self.gutter.cell_len, 20)
        out: list[Text] = []
        for block in self.blocks:
            out.extend(Text.assemble(self.gutter, line) for line in lay_out(block, inner))
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width):
            line.rstrip()
            yield from line.render(console)
            yield Segment.line()


def prose(
    text: str | Text,
    *,
    indent: int | Text = 0,
    hanging: int | None = None,
    style: str = "",
    protected: Sequence[tuple[int, int]] = (),
) -> Prose:
    """One paragraph (newlines kept): ``indent`` before every line, or ``hanging`` extra
    spaces before the wrapped ones. Backticks mark commands."""
    body = Text(text, style=style) if isinstance(text, str) else text
    marked, spans = backticked(body)
    first = indent if isinstance(indent, Text) else Text(" " * indent)
    rest = None if hanging is None else Text(" " * (first.cell_len + hanging))
    return Prose([Block(marked, first, rest, protected=[*protected, *spans])])


_FOLD: ContextVar[bool] = ContextVar("fold", default=False)


class Folded:
    """Render ``inner`` for a live region (``rich.live.Live`` crops every line at the edge):
    a unit wider than the terminal is folded over whole lines instead of cut."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        token = _FOLD.set(True)
        try:
            yield from console.render(self.inner, options)
        finally:
            _FOLD.reset(token)


def print_prose(console: Console, *renderables: RenderableType) -> None:
    """Print without cropping: a unit wider than the terminal goes to its soft wrap."""
    console.print(*renderables, crop=False)


# ---- Markdown ----------------------------------------------------------------------------
def markdown(source: str) -> Prose:
    """Lab instructions, hints and intros: paragraphs, lists (numbered as written), code
    blocks (never wrapped, one blank line around them) and inline code kept whole."""
    from harness.ui.prose_markdown import markdown_blocks  # it builds on this module's Block

    return Prose(markdown_blocks(source))


# ---- frames -------------------------------------------------------------------------------
class Framed:
    """A titled frame open on the right: lines never need to fit a box, so nothing is cut.

    ╭─ 03-stop-hook · step 2/2: Every trick still blocks ─────
    │ text, wrapped to the width
    ╰──────────────────────────────────────────────────────────
    """

    def __init__(self, title: str, body: Prose, *, style: str = "cyan", subtitle: str = "") -> None:
        self.title = title
        self.body = body
        self.style = style
        self.subtitle = subtitle

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        head = Prose([Block(Text(self.title, style="bold"), Text("╭─ "), Text("│  "))])
        # Room for the " ──" that closes the title's last line: at most the width, never 81.
        lines = head.lines(width - 3)
        for n, line in enumerate(lines):
            line.stylize(self.style, 0, 3)
            if n == len(lines) - 1:
                line.append(" " + "─" * max(width - line.cell_len - 1, 2), style=self.style)
            yield from line.render(console)
            yield Segment.line()
        gutter = Text("│ ", style=self.style)
        for line in Prose(self.body.blocks, gutter=gutter).lines(width):
            line.rstrip()
            yield from line.render(console)
            yield Segment.line()
        foot = Text("╰" + "─" * (width - 1), style=self.style)
        if self.subtitle:
            foot = Text.assemble(("╰─ ", self.style), self.subtitle, " ")
            foot.append("─" * max(width - foot.cell_len, 2), style=self.style)
        yield from foot.render(console)
        yield Segment.line()
