"""Why a participant's own session does not pass a live step, in words they can act on.

Each cause was seen on the real client (2.1.332): a session started in a subfolder runs none
of the workspace's hooks (the client reads ``.claude/settings.json`` of the folder it starts
in); an untrusted folder, or a client started without the project's settings, runs none
either; a plugin agent the client did not load is answered ``Agent type 'X' not found``; a
client of another version may record the same moments differently.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.claude.client.install import PINNED_VERSION
from harness.claude.recorded import SessionFile, Timeline

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
    if timeline.stops and not _hook_ran(timeline.path):
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
