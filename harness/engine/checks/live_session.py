"""``live_session``: the participant's own Claude Code session as a step's evidence.

The check reads the sessions the client recorded for this workspace since the step began
(harness/claude/recorded.py), newest first, and looks for one whose moments (its prompts, tool
calls and stops: harness/engine/moment.py) meet the expectations in order (do, outcome,
feedback_contains, detail_contains, …); a real model's extra calls may fall in between. Then:
- a transcript not shaped as the client writes one (harness/claude/recorded/shape.py), or a
  person's interactive session their client's prompt history does not know, fails
  (live_evidence.py, which also reads the workspace's evidence below);
- the session is replayed on the emulator from the step's start state, against the hooks as
  they are now: a recorded verdict the hooks do not reproduce fails, naming the transcript line
  (a hand-edited transcript does not pass);
- a marker an expectation names must be left, on that replay, by the moment it matched;
- the workspace's evidence must agree: the markers the expectations name exist, with
  ``session_start_state`` the hooks' record of the session's start dates from it, and with
  ``fresh_green_reports`` every sensor's report is green and newer than the session's start.

A participant without model access passes the step on the scripted session (``steps``, as a
hook_session check plays it), but only when asking for it: ``lab check --scripted``.
What a failing session says (its cause, fix and what to ask Claude) is live_failures.py's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.claude.recorded import (
    RecordedSessionError,
    SessionFile,
    Timeline,
    extract_digest,
    find_sessions,
    read_session,
)
from harness.claude.vocabulary import (
    AUTO,
    ENGINE_CHOICES,
    OUTCOMES,
    Engine,
    Provenance,
)
from harness.engine.checks import live_evidence
from harness.engine.checks.live_causes import started_elsewhere
from harness.engine.checks.live_evidence import entered_at, participant_root
from harness.engine.checks.live_failures import (
    ask,
    change_not_made,
    evidence_not_shown,
    hooks_now_differ,
    moment_missing,
    no_session,
    older_did_more,
    with_cause,
)
from harness.engine.checks.replay_causes import session_cause
from harness.engine.context import CheckContext, PassedClaim
from harness.engine.kinds import Worded, check_kind
from harness.engine.moment import Moment, match_in_order, moments_of
from harness.errors import ConfigError, HarnessError
from harness.results import CheckResult
from harness.schema import Field, check_table, item_path, param

# Where `lab solve` and `lab dev check` keep the sessions they play on the real client with
# the scripted model (a config directory of the client's own, inside the git directory).
SOLVED_SESSIONS = "hooklab/claude-sessions"
# The keys of one expected item: a call, prompt or stop of the transcript, matched in order.
EXPECT_FIELDS = (
    Field("do", str, doc="the step's kind, or any other tool's name in lowercase (read, grep)"),
    Field("outcome", str, choices=OUTCOMES, doc="the outcome the step had"),
    Field("feedback_contains", str, doc="what the hooks told Claude contains this"),
    Field("message_contains", str, doc="anything said (feedback, a message, a result)"),
    Field("detail_contains", str, doc="the step's detail (file, command, agent) contains this"),
    Field("input_contains", str, doc="the tool call's input, as JSON, contains this"),
    Field(
        "sensor_run",
        bool,
        doc="a Bash call whose command itself runs every sensor (./mvnw … test "
        "-Dgroups=sensor first, not echoed, not after another command)",
    ),
    Field("marker_exists", str, inside="the git directory", doc="hook state in .git exists"),
    Field(
        "let_go",
        bool,
        doc="a stop that went through right after a stop the hooks held, nothing done between "
        "(stop_hook_active: the hook let go, it found no proof); false: a stop the hooks allowed",
    ),
    Field("ended", str, doc="a subagent's end: normally, unknown or cut off (REASON)"),
    Field("foreground", bool, doc="the call ran in the foreground"),
    Field("ask", str, doc="what to tell Claude when the item is missing"),
)
EXPECT_KEYS = tuple(f.name for f in EXPECT_FIELDS)
LIVE, SCRIPTED, SOLVED = Provenance.LIVE, Provenance.SCRIPTED, Provenance.PLAYED
# The timeline's extract, kept with a passed claim (and sent by lab submit): never the
# transcript itself, the requests sent to the model or the environment attachments.
TIMELINE_FILE = "hooklab-live/timeline.json"


@dataclass(frozen=True, kw_only=True)
class LiveParams(Worded):
    """A ``live_session`` check's parameters, typed (``KIND.params`` is derived from them)."""

    title: str | None = param(default=None, doc="a short name for the session in results")
    prompt: str | None = param(default=None, doc="what the participant types into Claude Code")
    expect: list[dict[str, Any]] = param(
        doc=f"tables {{{', '.join(EXPECT_KEYS)}}} met in this order; other calls may "
        "come between; ask: what to tell Claude when it is missing"
    )
    fresh_green_reports: bool = param(
        default=False, doc="every sensor report green and newer than the session's start"
    )
    session_start_state: str | None = param(
        default=None,
        doc="what the hooks' SessionStart writes in the git dir: it must date from the "
        "session's own start, and every marker_exists from after it",
    )
    leaves: dict[str, str] = param(
        default={},
        doc="file -> text: what the session leaves in the workspace (walk-j: Done set, the "
        "sensors run, then set back to Approved)",
    )
    changes: dict[str, str] = param(
        default={},
        doc="file -> text: the session's own tool calls put the text into the file (on the "
        "replay's copy from the step's start it lacks the text before and has it after: a "
        "command that only reads the file is no change; walk-n, Lab 13 step 3)",
    )
    steps: list[Any] = param(
        default=[],
        doc="the scripted session (hook_session steps) lab check --scripted plays instead",
    )
    engine: str = param(default=AUTO, choices=ENGINE_CHOICES, doc="the scripted session's engine")


# -- the check -------------------------------------------------------------------------------


def _sessions(ctx: CheckContext) -> list[tuple[Path, str]]:
    """(transcript, kind) for this workspace's sessions since the step began, newest first.
    The sessions ran in the participant's workspace, even when the check runs on a copy."""
    found: list[tuple[float, Path, str]] = []
    after = entered_at(ctx)
    wanted = ctx.step.passed.session_id if ctx.step.passed else None
    roots = [participant_root(ctx), ctx.workspace.git_dir / SOLVED_SESSIONS]
    for n, root in enumerate(roots):
        for session in find_sessions(ctx.workspace.root, root=root, after=after):
            if wanted and session.session_id != wanted:
                continue
            stamp = session.started.timestamp() if session.started else 0.0
            found.append((stamp, session.path, LIVE if n == 0 else SOLVED))
    found.sort(key=lambda item: item[0], reverse=True)
    return [(path, kind) for _, path, kind in found]


def _sessions_elsewhere(ctx: CheckContext) -> list[SessionFile]:
    """The participant's sessions since the step began whose folder is not in the workspace
    (started in its parent, a sibling, the home): each would have run none of its hooks."""
    after = entered_at(ctx)
    if after is None:
        return []
    root = ctx.workspace.root.resolve()
    try:
        since = find_sessions(Path("/"), root=participant_root(ctx), after=after)
    except OSError:
        return []
    return [s for s in since if s.cwd and root not in (Path(s.cwd), *Path(s.cwd).parents)]


def _found_sessions(
    ctx: CheckContext, p: LiveParams, title: str, wanted: list[dict[str, Any]]
) -> list[tuple[Path, str]] | CheckResult:
    """The workspace's recorded sessions, or the failure when there is none to judge."""
    try:
        sessions = _sessions(ctx)
    except OSError as exc:
        return CheckResult.errored(f"cannot read Claude Code's sessions: {exc}", name=title)
    if sessions:
        return sessions
    elsewhere = _sessions_elsewhere(ctx)
    if elsewhere:
        return with_cause(
            no_session(ctx, p, title, wanted), started_elsewhere(elsewhere, ctx.workspace.root)
        )
    return no_session(ctx, p, title, wanted)


def run(ctx: CheckContext, p: LiveParams) -> CheckResult:
    title = p.title or "your Claude Code session"
    if ctx.scripted:
        return _scripted(ctx, p, title)
    wanted: list[dict[str, Any]] = list(p.expect)
    claim = ctx.step.passed
    if ctx.step.rebuild_evidence and claim and claim.evidence_commit:
        return _recheck_claim(ctx, claim, p, title, wanted)
    sessions = _found_sessions(ctx, p, title, wanted)
    if isinstance(sessions, CheckResult):
        return sessions
    judged = _best_session(sessions, wanted, title)
    if isinstance(judged, CheckResult):
        return judged
    (count, timeline, views, at, kind), older = judged
    details = _details(timeline, kind, views, at)
    hand_made = live_evidence.hand_made(ctx, title, timeline, details, ask=ask(p, None))
    if hand_made is not None:
        return hand_made
    # The replay comes first: a transcript edited by hand fails as what it is, wherever the
    # edit is, before its steps are matched.
    files: dict[str, tuple[str | None, str | None]] = {
        rel: (None, None) for rel in [*p.leaves, *p.changes]
    }
    divergence = _replayed(ctx, timeline, markers=_marked(wanted, views, at), files=files)
    left = {rel: end for rel, (_, end) in files.items()}
    # A cause the participant can act on is said first, with its fix, when the session fails.
    cause = session_cause(ctx, timeline, divergence, matched=count) if kind == LIVE else None
    if divergence:
        return with_cause(
            CheckResult.failed(
                "the recorded session does not replay: the hooks do not give a verdict it records",
                name=title,
                expected="every recorded verdict reproduced by the hooks on a replay",
                found=divergence,
                details=details,
            ),
            # Hooks ran (else a cause above says why): they answer otherwise now, when they
            # changed since the step began; else the transcript is what changed.
            cause or hooks_now_differ(ctx, kind, timeline),
        )
    if count < len(wanted):
        missing = moment_missing(p, title, wanted, count, views, at, timeline, details)
        return with_cause(older_did_more(missing, older, wanted), cause)
    unchanged = change_not_made(ctx, p, title, files, details)
    if unchanged is not None:
        return unchanged
    # Re-verification runs on a copy at the passed state, without today's reports and markers:
    # the replay alone re-checks the session there.
    if ctx.step.rebuild_evidence:
        problems = []
    else:
        problems = live_evidence.evidence(ctx, wanted, p, timeline, left)
    if problems:
        return evidence_not_shown(ctx, p, title, problems, details, left)
    said = "your own session" if kind == LIVE else "a session Hook Lab played on Claude Code"
    return CheckResult.passed(
        (p.pass_message or "the session did what the step asks") + f" ({said}, "
        f"{timeline.read_as}, replayed)",
        name=title,
        details=details,
        evidence={TIMELINE_FILE: _extract_bytes(timeline, at)},
    )


# A session judged: how many expectations it met, its timeline, moments, the matched ones, kind.
Judged = tuple[int, Timeline, list[Moment], list[int], str]


def _best_session(
    sessions: list[tuple[Path, str]], wanted: list[dict[str, Any]], title: str
) -> tuple[Judged, Judged | None] | CheckResult:
    """The session judged, and an older one said after it: the newest that meets all the
    expectations (none older); else the newest readable (what the person just did: its cause
    and fix are the ones to say), with the older session that met most, when it met more."""
    newest: Judged | None = None
    older: Judged | None = None
    unreadable: list[str] = []
    for path, kind in sessions:
        try:
            timeline = read_session(path)
        except RecordedSessionError as exc:
            unreadable.append(exc.message)
            continue
        views = moments_of(timeline)
        count, at = match_in_order(wanted, views)
        if count == len(wanted):
            return (count, timeline, views, at, kind), None
        if newest is None:
            newest = (count, timeline, views, at, kind)
        elif count > max(newest[0], older[0] if older else -1):
            older = (count, timeline, views, at, kind)
    if newest is None:
        return CheckResult.failed(
            "this workspace's Claude Code sessions cannot be read",
            name=title,
            found="\n".join(unreadable[:3]),
        )
    return newest, older


def _extract_bytes(timeline: Timeline, keep: list[int]) -> bytes:
    """The extract kept with a claim: capped, the entries the expectations matched kept."""
    return json.dumps(timeline.to_json(keep), sort_keys=True, indent=1).encode()


def _claimed_extract(
    ctx: CheckContext, claim: PassedClaim, title: str
) -> tuple[bytes, dict[str, Any]] | CheckResult:
    """The timeline extract a claim's evidence commit carries (its bytes and its JSON), or the
    failure that says why there is none."""
    from dulwich.objects import Commit

    from harness.workspace.snapshot import read_blob

    try:
        commit = ctx.workspace.repo[str(claim.evidence_commit).encode()]
    except KeyError:
        commit = None
    data = (
        read_blob(ctx.workspace.repo, commit.tree, TIMELINE_FILE)
        if isinstance(commit, Commit)
        else None
    )
    if data is None:
        return CheckResult.failed(
            "the claim carries no session timeline", name=title, found=f"no {TIMELINE_FILE}"
        )
    try:
        extract = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):  # too deep: not ours
        extract = None
    if not isinstance(extract, dict):
        return CheckResult.failed(
            "the claim's session timeline is not a JSON object: it was edited", name=title
        )
    return data, extract


def _recheck_claim(
    ctx: CheckContext,
    claim: PassedClaim,
    p: LiveParams,
    title: str,
    wanted: list[dict[str, Any]],
) -> CheckResult:
    """Re-verification (lab trainer verify, a completed lab): the claim carries the timeline's
    extract, not the transcript; its calls must replay, its digest must be the recorded one and
    its steps must meet the expectations."""
    from harness.claude.recorded import extract_digest, from_extract, left_out_warning

    claimed = _claimed_extract(ctx, claim, title)
    if isinstance(claimed, CheckResult):
        return claimed
    data, extract = claimed
    timeline = from_extract(extract, Path(TIMELINE_FILE))
    views = moments_of(timeline)
    count, at = match_in_order(wanted, views)
    details = _details(timeline, LIVE, views, at)
    # The replay comes first, as for a transcript: an edited verdict fails naming its line,
    # whether or not the forger also rewrote the digests the claim keeps. An extract that
    # left entries out replays without them. When only read-only calls were left out, every
    # kept verdict must still agree; when calls that change the workspace were left out too,
    # only the verdicts the step rests on (the matched entries), since the others may depend
    # on what is missing.
    rests_on = {timeline.entries[i].line for i in at} if timeline.changing_left_out else None
    divergence = _replayed(ctx, timeline, only_lines=rests_on)
    recorded_digest = claim.digest
    submitted_digest = extract_digest(extract)
    if submitted_digest != recorded_digest:
        return CheckResult.failed(
            "the claim's session timeline was edited: its digest is not the recorded one"
            + (", and it does not replay" if divergence else ""),
            name=title,
            expected=f"a timeline whose digest is {recorded_digest}",
            found=divergence or f"a timeline whose digest is {submitted_digest}",
            details=details,
        )
    if divergence:
        return CheckResult.failed(
            "the claimed session does not replay: the hooks do not give a verdict it records",
            name=title,
            expected="every recorded verdict reproduced by the hooks on a replay",
            found=divergence,
            details=details,
        )
    if count < len(wanted):
        return moment_missing(p, title, wanted, count, views, at, timeline, details)
    left_out = (
        f" ({left_out_warning(extract)}; the replay played the {len(timeline.entries)} kept "
        f"and compared the {len(at)} the step rests on)"
        if timeline.left_out
        else ""
    )
    # What a replay cannot show is said, not implied: the participant's machine checked that
    # their client's history knows the session (live_evidence); the claim carries no history.
    details["not_proven"] = (
        "that Claude Code ran this session in the participant's workspace: a replay checks "
        "the recorded tool calls against the hooks, and a real transcript moved from "
        "elsewhere replays the same"
    )
    return CheckResult.passed(
        f"the claimed live session ({timeline.read_as}, "
        f"session {timeline.session_id or 'unknown'}) replays from its start state and does "
        f"what the step asks{left_out}; a replay does not show that the client ran it there",
        name=title,
        details=details,
        evidence={TIMELINE_FILE: data},
    )


def _details(timeline: Timeline, kind: str, views: list[Moment], keep: list[int]) -> dict[str, Any]:
    extract = timeline.to_json(keep)
    left = extract.get("left_out")
    return {
        "evidence_kind": kind,
        # answered by Hook Lab's scripted model (its message ids), not by a real one
        "scripted_model": timeline.scripted_model,
        "session_id": timeline.session_id,
        "client_version": timeline.client_version,
        "timeline_digest": extract_digest(extract),
        "transcript": str(timeline.path),
        "engine": Engine.CLAUDE_CODE,
        "timeline": extract,
        # entries the extract left out (EXTRACT_ENTRY_CAP); 0 when it holds them all
        "timeline_left_out": left["entries"] if isinstance(left, dict) else 0,
        "session_steps": [v.shown() for v in views][:200],
    }


def _marked(wanted: list[dict[str, Any]], views: list[Moment], at: list[int]) -> dict[int, str]:
    """The transcript line of each matched moment that should leave a marker, and the marker."""
    lines = {}
    for want, index in zip(wanted, at, strict=False):
        label = views[index].label.removeprefix("transcript line ")
        if want.get("marker_exists") and label.isdigit():
            lines[int(label)] = str(want["marker_exists"])
    return lines


def _replayed(
    ctx: CheckContext,
    timeline: Timeline,
    only_lines: set[int] | None = None,
    markers: dict[int, str] | None = None,
    files: dict[str, tuple[str | None, str | None]] | None = None,
) -> str:
    """The replay's first divergence ("" when it agrees); with ``only_lines``, the first at
    one of those transcript lines. ``markers``: the marker each of those transcript lines
    must leave in the replay's copy, played through the hooks (not made by a person).
    ``files``: its keys, workspace files, get their text at the replay's start and end."""
    from harness.engine.session_replay import replay

    start = ctx.step.start_ref
    ctx.on_activity("replaying the session's tool calls against the hooks (Hook Lab's replay)")
    wanted = markers or {}
    try:
        report = replay(
            timeline,
            ctx.root,
            engines=[Engine.EMULATOR],
            start=start,
            markers=sorted(set(wanted.values())),
            files=list(files or {}),
        )
    except HarnessError as exc:
        return f"the replay could not run: {exc.message}"
    if files is not None:
        files.update(report.files.get(Engine.EMULATOR, {}))
    for row in report.rows:
        marker = wanted.get(row.line)
        if marker and marker not in row.markers.get(Engine.EMULATOR, {marker}):
            return (
                f"transcript line {row.line} ({row.what}): on the replay, through the hooks, it "
                f"leaves no .git/{marker}; the marker in the workspace was not made by them"
            )
    return report.describe_divergence(only_lines)


def _scripted(ctx: CheckContext, p: LiveParams, title: str) -> CheckResult:
    from harness.engine.checks import hook_session

    if not p.steps:
        return CheckResult.errored("this live step has no scripted session", name=title)
    table: dict[str, Any] = {
        "steps": p.steps,
        "engine": p.engine,
        "message": p.message,
        "pass_message": p.pass_message,
    }
    # The title says which engine played the session: the participant's progress says
    # "scripted", and the row says whether the emulator or the real client stood in for them.
    try:
        engines = hook_session.session_engines(ctx, hook_session.KIND.build(table))
    except HarnessError:
        engines = []  # the session cannot start; the run below says why
    played_on = " and ".join(Engine(e).label for e in engines)
    table["title"] = f"{title} (scripted on {played_on})" if played_on else f"{title} (scripted)"
    result = hook_session.run(ctx, hook_session.KIND.build(table))
    result.details["evidence_kind"] = SCRIPTED
    return result


def _tables(p: LiveParams, path: object, where: str) -> None:
    """The expected items, each field against its schema, and the scripted session's steps."""
    from harness.engine.checks.hook_session import parse_inline

    for i, want in enumerate(p.expect):
        here = item_path(f"{where}.expect", i)
        check_table(want, EXPECT_FIELDS, path=path, where=here)
        if not want:
            raise ConfigError(path, here, "an empty item matches any step", fix=_EXPECT_FIX)
    if p.steps:
        parse_inline(p.steps, path, where)


_EXPECT_FIX = 'name what to match, e.g. { do = "stop", outcome = "blocked" }'


KIND = check_kind(
    "live_session",
    "the participant's own Claude Code session, read from its transcript and replayed",
    run,
    slow=lambda p: True,
    tables=_tables,
)
