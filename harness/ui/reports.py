"""Rich renderings of workspaces, Surefire reports, backups and doctor findings."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from rich import box
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from harness.doctor import MISSING, OK, Finding
from harness.doctor.prove_client import ProofResult
from harness.maven.backend import MavenRun
from harness.maven.surefire import SurefireReport
from harness.ui.prose import Block, Prose, print_prose
from harness.workspace import Backup, Fixture


def human_age(seconds: float) -> str:
    if seconds < 0:
        return "in the future"
    if seconds < 90:
        return f"{seconds:.0f} s ago"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.1f} h ago"
    return f"{seconds / 86400:.0f} days ago"


def sensor_table(reports: Mapping[str, SurefireReport | None], now: float | None = None) -> Table:
    now = time.time() if now is None else now
    table = Table(
        title="Sensor reports (target/surefire-reports)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=0,
    )
    # Sensor names are what -Dtest= takes: never cut. The rest fits 60 columns.
    table.add_column("sensor", no_wrap=True, min_width=max([len(n) for n in reports] or [6]))
    for column in ("tests", "fail", "err", "skip"):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    table.add_column("age", no_wrap=True)
    table.add_column("verdict", no_wrap=True, min_width=len("verdict"))
    for name, report in reports.items():
        if report is None:
            table.add_row(name, "-", "-", "-", "-", "-", "[red]no report[/]")
            continue
        if report.green:
            verdict = "[green]green[/]"
        elif report.tests == 0:
            verdict = "[yellow]no tests[/]"
        else:
            verdict = "[red]red[/]"
        table.add_row(
            name,
            str(report.tests),
            str(report.failures),
            str(report.errors),
            str(report.skipped),
            human_age(report.age(now)).removesuffix(" ago"),
            verdict,
        )
    return table


def print_problems(console: Console, reports: Mapping[str, SurefireReport | None]) -> None:
    for report in reports.values():
        if report is None:
            continue
        for problem in report.problems:
            # The test's name is what -Dtest= takes and a person looks up: never cut, and
            # without its package (lab sensors --json has it), so that it fits 80 columns.
            head = Text.assemble((problem.kind, "red"), " in ", (f"{problem.short}:", "bold"))
            name = (len(problem.kind) + 4, len(head.plain))
            blocks = [Block(head, protected=[name]), Block(Text(problem.message))]
            print_prose(console, Prose(blocks))


def fixtures_table(fixtures: Sequence[Fixture], current: str | None, default: str) -> Table:
    """One row per fixture: its name (what --fixture takes, never cut), what it is, its needs
    and its evidence command."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("fixture", no_wrap=True)
    table.add_column("what it is")
    table.add_column("needs")
    table.add_column("evidence", no_wrap=True)
    for fixture in fixtures:
        marks = [
            m
            for m, on in (
                ("default", fixture.name == default),
                ("this workspace", fixture.name == current),
            )
            if on
        ]
        name = escape(fixture.name) + (f" [dim]({', '.join(marks)})[/]" if marks else "")
        table.add_row(
            name,
            escape(fixture.title),
            escape(", ".join(fixture.needs)),
            escape(fixture.evidence),
        )
    return table


def backups_table(backups: Sequence[Backup]) -> Table:
    table = Table(
        title="Backups of your work (refs/hooklab/backups)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    # The name is what `lab restore` takes: never cut.
    table.add_column("name", no_wrap=True, min_width=max([len(b.name) for b in backups] or [4]))
    table.add_column("reason")
    table.add_column("taken", no_wrap=True)
    for backup in backups:
        table.add_row(backup.name, escape(backup.reason), human_age(time.time() - backup.created))
    return table


@contextmanager
def maven_status(console: Console, what: str) -> Iterator[MavenStatusSink]:
    """A spinner with the latest Maven output line, so a long run never looks frozen."""
    sink = MavenStatusSink()
    with console.status(f"{what} …") as status:
        sink.update = lambda line: status.update(f"{what} … [dim]{escape(line[:100])}[/]")
        yield sink


class MavenStatusSink:
    def __init__(self) -> None:
        self.update: Callable[[str], None] = lambda line: None
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        if line.strip():
            self.update(line)


def maven_failure_text(run: MavenRun) -> str:
    return run.output.strip() or f"Maven exited with status {run.returncode} and printed nothing"


def doctor_renderable(findings: Sequence[Finding]) -> RenderableType:
    """One line per check, its fix below it: no table cell cuts a path or a command (the
    Claude Code cache path is longer than any column a narrow terminal leaves)."""
    colours = {OK: "green", MISSING: "red"}
    marks = {OK: "✔", MISSING: "✘"}
    width = max([len(f.name) for f in findings] or [5]) + 1
    blocks = []
    for f in findings:
        colour = colours.get(f.state, "yellow")
        label = f.state if f.required or f.state == OK else f"{f.state} (optional)"
        head = Text.assemble(
            (f"{marks.get(f.state, '!')} ", colour), (f"{f.name:<{width}}", "bold"), " "
        )
        body = Text.assemble((label, colour), (" · " + f.found) if f.found else "")
        rest = Text(" " * head.cell_len)
        blocks.append(Block(body, head, rest))
        if f.fix:
            blocks.append(Block(Text(f.fix), Text.assemble(rest, ("fix: ", "bold")), rest))
    return Group(Text("lab doctor", style="italic"), Prose(blocks))


def prove_client_renderable(
    path: str, version: str, pinned: str, results: Sequence[ProofResult]
) -> RenderableType:
    """One row per behaviour the workshop relies on (does it hold on this client?), then what
    the client did in each, as prose: a command in it is never split."""
    same = "the pinned one" if version == pinned else f"pinned {pinned}"
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("#", no_wrap=True)
    table.add_column("behaviour")
    table.add_column("hook", no_wrap=True)
    table.add_column("holds", no_wrap=True)
    blocks = []
    for n, r in enumerate(results, start=1):
        verdict = Text("✔ holds", "green") if r.holds else Text("✘ does not hold", "red")
        table.add_row(str(n), r.behaviour, r.hook, verdict)
        blocks.append(Block(Text(r.found), Text(f"{n}. "), Text("   ")))
    held = sum(r.holds for r in results)
    summary = (
        Text(f"All {held} hold on this client.", "green")
        if held == len(results)
        else Text(
            f"{len(results) - held} of {len(results)} do not hold on this client: there the "
            "hooks fail open, and live steps cannot pass. Update Claude Code, or pass live "
            "steps with lab check --scripted.",
            "red",
        )
    )
    return Group(
        Text("lab doctor --prove-client", style="italic"),
        Text.assemble("Your claude: ", (f"{version} ({same})", "bold"), f" at {path}"),
        Text("Offline, with Hook Lab's scripted model; no key used, your ~/.claude untouched."),
        table,
        Text("What the client did:", style="bold"),
        Prose(blocks),
        summary,
    )
