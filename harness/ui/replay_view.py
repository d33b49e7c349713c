"""Rich rendering of a replayed session: one row per tool call and stop, the recorded verdict
beside the replayed one, and the first divergence named."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.engine.session_replay import ReplayReport


@contextmanager
def replay_status(console: Console, what: str) -> Iterator[None]:
    """A live line while the replay plays (a session with Maven takes a while)."""
    with console.status(escape(what)):
        yield


def render_replay(console: Console, report: ReplayReport) -> None:
    timeline = report.timeline
    console.print(
        f"[bold]Replay[/] of {escape(str(timeline.path))}\n"
        f"  session {escape(timeline.session_id or '?')}, {escape(timeline.read_as)}, "
        f"from commit {report.start[:12]}"
    )
    for warning in timeline.warnings:
        console.print(f"  [yellow]note:[/] {escape(warning)}")
    for hook in report.hooks_now:
        console.print(f"  [yellow]hook:[/] {escape(hook)}")
    for output in report.output_left_out:
        console.print(f"  [yellow]build output:[/] {escape(output)}")
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("line", justify="right")
    table.add_column("call")
    table.add_column("recorded")
    for engine in report.engines:
        table.add_column(f"replayed ({engine})")
    for row in report.rows:
        cells = [str(row.number), str(row.line), escape(row.what[:60]), escape(row.recorded)]
        for engine in report.engines:
            shown = escape(row.replayed.get(engine, "not played"))
            if not row.compared_on(engine):
                cells.append(f"[dim]{shown}[/]")
            else:
                cells.append(f"[red]{shown}[/]" if row.differs(engine) else f"[green]{shown}[/]")
        table.add_row(*cells)
    console.print(table)
    for row in report.rows:  # below the table, so the verdicts keep their width
        if row.note:
            console.print(f"  [dim]#{row.number}: {escape(row.note)}[/]")
    compared = report.compared
    if not report.rows:
        console.print("Nothing to replay: the session made no tool call and never stopped.")
    elif not compared:
        console.print(
            f"[yellow]Nothing was compared:[/] none of the {len(report.rows)} rows has a "
            "recorded verdict the replay could play, so this replay tested no hook."
        )
    elif report.agrees:
        console.print(
            f"[green]The hooks as they are now give every recorded verdict[/] "
            f"({compared} compared on {', '.join(report.engines)})."
        )
    else:
        console.print(f"[red]First divergence:[/] {escape(report.describe_divergence())}")
