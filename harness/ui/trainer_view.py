"""Rich views for trainers and for submitting: the cohort table, verify verdicts, submit lines."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from harness.results import Status
from harness.trainer.cohort import (
    LIVE,
    SCRIPTED,
    STUCK_AFTER,
    Cohort,
    EvidenceMark,
    Member,
    evidence_legend,
    human_duration,
)
from harness.trainer.publish import AutoSubmit, Submission
from harness.trainer.verify import StepVerdict, VerifyReport
from harness.ui.reports import human_age

VERDICT_STYLE = {Status.PASS: "green", Status.FAIL: "red", Status.ERROR: "yellow"}
VERDICT_WORD = {Status.PASS: "holds", Status.FAIL: "does not hold", Status.ERROR: "not judged"}
EVIDENCE_STYLE = {LIVE: "green", SCRIPTED: "yellow"}  # played by Hook Lab: dim


def _mark_text(mark: EvidenceMark) -> Text:
    return Text(mark.label, style=EVIDENCE_STYLE.get(mark.kind, "dim"))


def _live_cell(m: Member, cohort: Cohort) -> Text:
    """Each passed live step of one participant, one line each: 11·4 live · 2.1.332."""
    lines = [
        Text.assemble(f"{lab.id.split('-', 1)[0]}·{i + 1} ", _mark_text(mark))
        for who, lab, i, mark in cohort.live_marks()
        if who is m
    ]
    return Text("\n").join(lines) if lines else Text("–", style="dim")


def _lab_cell(m: Member, cohort: Cohort, index: int) -> Text:
    lab = cohort.labs[index]
    done = m.completed(lab)
    if m.lab_complete(lab.id):
        return Text("✓", style="bold green")
    if done == 0:
        current = m.current[0] == lab.id
        return Text("…" if current else "·", style="yellow" if current else "dim")
    style = "green" if done == len(lab.steps) else "yellow"
    return Text(f"{done}/{len(lab.steps)}", style=style)


def cohort_table(cohort: Cohort, *, stuck_after: float = STUCK_AFTER) -> Table:
    now = cohort.read_at
    table = Table(
        title=f"cohort {cohort.name} · {len(cohort.members)} participants · {cohort.url}",
        title_justify="left",
    )
    table.add_column("participant", no_wrap=True)
    for lab in cohort.labs:
        table.add_column(lab.id.split("-", 1)[0], justify="center")
    # Live steps get a column of their own, and only when someone has passed one: how each
    # passed (the participant's own session or the scripted one) is what a trainer asks.
    live = bool(cohort.live_marks())
    if live:
        # However narrow the terminal, a mark wraps (folds) rather than ending in "…".
        table.add_column("live steps", overflow="fold")
    table.add_column("now", no_wrap=True)
    table.add_column("last activity", justify="right")
    table.add_column("stuck for", justify="right")
    for m in cohort.members:
        if m.problem:
            table.add_row(
                Text(m.name, style="red"),
                *[Text("?", style="red") for _ in cohort.labs],
                *([Text("?", style="red")] if live else []),
                Text(m.problem, style="red"),
                "",
                "",
            )
            continue
        where = m.where()
        stuck = m.stuck_for(now)
        activity = m.last_activity
        table.add_row(
            m.name,
            *[_lab_cell(m, cohort, i) for i in range(len(cohort.labs))],
            *([_live_cell(m, cohort)] if live else []),
            where,
            human_age(now - activity) if activity else "–",
            Text(
                human_duration(stuck),
                style="bold red" if stuck is not None and stuck >= stuck_after else "",
            ),
        )
    return table


def cohort_renderable(
    cohort: Cohort, *, stuck_after: float = STUCK_AFTER, footer: str = ""
) -> RenderableType:
    parts: list[RenderableType] = [cohort_table(cohort, stuck_after=stuck_after)]
    stuck = cohort.stuck(stuck_after)
    if stuck:
        names = ", ".join(
            f"{m.name} ({m.current[0]} · {m.current[1]}, {human_duration(s)})" for m, s in stuck
        )
        parts.append(Text.assemble(("stuck: ", "bold red"), names))
    if cohort.live_marks():
        parts.append(live_legend())
    parts.append(
        Text(
            f"read in {cohort.seconds:.2f} s{' · ' + footer if footer else ''}",
            style="dim",
        )
    )
    return Group(*parts)


def live_legend() -> Text:
    """What the live-step marks mean: LAB·STEP, then how the step passed."""
    rows = [Text("live steps (LAB·STEP, then how it passed):", style="bold")]
    for kind, shown, meaning in evidence_legend():
        rows.append(Text.assemble("  ", (f"{shown:<17}", EVIDENCE_STYLE.get(kind, "dim")), meaning))
    return Text("\n").join(rows)


def verdict_line(verdict: StepVerdict) -> Text:
    style = VERDICT_STYLE[verdict.status]
    return Text.assemble(
        (f"{VERDICT_WORD[verdict.status]:>13} ", f"bold {style}"),
        verdict.message,
    )


def verify_summary(report: VerifyReport) -> RenderableType:
    hold = sum(1 for v in report.verdicts if v.status is Status.PASS)
    if not report.verdicts:
        return Text(f"{report.participant} claims no passed step yet; nothing to verify.")
    style = "bold green" if report.ok else "bold red"
    word = "every claim holds" if report.ok else "some claims do not hold"
    return Text.assemble(
        (f"{report.participant}: {word}", style),
        f" ({hold}/{len(report.verdicts)} steps, engine {report.engine}, "
        f"submission {report.commit[:12]}, {report.duration:.0f} s)",
    )


def print_submission(console: Console, done: Submission, pending_before: int) -> None:
    s = done.settings
    if done.up_to_date:
        console.print(
            f"[green]✓[/] Up to date: {escape(s.url)} already holds your progress "
            f"(cohort [bold]{escape(s.cohort)}[/], as [bold]{escape(s.participant)}[/])."
        )
        return
    console.print(
        f"[green]✓[/] Submitted {done.updates} progress update"
        f"{'s' if done.updates != 1 else ''} ({done.passed_steps} passed "
        f"step{'s' if done.passed_steps != 1 else ''}) to "
        f"{escape(s.url)} as [bold]{escape(s.participant)}[/] in cohort "
        f"[bold]{escape(s.cohort)}[/] ({done.duration:.1f} s)."
    )
    if done.live_timelines:
        many = done.live_timelines != 1
        console.print(
            f"[dim]With {done.live_timelines} live step{'s' if many else ''}: "
            f"{'their' if many else 'its'} session timeline (tool calls, verdicts, texts; "
            "never the transcript).[/]"
        )
    if pending_before > done.updates:
        console.print(f"[dim]({pending_before} were pending here.)[/]")


def print_auto_submit(console: Console, outcome: AutoSubmit | None) -> None:
    """One line after a passed step: quiet when it worked, the remote and the fix when not."""
    if outcome is None:
        return
    style = "dim" if outcome.ok else "yellow"
    # One line, however narrow the terminal: rich would otherwise wrap it into a paragraph.
    console.print(f"[{style}]↑ {escape(outcome.message)}[/]", soft_wrap=True)
