"""Rich rendering of a guard's grade: one row per case with each engine's verdict, then the
contract's clauses, each failing one with the rows that fail it and the fix."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.grading.guard import BY_HAND, GuardGrade
from harness.ui.prose import print_prose, prose


def _cell(got: str, want: str) -> str:
    return f"[green]{got}[/]" if got == want else f"[bold red]{got}[/]"


def case_table(grade: GuardGrade) -> Table:
    events = ", ".join(grade.events)
    table = Table(
        title=escape(f"verify-hook {grade.script.name}  ({events}, timeout {grade.timeout:g} s)"),
        title_justify="left",
    )
    table.add_column("#", justify="right")
    table.add_column("case", overflow="fold")
    table.add_column("wanted")
    sources = [*grade.engines, BY_HAND]
    for source in sources:
        table.add_column(source.replace("-", " "))
    got: dict[tuple[int, str], str] = {}
    for row in [*grade.rows, *grade.hand_rows]:
        got[(row.case.number, row.engine)] = row.got
    for row in grade.hand_rows:
        case = row.case
        cells = [_cell(got.get((case.number, s), "-"), case.want) for s in sources]
        table.add_row(str(case.number), escape(case.label), case.want, *cells)
    return table


def render_guard_grade(console: Console, grade: GuardGrade) -> None:
    console.print(case_table(grade))
    missed = [r for r in grade.rows if not r.passed]
    for row in missed:
        print_prose(console, prose(f"✗ {row.engine}: {row.line()}", style="red"))
    console.print()
    for check in grade.checks:
        mark = "[green]✓[/]" if check.passed else "[bold red]✗[/]"
        console.print(f"{mark} {escape(check.title)}: {escape(check.found)}", soft_wrap=True)
        if not check.passed:
            for line in check.rows[:10]:
                print_prose(console, prose(line, indent=4))
            if len(check.rows) > 10:
                console.print(f"    … and {len(check.rows) - 10} more (--json lists them)")
            if check.fix:
                print_prose(console, prose(f"fix: {check.fix}", indent=4))
    verdict = "[bold green]PASS[/]" if grade.passed else "[bold red]FAIL[/]"
    console.print(f"\n{verdict} {escape(grade.script.name)}")
