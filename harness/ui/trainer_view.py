"""Rich views for trainers and for submitting: the cohort table, verify verdicts, submit lines."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from harness.claude.vocabulary import MemberState
from harness.results import Status
from harness.trainer.cohort import Cohort
from harness.trainer.member import (
    ABSENT,
    IDLE,
    LIVE,
    SCRIPTED,
    STUCK,
    STUCK_AFTER,
    URGENCY,
    VERIFYING,
    Attention,
    EvidenceMark,
    Member,
    evidence_legend,
    human_duration,
    short_step,
)
from harness.trainer.publish import AutoSubmit, Submission
from harness.trainer.remote import redact_url
from harness.trainer.verified import (
    FAILED,
    NOT_JUDGED,
    STALE,
    UNVERIFIED,
    VERIFIED,
    ParticipantVerdict,
)
from harness.trainer.verify_report import StepVerdict, VerifyReport

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
    return Text("  ").join(lines) if lines else Text("–", style="dim")


def _lab_cell(m: Member, cohort: Cohort, index: int) -> Text:
    lab = cohort.labs[index]
    done = m.completed(lab)
    if m.lab_complete(lab.id):
        return Text("✓", style="bold green") + _lab_verification(
            m, lab.id, [s.step for s in lab.steps]
        )
    if done == 0:
        current = m.current[0] == lab.id
        return Text("…" if current else "·", style="yellow" if current else "dim")
    style = "green" if done == len(lab.steps) else "yellow"
    return Text(f"{done}/{len(lab.steps)}", style=style) + _lab_verification(
        m, lab.id, [s.step for s in lab.steps]
    )


def _lab_verification(m: Member, lab: str, steps: Sequence[str]) -> Text:
    """After a lab's cell: ✗ a claim in it does not hold, ⋯ one is being verified."""
    states = {m.step_verification(lab, step) for step in steps}
    if Status.FAIL.value in states:
        return Text(" ✗", style="bold red")
    if VERIFYING in states:
        return Text(" ⋯", style="yellow")
    return Text()


def _labs_strip(m: Member, cohort: Cohort) -> Text:
    """Every lab in one character, for a narrow terminal: ✓ complete, a digit the steps
    passed so far, … started, · not yet."""
    out = Text()
    for lab in cohort.labs:
        done = m.completed(lab)
        current = m.current[0] == lab.id
        if m.lab_complete(lab.id):
            out.append("✓", style="green")
        elif done:
            out.append(str(min(done, 9)), style="yellow" if current else "green")
        else:
            out.append("…" if current else "·", style="yellow" if current else "dim")
    return out


ATTENTION_STYLE = {STUCK: "bold red", IDLE: "yellow", ABSENT: "yellow"}  # the rest: red
WIDE = 150  # from here on a column per lab (and the live steps); below, one strip


def _where(m: Member) -> str:
    lab, step = m.current
    if not m.arrived:
        return MemberState.ABSENT
    if m.progress is None:
        return "–"
    if lab is None:
        return "arrived, not started"
    if step is None:
        return f"{lab.split('-', 1)[0]} ✓ complete"
    return short_step(lab, step) + (" ✓" if m.on_passed_step else "")


# lab trainer verify --all's verdict on the submission shown: ✓ every claim holds, ✗ some do
# not, ? not judged here, · never verified, old: verified before the last submit.
VERIFIED_MARK = {
    VERIFIED: ("✓", "green"),
    FAILED: ("✗", "bold red"),
    NOT_JUDGED: ("?", "yellow"),
    UNVERIFIED: ("·", "dim"),
    STALE: ("old", "dim"),
    VERIFYING: ("⋯", "yellow"),
}


def _verified_cell(m: Member) -> Text:
    mark, style = VERIFIED_MARK.get(m.verification, ("?", "yellow"))
    if m.verifying:  # under way: how many of its claims have a verdict yet
        judged = sum(1 for state in m.verifying.values() if state != VERIFYING)
        mark = f"{mark} {judged}/{len(m.verifying)}"
    return Text(mark, style=style)


def _status_cell(m: Member, attention: Attention | None) -> Text:
    """Why to walk over (red: stuck or a record to look at, yellow: idle or absent), else
    the help this participant has had: hints taken, steps solved with lab solve."""
    if attention is not None:
        text = attention.text
        lab, step = m.current
        if attention.kind == STUCK and lab and step:
            # "now" already says where: the cell says for how long and what went wrong.
            trouble = m.help_on(lab, step).words()
            text = " · ".join([f"stuck {human_duration(attention.seconds)}", *trouble])
        return Text(text, style=ATTENTION_STYLE.get(attention.kind, "red"))
    total = m.help_total()
    solved = m.solved_with_help()
    words = [f"{total.hints} hint{'s' if total.hints != 1 else ''}"] if total.hints else []
    if solved:
        words.append(f"{solved} with lab solve")
    return Text(" · ".join(words) or "–", style="dim")


def cohort_table(
    cohort: Cohort,
    *,
    stuck_after: float = STUCK_AFTER,
    width: int = 160,
    rows: int | None = None,
) -> Table:
    """One line per participant, those who need help first; ``rows``: at most that many."""
    now = cohort.read_at
    wide = width >= WIDE
    table = Table()
    longest = max((len(m.name) for m in cohort.members), default=11)
    # A name is who to walk over to: never cut below 20 characters.
    table.add_column("participant", no_wrap=True, min_width=min(longest, 20), max_width=24)
    if wide:
        for lab in cohort.labs:
            table.add_column(lab.id.split("-", 1)[0], justify="center", no_wrap=True)
    elif cohort.labs:
        first, last = (cohort.labs[i].id.split("-", 1)[0] for i in (0, -1))
        table.add_column(f"labs {first}–{last}", no_wrap=True)
    # Live steps get a column of their own when there is room, and only when someone has
    # passed one: how each passed (their own session or the scripted one) is what is asked.
    live = wide and bool(cohort.live_marks())
    if live:
        table.add_column("live steps", no_wrap=True, overflow="ellipsis", max_width=40)
    table.add_column("now", no_wrap=True, overflow="ellipsis", max_width=20 if wide else 16)
    table.add_column("ver", no_wrap=True, justify="center")
    table.add_column("active", justify="right", no_wrap=True)
    table.add_column("needs help · help had", no_wrap=True, overflow="ellipsis", ratio=1)
    members = cohort.by_urgency(stuck_after)
    for m in members[:rows] if rows is not None else members:
        attention = m.attention(now, stuck_after)
        labs = (
            [_lab_cell(m, cohort, i) for i in range(len(cohort.labs))]
            if wide
            else ([_labs_strip(m, cohort)] if cohort.labs else [])
        )
        activity = m.last_activity
        table.add_row(
            Text(m.name, style="red" if m.problem or m.deleted else ""),
            *labs,
            *([_live_cell(m, cohort)] if live else []),
            _where(m),
            _verified_cell(m),
            human_duration(now - activity) if activity else "–",
            _status_cell(m, attention),
        )
    return table


def _title(cohort: Cohort) -> str:
    read = time.strftime("%H:%M:%S", time.localtime(cohort.read_at))
    return (
        f"cohort {cohort.name} · {len(cohort.members)} participants · "
        f"{redact_url(cohort.url)} · read {read}"
    )


def _summary(cohort: Cohort, stuck_after: float) -> Text:
    """One line: how many need help and why; they are the table's first rows."""
    found = cohort.needs_help(stuck_after)
    if not found:
        return Text(f"nobody needs help (stuck is over {human_duration(stuck_after)} on a step)")
    kinds = Counter(a.kind for _, a in found)
    parts = [f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda k: URGENCY.index(k[0]))]
    return Text.assemble(
        (f"{len(found)} need help", "bold red"),
        f": {', '.join(parts)} (first in the table) · {len(cohort.members) - len(found)} on track",
    )


def cohort_renderable(
    cohort: Cohort,
    *,
    stuck_after: float = STUCK_AFTER,
    footer: str = "",
    width: int = 160,
    height: int | None = None,
) -> RenderableType:
    """The table, sized to the terminal: ``height`` lines at most (None: every row)."""
    live = width >= WIDE and bool(cohort.live_marks())
    extra = len(evidence_legend()) + 1 if live else 0
    extra += 1 if any(m.verification != UNVERIFIED for m in cohort.members) else 0
    # title, summary, the table's four rules and header, a "more" line, the footer
    rows = None if height is None else max(3, height - 8 - extra)
    parts: list[RenderableType] = [
        Text(_title(cohort), style="bold", no_wrap=True, overflow="ellipsis"),
        _summary(cohort, stuck_after),
        cohort_table(cohort, stuck_after=stuck_after, width=width, rows=rows),
    ]
    hidden = len(cohort.members) - rows if rows is not None else 0
    if hidden > 0:
        waiting = max(0, len(cohort.needs_help(stuck_after)) - (rows or 0))
        said = f"{waiting} more need help, " if waiting else ""
        parts.append(
            Text(
                f"… {said}{hidden - waiting} more on track not shown "
                "(a taller terminal, or --all for every row)",
                style="yellow" if waiting else "dim",
            )
        )
    if live:
        parts.append(live_legend())
    if any(m.verification != UNVERIFIED for m in cohort.members):
        parts.append(
            Text(
                "ver: ✓ verified · ✗ a claim does not hold · ⋯ verifying (judged/claimed) · "
                "? not judged · · not verified · old: submitted since",
                style="dim",
                no_wrap=True,
                overflow="ellipsis",
            )
        )
    parts.append(
        Text(
            f"read in {cohort.seconds:.2f} s{' · ' + footer if footer else ''}",
            no_wrap=True,
            overflow="ellipsis",
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


VERDICT_STATE_STYLE = {VERIFIED: "green", FAILED: "bold red"}  # the rest: yellow


def verdicts_table(verdicts: Sequence[ParticipantVerdict]) -> Table:
    """lab trainer verify --all: one line a participant, the claims that do not hold first."""
    table = Table(title="verified", title_justify="left")
    table.add_column("participant", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("claims", justify="right")
    table.add_column("what", overflow="ellipsis", no_wrap=True, ratio=1)
    table.add_column("took", justify="right")
    order = {FAILED: 0, NOT_JUDGED: 1, VERIFIED: 2}
    for v in sorted(verdicts, key=lambda v: (order.get(v.state, 1), v.participant)):
        table.add_row(
            v.participant,
            Text(v.state, style=VERDICT_STATE_STYLE.get(v.state, "yellow")),
            f"{v.hold}/{v.claimed}",
            v.summary,
            f"{v.seconds:.0f} s",
        )
    return table


def verdict_line(verdict: StepVerdict) -> Text:
    style = VERDICT_STYLE[verdict.status]
    return Text.assemble(
        (f"{VERDICT_WORD[verdict.status]:>13} ", f"bold {style}"),
        verdict.message,
    )


def verify_summary(report: VerifyReport) -> RenderableType:
    """The verdict in one line, then each of the record's flags (a copy, a replaced record, a
    forged progress file): "every claim holds" never stands alone over one of them."""
    hold = sum(1 for v in report.verdicts if v.status is Status.PASS)
    flags = report.all_flags
    named = [Text.assemble(("      flagged ", "bold red"), f["text"]) for f in flags]
    if not report.verdicts:
        said = Text(f"{report.participant} claims no passed step yet; nothing to verify.")
        return Group(said, *named)
    style = "bold green" if report.ok and not flags else "bold red"
    word = "every claim holds" if report.ok else "some claims do not hold"
    if flags:
        word += f", but the record is flagged ({', '.join(f['kind'] for f in flags)})"
    reused = sum(1 for v in report.verdicts if v.reused)
    again = f", {reused} judged before at the same state" if reused else ""
    return Group(
        Text.assemble(
            (f"{report.participant}: {word}", style),
            f" ({hold}/{len(report.verdicts)} steps{again}, engine {report.engine}, "
            f"submission {report.commit[:12]}, {report.duration:.0f} s)",
        ),
        *named,
    )


def print_submission(console: Console, done: Submission, pending_before: int) -> None:
    s = done.settings
    if done.up_to_date:
        console.print(
            f"[green]✓[/] Up to date: {escape(s.shown_url)} already holds your progress "
            f"(cohort [bold]{escape(s.cohort)}[/], as [bold]{escape(s.participant)}[/])."
        )
        return
    console.print(
        f"[green]✓[/] Submitted {done.updates} progress update"
        f"{'s' if done.updates != 1 else ''} ({done.passed_steps} passed "
        f"step{'s' if done.passed_steps != 1 else ''}) to "
        f"{escape(s.shown_url)} as [bold]{escape(s.participant)}[/] in cohort "
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
