"""Rich rendering of a Stop-hook grade: one row per contract check, then the fix per failure."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from harness.grading import GradeCheck, HookGrade
from harness.ui.prose import print_prose, prose

_MARK = {"pass": "[green]✓[/]", "fail": "[bold red]✗[/]", "skip": "[dim]–[/]"}


def _happened(check: GradeCheck) -> str:
    text = escape(check.found)
    if check.failed and check.problem:
        return f"[red]{escape(check.problem)}[/]: {text}"
    if check.skipped:
        return f"[dim]{text}[/]"
    return text


def grade_table(grade: HookGrade) -> Table:
    title = f"verify-hook {grade.script.name}  (Stop hook, timeout {grade.timeout:g} s)"
    if grade.timeout_source:
        title += f"\ntimeout from: {grade.timeout_source}"
    table = Table(title=escape(title), title_justify="left")
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


def render_grade(console: Console, grade: HookGrade) -> None:
    console.print(grade_table(grade))
    console.print(
        f"[dim]registered as {escape(grade.command)} in a temporary settings "
        f"object; CLAUDE_PROJECT_DIR={escape(str(grade.project_dir))}[/]"
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
        console.print(f"\n[yellow]note[/] {escape(check.title)}: {escape(check.detail)}")
    skipped = [c for c in grade.checks if c.skipped]
    for check in skipped:
        console.print(
            f"[dim]– {escape(check.title)}: {escape(check.detail)}[/]"
            + (f"[dim] ({escape(check.fix)})[/]" if check.fix else "")
        )
    verdict = "[bold green]PASS[/]" if grade.passed else "[bold red]FAIL[/]"
    console.print(f"\n{verdict} {escape(grade.summary())}")
