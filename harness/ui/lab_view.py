"""Rich views of labs: instructions, check results, progress and the live ``lab watch`` panel
(a scripted session's steps: hook_event_view.py; the ``lab demo`` / ``lab dev check`` walk:
devcheck_view.py). Only rendering here."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from harness.claude.vocabulary import Provenance
from harness.engine.check_names import shown_name
from harness.engine.manifest import Lab, Step
from harness.engine.progress import Progress
from harness.engine.step_results import Moved, StepRun
from harness.results import CheckResult, Status
from harness.ui.prose import (
    Block,
    Folded,
    Framed,
    Prose,
    backticked,
    command_spans,
    markdown,
    print_prose,
    prose,
)
from harness.workspace import Backup

STYLE = {Status.PASS: "green", Status.FAIL: "red", Status.ERROR: "yellow", Status.SKIP: "dim"}
MARK = {Status.PASS: "✔", Status.FAIL: "✘", Status.ERROR: "!", Status.SKIP: "–"}


def step_panel(lab: Lab, step: Step) -> Framed:
    title = f"{lab.id} · step {step.index + 1}/{len(lab.steps)}: {step.title}"
    return Framed(title, markdown(step.instructions.strip()))


def intro_panel(lab: Lab) -> Framed:
    return Framed(f"Lab {lab.id}: {lab.title}", markdown(lab.intro.strip()), style="blue")


def print_intro(console: Console, lab: Lab) -> None:
    print_prose(console, intro_panel(lab))


def print_status(console: Console, lab: Lab, progress: Progress) -> None:
    console.print(status_renderable(lab, progress))
    if progress.step:
        print_prose(console, step_panel(lab, lab.step(progress.step)))


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """'|| true', 'A1: Missing Text', `test -s dist/app.js`: a quoted command or name stays
    on one line. A command in backticks stays whole however long (Lab 07's `sed -i '…'
    target/…xml` broke over three lines): on a line of its own when it does not fit."""
    return [m.span() for m in re.finditer(r"`[^`\n]{1,240}`|'[^'\n]{1,60}'", text)]


_JSON_LINE = re.compile(r'\{"[^\n]*\}')


def row_spans(text: str) -> list[tuple[int, int]]:
    """What stays on one line in an expected:/found: row: each command whole (a quoted sed
    script inside it no longer cuts it in two: ``… Done/'`` / ``docs/…md``), then quoted names."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        commands = [(a + offset, b + offset) for a, b in command_spans(line)]
        # A JSON object a hook prints, to compare or copy: one line, as the hook printed it.
        commands += [(m.start() + offset, m.end() + offset) for m in _JSON_LINE.finditer(line)]
        quotes = [(a + offset, b + offset) for a, b in quoted_spans(line)]
        spans += commands + [
            (a, b) for a, b in quotes if all(b <= c or a >= d for c, d in commands)
        ]
        offset += len(line) + 1
    return spans


def unrepeated(name: str, message: str) -> tuple[str, str]:
    """What goes between a check's name and its message, and the message, without the words
    it repeats from the name's end: "… stop_hook_active: true: exit 0: exit 0 as expected"
    and "file answers/let-go.json: answers/let-go.json does not exist yet" (walk j) said the
    same thing twice. ``--json`` keeps the message whole."""
    if message == name:  # a pass message that is the title again: said once
        return "", ""
    said, named = message.split(" "), name.split(" ")
    for k in range(min(len(said) - 1, len(named)), 0, -1):
        # "verify-hook scripts/x.sh: x.sh: 8 of 9 checks pass": a file's own name repeats it too.
        words = [*said[: k - 1], said[k - 1].removesuffix(":")]
        same = all(w == n or n.endswith("/" + w) for w, n in zip(words, named[-k:], strict=True))
        if same and len(" ".join(words)) > 2:
            rest = " ".join(said[k:])
            return (", " if rest == "as expected" else ": "), rest
    return ": ", message


def result_renderable(
    result: CheckResult, *, verbose: bool = True, gutter: str = ""
) -> RenderableType:
    """A check's result as ``lab check`` shows it; ``gutter``: indented under another line
    (a step judged again), without the output box (``lab check`` at that step shows it)."""
    style = STYLE[result.status]
    name = shown_name(result.name)  # "your changes", not the git check's id
    joint, message = unrepeated(name, result.message)
    head = Text.assemble(
        (f"{MARK[result.status]} {result.status.value.upper()} ", f"bold {style}"),
        (name, "bold"),
        joint if name else "",
        message,
    )
    blocks = [Block(head, rest=Text("  "), protected=quoted_spans(head.plain))]
    parts: list[RenderableType] = []
    evidence = result.details.get("evidence")
    if verbose and result.status is Status.PASS and evidence:
        blocks.append(Block(Text(str(evidence), style="dim"), Text("    ")))
    if verbose and result.status is not Status.PASS:
        for label, value in (("expected", result.expected), ("found", result.found)):
            if value:
                blocks.append(
                    Block(
                        Text(value),
                        Text(f"  {label + ':':<10}", style="bold"),
                        Text(" " * 12),
                        protected=row_spans(value),
                    )
                )
        parts.append(Prose(blocks, gutter=Text(gutter)))
        blocks = []
        if not gutter and result.output and not _said_already(result.output, result.found or ""):
            parts.append(output_box(result.output))
        fix = result.details.get("fix")
        if fix:
            blocks.append(fix_block(str(fix)))
        if result.status is Status.ERROR:
            blocks.append(
                Block(
                    Text(
                        "This is the harness or the machine, not your work: run "
                        "lab doctor, or ask the trainer.",
                        style="yellow",
                    ),
                    Text("  "),
                )
            )
    if blocks:
        parts.append(Prose(blocks, gutter=Text(gutter)))
    return Group(*parts)


ASK = "ask Claude: "


def fix_block(fix: str) -> Block:
    """A check's fix. A command it marks (`claude --permission-mode manual`) stays on one
    line; a prompt to type after "ask Claude:" goes on a line of its own, whole (Lab 13's
    broke as "npm" / "start", Lab 10's as "all" / "tests pass"); a long ``git checkout REF --
    FILES`` is one file a line with ``\\`` (137 columns in Lab 07 broke inside a path)."""
    fix, whole = _checkout_lines(fix)
    at = fix.find(ASK)
    if at >= 0:
        head, rest = fix[: at + len(ASK) - 1], fix[at + len(ASK) :]
        prompt, newline, tail = rest.partition("\n")
        fix = f"{head}\n  {prompt}{newline}{tail}"
        whole.append(prompt)
    marked, spans = backticked(Text(fix))
    for piece in whole:
        found = marked.plain.find(piece)
        if found >= 0 and piece:
            spans.append((found, found + len(piece)))
    return Block(marked, Text("  fix: ", style="bold"), Text(" " * 7), protected=spans)


_CHECKOUT = re.compile(r"git checkout (\S+) -- (.+?)(?= \(|; |\n|$)")
CHECKOUT_ROOM = 70  # wider than this beside the fix's indent: one file a line, as steps do


def _checkout_lines(fix: str) -> tuple[str, list[str]]:
    """``git checkout REF -- A B`` too wide for 80 columns, as the step texts write it:
    ``git checkout REF -- \\`` then each file on a line of its own, each whole."""
    match = _CHECKOUT.search(fix)
    if match is None or len(match.group(0)) <= CHECKOUT_ROOM:
        return fix, []
    files = match.group(2).split()
    lines = [f"git checkout {match.group(1)} -- \\"]
    lines += [f"  {name} \\" for name in files[:-1]] + [f"  {files[-1]}"]
    after = fix[match.end() :].lstrip(" ")
    text = fix[: match.start()].rstrip(" ") + "\n  " + "\n  ".join(lines)
    text += "\n" + after if after and not after.startswith("\n") else after
    return text, [line.strip() for line in lines]


EVENT = "event: "  # a line of a session check's output: the JSON a hook was given


def _said_already(output: str, found: str) -> bool:
    """Output whose every line ``found:`` already shows (a hook's stderr, as found) gets no box
    of its own: a person reads a message once."""
    said = {line.strip() for line in found.splitlines()}
    return all(line.strip() in said for line in output.strip().splitlines() if line.strip())


def output_box(output: str) -> RenderableType:
    """The tail of what a check's commands or hooks printed. The JSON each hook was given (a
    sandbox's paths, 400+ columns a line) stays in ``--json``: the screen keeps what the hooks
    did with it."""
    lines = output.strip().splitlines()
    shown = [line for line in lines if not line.startswith(EVENT)]
    tail = shown[-15:]
    if len(shown) < len(lines):
        tail.append("(the JSON each hook was given: lab check --json)")
    # Wrapped, not cut at the edge.
    return Framed("output (tail)", Prose([Block(Text("\n".join(tail)))]), style="dim")


def print_results(console: Console, results: Sequence[CheckResult], skipped: int = 0) -> None:
    for result in results:
        print_prose(console, result_renderable(result))
    if skipped:
        console.print(
            f"  ({skipped} more check{'s' if skipped > 1 else ''} not run yet)", style="dim"
        )


def one_verdict_each(results: Sequence[CheckResult]) -> list[CheckResult]:
    """A check's passes left out where another check of the same name (the same file) fails:
    "✔ PASS file X: as expected" beside "✘ FAIL file X: …" reads as two verdicts on one
    file (walk g, Lab 02 step 2). ``--json`` keeps every result."""
    failing = {r.name for r in results if r.status is not Status.PASS}
    return [r for r in results if r.status is not Status.PASS or r.name not in failing]


def print_step_run(console: Console, run: StepRun) -> None:
    print_results(console, one_verdict_each(run.results), run.skipped)
    if run.status is Status.PASS:
        last = run.step.index + 1 == len(run.lab.steps)
        console.print(
            f"[bold green]Step {run.step.index + 1} passed.[/] Next: [bold]lab next[/]"
            + (" (finishes the lab)" if last else "")
        )
    elif run.status is Status.FAIL:
        print_prose(
            console,
            prose("Not yet. Change your work and run `lab check` again; `lab hint` gives a nudge."),
        )
    else:
        console.print("[bold yellow]The check could not run.[/] Nothing was judged.")


def backup_renderable(backup: Backup, label: str = "Your files were backed up first:") -> Prose:
    """The two ways back, each a whole command: `lab restore` and plain git."""
    return Prose(
        [
            Block(
                Text.assemble(label, " ", ("lab restore " + backup.name, "bold")),
                protected=[(len(label) + 1, len(label) + 13 + len(backup.name))],
            ),
            Block(
                Text(f"(or: git checkout {backup.ref} -- .)", style="dim"),
                Text("  "),
                protected=[(5, 5 + len(f"git checkout {backup.ref} -- ."))],
            ),
        ]
    )


def _replaced_notice(replaced: Sequence[str], backup: Backup) -> Prose:
    """The files a step's setup replaced; the command is marked, so a narrow terminal never
    breaks it over two lines."""
    return prose(
        "This step starts from its own version of "
        + ", ".join(f"`{rel}`" for rel in replaced)
        + f": yours is in that backup (`lab restore {backup.name}` brings back all your files).",
        style="yellow",
    )


def print_moved(console: Console, moved: Moved, *, show_intro: bool = False) -> None:
    if moved.backup is not None:
        print_prose(console, backup_renderable(moved.backup))
    if moved.replaced and moved.backup is not None:
        print_prose(console, _replaced_notice(moved.replaced, moved.backup))
    bad = [a for a in moved.actions if a.status is not Status.PASS]
    if bad:
        print_results(console, bad)
    print_reverified(console, moved.reverified)
    note = moved.note if moved.note and moved.note != "lab complete" else ""
    if note and moved.step is not None:
        # Sent back by the lab's end: the way on is what to read (and has commands in it).
        sent_back = any(run.status is not Status.PASS for run in moved.reverified)
        print_prose(console, prose(note, style="yellow" if sent_back else "dim"))
    if show_intro:
        print_intro(console, moved.lab)
    if moved.step is not None:
        print_prose(console, step_panel(moved.lab, moved.step))
        console.print("When you are done: [bold]lab check[/]   stuck: [bold]lab hint[/]")
    elif moved.next_command:
        console.print(
            f"[bold green]Lab {moved.lab.id} complete.[/] Next: [bold]{moved.next_command}[/]"
        )
    elif moved.fixtures_after:
        console.print(
            f"[bold green]Lab {moved.lab.id} complete.[/] That was the last lab on the "
            f"{moved.lab.fixture} fixture: the course on this workspace is done."
        )
        for other in moved.fixtures_after:
            console.print(
                f"The {other} fixture's labs need a workspace of their own: "
                f"[bold]lab init DIR --fixture {other}[/]"
            )
    elif note:  # the fixture's last lab, others not done: they are named on the next line
        console.print(f"[bold green]Lab {moved.lab.id} complete.[/]")
    else:
        # Every lab of this fixture is done here, this one not always the last (walk-n).
        console.print(
            f"[bold green]Lab {moved.lab.id} complete.[/] Every lab on the "
            f"{moved.lab.fixture} fixture is complete here; [bold]lab list[/] shows your progress."
        )
    if note and moved.step is None:  # what is left of the course, once "complete" is said
        print_prose(console, prose(note[:1].upper() + note[1:]))  # "lab start 12" whole


def print_reverified(console: Console, runs: Sequence[StepRun]) -> None:
    """Each step judged again at the lab's end: its verdict, and why when it failed."""
    for run in runs:
        if run.results and run.results[0].details.get("skipped"):
            console.print(
                f"  step {run.step.index + 1} {run.step.id}: [dim]skipped with lab goto, "
                "never checked[/]"
            )
            continue
        mark = MARK[run.status]
        how = " [dim](passed on this very state, not run again)[/]" if run.unchanged else ""
        console.print(
            f"  re-verified step {run.step.index + 1} {run.step.id}: "
            f"[{STYLE[run.status]}]{mark} {run.status.value}[/]{how}"
        )
        if run.status is not Status.PASS:
            print_prose(console, reverify_failure(run))


def reverify_failure(run: StepRun) -> RenderableType:
    """Why a step failed when it was judged again at the state it passed at, and what to do:
    its first check that did not pass, as ``lab check`` shows it, then the way back to it (a
    bare ✘ left a person guessing)."""
    failed = next(r for r in run.results if r.status is not Status.PASS)
    if failed.status is Status.ERROR:
        then = "it could not be judged again (not your work): `lab check` at that step tries again"
    elif failed.name == "progress":
        then = "it is checked when you reach it again: `lab check`, then `lab next`"
    else:
        # The way on (fix it, or reset first) is said once, below every step's verdict.
        then = (
            "it passed before; judged again on a copy of your files as they were then (the "
            "build output cleared), it fails for what is named above"
        )
    return Group(
        result_renderable(failed, gutter="    "),
        prose(then, indent=6, hanging=2, style="yellow"),
    )


def compact_table(title: str) -> Table:
    """A table that leaves the most room for its cells: no vertical rules, one space apart."""
    return Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1)
    )


def lab_table(
    labs: Sequence[Lab],
    progress: Progress,
    broken: Sequence[str] = (),
    fixture: str | None = None,
) -> Table:
    """The labs, in order; ``broken``: the folders whose manifest does not load (their error
    is printed below the table); ``fixture``: the labs are that fixture's (a workspace's),
    else every fixture's, each lab's named in its title."""
    table = compact_table(f"Labs on the {fixture} fixture" if fixture else "Labs")
    # Ids are what people type (lab start 3 or lab start 03-stop-hook): never wrapped or cut.
    ids = [lab.id for lab in labs] + list(broken)
    table.add_column("lab", no_wrap=True, min_width=max(len(i) for i in ids))
    table.add_column("title", ratio=1, overflow="fold")
    table.add_column("steps", no_wrap=True, justify="right")
    table.add_column("progress")
    rows: list[tuple[str, Lab | None]] = [(lab.id, lab) for lab in labs]
    rows += [(name, None) for name in broken]
    for name, lab in sorted(rows, key=lambda row: row[0]):
        if lab is None:
            table.add_row(name, "[red]its lab.toml does not load (see below)[/]", "", "")
            continue
        lp = progress.labs.get(lab.id)
        passed = sum(1 for s in lab.steps if lp.step(s.id).passed) if lp else 0
        kinds = (
            [str((lp.step(s.id).passed or {}).get("evidence_kind") or "") for s in lab.steps]
            if lp
            else []
        )
        # A live step passed with a scripted session says so: the trainer sees it too.
        scripted = sum(kind == Provenance.SCRIPTED for kind in kinds)
        note = f" ({scripted} scripted)" if scripted else ""
        if lp and lp.completed_at:
            again = ", walked again" if lp.revisited_at is not None else ""
            state = f"[green]complete[/]{note}{again}"
        elif progress.lab == lab.id:
            state = f"[cyan]current, {passed}/{len(lab.steps)} passed[/]{note}"
        elif lp:
            state = f"{passed}/{len(lab.steps)} passed{note}"
        else:
            state = "[dim]not started[/]"
        title = escape(lab.title) if fixture else f"{escape(lab.title)} [dim]({lab.fixture})[/]"
        table.add_row(lab.id, title, str(len(lab.steps)), state)
    return table


def status_renderable(lab: Lab, progress: Progress) -> RenderableType:
    lp = progress.labs.get(lab.id)
    table = compact_table("")
    table.add_column("#", no_wrap=True, min_width=2)
    table.add_column("step", no_wrap=True, min_width=max(len(s.id) for s in lab.steps))
    table.add_column("state")
    table.add_column("hints", no_wrap=True)
    for step in lab.steps:
        sp = lp.step(step.id) if lp else None
        if sp and sp.passed:
            how = [f"{kind}" for kind in [sp.passed.get("evidence_kind")] if kind]
            how += ["with lab solve"] if sp.solved_with_help else []
            if lp is not None and not lp.passed_this_walk(step.id):
                how.append("earlier; walked again")
            state = "[green]passed[/]" + (f" ({', '.join(how)})" if how else "")
        elif progress.step == step.id:
            state = "[cyan]current[/]"
        elif sp and sp.skipped_by_goto:  # never asked of the participant, never checked
            state = "[dim]skipped with lab goto[/]"
        else:
            state = "[dim]-[/]"
        hints = f"{sp.hints}/{len(step.hints)}" if sp else f"0/{len(step.hints)}"
        table.add_row(str(step.index + 1), step.id, state, hints)
    # The title above the table, not in it: a narrow table would wrap it.
    return Group(Text(f"{lab.id}: {lab.title}", style="italic"), table)


def watch_renderable(
    run: StepRun | None,
    changed: Sequence[str],
    checking: bool,
    *,
    keys: bool = False,
    hint: RenderableType | None = None,
    count: int = 0,
) -> RenderableType:
    """lab watch's screen; ``count`` numbers the checks, so a change that set off no check
    (build output, .git) is visibly one."""
    parts: list[RenderableType] = []
    stamp = time.strftime("%H:%M:%S")
    label = f"[{stamp}] check {count}" if count else f"[{stamp}]"
    if checking:
        parts.append(Text(f"{label}: checking…", style="cyan"))
    elif run is not None:
        style = STYLE[run.status]
        parts.append(
            Text.assemble(
                (f"{label} · step {run.step.index + 1} {run.step.id}: ", ""),
                (run.status.value.upper(), f"bold {style}"),
            )
        )
        parts.extend(result_renderable(r) for r in run.results)
        if run.status is Status.PASS:
            leave = "q" if keys else "Ctrl-C"
            parts.append(Text(f"Passed. {leave}, then lab next.", style="bold green"))
    if hint is not None:
        parts.append(hint)
    if changed:
        more = f" (+{len(changed) - 1} more)" if len(changed) > 1 else ""
        parts.append(Text(f"last change: {changed[0]}{more}", style="dim"))
    controls = "h: next hint · q: quit" if keys else "Ctrl-C to stop"
    parts.append(Text(f"watching your files; {controls}", style="dim"))
    # Live crops at the edge: Folded keeps a long path whole, over two lines if it must.
    return Folded(Group(Text("── lab watch ──", style="cyan"), *parts))


def hint_panel(step: Step, tier: int, text: str, *, again: str = "run lab hint again") -> Framed:
    more = (
        f"{again} for a stronger one"
        if tier < len(step.hints)
        else "that was the last hint; lab solve shows the solution"
    )
    return Framed(f"hint {tier}/{len(step.hints)}", markdown(text), style="yellow", subtitle=more)


def print_hint(console: Console, step: Step, tier: int, text: str) -> None:
    print_prose(console, hint_panel(step, tier, text))


def print_solved(console: Console, results: Sequence[CheckResult], backup: Backup | None) -> None:
    print_results(console, results)
    if backup:
        print_prose(console, backup_renderable(backup, "Backed up first:"))
    if all(r.status is Status.PASS for r in results):
        console.print("Now run [bold]lab check[/].")
    else:  # lab check would judge a half-applied solution
        console.print("The solution is not applied: do what the fix says first.")


def live_view(console: Console, first: RenderableType) -> Live:
    """A live region that redraws in place (lab watch); leaves its last frame on screen."""
    return Live(first, console=console, refresh_per_second=4, transient=False)
