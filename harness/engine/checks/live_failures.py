"""What a failing live session says: its failed result, the cause that heads it and the fix.

live_session.py finds and replays the participant's session; when it does not pass, the words
come from here: no session since the step began, a moment missing, a change the session did
not make, evidence the workspace lacks now, and the cause (live_causes.py, replay_causes.py) a
person can act on, said first. What a fix asks Claude for is the missing moment's own ``ask``,
else the step's prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.claude.recorded import Timeline, find_sessions
from harness.claude.vocabulary import Provenance
from harness.engine.checks import live_evidence
from harness.engine.checks.live_causes import LiveCause, near_miss, not_held, replay_differs
from harness.engine.checks.live_evidence import entered_at, participant_root
from harness.engine.checks.replay_causes import hooks_changed_after, hooks_changed_since
from harness.engine.checks.sensors_agree import DISAGREE, PLAIN_RUN
from harness.engine.context import CheckContext
from harness.engine.moment import SENSOR_RUN, Moment, describe
from harness.results import CheckResult

if TYPE_CHECKING:
    from harness.engine.checks.live_session import Judged, LiveParams


def hooks_now_differ(ctx: CheckContext, kind: str, timeline: Timeline) -> LiveCause | None:
    """Why a live session that ran its hooks does not replay: the hooks changed since."""
    root = ctx.workspace.root
    if kind != Provenance.LIVE or not hooks_changed_since(root, ctx.step.start_ref):
        return None
    try:  # the client writes the transcript to the session's end
        ended: float | None = timeline.path.stat().st_mtime
    except OSError:
        ended = None
    return replay_differs(root, None if ended is None else hooks_changed_after(root, ended))


def no_session(
    ctx: CheckContext, p: LiveParams, title: str, wanted: list[dict[str, Any]]
) -> CheckResult:
    """No session since the step began: say so, and name an older one of this workspace."""
    root = ctx.workspace.root
    found = f"no session under {participant_root(ctx) / 'projects'} whose cwd is {root}"
    entered = entered_at(ctx)
    try:
        older = find_sessions(root, root=participant_root(ctx)) if entered else []
    except OSError:
        older = []
    if older and entered and older[0].started:
        found = (
            f"your newest session here ({older[0].session_id}) began at "
            f"{older[0].started:%H:%M:%S}, before this step began ({entered:%H:%M:%S} UTC): "
            "the step reads only the sessions started since"
        )
    return CheckResult.failed(
        "no Claude Code session in this workspace since this step began",
        name=title,
        expected=f"a session started in {root} after the step began, in which: "
        + "; ".join(describe(w) for w in wanted),
        found=found,
        details={
            # The prompt ends its line: nothing glued to what a person copies.
            "fix": f"start claude in {root} (a new session) and {ask(p, None)}\n"
            "without model access: lab check --scripted"
        },
    )


def ask(p: LiveParams, want: dict[str, Any] | None) -> str:
    """What to ask Claude for the moment ``want`` (its own ``ask``), or for the whole step."""
    if want is not None and want.get("ask"):
        return str(want["ask"])
    return f"ask Claude: {p.prompt}" if p.prompt else "carry on with Claude"


def moment_missing(
    p: LiveParams,
    title: str,
    wanted: list[dict[str, Any]],
    count: int,
    views: list[Moment],
    at: list[int],
    timeline: Timeline,
    details: dict[str, Any],
) -> CheckResult:
    missing = wanted[count]
    after = views[at[-1] + 1 :] if at else views
    where = f"after {views[at[-1]].label}" if at else "anywhere in the session"
    instead = [v.shown() for v in after] or ["nothing more: the session ends there"]
    fix = (near_miss(after) if missing.get(SENSOR_RUN) else "") or not_held(after, missing)
    fix = fix or ask(p, missing)
    return CheckResult.failed(
        p.message or "the session does not do what the step asks yet",
        name=title,
        expected=f"moment {count + 1} of {len(wanted)}: {describe(missing)} ({where})",
        found=f"session {timeline.session_id} ({timeline.read_as}) did instead:\n  "
        + "\n  ".join(instead[:15]),
        details={**details, "missing": describe(missing), "fix": fix},
    )


def change_not_made(
    ctx: CheckContext,
    p: LiveParams,
    title: str,
    files: dict[str, tuple[str | None, str | None]],
    details: dict[str, Any],
) -> CheckResult | None:
    """The first file of ``changes`` the session's tool calls did not put its text into, on
    the replay's copy (walk-n: a read-only ``grep -c '<the line>' README.md`` carried the
    line in its input, and counted as the change)."""
    for rel, text in p.changes.items():
        before, after = files.get(rel, (None, None))
        if text not in (after or "") or text in (before or ""):
            already = text in (before or "")
            return CheckResult.failed(
                f"your session made no change to {rel}: "
                + (
                    f"it read {text!r} already when this step began"
                    if already
                    else f"replayed from this step's start, its tool calls leave no {text!r} "
                    "there (a command that only reads the file, such as grep, changes nothing)"
                ),
                name=title,
                expected=f"the session's own tool calls put {text!r} into {rel}",
                found=f"{rel} after the session's tool calls, replayed: "
                + ("has it, as before them" if already else f"no {text!r}"),
                details={
                    **details,
                    "fix": f"start claude in {ctx.workspace.root} and {ask(p, None)}"
                    + (f" (take the line out of {rel} first)" if already else ""),
                },
            )
    return None


def evidence_not_shown(
    ctx: CheckContext,
    p: LiveParams,
    title: str,
    problems: list[str],
    details: dict[str, Any],
    left: dict[str, str | None],
) -> CheckResult:
    """The session matched, but the workspace lacks what it should show now. When the session
    itself left a file otherwise (its replay's copy lacks the text too; walk-n, Lab 11 step 4:
    Done, then set back to Approved in the session), nothing changed since: the fix is a new
    session, not "put back". ``left``: each file of ``p.leaves`` as the replay left it."""
    again = f"start claude in {ctx.workspace.root} and {ask(p, None)}"
    own = [
        f"{rel} does not read {text} at the session's end either (Hook Lab's replay of the "
        "session leaves it otherwise): the session itself changed it so"
        for rel, text in p.leaves.items()
        if text not in _read(ctx.path(rel)) and text not in (left.get(rel) or text)
    ]
    if own:
        problems = [*problems, *own]
        leaves = " and ".join(f"{text} in {rel}" for rel, text in p.leaves.items())
        # The prompt ends the fix: what follows "ask Claude:" is a line to copy whole.
        fix = (
            "nothing changed since the session: the session itself left it so (see above). "
            f"Play the step again, the session ending with {leaves}: {again}"
        )
    elif any(problem.startswith(live_evidence.NOT_LEFT) for problem in problems):
        # walk-p: putting back gives the state the session left, another fail
        fix = f"play the step again, and let the session leave the file so: {again}"
    elif any(problem.startswith(DISAGREE) for problem in problems):
        # walk-q: nothing to put back; the run itself was not the sensors' own
        fix = (
            f"run {PLAIN_RUN} in a terminal as it is, fix what it names, take away what "
            f"changed the session's run (see above), then play the step again: {again}"
        )
    else:
        fix = (
            "put back what changed since the session (the found: lines say what), or play the "
            f"step again: {again}"
        )
    return CheckResult.failed(
        "the workspace does not show what the session claims",
        name=title,
        expected="the evidence the session's hooks write, and what it leaves",
        found="\n".join(problems),
        details={**details, "fix": fix},
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def older_did_more(
    missing: CheckResult, older: Judged | None, wanted: list[dict[str, Any]]
) -> CheckResult:
    """The newest session's failure, then an older session that came further, said after it
    (walk-n: the headline and the fix told of the older session, not of the one just played)."""
    if older is not None:
        count, timeline = older[0], older[1]
        did = "moment 1" if count == 1 else f"moments 1 to {count}"
        missing.found = (
            f"{missing.found}\nan older session here ({timeline.session_id}) came further: it "
            f"did {did} of the {len(wanted)}, then not moment {count + 1} "
            f"({describe(wanted[count])}); the step needs all {len(wanted)} in one session"
        )
    return missing


def with_cause(result: CheckResult, cause: LiveCause | None) -> CheckResult:
    """A failing result headed by the cause a person can act on, its fix the cause's; what
    the check found stays below."""
    if cause is None:
        return result
    result.details["cause"] = cause.headline
    result.details["fix"] = cause.fix
    result.found = f"{result.message}\n{result.found or ''}".strip()
    result.message = cause.headline
    return result
