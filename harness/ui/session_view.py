"""Rich rendering of a simulated session: per step, what Claude and the user would see."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from harness.claude.scenario import ScenarioStep, StepReport
from harness.claude.scripted import StepOutcome
from harness.claude.vocabulary import StepKind
from harness.proc import strip_ansi
from harness.ui.prose import Block, Prose, print_prose
from harness.ui.styles import outcome_style

_LINE_CAP = 12  # lines per message: the full text is in --json and the transcript


def _block(console: Console, label: str, text: str, style: str) -> None:
    text = strip_ansi(text)  # tools print colour codes; show the words only
    if not text.strip():
        return
    lines = text.rstrip("\n").splitlines() or [""]
    more = len(lines) - _LINE_CAP
    pad = " " * (5 + len(label) + 1)
    # Each line and every line it wraps to keeps its indent; commands are never split.
    body = Block(
        Text("\n".join(lines[:_LINE_CAP])), Text.assemble("     ", (label, style), " "), Text(pad)
    )
    blocks = [body]
    if more > 0:
        blocks.append(Block(Text(f"… {more} more lines", style="dim"), Text(pad)))
    print_prose(console, Prose(blocks))


@contextmanager
def step_status(console: Console, step: ScenarioStep) -> Iterator[None]:
    """A spinner while a step runs (hooks and Bash may take seconds)."""
    with console.status(f"step {step.number}: {step.do} …", spinner="dots"):
        yield


def render_step(
    console: Console, step: StepOutcome, expect: str | None = None, name: str = ""
) -> None:
    style = outcome_style(step.outcome)
    verdict = Text(step.outcome.upper(), style=f"bold {style}")
    if expect is not None:
        verdict.append(
            " ✓ as expected" if expect == step.outcome else f" ✗ expected {expect}",
            style="green" if expect == step.outcome else "bold red",
        )
    title = name or " ".join(step.detail.split())  # whole: a command is copied
    head = Text.assemble((f"{step.step:>3}", "bold"), f" {step.do:<13} ")
    # The command (or the step's name) is one unit; the verdict may wrap after it. A prompt
    # is words: it wraps under itself (a command in it still kept whole).
    start = len(head.plain)
    head.append(title)
    head.append("  ")
    head.append_text(verdict)
    unit, rest = [(start, start + len(title))], 18
    if step.do == StepKind.PROMPT and not name:
        # in the prompt's column: the row's own leading spaces come on top of ``rest``
        unit, rest = [], start - (len(head.plain) - len(head.plain.lstrip(" ")))
    print_prose(console, Prose([Block(head, Text(), Text(" " * rest), protected=unit)]))
    facts = []
    if step.tool_ran is not None:
        facts.append("tool ran" if step.tool_ran else "tool not run")
    if step.permission:
        facts.append(f"permission: {step.permission_shown}")
    if step.stop_hook_active is not None:
        facts.append(f"stop_hook_active={str(step.stop_hook_active).lower()}")
    if step.turn_ended:
        facts.append("turn ended")
    if facts:
        console.print(f"     [dim]{escape(' · '.join(facts))}[/]")
    if step.do == StepKind.BASH:
        _block(console, "output:", step.tool_result, "dim")
    _block(console, "Claude sees:", step.feedback, "cyan")
    _block(console, "context:", step.additional_context, "cyan")
    _block(console, "user sees:", step.user_message, "yellow")
    _block(console, "warning:", step.system_message, "yellow")
    for error in step.errors:
        _block(console, "hook error:", error, "red")
    for run in step.hooks:
        status = "timed out" if run.timed_out else f"exit {run.exit_code}"
        colour = "red" if run.timed_out or run.exit_code not in (0, None) else "dim"
        line = Text(f"hook {run.event} ", style="dim")
        start = len(line.plain)
        line.append(run.command)
        line.append_text(Text.assemble(" ", (status, colour), (f" {run.duration:.2f}s", "dim")))
        hook = [(start, start + len(run.command))]
        print_prose(console, Prose([Block(line, Text("     "), Text(" " * 7), protected=hook)]))
    for note in step.notes:
        _block(console, "note:", note, "dim")


def render_report(console: Console, report: StepReport) -> None:
    render_step(console, report.outcome, report.step.expect, report.step.name)


def render_summary(
    console: Console, reports: list[StepReport], transcript: Path | None = None
) -> None:
    if transcript is not None:
        # soft_wrap: a long path is never cut by a newline of ours; the person copies it whole
        console.print(f"[dim]transcript: {escape(str(transcript))}[/]", soft_wrap=True)
    missed = [r for r in reports if r.expect_met is False]
    checked = [r for r in reports if r.expect_met is not None]
    if not checked:
        console.print(f"[dim]{len(reports)} steps, no expectations[/]")
    elif missed:
        console.print(f"[bold red]{len(missed)} of {len(checked)} expectations not met[/]")
    else:
        console.print(f"[bold green]all {len(checked)} expectations met[/]")
