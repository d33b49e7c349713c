"""``lab trainer report --html``: one page to project in the room.

Self-contained on purpose: classrooms are often offline, so no script, font, stylesheet or
image is fetched from anywhere; the page is one HTML file with its CSS inline. Every cell names
its participant and step in data attributes, so the page is also easy to test and to scrape.
"""

from __future__ import annotations

import time
from html import escape

from harness import __version__
from harness.claude.vocabulary import MemberState, Provenance, VerifyState
from harness.results import Status
from harness.trainer.cohort import Cohort
from harness.trainer.member import (
    STUCK_AFTER,
    Attention,
    EvidenceMark,
    LabColumn,
    Member,
    evidence_legend,
    human_duration,
    short_step,
)
from harness.trainer.remote import redact_url
from harness.trainer.verified import runner_name

# A passed live step's cell: its letter, and a class its colour comes from.
EVIDENCE_CELL: dict[str, tuple[str, str]] = {
    Provenance.LIVE: ("L", "live"),
    Provenance.SCRIPTED: ("S", "scripted"),
}
PLAYED_CELL = ("P", "played")

CSS = """
:root { --pass: #2e9e5b; --here: #e0a800; --stuck: #d64545; --todo: #e6e8eb; --ink: #1d2329;
        --muted: #66707a; --live: #17663a; --scripted: #8fcfa8; }
* { box-sizing: border-box; }
body { font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       margin: 24px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; }
.meta { color: var(--muted); margin-bottom: 16px; }
.tiles { display: flex; gap: 12px; flex-wrap: wrap; margin: 12px 0 8px; }
.tile { border: 1px solid var(--todo); border-radius: 8px; padding: 8px 14px; min-width: 140px; }
.tile b { display: block; font-size: 26px; }
table { border-collapse: collapse; }
.grid th, .grid td { border: 1px solid #fff; padding: 0; text-align: center; }
.grid th.lab { background: #f3f4f6; padding: 4px 6px; font-weight: 600; font-size: 13px; }
.grid th.step { font-size: 12px; color: var(--muted); padding: 2px 4px; min-width: 26px; }
.grid th.who, .grid td.who { text-align: left; padding: 1px 10px 1px 4px; white-space: nowrap;
                             background: #fff; font-size: 13px; }
.grid td.cell { width: 24px; height: 18px; font-size: 12px; color: #fff; }
.grid td.passed { background: var(--pass); }
.grid td.passed.live { background: var(--live); font-weight: 700; }
.grid td.passed.scripted { background: var(--scripted); color: var(--ink); font-weight: 700; }
.grid td.passed.played { background: var(--scripted); color: var(--muted); font-weight: 700; }
.live-list td, .live-list th { padding: 4px 10px; border-bottom: 1px solid var(--todo);
                               text-align: left; }
.live-list .kind-live { color: var(--live); font-weight: 600; }
.live-list .kind-scripted { color: #8a6d00; font-weight: 600; }
.grid td.current { background: var(--here); }
.grid td.stuck { background: var(--stuck); }
.grid td.todo { background: var(--todo); color: var(--muted); }
.grid .where { text-align: left; padding: 1px 8px; white-space: nowrap; color: var(--muted);
               font-size: 13px; max-width: 190px; overflow: hidden; text-overflow: ellipsis; }
.grid tr.problem td.who { color: var(--stuck); }
.stuck-list { columns: 2 420px; margin: 0 0 8px; padding-left: 18px; }
.stuck-list li { margin: 2px 0; break-inside: avoid; }
.stuck-list .kind { font-weight: 600; }
.stuck-list li.stuck .kind, .stuck-list li.record .kind { color: var(--stuck); }
.stuck-list li.idle .kind, .stuck-list li.absent .kind { color: #8a6d00; }
.scroll { overflow-x: auto; max-width: 100%; }
.grid td.ver { font-size: 12px; padding: 1px 6px; white-space: nowrap; color: var(--muted); }
.grid td.ver.verified { color: var(--pass); font-weight: 600; }
.grid td.ver.failed { color: var(--stuck); font-weight: 700; }
.grid td.ver small { display: block; font-weight: 400; color: var(--muted); }
.grid td.cell { line-height: 1; }
.grid td.cell.v-fail { background: var(--stuck); color: #fff; font-weight: 700; }
.grid td.cell.v-verifying { outline: 2px dashed var(--here); outline-offset: -3px; }
.grid td.cell.v-pass { box-shadow: inset 0 -3px 0 #14532d; }
.grid td.ver.verifying { color: #8a6d00; font-weight: 600; }
@media (max-width: 1200px) { .grid td.cell, .grid th.step { width: 18px; min-width: 18px;
                                                         font-size: 11px; } }
.stats td, .stats th { padding: 4px 10px; border-bottom: 1px solid var(--todo); text-align: left; }
.bar { background: var(--todo); width: 160px; height: 12px; border-radius: 6px; overflow: hidden; }
.bar span { display: block; height: 100%; background: var(--pass); }
.legend span { display: inline-block; width: 14px; height: 14px; vertical-align: middle;
               margin: 0 4px 0 14px; border-radius: 3px; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
"""


def _cell(m: Member, lab: LabColumn, index: int, stuck_after: float, now: float) -> str:
    column = lab.steps[index]
    current_lab, current_step = m.current
    state, mark, how, evidence = "todo", "·", "", ""
    live = m.evidence(lab.id, column.step)
    if m.passed(lab.id, column.step):
        state, mark = "passed", "h" if m.help_on(lab.id, column.step).solved_with_help else "✓"
        if live is not None:
            mark, how = EVIDENCE_CELL.get(live.kind, PLAYED_CELL)
            evidence = f' data-evidence="{escape(how)}"'
    elif current_lab == lab.id and current_step == column.step:
        stuck = m.stuck_for(now)
        state, mark = (
            ("stuck", "!")
            if stuck is not None and stuck >= stuck_after
            else (
                "current",
                "●",
            )
        )
    title = f"{m.name} · {lab.id} step {index + 1} ({column.title}): {state}"
    helped = m.help_on(lab.id, column.step).words()
    if helped:
        title += f" · {', '.join(helped)}"
    if evidence and live is not None:
        title += f" · {_said(live)}"
    checked = m.step_verification(lab.id, column.step) if state == "passed" else None
    verify = ""
    if checked is not None:
        how = f"{how} v-{checked}".strip()
        verify = f' data-verify="{escape(checked)}"'
        mark = VERIFY_MARK.get(checked, mark)
        problem = m.verify_problem(lab.id, column.step)
        title += f" · verify: {VERIFY_WORD.get(checked, checked)}"
        title += f" ({problem})" if problem else ""
    return (
        f'<td class="cell {state}{" " + how if how else ""}" data-participant="{escape(m.name)}" '
        f'data-lab="{escape(lab.id)}" data-step="{escape(column.step)}" data-state="{state}"'
        f'{evidence}{verify} title="{escape(title)}">{mark}</td>'
    )


VERIFY_WORD = {
    Status.PASS.value: "the claim holds",
    Status.FAIL.value: "does not hold",
    Status.ERROR.value: "not judged",
}
# A passed step's mark while its claim is judged, or once it failed or errored (✓ else).
VERIFY_MARK = {Status.FAIL.value: "✗", Status.ERROR.value: "?", VerifyState.VERIFYING: "⋯"}


def _said(mark: EvidenceMark) -> str:
    """live · Claude Code 2.1.332 · session 1a2b3c4d: a cell's tooltip."""
    parts = [mark.word]
    if mark.client_version:
        parts.append(f"Claude Code {mark.client_version}")
    if mark.session_id:
        parts.append(f"session {mark.session_id[:8]}")
    return " · ".join(parts)


def _live_section(cohort: Cohort) -> str:
    """Every passed live step, how it passed, and what the letters in the grid mean."""
    marks = cohort.live_marks()
    if not marks:
        return ""
    rows = "".join(
        f'<tr data-participant="{escape(m.name)}" data-lab="{escape(lab.id)}" '
        f'data-step="{escape(lab.steps[i].step)}" data-evidence="{escape(mark.word)}">'
        f"<td>{escape(m.name)}</td><td>{escape(lab.id)} step {i + 1}</td>"
        f"<td>{escape(lab.steps[i].title)}</td>"
        f'<td class="kind-{escape(mark.word)}">{escape(mark.label)}</td>'
        f"<td>{escape(mark.session_id or '–')}</td></tr>"
        for m, lab, i, mark in marks
    )
    legend = "".join(
        f"<li><b>{EVIDENCE_CELL.get(kind, PLAYED_CELL)[0]}</b> "
        f"{escape(shown)}: {escape(meaning)}</li>"
        for kind, shown, meaning in evidence_legend()
    )
    return f"""<h2>Live steps</h2>
<ul class="live-legend" id="live-legend">{legend}</ul>
<table class="live-list" id="live">
<thead><tr><th>participant</th><th>step</th><th>title</th><th>passed on</th><th>session</th>
</tr></thead>
<tbody>
{rows}
</tbody>
</table>
<p class="meta"><code>lab trainer verify</code> replays a live step's submitted timeline from the
state the step began in: a verdict the hooks do not give fails, naming its transcript line.</p>
"""


def _where(m: Member, cohort: Cohort) -> str:
    if not m.arrived:
        return MemberState.ABSENT
    if m.deleted:
        return "record deleted"
    if m.problem:
        return MemberState.PROBLEM
    lab, step = m.current
    if lab is None:
        return "not started"
    if step is None:
        return f"{escape(lab)} complete"
    if m.on_passed_step:
        return f"{escape(short_step(lab, step))} ✓ not moved on"
    stuck = human_duration(m.stuck_for(cohort.read_at))
    return f"{escape(short_step(lab, step))} · {stuck}"


def _verified_cell(m: Member) -> str:
    state = m.verification
    shown: str = state
    if m.verifying:  # under way: how many of its claims have a verdict yet
        judged = sum(1 for s in m.verifying.values() if s != VerifyState.VERIFYING)
        shown = f"{state} {judged}/{len(m.verifying)}"
    flags = f" · {m.verdict.flagged}" if m.verdict is not None and m.verdict.flags else ""
    runner = m.verdict.runner if m.verdict is not None else ""
    # judged elsewhere (a CI runner, through the room): said in the cell, not only its title
    elsewhere = f"<small>on {escape(runner)}</small>" if runner not in ("", runner_name()) else ""
    return (
        f'<td class="ver {state.replace(" ", "-")}" data-verified="{escape(state)}" '
        f'data-commit="{escape(m.commit)}" data-runner="{escape(runner)}" '
        f'title="{escape(_verdict_title(m) + flags)}">{escape(shown)}{elsewhere}</td>'
    )


def _verdict_title(m: Member) -> str:
    if m.verifying is not None:
        return "lab trainer status --watch is verifying this submission"
    if m.verdict is not None:
        on = f" · judged on {m.verdict.runner}" if m.verdict.runner else ""
        return m.verdict.summary + on
    if m.verification == VerifyState.STALE:
        return "verified before the last submit: run lab trainer verify --all again"
    return "not verified yet: lab trainer verify --all"


# A help row's class (the rest: "record").
HELP_CLASS = {MemberState.STUCK: "stuck", MemberState.IDLE: "idle", MemberState.ABSENT: "absent"}


def _why(m: Member, a: Attention) -> str:
    """A failed verify says which check and why."""
    problem = m.first_verify_problem() if a.kind == MemberState.DISPROVED else None
    return f' <span class="why">({escape(problem)})</span>' if problem else ""


def _help_section(cohort: Cohort, stuck_after: float) -> str:
    """Who needs help, most urgent first: the first thing on the page."""
    found = cohort.needs_help(stuck_after)
    items = "".join(
        f'<li class="{HELP_CLASS.get(a.kind, "record")}" data-participant="{escape(m.name)}" '
        f'data-kind="{escape(a.kind)}"><b>{escape(m.name)}</b> '
        f'<span class="kind">{escape(a.kind)}</span> {escape(a.text)}{_why(m, a)}</li>'
        for m, a in found
    )
    return (
        f'<h2>Needs help ({len(found)})</h2>\n<ul class="stuck-list" id="stuck">'
        f"{items or '<li>nobody needs help</li>'}</ul>\n"
    )


def _grid(cohort: Cohort, stuck_after: float) -> str:
    """The progress grid, who needs help first; "now" next to the name, so it never hides
    behind a scrollbar."""
    head_labs = "".join(
        f'<th class="lab" colspan="{len(lab.steps)}" data-lab="{escape(lab.id)}" '
        f'title="{escape(lab.title)}">{escape(lab.id.split("-", 1)[0])}</th>'
        for lab in cohort.labs
        if lab.steps
    )
    head_steps = "".join(
        f'<th class="step" data-lab="{escape(lab.id)}" data-step="{escape(s.step)}" '
        f'title="{escape(lab.id)}: {escape(s.title)}">{i + 1}</th>'
        for lab in cohort.labs
        for i, s in enumerate(lab.steps)
    )
    rows = []
    for m in cohort.by_urgency(stuck_after):
        cells = "".join(
            _cell(m, lab, i, stuck_after, cohort.read_at)
            for lab in cohort.labs
            for i in range(len(lab.steps))
        )
        cls = ' class="problem"' if m.problem or m.deleted or m.replaced else ""
        rows.append(
            f'<tr{cls} data-participant="{escape(m.name)}"><td class="who">{escape(m.name)}</td>'
            f'<td class="where">{_where(m, cohort)}</td>'
            f"{_verified_cell(m)}{cells}</tr>"
        )
    body = "".join(rows) or '<tr><td class="who">nobody has submitted yet</td></tr>'
    return f"""<h2>Progress</h2>
<div class="scroll"><table class="grid" id="grid">
<thead>
<tr><th class="who" rowspan="2">participant</th><th class="where" rowspan="2">now</th>
<th class="ver" rowspan="2">verify</th>{head_labs}
</tr>
<tr>{head_steps}</tr>
</thead>
<tbody>
{body}
</tbody>
</table></div>
"""


def _stats(cohort: Cohort) -> str:
    rows = "".join(
        f'<tr data-lab="{escape(s.column.lab)}" data-step="{escape(s.column.step)}">'
        f"<td>{escape(s.column.lab)}</td><td>{escape(s.column.step)}</td>"
        f"<td>{escape(s.column.title)}</td>"
        f"<td>{s.passed}/{s.of}</td>"
        f'<td><div class="bar"><span style="width:{s.rate * 100:.0f}%"></span></div></td>'
        f"<td>{s.rate * 100:.0f}%</td><td>{human_duration(s.median_seconds)}</td></tr>"
        for s in cohort.step_stats()
    )
    return f"""<h2>Per step</h2>
<table class="stats" id="steps">
<thead><tr><th>lab</th><th>step</th><th>title</th><th>passed</th><th></th><th>pass rate</th>
<th>median time</th></tr></thead>
<tbody>
{rows}
</tbody>
</table>
"""


def _legend(cohort: Cohort, stuck_label: str) -> str:
    live = (
        '\n  <span style="background:var(--live)"></span>L passed live (their own session)'
        '\n  <span style="background:var(--scripted)"></span>S passed scripted'
        '\n  <span style="background:var(--scripted)"></span>P played by Hook Lab (lab solve)'
        if cohort.live_marks()
        else ""
    )
    return f"""<div class="legend">
  <span style="background:var(--pass)"></span>passed
  <span style="background:var(--pass)"></span>h passed with lab solve
  <span style="background:var(--here)"></span>working on it
  <span style="background:var(--stuck)"></span>stuck over {stuck_label}
  <span style="background:var(--todo)"></span>not yet{live}
  <span style="background:var(--stuck)"></span>✗ verify: the claim does not hold
  <span style="outline:2px dashed var(--here)"></span>⋯ being verified
</div>"""


def render_page(
    cohort: Cohort, *, stuck_after: float = STUCK_AFTER, refresh: int | None = None
) -> str:
    members = [m for m in cohort.members if m.arrived]
    help_count = len(cohort.needs_help(stuck_after))
    complete_labs = sum(1 for m in members for lab in cohort.labs if m.lab_complete(lab.id))
    verified_labs = sum(
        1
        for m in members
        if m.verification == VerifyState.VERIFIED
        for lab in cohort.labs
        if m.lab_complete(lab.id)
    )
    verified = sum(1 for m in members if m.verification == VerifyState.VERIFIED)
    failed = sum(1 for m in members if m.verification == VerifyState.FAILED)
    refresh_tag = f'<meta http-equiv="refresh" content="{int(refresh)}">' if refresh else ""
    read_at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(cohort.read_at))
    title = f"Hook Lab · cohort {cohort.name}"
    stuck_label = human_duration(stuck_after)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{refresh_tag}
<title>{escape(title)}</title>
<style>{CSS}</style>
</head>
<body>
<h1>{escape(title)}</h1>
<div class="meta">{escape(redact_url(cohort.url))} · read {escape(read_at)}</div>
<div class="tiles">
  <div class="tile" id="participants"><b>{len(members)}</b>participants</div>
  <div class="tile" id="complete"><b>{complete_labs}</b>labs completed ({verified_labs} of them
  verified)</div>
  <div class="tile" id="verified"><b>{verified}/{len(members)}</b>verified · {failed} failed</div>
  <div class="tile" id="stuck-count"><b>{help_count}</b>need help (stuck over {stuck_label},
  idle, records to look at)</div>
</div>
{_help_section(cohort, stuck_after)}{_legend(cohort, stuck_label)}
{_grid(cohort, stuck_after)}{_live_section(cohort)}{_stats(cohort)}
<footer>Hook Lab {escape(__version__)} · every ✓ is a claim; <code>lab trainer verify</code>
re-runs its checks at the state it was made in.</footer>
</body>
</html>
"""
