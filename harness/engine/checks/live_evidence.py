"""What a live session's transcript alone cannot show: that the client wrote it, here, and
that the workspace holds the evidence its hooks write.

- A transcript not shaped as the client writes one (harness/claude/recorded/shape.py) fails.
- A person's interactive session (entrypoint "cli") is in the client's prompt history: the
  pinned client (2.1.332) appends every prompt typed into it to ``history.jsonl`` beside
  ``projects/``, with the session's id, the folder it ran in and the time. A transcript
  copied from another session or machine and rewritten (its folder, id and times) is not
  there. That raises the bar, it is no proof: a forger who also writes those lines passes,
  and the trainer's verify replays the session's tool calls against the hooks, no more. A
  config folder with no history at all (a test's, or a ``claude -p`` user's) is not asked.
- The hooks' own record of the session's start, the markers and the sensor reports must be
  there, and date from the session (``evidence``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.claude.recorded import Timeline, config_root
from harness.claude.recorded.entries import ToolCall
from harness.claude.recorded.shape import not_the_clients
from harness.claude.vocabulary import Provenance
from harness.engine.checks import build_output
from harness.engine.checks.sensors_agree import disagreement, red_in_our_run
from harness.engine.checks.surefire_written import not_written_by_a_run
from harness.engine.context import CheckContext
from harness.results import CheckResult

if TYPE_CHECKING:
    from harness.engine.checks.live_session import LiveParams

# The client's prompt history, beside projects/ in its config folder.
HISTORY = "history.jsonl"
# How far a typed prompt's history time may stray from the transcript's (milliseconds).
_HISTORY_SLACK_MS = 5000


def entered_at(ctx: CheckContext) -> datetime | None:
    stamp = ctx.step.entered_at
    return datetime.fromtimestamp(float(stamp), UTC) if stamp else None


def participant_root(ctx: CheckContext) -> Path:
    """The participant's client state: their own, or in lab dev check the person's whose
    plain ``claude`` played the step."""
    home = ctx.person_home
    return config_root({"HOME": str(home)}) if home is not None else config_root()


def _first_prompt_ms(path: Path) -> tuple[str, float] | None:
    """The entrypoint of the transcript at ``path`` and the time (ms) of its first typed
    prompt, or None when it has none."""
    entrypoint = ""
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            for raw in lines:
                try:
                    entry = json.loads(raw)
                except json.JSONDecodeError:
                    continue
                if not isinstance(entry, dict):
                    continue
                entrypoint = entrypoint or str(entry.get("entrypoint") or "")
                if entry.get("type") == "user" and entry.get("promptId"):
                    stamp = str(entry.get("timestamp") or "").replace("Z", "+00:00")
                    return entrypoint, datetime.fromisoformat(stamp).timestamp() * 1000
    except (OSError, ValueError):
        return None
    return None


def not_in_history(root: Path, timeline: Timeline, workspace: Path) -> list[str]:
    """Why the client's prompt history does not know this interactive session (empty: it
    does, or there is no history to ask)."""
    first = _first_prompt_ms(timeline.path)
    if first is None or first[0] != "cli":
        return []
    try:
        lines = (root / HISTORY).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for raw in lines:
        try:
            entry = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if not isinstance(entry, dict) or entry.get("sessionId") != timeline.session_id:
            continue
        # The folder the client ran in: the workspace, or a folder in it (live_causes names
        # a session started in docs/ as such).
        ran_in = Path(timeline.cwd).resolve() if timeline.cwd else workspace.resolve()
        if Path(str(entry.get("project") or "")).resolve() != ran_in:
            return [
                "Claude Code's own record of the prompts typed into it puts session "
                f"{timeline.session_id} in another folder"
            ]
        stamp = entry.get("timestamp")
        if isinstance(stamp, int | float) and abs(stamp - first[1]) <= _HISTORY_SLACK_MS:
            return []
    # Neither the file nor the time it wants is named: the screen is no forging recipe.
    return [
        f"Claude Code's own record of the prompts typed into it has no prompt of session "
        f"{timeline.session_id}: Claude Code did not run it here (a transcript copied from "
        "elsewhere?)"
    ]


def hand_made(
    ctx: CheckContext, title: str, timeline: Timeline, details: dict[str, Any], *, ask: str
) -> CheckResult | None:
    """A transcript not shaped as the client writes one, or (``details`` of a person's own
    session) a copy of another session (live_copies) or one the client's prompt history does
    not know: nothing of it is evidence, its replay included. ``ask``: what to ask Claude in
    a new session."""
    from harness.engine.checks.live_copies import copy_of

    unlike = not_the_clients(timeline.path, timeline.client_version)
    copied = []
    if not unlike and details.get("evidence_kind") == Provenance.LIVE:
        copied = copy_of(ctx, timeline)
        unlike = copied or not_in_history(participant_root(ctx), timeline, ctx.workspace.root)
    if not unlike:
        return None
    return CheckResult.failed(
        ("this session is not new: " if copied else "this session was not written by Claude Code: ")
        + "; ".join(unlike[:3]),
        name=title,
        expected="a transcript Claude Code wrote while you worked with it"
        + (", in a session of its own" if copied else ""),
        found=f"{timeline.path}: " + "; ".join(unlike),
        details={
            **details,
            "fix": f"start claude in {ctx.workspace.root}{' (a new session)' if copied else ''} "
            f"and {ask}",
        },
    )


def evidence(
    ctx: CheckContext,
    wanted: list[dict[str, Any]],
    p: LiveParams,
    timeline: Timeline,
    left: dict[str, str | None],
) -> list[str]:
    """What the workspace lacks of the evidence the session's hooks write (empty: none):
    the markers, the hooks' record of the session's start, green reports a run wrote since.
    ``left``: each file of ``p.leaves`` as the session's replay left it in its copy."""
    problems = []
    for want in wanted:
        marker = want.get("marker_exists")
        if marker and not (ctx.git_dir() / str(marker)).exists():
            problems.append(f"no marker {marker} in the git directory")
    if p.session_start_state:
        problems += hooks_saw_the_start(ctx, wanted, p.session_start_state, timeline)
    for rel, text in p.leaves.items():
        path = ctx.path(rel)
        if not path.is_file() or text not in path.read_text(errors="replace"):
            problems.append(f"{rel} does not read {text} now, as the session should leave it")
        elif text not in (left.get(rel) or ""):
            problems.append(_not_left_by_the_session(timeline, rel, text))
    if p.fresh_green_reports:
        from harness.maven.surefire import SENSOR_PACKAGE, ReportError, sensor_reports

        started = timeline.started.timestamp() if timeline.started else 0.0
        try:
            reports = sensor_reports(ctx.root)
        except ReportError as exc:
            return [*problems, f"a sensor report cannot be read: {exc}"]
        for sensor, report in reports.items():
            if report is None:
                problems.append(f"no report of {sensor} in target/surefire-reports")
            elif report.failures or report.errors or report.tests == 0:
                problems.append(f"{sensor} is not green in its report")
            elif report.mtime <= started:
                problems.append(f"{sensor}'s report is older than the session")
            elif unlike := not_written_by_a_run(report.path, f"{SENSOR_PACKAGE}.{sensor}"):
                problems.append(f"{sensor}'s report is not as a run writes it: {unlike}")
        fixture = ctx.workspace.fixture.dir
        problems += build_output.problems(build_output.not_the_projects(ctx.root, fixture), fixture)
        if not problems:  # green reports of the session's run: the sources must agree
            red, _ = red_in_our_run(ctx, [s for s, r in reports.items() if r is not None])
            if red:
                problems.append(disagreement(red))
    return problems


_CHANGES = ("Edit", "MultiEdit", "Write")
# How a failure that a change after the session made starts (its fix is to play the step again).
NOT_LEFT = "the session's last change of"


def _changed(entry: object, rel: str) -> str | None:
    """How a tool call that ran changed (or may have changed) ``rel``: "" for an edit or a
    write of it, "a bash command" for a command that names it (walk-p: ``sed -i`` set Done
    back to Approved); None for any other call."""
    if not isinstance(entry, ToolCall) or not entry.ran:
        return None
    if entry.name in _CHANGES:
        hit = ("/" + str(entry.input.get("file_path", ""))).endswith("/" + rel)
        return "" if hit else None
    command = str(entry.input.get("command", "")) if entry.name == "Bash" else ""
    return "a bash command" if rel in command else None


def _not_left_by_the_session(timeline: Timeline, rel: str, text: str) -> str:
    """``rel`` reads ``text`` now, but not where the session's replay left it: a change by
    hand after the session (walk-l: Done set, set back to Approved, the sensors green, then
    Done typed in by hand). The session's last call that changed it, if any, is named: an
    edit, a write, or a bash command that names it."""
    changes = [
        (entry.line, how) for entry in timeline.entries if (how := _changed(entry, rel)) is not None
    ]
    at = ""
    if changes:
        line, how = changes[-1]
        at = f" (transcript line {line}{', ' + how if how else ''})"
    return (
        f"{NOT_LEFT} {rel}{at} does not put {text} there (Hook Lab's replay "
        "of the session leaves it otherwise): the session should leave it so, and a change "
        "made after the session is not the session's"
    )


# How far a file's time may stray from the transcript's clock (both this machine's).
_CLOCK_SLACK = 2.0


def hooks_saw_the_start(
    ctx: CheckContext, wanted: list[dict[str, Any]], state: str, timeline: Timeline
) -> list[str]:
    """The hooks' own record that this session started (their SessionStart state, written
    between the step's start and the session's first line) and that each marker came after
    it: a marker a person made by hand, or one left from an earlier session, is not this
    session's. (``lab start``, ``goto`` and ``reset`` clear the hooks' state.)"""
    base = ctx.git_dir() / state
    entered = entered_at(ctx)
    started = timeline.started.timestamp() if timeline.started else None
    try:
        written = base.stat().st_mtime
    except OSError:
        return [
            f"no .git/{state}: the workspace's SessionStart hook did not run since this step "
            "began, so no session of Claude Code started here then (start claude again)"
        ]
    if (entered and written < entered.timestamp() - _CLOCK_SLACK) or (
        started is not None and written > started + _CLOCK_SLACK
    ):
        return [
            f".git/{state} was not written when session {timeline.session_id} started: the "
            "workspace's SessionStart hook did not see this session begin (start claude again)"
        ]
    late = []
    for want in wanted:
        marker = ctx.git_dir() / str(want.get("marker_exists") or "")
        if want.get("marker_exists") and marker.exists() and marker.stat().st_mtime < written:
            late.append(f"the marker {want['marker_exists']} is older than this session's start")
    return late
