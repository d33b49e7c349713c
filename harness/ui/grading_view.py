"""Rich rendering of a Stop-hook grade: one row per contract check, then the fix per failure."""

from __future__ import annotations

import io
import re

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from harness.grading import GradeCheck, HookGrade
from harness.results import Status
from harness.ui.prose import Block, Prose, backticked, print_prose, prose

_MARK = {Status.PASS: "[green]✓[/]", Status.FAIL: "[bold red]✗[/]", Status.SKIP: "[dim]–[/]"}


def _happened(check: GradeCheck) -> str:
    text = escape(check.found)
    if check.failed and check.problem:
        return f"[red]{escape(check.problem)}[/]: {text}"
    if check.skipped:
        return f"[dim]{text}[/]"
    return text


def _title(grade: HookGrade) -> str:
    title = f"verify-hook {grade.script.name}  (Stop hook, timeout {grade.timeout:g} s)"
    if grade.timeout_source:
        title += f"\ntimeout from: {grade.timeout_source}"
    return title


def grade_table(grade: HookGrade) -> Table:
    table = Table(title=escape(_title(grade)), title_justify="left")
    table.add_column("check")
    table.add_column("", justify="center")
    table.add_column("expected")
    table.add_column("what happened", overflow="fold")
    for check in grade.checks:
        table.add_row(
            escape(check.title),
            _MARK.get(check.status, check.status),
            escape(check.expected),
            _happened(check),
        )
    return table


def _words(grade: HookGrade) -> set[str]:
    """What a cell must keep on one line: each word, and each command it quotes in backticks
    (`npm test --` / `--runInBand` was cut between two lines of a cell)."""
    cells = [(c.title, c.expected, c.found, c.problem) for c in grade.checks]
    words = {word for row in cells for cell in row for word in cell.split()}
    quoted = {f"`{m}`" for row in cells for cell in row for m in re.findall(r"`([^`\n]+)`", cell)}
    return words | quoted


def _keeps_words_whole(table: Table, words: set[str], width: int) -> bool:
    """Whether ``table`` laid out ``width`` columns wide keeps every word of its cells on one
    line: rich folds a word wider than its column (a path: ``…/Pet.jav`` / ``a``)."""
    probe = Console(width=width, file=io.StringIO(), no_color=True, highlight=False)
    with probe.capture() as shown:
        probe.print(table)
    text = shown.get()
    return all(word in text for word in words)


def grade_list(grade: HookGrade) -> Prose:
    """The table's rows as a list, for a terminal too narrow for the table: each check, then
    what it expected and what happened, wrapped at spaces, a path or command kept whole."""
    blocks = [Block(Text(_title(grade), style="italic"))]
    for check in grade.checks:
        mark = Text.from_markup(_MARK.get(check.status, check.status))
        blocks.append(Block(Text.assemble(mark, " ", (check.title, "bold")), rest=Text("  ")))
        for label, value in (("expected", Text(check.expected)), ("happened", _found(check))):
            marked, spans = backticked(value)  # a quoted command kept whole
            blocks.append(
                Block(marked, Text(f"    {label}: ", style="dim"), Text(" " * 14), protected=spans)
            )
    return Prose(blocks)


def _found(check: GradeCheck) -> Text:
    return Text.from_markup(_happened(check))


def grade_view(grade: HookGrade, width: int) -> RenderableType:
    """The table when it fits ``width`` with every word whole, else the same as a list."""
    table = grade_table(grade)
    return table if _keeps_words_whole(table, _words(grade), width) else grade_list(grade)


def render_grade(console: Console, grade: HookGrade) -> None:
    print_prose(console, grade_view(grade, console.width))
    print_prose(
        console,
        prose(
            f"registered as {grade.command} in a temporary settings object; "
            f"CLAUDE_PROJECT_DIR={grade.project_dir}",
            style="dim",
        ),
    )
    for check in grade.checks:
        if check.failed:
            console.print(
                f"\n[bold red]✗ {escape(check.title)}[/] — [red]{escape(check.problem)}[/]"
            )
            # Details quote commands in `backticks`: kept whole, never split by a wrap.
            if check.detail:
                print_prose(console, prose(check.detail, indent=2))
            if check.fix:
                print_prose(console, prose(Text.assemble(("fix: ", "bold"), check.fix), indent=2))
    notes = [c for c in grade.checks if not c.failed and c.detail and not c.skipped]
    for check in notes:
        console.print()
        note = Text.assemble(("note", "yellow"), f" {check.title}: {check.detail}")
        print_prose(console, prose(note, hanging=2))
    skipped = [c for c in grade.checks if c.skipped]
    for check in skipped:
        # Wrapped at words, a command in backticks kept whole: one a person copies.
        said = f"– {check.title}: {check.detail}" + (f" ({check.fix})" if check.fix else "")
        print_prose(console, prose(said, hanging=2, style="dim"))
    verdict = "[bold green]PASS[/]" if grade.passed else "[bold red]FAIL[/]"
    console.print(f"\n{verdict} {escape(grade.summary())}")
