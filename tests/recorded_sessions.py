"""Sessions played on the real, pinned Claude Code client (scripted model), so every transcript
a test reads was written by the real client. Tampered copies are made from these.

Each session is a list of calls on the engines' session interface; ``play`` runs one in a
workspace with its own config directory (the client writes the transcript there, never into
the real ``~/.claude``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.claude.client.api import Reply

UC5 = "docs/use_cases/UC-005-add-visit.md"
UC2 = "docs/use_cases/UC-002-edit-owner.md"
APPROVED, DONE = "**Status:** Approved", "**Status:** Done"
AUDITOR = "aiup-vaadin-jooq:uc-coverage"
AUDIT_PROMPT = (
    "Audit the coverage of UC-005 (docs/use_cases/UC-005-add-visit.md) against the code and "
    "the tests."
)
AUDIT_REPORT = (
    "# Coverage report: UC-005\n\nThe main scenario, A1 to A3 and BR-001 to BR-003 each have "
    "a test.\ncovered"
)
SENSORS = "./mvnw -q test -Dgroups=sensor"
ASK_DONE = "UC-005 (Add Visit) is implemented and tested. Set it to Done."
ASK_NOTE = 'Add the line "Tried in lab 07." to NOTES.md, then tell me you are done.'

Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def call(name: str, *args: Any, **kw: Any) -> Call:
    """One call of a session: ``call("edit", UC5, APPROVED, DONE)``."""
    return (name, args, kw)


SESSIONS: dict[str, list[Call]] = {
    # Lab 11 step 4 as a participant's session would go: refused, audited, accepted, sensors, stop.
    "earn-done": [
        call("prompt", ASK_DONE),
        call("edit", UC5, APPROVED, DONE),
        call("subagent_stop", AUDITOR, AUDIT_PROMPT, AUDIT_REPORT),
        call("edit", UC5, APPROVED, DONE),
        call("bash", SENSORS),
        call("stop", "UC-005 is Done: audited, and all five sensors are green."),
    ],
    # walk-l: Done earned, then set back to Approved in the session, the sensors, the stop
    # (the person types Done in by hand afterwards).
    "done-then-back": [
        call("prompt", ASK_DONE),
        call("edit", UC5, APPROVED, DONE),
        call("subagent_stop", AUDITOR, AUDIT_PROMPT, AUDIT_REPORT),
        call("edit", UC5, APPROVED, DONE),
        call("edit", UC5, DONE, APPROVED),
        call("bash", SENSORS),
        call("stop", "UC-005 is Approved again; the sensors are green."),
    ],
    # The same request without the audit: refused twice, and Claude gives up.
    "no-audit": [
        call("prompt", ASK_DONE),
        call("edit", UC5, APPROVED, DONE),
        call("edit", UC5, APPROVED, DONE),
        call("stop", "The hook refuses the change; UC-005 stays Approved."),
    ],
    # A sed through Bash sets a Status: check-spec-status.sh reports it; the stop is held once.
    "sed-reported": [
        call("prompt", "Mark UC-002 done quickly."),
        call("bash", f"sed -i 's/Status:\\*\\* Approved/Status:** Done/' {UC2}"),
        call("write", "docs/notes.md", "UC-002 marked.\n"),
        call("stop", "done"),
        call("stop", "done, really"),
    ],
    # A change without a sensor run: the Stop hook blocks, then lets go on stop_hook_active.
    "stop-blocked": [
        call("prompt", "Add a note to the docs."),
        call("write", "docs/notes.md", "A note.\n"),
        call("stop", "Added the note."),
        call("stop", "Added the note, as asked."),
        call("prompt", "Thanks. Anything else?"),
        call("stop", "No."),
    ],
    # Lab 07 step 4: a small change outside src/ and docs/, the stop held, the next let go.
    "small-change": [
        call("prompt", ASK_NOTE),
        call("write", "NOTES.md", "Tried in lab 07.\n"),
        call("stop", "Done: NOTES.md has the line."),
        call("stop", "Done: NOTES.md has the line."),
    ],
    # Tools beside Edit, Write and Bash: a Read that runs (the match-all PostToolUse group runs
    # for it), a Read of a missing file (PostToolUseFailure), and Grep, Glob and MultiEdit,
    # which the pinned client does not offer: "No such tool available", and no hook runs.
    "other-tools": [
        call("prompt", "Which status has UC-005?"),
        call("tool", "Read", {"file_path": UC5}),
        call("tool", "Grep", {"pattern": "Status", "path": "docs"}),
        call("tool", "Glob", {"pattern": "docs/**/*.md"}),
        call(
            "tool",
            "MultiEdit",
            {
                "file_path": UC5,
                "edits": [{"old_string": APPROVED, "new_string": DONE}],
            },
        ),
        call("tool", "Read", {"file_path": "docs/no-such-file.md"}),
        call("stop", "UC-005 is Approved."),
    ],
    # Only the audit: a subagent run that ends normally, then the stop.
    "audit-only": [
        call("prompt", "Is UC-005 covered?"),
        call("subagent_stop", AUDITOR, AUDIT_PROMPT, AUDIT_REPORT),
        call("stop", "Yes, UC-005 is covered."),
    ],
}


@dataclass(frozen=True)
class Played:
    name: str
    workspace: Path
    config_dir: Path
    transcript: Path


def play(name: str, workspace: Path, config_dir: Path) -> Played:
    """Play session ``name`` on the real client in ``workspace``; the transcript stays in
    ``config_dir``."""
    return Played(name, workspace, config_dir, play_calls(workspace, config_dir, SESSIONS[name]))


def play_calls(workspace: Path, config_dir: Path, calls: list[Call]) -> Path:
    """``calls`` (a session's method, its arguments and keywords) played on the real client in
    ``workspace`` after its session start; the transcript, kept in ``config_dir``."""
    from harness.claude.engines import open_session

    with open_session("claude-code", workspace, transcript_dir=config_dir) as session:
        session.session_start()
        for method, args, kw in calls:
            action: Callable[..., Any] = getattr(session, method)
            action(*args, **kw)
        transcript: Path = session.transcript_path
    return transcript


def audit_turns(root: Path) -> tuple[Reply, Reply]:
    """Claude's Edit of UC-005's Status and its call of the audit agent (a scripted model's
    replies, Lab 11 step 4)."""
    edit = {"file_path": str(root / UC5), "old_string": APPROVED, "new_string": DONE}
    agent = {"description": "audit UC-005", "prompt": AUDIT_PROMPT, "subagent_type": AUDITOR}
    return Reply.tool_use("toolu_1", "Edit", edit), Reply.tool_use("toolu_2", "Agent", agent)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_lines(path: Path, entries: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))


def copy_workspace_into(workspace: Path, parent: Path) -> Path:
    """A copy of ``workspace`` (.git and links kept) at ``parent``/ws, to play or check in."""
    root = parent / "ws"
    shutil.copytree(workspace, root, symlinks=True)
    return root


def copy_session(played: Played, into: Path) -> Path:
    """The transcript (and its subagents' files) copied under ``into``/projects/DIR/."""
    target = into / "projects" / played.transcript.parent.name
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(played.transcript, target / played.transcript.name)
    side = played.transcript.with_suffix("")
    if side.is_dir():
        shutil.copytree(side, target / side.name, dirs_exist_ok=True)
    return target / played.transcript.name


def accepted_copy(played: Played, into: Path) -> tuple[Path, int]:
    """A tampered copy: the first refused Edit's result rewritten to read as accepted.
    Returns the copy and the line number that was changed."""
    path = copy_session(played, into)
    entries = lines(path)
    for number, entry in enumerate(entries, start=1):
        content = (entry.get("message") or {}).get("content")
        if entry.get("type") != "user" or not isinstance(content, list):
            continue
        for block in content:
            text = str(block.get("content", "")) if isinstance(block, dict) else ""
            if text.startswith("PreToolUse:Edit hook error:"):
                block["content"] = (
                    f"The file {played.workspace}/{UC5} has been updated successfully."
                )
                block.pop("is_error", None)
                entry["permissionDecision"] = {"decision": "accept", "source": "config"}
                entry.pop("toolDenialKind", None)
                write_lines(path, entries)
                return path, number
    raise AssertionError(f"{played.name}: no refused Edit to tamper with")
