"""Rich rendering of a scripted session's steps as `lab check` shows them: what Claude did
and what came of it on one row kept whole, the hooks that failed, the hook's message (folded
when long) and the problems and causes under it. Only rendering here."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from harness.claude.vocabulary import StepKind
from harness.engine.stepview import StepView
from harness.ui.prose import Block, Prose, backticked
from harness.ui.styles import outcome_style

MESSAGE_LINES = 16  # a hook's message up to this many lines is shown whole
MESSAGE_HEAD = 12  # of a longer one, this many, then how to see the rest
VERBOSE_HINT = "lab check --verbose shows the whole message"


def hook_message_text(
    said: str, *, full: bool = False, same_as: str = "", look_for: str = ""
) -> str:
    """What a hook said, as ``lab check`` shows it: whole (the hook's message is the step's
    lesson, its command line included), a long one cut with the way to see all of it, and a
    repeat of an earlier message named instead of printed again. A cut one keeps in sight the
    lines with what the step looks for (``look_for``: the reason the step is about), with the
    line before each."""
    lines = said.strip().splitlines()
    if same_as and not full:
        return f"{lines[0]} … (the same message as {same_as})"
    if full or len(lines) <= MESSAGE_LINES:
        return "\n".join(lines)
    kept = set(range(MESSAGE_HEAD))
    if look_for:
        for i, line in enumerate(lines):
            if look_for in line:
                kept.update((max(i - 1, 0), i))
    shown: list[str] = []
    skipped = 0
    for i, line in enumerate(lines):
        if i in kept:
            if skipped:
                shown.append(f"… {skipped} more line{'s' if skipped > 1 else ''}")
                skipped = 0
            shown.append(line)
        else:
            skipped += 1
    hidden = len(lines) - len(kept)
    if skipped:
        shown.append(f"… {skipped} more line{'s' if skipped > 1 else ''}: {VERBOSE_HINT}")
    elif hidden:
        shown.append(f"({hidden} lines folded: {VERBOSE_HINT})")
    return "\n".join(shown)


def _said_block(said: str, style: str) -> Block:
    """A problem or a cause under an event: a command it marks (`sed -i`) shown without its
    backticks and kept whole."""
    marked, spans = backticked(Text(said, style=style))
    return Block(marked, Text(" " * 6), Text(" " * 8), protected=spans)


def hook_event_renderable(
    entry: StepView, *, full: bool = False, same_as: str = ""
) -> RenderableType:
    outcome = entry.outcome
    style = outcome_style(outcome)
    # Whole, however long: the terminal wraps a line wider than itself, copying keeps it one.
    detail = " ".join(entry.detail.split())
    expect = entry.expect
    if any(
        isinstance(e.get("tool_input"), dict) and e["tool_input"].get("run_in_background")
        for e in entry.events
    ):
        detail += " (in the background)"
    # The step's number, as the verdicts name it ("step 4 ran, and the stop after it …").
    number = f"{entry.step:>2} "
    verdict = Text.assemble(
        ("⚙ ", "dim"),
        (number, "dim"),
        (f"{entry.do:<14}", "bold"),
        (detail + " ", "cyan"),
        ("→ ", "dim"),
        (outcome, f"bold {style}"),
        (f" (expected {expect})" if expect and expect != outcome else "", "red"),
    )
    if entry.let_go:
        # Said as a fact, not a reason: the hook may have let go on it, or on green reports.
        verdict.append(" (a second stop: stop_hook_active: true)", style="yellow")
    # What Claude did and what came of it stay one unit when that fits the terminal: a long
    # command is never split. A prompt is words, not a command: it wraps under itself (a
    # command inside it is still kept whole), its last word kept with the outcome, rather than
    # going whole to the terminal's own wrap at column 0.
    start = 2 + len(number) + 14
    under = 18
    arrow = start + len(detail) + 1
    if entry.do == StepKind.PROMPT and " " in detail:
        under = 2 + start  # the prompt's column, after the row's two-space margin
        start += detail.rindex(" ") + 1
    # Wider than the terminal, the two go on rows of their own, each whole: the terminal's
    # own wrap would split the command or the outcome ("→ al" / "lowed").
    outcome_end = (
        arrow
        + len(f"→ {outcome}")
        + (len(f" (expected {expect})") if expect and expect != outcome else 0)
    )
    protected = [(start, arrow - 1), (arrow, outcome_end)]
    blocks = [
        Block(
            verdict,
            Text("  "),
            Text(" " * under),
            protected=protected,
            together=[(start, len(verdict.plain))],
            moved=6,  # a command too wide for the row: under it, where the hooks' words go
        )
    ]
    for hook in entry.hooks:
        if hook.exit_code not in (0, None) or hook.timed_out:
            blocks.append(
                Block(Text(f"{hook.name}: {hook.result_words}", style="dim"), Text(" " * 6))
            )
    said = entry.feedback or entry.system_message
    if said.strip():
        shown = hook_message_text(said, full=full, same_as=same_as, look_for=entry.look_for)
        # Every line, and every line it wraps to, keeps the six-space indent.
        blocks.append(Block(Text(shown, style="italic"), Text(" " * 6)))
    for problem in entry.problems:
        blocks.append(_said_block(f"✘ {problem}", "red"))
    if entry.note and entry.note not in entry.problems:  # a cause, even when nothing failed
        blocks.append(_said_block(f"↳ {entry.note}", "yellow"))
    return Prose(blocks)
