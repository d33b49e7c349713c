"""Rich views of labs: instructions, check results, simulated hook events, progress, the
live ``lab watch`` panel and the ``lab demo`` / ``lab dev check`` walk. Only rendering here."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness.engine.context import CheckContext
from harness.engine.devcheck import DevCheckReport, LabWalk, Observer, StepWalk
from harness.engine.manifest import Lab, Step
from harness.engine.progress import Progress
from harness.engine.runner import Moved, StepRun
from harness.results import CheckResult, Status
from harness.workspace import Backup

STYLE = {Status.PASS: "green", Status.FAIL: "red", Status.ERROR: "yellow"}
MARK = {Status.PASS: "✔", Status.FAIL: "✘", Status.ERROR: "!"}
OUTCOME_STYLE = {
    "allowed": "green",
    "blocked": "red",
    "asked": "yellow",
    "stopped": "magenta",
    "error": "yellow",
}


def step_panel(lab: Lab, step: Step) -> Panel:
    body = Markdown(step.instructions.strip())
    title = f"{lab.id} · step {step.index + 1}/{len(lab.steps)}: {step.title}"
    return Panel(body, title=escape(title), title_align="left", border_style="cyan")


def print_intro(console: Console, lab: Lab) -> None:
    console.print(
        Panel(
            Markdown(lab.intro.strip()),
            title=escape(f"Lab {lab.id}: {lab.title}"),
            title_align="left",
            border_style="blue",
        )
    )


def result_renderable(result: CheckResult, *, verbose: bool = True) -> RenderableType:
    style = STYLE[result.status]
    head = Text.assemble(
        (f"{MARK[result.status]} {result.status.value.upper()} ", f"bold {style}"),
        (result.name + ": " if result.name else "", "bold"),
        result.message,
    )
    parts: list[RenderableType] = [head]
    evidence = result.details.get("evidence")
    if verbose and result.status is Status.PASS and evidence:
        parts.append(Text("    " + str(evidence).replace("\n", "\n    "), style="dim"))
    if verbose and result.status is not Status.PASS:
        if result.expected:
            parts.append(Text.assemble(("  expected: ", "bold"), _indent(result.expected)))
        if result.found:
            parts.append(Text.assemble(("  found:    ", "bold"), _indent(result.found)))
        if result.output:
            tail = "\n".join(result.output.strip().splitlines()[-15:])
            parts.append(
                Panel(Text(tail), title="output (tail)", title_align="left", border_style="dim")
            )
        fix = result.details.get("fix")
        if fix:
            parts.append(Text.assemble(("  fix: ", "bold"), str(fix)))
        if result.status is Status.ERROR:
            parts.append(
                Text(
                    "  This is the harness or the machine, not your work: run "
                    "lab doctor, or ask the trainer.",
                    style="yellow",
                )
            )
    return Group(*parts)


def _indent(text: str) -> str:
    return text.replace("\n", "\n            ")


def print_results(console: Console, results: Sequence[CheckResult], skipped: int = 0) -> None:
    for result in results:
        console.print(result_renderable(result))
    if skipped:
        console.print(
            f"  ({skipped} more check{'s' if skipped > 1 else ''} not run yet)", style="dim"
        )


def print_step_run(console: Console, run: StepRun) -> None:
    print_results(console, run.results, run.skipped)
    if run.status is Status.PASS:
        last = run.step.index + 1 == len(run.lab.steps)
        console.print(
            f"[bold green]Step {run.step.index + 1} passed.[/] Next: [bold]lab next[/]"
            + (" (finishes the lab)" if last else "")
        )
    elif run.status is Status.FAIL:
        console.print(
            "[bold]Not yet.[/] Change your work and run [bold]lab check[/] again; "
            "[bold]lab hint[/] gives a nudge."
        )
    else:
        console.print("[bold yellow]The check could not run.[/] Nothing was judged.")


def hook_event_renderable(entry: dict[str, Any]) -> RenderableType:
    outcome = entry["outcome"]
    style = OUTCOME_STYLE.get(outcome, "white")
    detail = " ".join(str(entry.get("detail") or "").split())[:90]
    expect = entry.get("expect")
    verdict = Text.assemble(
        ("  ⚙ ", "dim"),
        (f"{entry['do']:<14}", "bold"),
        (detail + " ", "cyan"),
        ("→ ", "dim"),
        (outcome, f"bold {style}"),
        (f" (expected {expect})" if expect and expect != outcome else "", "red"),
    )
    parts: list[RenderableType] = [verdict]
    for hook in entry.get("hooks", []):
        if hook["exit_code"] not in (0, None) or hook["timed_out"]:
            name = hook["command"].strip('"').rsplit("/", 1)[-1]
            code = "timed out" if hook["timed_out"] else f"exit {hook['exit_code']}"
            parts.append(Text(f"      {name}: {code}", style="dim"))
    said = entry.get("feedback") or entry.get("system_message") or ""
    if said.strip():
        lines = said.strip().splitlines()
        shown = "\n".join(lines[:4]) + ("\n…" if len(lines) > 4 else "")
        parts.append(Text("      " + shown.replace("\n", "\n      "), style="italic"))
    for problem in entry.get("problems", []):
        parts.append(Text(f"      ✘ {problem}", style="red"))
    return Group(*parts)


def print_moved(console: Console, moved: Moved, *, show_intro: bool = False) -> None:
    if moved.backup is not None:
        console.print(
            f"Your files were backed up first: [bold]{escape(moved.backup.restore_hint)}[/]"
        )
    bad = [a for a in moved.actions if a.status is not Status.PASS]
    if bad:
        print_results(console, bad)
    for run in moved.reverified:
        mark = MARK[run.status]
        how = " [dim](passed on this very state, not run again)[/]" if run.unchanged else ""
        console.print(
            f"  re-verified step {run.step.index + 1} {run.step.id}: "
            f"[{STYLE[run.status]}]{mark} {run.status.value}[/]{how}"
        )
    if moved.note and moved.step is not None:
        console.print(f"[dim]{escape(moved.note)}[/]")
    if show_intro:
        print_intro(console, moved.lab)
    if moved.step is not None:
        console.print(step_panel(moved.lab, moved.step))
        console.print("When you are done: [bold]lab check[/]   stuck: [bold]lab hint[/]")
    elif moved.next_command:
        console.print(
            f"[bold green]Lab {moved.lab.id} complete.[/] Next: [bold]{moved.next_command}[/]"
        )
    else:
        console.print(
            f"[bold green]Lab {moved.lab.id} complete.[/] That was the last lab; "
            "[bold]lab list[/] shows your progress."
        )


def lab_table(labs: Sequence[Lab], progress: Progress) -> Table:
    table = Table(title="Labs", title_justify="left")
    for col in ("#", "lab", "title", "steps", "progress"):
        table.add_column(col)
    for lab in labs:
        lp = progress.labs.get(lab.id)
        passed = sum(1 for s in lab.steps if lp.step(s.id).passed) if lp else 0
        if lp and lp.completed_at:
            state = "[green]complete[/]"
        elif progress.lab == lab.id:
            state = f"[cyan]current, {passed}/{len(lab.steps)} passed[/]"
        elif lp:
            state = f"{passed}/{len(lab.steps)} passed"
        else:
            state = "[dim]not started[/]"
        table.add_row(lab.number, lab.id, escape(lab.title), str(len(lab.steps)), state)
    return table


def status_renderable(lab: Lab, progress: Progress) -> RenderableType:
    lp = progress.labs.get(lab.id)
    table = Table(title=escape(f"{lab.id}: {lab.title}"), title_justify="left")
    for col in ("#", "step", "state", "hints"):
        table.add_column(col)
    for step in lab.steps:
        sp = lp.step(step.id) if lp else None
        if sp and sp.passed:
            state = "[green]passed[/]" + (" (with lab solve)" if sp.solved_with_help else "")
        elif progress.step == step.id:
            state = "[cyan]current[/]"
        else:
            state = "[dim]-[/]"
        hints = f"{sp.hints}/{len(step.hints)}" if sp else f"0/{len(step.hints)}"
        table.add_row(str(step.index + 1), step.id, state, hints)
    return table


@contextmanager
def activity(console: Console, ctx: CheckContext) -> Iterator[CheckContext]:
    """Route a context's activity and Maven output into a spinner line (anything > 1 s)."""
    status = console.status("working…", spinner="dots")
    state: dict[str, Any] = {"label": "working…", "started": time.monotonic()}

    def on_activity(text: str) -> None:
        state["label"], state["started"] = text, time.monotonic()
        status.update(escape(text))
        status.start()

    def on_output(line: str) -> None:
        if line.strip():
            elapsed = time.monotonic() - float(state["started"])
            status.update(
                f"{escape(str(state['label']))} [dim]({elapsed:.0f} s) "
                f"{escape(line.strip()[:70])}[/]"
            )

    inner_hook = ctx.on_hook_event

    def on_hook_event(entry: dict[str, Any]) -> None:
        status.stop()
        console.print(hook_event_renderable(entry))
        inner_hook(entry)

    ctx.on_activity, ctx.on_output, ctx.on_hook_event = on_activity, on_output, on_hook_event
    try:
        yield ctx
    finally:
        status.stop()


def watch_renderable(run: StepRun | None, changed: str, checking: bool) -> RenderableType:
    parts: list[RenderableType] = []
    stamp = time.strftime("%H:%M:%S")
    if checking:
        parts.append(Text(f"[{stamp}] checking…", style="cyan"))
    elif run is not None:
        style = STYLE[run.status]
        parts.append(
            Text.assemble(
                (f"[{stamp}] step {run.step.index + 1} {run.step.id}: ", ""),
                (run.status.value.upper(), f"bold {style}"),
            )
        )
        parts.extend(result_renderable(r) for r in run.results)
        if run.status is Status.PASS:
            parts.append(Text("Passed. Ctrl-C, then lab next.", style="bold green"))
    if changed:
        parts.append(Text(f"last change: {changed}", style="dim"))
    parts.append(Text("watching your files; Ctrl-C to stop", style="dim"))
    return Panel(Group(*parts), title="lab watch", title_align="left", border_style="cyan")


class WalkView(Observer):
    """Renders a walk for ``lab demo`` (rich, with instructions) and ``lab dev check``."""

    def __init__(self, console: Console, *, demo: bool) -> None:
        self.console = console
        self.demo = demo

    def lab_started(self, lab: Lab) -> None:
        self.console.rule(escape(f"Lab {lab.id}: {lab.title}"))

    def phase(self, step: Step, phase: str) -> None:
        if phase == "before":
            if self.demo:
                lines = step.instructions.strip().splitlines()
                short = "\n".join(lines[:6]) + ("\n…" if len(lines) > 6 else "")
                self.console.print(
                    Panel(
                        Markdown(short),
                        title=escape(f"step {step.index + 1}: {step.title}"),
                        title_align="left",
                        border_style="cyan",
                    )
                )
            self.console.print("[bold]check before solving[/] (must fail)")
        elif phase == "solve":
            self.console.print("[bold]solve[/]")
        elif phase == "after":
            self.console.print("[bold]check after solving[/] (must pass)")

    def results(self, step: Step, phase: str, results: Sequence[CheckResult]) -> None:
        for r in results:
            if phase in ("setup", "solve"):
                style = STYLE[r.status]
                self.console.print(f"  [{style}]{MARK[r.status]}[/] {escape(r.message)}")
            else:
                shown = r.status is Status.PASS or phase == "before"
                self.console.print(
                    result_renderable(r, verbose=not shown or r.status is Status.ERROR)
                )

    def step_done(self, walk: StepWalk) -> None:
        if walk.ok:
            self.console.print(
                f"[green]✔ step {walk.step.id} behaves: fails before, passes "
                f"after[/] [dim]({walk.duration:.1f} s)[/]"
            )
        else:
            for p in walk.problems:
                self.console.print(f"[bold red]✘ step {walk.step.id}: {escape(p)}[/]")


def devcheck_table(report: DevCheckReport, title: str = "lab dev check") -> Table:
    table = Table(title=title, title_justify="left")
    for col in ("lab", "step", "verdict", "time", "maven"):
        table.add_column(col)
    for lab in report.labs:
        _add_lab(table, lab)
    return table


def _add_lab(table: Table, lab: LabWalk) -> None:
    if lab.manifest_error:
        table.add_row(lab.lab_id, "manifest", f"[red]{escape(lab.manifest_error)}[/]", "", "")
        return
    for s in lab.steps:
        verdict = "[green]ok[/]" if s.ok else f"[red]{escape('; '.join(s.problems))}[/]"
        table.add_row(
            lab.lab_id, s.step.id, verdict, f"{s.duration:.1f} s", f"{s.maven_seconds:.1f} s"
        )


def hint_panel(step: Step, tier: int, text: str) -> Panel:
    more = (
        "run lab hint again for a stronger one"
        if tier < len(step.hints)
        else "that was the last hint; lab solve shows the solution"
    )
    return Panel(
        Markdown(text),
        title=f"hint {tier}/{len(step.hints)}",
        title_align="left",
        subtitle=more,
        border_style="yellow",
    )


def print_solution(console: Console, step: Step) -> None:
    console.print(f"[bold]The solution of step {step.index + 1} ({step.id}):[/]")
    for spec in step.solve:
        shown = {k: v for k, v in spec.params.items() if v not in (None, False, [], {})}
        console.print(f"  • {escape(str(shown))}")
    console.print(
        "Apply it with [bold]lab solve --apply[/] (your files are backed up "
        "first), then [bold]lab check[/]."
    )


def print_solved(console: Console, results: Sequence[CheckResult], backup: Backup | None) -> None:
    print_results(console, results)
    if backup:
        console.print(f"Backed up first: [bold]{escape(backup.restore_hint)}[/]")
    console.print("Now run [bold]lab check[/].")


def live_view(console: Console, first: RenderableType) -> Live:
    """A live region that redraws in place (lab watch); leaves its last frame on screen."""
    return Live(first, console=console, refresh_per_second=4, transient=False)
