"""Rich views of a walk through the labs: ``lab demo`` and ``lab dev check`` step by step
(WalkView), their summary table, and ``lab dev merge``'s table of merged reports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from harness.claude.vocabulary import ENGINES, DevPhase, Engine
from harness.engine.devcheck import DevCheckReport, LabWalk, Observer, StepWalk
from harness.engine.manifest import Lab, Step
from harness.results import CheckResult, Status
from harness.ui.lab_view import MARK, STYLE, result_renderable
from harness.ui.prose import Block, Framed, Prose, markdown, print_prose


class WalkView(Observer):
    """Renders a walk for ``lab demo`` (rich, with instructions) and ``lab dev check``."""

    def __init__(self, console: Console, *, demo: bool) -> None:
        self.console = console
        self.demo = demo

    def lab_started(self, lab: Lab) -> None:
        self.console.rule(escape(f"Lab {lab.id}: {lab.title}"))

    def phase(self, step: Step, phase: str) -> None:
        if phase == DevPhase.BEFORE:
            if self.demo:
                blocks = markdown(step.instructions.strip()).blocks
                short = Prose(blocks[:4] + ([Block(Text("…"))] if len(blocks) > 4 else []))
                print_prose(self.console, Framed(f"step {step.index + 1}: {step.title}", short))
            self.console.print("[bold]check before solving[/] (every check; must fail)")
        elif phase == DevPhase.HOLLOW:
            self.console.print("[bold]check the hollowed solution[/] (must fail)")
        elif phase == DevPhase.SOLVE:
            self.console.print("[bold]solve[/]")
        elif phase == DevPhase.AFTER:
            self.console.print("[bold]check after solving[/] (every check; must pass)")

    def results(self, step: Step, phase: str, results: Sequence[CheckResult]) -> None:
        for r in results:
            if phase in (DevPhase.SETUP, DevPhase.SOLVE):
                style = STYLE[r.status]
                self.console.print(f"  [{style}]{MARK[r.status]}[/] {escape(r.message)}")
            else:
                shown = r.status is Status.PASS or phase in (DevPhase.BEFORE, DevPhase.HOLLOW)
                print_prose(
                    self.console,
                    result_renderable(r, verbose=not shown or r.status is Status.ERROR),
                )

    def step_done(self, walk: StepWalk) -> None:
        if walk.ok:
            self.console.print(
                f"[green]✔ step {walk.step.id} behaves: fails before"
                f"{', fails hollowed' if walk.hollow else ''}, passes "
                f"after{escape(engines_said(walk))}[/] [dim]({walk.duration:.1f} s)[/]"
            )
        else:
            for p in walk.problems:
                self.console.print(f"[bold red]✘ step {walk.step.id}: {escape(p)}[/]")
        for check in walk.unchanged:
            self.console.print(
                f"[yellow]! step {walk.step.id}: {escape(check)} passes before and after the "
                "solve: it proves nothing in this step[/]"
            )
        for check in walk.guards:
            self.console.print(
                f"[dim]  step {walk.step.id}: {escape(check)} is a guard: it held before and "
                "after the solve[/]"
            )


def engines_said(walk: StepWalk) -> str:
    """``, on the emulator and real Claude Code, which agreed``: what a passing step's
    sessions played on (a check on two engines passes only when they agree on every step)."""
    engines = walk.engines
    person = {
        True: ", as a person: plain claude in a terminal",
        False: ", with claude -p (no tmux here to play it as a person)",
        None: "",
    }[walk.as_person]
    if len(engines) < 2:
        on = f", on {Engine(engines[0]).label}" if engines and engines[0] in ENGINES else ""
        return on + person
    names = [Engine(e).label if e in ENGINES else e for e in engines]
    return f", on {' and '.join(names)}, which agreed{person}"


def devcheck_table(report: DevCheckReport, title: str = "lab dev check") -> Table:
    table = Table(title=title, title_justify="left")
    width = max([len(lab.lab_id) for lab in report.labs] or [3])
    table.add_column("lab", no_wrap=True, min_width=width)
    table.add_column("step", no_wrap=True)
    for col in ("verdict", "time", "maven"):
        table.add_column(col)
    for lab in report.labs:
        _add_lab(table, lab)
    return table


def _add_lab(table: Table, lab: LabWalk) -> None:
    if lab.manifest_error:
        table.add_row(lab.lab_id, "manifest", f"[red]{escape(lab.manifest_error)}[/]", "", "")
        return
    for s in lab.steps:
        verdict = (
            f"[green]ok{escape(engines_said(s))}[/]"
            if s.ok
            else f"[red]{escape('; '.join(s.problems))}[/]"
        )
        if s.unchanged:
            unchanged = escape(", ".join(s.unchanged))
            verdict += f"\n[yellow]proves nothing (passes before and after): {unchanged}[/]"
        if s.guards:
            verdict += f"\n[dim]guards (held before and after): {escape(', '.join(s.guards))}[/]"
        table.add_row(
            lab.lab_id, s.step.id, verdict, f"{s.duration:.1f} s", f"{s.maven_seconds:.1f} s"
        )


def merged_table(merged: dict[str, Any]) -> Table:
    """``lab dev merge``: one row per lab of the merged reports."""
    table = Table(title="lab dev merge", title_justify="left")
    for col in ("lab", "verdict", "steps", "time", "maven"):
        table.add_column(col, no_wrap=col == "lab")
    for lab in merged["labs"]:
        problems = [p for step in lab.get("steps", []) for p in step.get("problems", [])]
        if lab.get("manifest_error"):
            problems.insert(0, str(lab["manifest_error"]))
        verdict = "[green]ok[/]" if lab["ok"] else f"[red]{escape('; '.join(problems))}[/]"
        table.add_row(
            escape(str(lab["lab"])),
            verdict,
            str(len(lab.get("steps", []))),
            f"{float(lab.get('duration', 0.0)):.1f} s",
            f"{float(lab.get('maven_seconds', 0.0)):.1f} s",
        )
    for lab_id in merged["missing"]:
        table.add_row(escape(lab_id), "[red]in no report[/]", "", "", "")
    return table
