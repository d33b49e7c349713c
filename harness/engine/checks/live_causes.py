"""Why a participant's own session does not pass a live step, in words they can act on.

Each cause was seen on the real client (2.1.332): a session started in a subfolder runs none
of the workspace's hooks (the client reads ``.claude/settings.json`` of the folder it starts
in); an untrusted folder, or a client started without the project's settings, runs none
either; a plugin agent the client did not load is answered ``Agent type 'X' not found``; a
client of another version may record the same moments differently. The client's permission
mode may refuse a call before any hook sees it: auto mode's check, which through another
base URL than Anthropic's can have no usable answer ("Not run · auto mode's check had no
usable answer"), or the person's No to "Do you want to proceed?". An agent runs in the
background and hands its report back before it ends; its SubagentStop hooks run at its end,
so an edit Claude makes in between meets the hooks as if no agent had run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.claude.client.install import PINNED_VERSION
from harness.claude.recorded import AUTO_MODE_CHECK, USER, SessionFile, Timeline, ToolCall
from harness.claude.vocabulary import Outcome, StepKind, Verdict
from harness.engine.moment import Moment
from harness.engine.sensor_run import why_no_sensor_run

AGENT_NOT_FOUND = re.compile(r"Agent type '([^']+)' not found")
TRUST_FIX = (
    "start claude in {root} and answer 'Yes, I trust this folder' (trusting loads the "
    "workspace's hooks and its plugin); then do the step again"
)
PLUGIN_FIX = (
    "quit Claude Code and start claude again in {root}: the first trusted session registers "
    "the workspace's plugin marketplace (.claude/plugins), and a session started after that "
    "lists aiup-vaadin-jooq:uc-coverage (lab doctor says whether it is ready)"
)


@dataclass(frozen=True)
class LiveCause:
    headline: str
    fix: str


def _hook_ran(path: Path) -> bool:
    """Whether the transcript shows any hook of the project running (a hook attachment, a
    hook's progress, a stop summary that counted hooks, hook feedback)."""
    try:
        with path.open("rb") as lines:
            for raw in lines:
                if b"hook" not in raw:
                    continue
                try:
                    entry = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(entry, dict) and _shows_a_hook(entry):
                    return True
    except OSError:
        return True  # unreadable here: say nothing rather than a wrong cause
    return False


def _shows_a_hook(entry: dict[str, Any]) -> bool:
    attachment = entry.get("attachment")
    if isinstance(attachment, dict) and str(attachment.get("type", "")).startswith("hook_"):
        return True
    if entry.get("subtype") == "stop_hook_summary" and (entry.get("hookCount") or 0) > 0:
        return True
    data = entry.get("data")
    if isinstance(data, dict) and data.get("type") == "hook_progress":
        return True
    return "hook error:" in json.dumps(entry.get("message", ""))


def _hook_verdict(timeline: Timeline) -> bool:
    """The session records a hook's answer (a stop held, a call refused or reported): its
    hooks ran, whatever else it lacks; a replay that differs from it has another cause."""
    return bool(
        timeline.decisions
        or timeline.blocked_stops
        or any(call.refused_by for call in timeline.tool_calls)
    )


def replay_differs(root: Path, changed_after: list[str] | None = None) -> LiveCause:
    """The session's hooks answered one way and the hooks now, on a replay from the state the
    step began in, another: a hook that names the workspace's own path (it tells the folder
    from the replay's copy; walk-i), a hook that answers on what the replay gives otherwise
    (no hook file changed after the session: walk-m, Lab 07 step 4), or a hook (or what it
    reads) changed since the session. ``changed_after``: the hook files changed after the
    session's end (None: not known)."""
    pinned = _naming_the_path(root)
    if pinned:
        return LiveCause(
            f"{pinned} names this workspace's own path ({root}): it answers one way here and "
            "another in the copy Hook Lab replays your session on",
            'find the project with "$CLAUDE_PROJECT_DIR" instead of the path, then play the '
            f"session again (start claude in {root} and do the step again)",
        )
    if changed_after == []:
        return LiveCause(
            "your hooks answer differently on Hook Lab's replay than in your session, and no "
            "hook file changed after it: a hook answers on something the replay gives "
            "otherwise, its input (transcript_path, session_id, cwd) or its environment "
            '(settings.json "env", PATH), not only on the workspace\'s files',
            "run the hook by hand as Claude Code runs it, in the workspace, with the input of "
            "the stop the found: lines name, and again with another transcript_path; make it "
            "answer on the workspace's files alone, then play the session again (start claude "
            f"in {root} and do the step again)",
        )
    named = f" ({', '.join(changed_after[:3])})" if changed_after else ""
    return LiveCause(
        "your hooks now answer differently than they did in your session (the found: lines "
        f"say where): a hook, the settings or what they read changed after the session{named}",
        f"keep the hooks as they are now and play the session again (start claude in {root} "
        "and do the step again), or put back what you changed since",
    )


def _naming_the_path(root: Path) -> str:
    """The first hook script (.claude/hooks, scripts) whose text holds the workspace's path."""
    for folder in (root / ".claude" / "hooks", root / "scripts"):
        for script in sorted(folder.glob("*.sh")) if folder.is_dir() else ():
            try:
                if str(root) in script.read_text(errors="replace"):
                    return str(script.relative_to(root))
            except OSError:
                continue
    return ""


def diagnose(timeline: Timeline, root: Path, *, matched: int) -> LiveCause | None:
    """The first cause that explains a failing live session, or None. A client version Hook
    Lab does not know is the cause only when nothing of the session matched (its transcript
    may not read as ours); otherwise what is missing is said as usual."""
    if timeline.cwd and Path(timeline.cwd) != root:
        try:
            where = str(Path(timeline.cwd).relative_to(root))
        except ValueError:
            where = timeline.cwd
        return LiveCause(
            f"your session ran in {where}, not in the workspace root: Claude Code reads the "
            "workspace's hooks only in the folder it starts in, so none of them ran",
            f"start claude in the workspace root: cd {root} && claude; then do the step again",
        )
    for call in timeline.tool_calls:
        found = AGENT_NOT_FOUND.search(call.result_text) if call.is_error else None
        if found:
            return LiveCause(
                f"Claude Code did not have the agent {found.group(1)} (transcript line "
                f"{call.line}): the "
                "workspace's plugin aiup-vaadin-jooq was not loaded in that session",
                PLUGIN_FIX.format(root=root),
            )
    refused = next((c for c in timeline.tool_calls if c.denied in (AUTO_MODE_CHECK, USER)), None)
    if refused is not None:
        return mode_refused(refused, root, timeline.cwd)
    early = edited_before_agent_end(timeline)
    if early is not None:
        return early
    if timeline.stops and not _hook_verdict(timeline) and not _hook_ran(timeline.path):
        return LiveCause(
            "no hook of the workspace ran in your session: Claude Code did not load them "
            "(an untrusted folder, or a session started with other settings)",
            TRUST_FIX.format(root=root),
        )
    if timeline.other_version and matched == 0:
        return LiveCause(
            f"your session was recorded by Claude Code {timeline.client_version}, a version "
            f"Hook Lab does not know (it reads {PINNED_VERSION}): its transcript may record the "
            "hooks' answers differently",
            "lab doctor --prove-client shows which hooks hold on your claude; or install the "
            f"pinned one (npm install -g @anthropic-ai/claude-code@{PINNED_VERSION}) and do the "
            "step again",
        )
    return None


def started_elsewhere(sessions: list[SessionFile], root: Path) -> LiveCause:
    """No session in the workspace since the step began, but one (the newest of ``sessions``)
    in another folder: Claude Code loads the settings, hooks and plugin of the folder it
    starts in, so that session ran none of the workspace's."""
    newest = sessions[0]
    when = f" at {newest.started:%H:%M:%S} UTC" if newest.started else ""
    return LiveCause(
        f"your session since this step began ran in {newest.cwd}{when}, outside the workspace: "
        "Claude Code loads the hooks of the folder it starts in, so none of the workspace's ran",
        f"start claude in the workspace root: cd {root} && claude; then do the step again",
    )


def _called(call: ToolCall, cwd: str) -> str:
    """A call as a person knows it: ``Agent (aiup-vaadin-jooq:uc-coverage)``, ``Bash (ls)``,
    ``Edit (docs/use_cases/UC-005-add-visit.md)``: a file inside the session's folder relative."""
    i = call.input
    detail = str(i.get("subagent_type") or i.get("file_path") or i.get("command") or "")
    if i.get("file_path") and cwd and detail.startswith(cwd.rstrip("/") + "/"):
        detail = detail[len(cwd.rstrip("/")) + 1 :]
    detail = " ".join(detail.split())[:60]
    return f"{call.name} ({detail})" if detail else call.name


# The pinned client's own questions (2.1.332): an edit asks "Do you want to make this edit to
# NAME?", a command "Do you want to proceed?" (walk h saw the first, not the second, in manual
# mode, where the audit agent itself ran without a question).
EDIT_QUESTION = "Do you want to make this edit to {name}?"
COMMAND_QUESTION = "Do you want to proceed?"
MANUAL_FIX = (
    "start claude in {root} as `claude --permission-mode manual` (it asks you before a call "
    "instead of asking auto mode's check) and answer Yes each time it asks ('"
    + EDIT_QUESTION.format(name="…")
    + f"' before an edit, '{COMMAND_QUESTION}' before a command); then do the step again"
)


def answer_yes(call: ToolCall) -> str:
    """Answer Yes to what the client asked before ``call``, in its own words where known."""
    path = str(call.input.get("file_path") or "")
    if call.name in ("Edit", "MultiEdit") and path:
        return f"answer Yes to '{EDIT_QUESTION.format(name=Path(path).name)}'"
    if call.name == "Bash":
        return f"answer Yes to '{COMMAND_QUESTION}'"
    return "answer Yes when it asks before that call"


def mode_refused(call: ToolCall, root: Path, cwd: str) -> LiveCause:
    """A call the client's permission mode refused before it ran: no hook saw it."""
    where = f"{_called(call, cwd)} call (transcript line {call.line})"
    if call.denied == USER:
        return LiveCause(
            f"Claude Code asked before Claude's {where} and the answer was No: the tool never "
            "ran, so the step's hooks never saw it",
            f"start claude in {root} again, give it the step's prompt and {answer_yes(call)}; "
            "then do the step again",
        )
    said = (
        "its safety check had no usable answer (the screen said 'Not run · auto mode's check "
        "had no usable answer'), which happens when Claude Code reaches the model through "
        "another address than Anthropic's (a gateway, a proxy)"
        if "no-verdict" in call.denial or not call.denial
        # The client's own words, not its reason code (walk-j: "(classifier:auto-mode)").
        else "its safety check judged the call too risky (the screen said 'Blocked by auto "
        "mode · /permissions to review')"
    )
    return LiveCause(
        f"Claude Code's auto mode refused Claude's {where} before it ran: {said}; no hook "
        "saw the call",
        MANUAL_FIX.format(root=root),
    )


def edited_before_agent_end(timeline: Timeline) -> LiveCause | None:
    """A call a hook refused while a background agent was still running (after its call,
    before the client recorded its end), that Claude did not make again after the end: the
    agent's SubagentStop hooks had not run yet."""
    calls = timeline.tool_calls
    for agent in calls:
        run = agent.subagent
        if run is None or run.ended_line is None:
            continue
        ended = run.ended_line
        for call in calls:
            if not (agent.line < call.line < ended and call.refused_by):
                continue
            again = [c for c in calls if c.line > ended and c.name == call.name and c.ran]
            if any(c.input.get("file_path") == call.input.get("file_path") for c in again):
                continue
            description = str(agent.input.get("description") or run.agent_type)
            what = "edit" if call.name in ("Edit", "Write", "MultiEdit") else "call"
            return LiveCause(
                f"Claude's {_called(call, timeline.cwd)} at transcript line {call.line} came "
                f"while the agent {run.agent_type} was still running, so {call.refused_by} "
                f"refused it again: the agent runs in the background, its report can come "
                f"before its end, and its SubagentStop hooks run only at its end (line {ended})",
                f"in that session, once Claude Code shows 'Agent \"{description}\" finished', "
                f"tell Claude to make the {what} again (the session over? start claude again "
                "and give it the step's prompt: the moments count within one session)",
            )
    return None


def near_miss(after: list[Moment]) -> str:
    """A sensor run Claude made that does not count, and why, as the fix: "in the foreground"
    named the wrong trouble for ``./mvnw …; bash putgreen.sh`` (walk g, Lab 03 step 3)."""
    for moment in after:
        if moment.do == StepKind.BASH and moment.runs_sensors and moment.failed:
            return (  # walk-k: "run it in the foreground" under a run that was just that
                f"Claude's sensor run at {moment.label} was red: fix what it names (lab sensors "
                "--no-run shows it), then ask Claude to run ./mvnw -q test -Dgroups=sensor again"
            )
        why = why_no_sensor_run(moment.detail) if moment.do == StepKind.BASH else ""
        if why:
            shown = " ".join(moment.detail.split())
            return (
                f"Claude's command at {moment.label} (`{shown}`) is no sensor run: {why}; "
                "tell Claude: run ./mvnw -q test -Dgroups=sensor on its own, nothing after it"
            )
    return ""


_SCRIPT = re.compile(r"[\w./-]*[\w-]\.sh")


def not_held(after: list[Moment], missing: dict[str, Any]) -> str:
    """A stop came, but the step's own hook did not hold it (walk-k, Lab 07 step 4: the fix
    asked for a stop Claude had made): run the hook as Claude Code does, by hand. Another hook
    that held it is named (walk-n, Lab 13 step 3: always-hold.sh held, and the fix asked for
    the change the person had just asked for)."""
    found = _SCRIPT.search(str(missing.get("feedback_contains") or ""))
    wants_held = missing.get("do") == StepKind.STOP and missing.get("outcome") == Outcome.BLOCKED
    stop = next((m for m in after if m.do == StepKind.STOP), None)
    if not (wants_held and found) or stop is None:
        return ""
    script = found.group().removeprefix("./")
    by_hand = (
        f"run it as Claude Code does, in the workspace, while the claim does not hold: echo "
        f"'{{}}' | CLAUDE_PROJECT_DIR=$PWD ./{script}; echo $? (it should give its reason and 2)"
        if "/" in script
        else f"run {script} by hand as Claude Code runs it, while the claim does not hold"
    )
    held_by = f"{Verdict.BLOCKED_BY} "
    others = stop.verdict.removeprefix(held_by) if stop.verdict.startswith(held_by) else ""
    if others and script.rsplit("/", 1)[-1] in others:
        return ""  # it held, for another reason than the step's: the step's ask says which
    if others:
        return (
            f"Claude stopped at {stop.label} and {others} held it, not {script}: the step's "
            f"hook let that stop go, and only its hold counts. To see why, {by_hand}; then "
            "play the step again"
        )
    return f"Claude stopped at {stop.label} and {script} did not hold it: {by_hand}"
