"""The fixture's six hooks, each called with an event that makes it act.

Without a fault, each call acts: it blocks (exit 2), says something, or writes hook state in
the git directory. A fault test makes the same calls with the fault in place and expects the
hooks to fail open: exit 0, nothing said. ``session`` runs them in a real session's order, the
agent's own actions (a sed to Done) in between.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.builders import hook_event
from tests.hooks.hookrepo import SENSOR_COMMAND, clean_env, run_with_stdin

SPEC = "docs/use_cases/UC-005-add-visit.md"
COVERAGE_AGENT = "aiup-vaadin-jooq:uc-coverage"


def event(name: str, root: Path, **fields: Any) -> dict[str, Any]:
    """A hook input of this session: its id, and a transcript beside the project."""
    transcript = str(root.parent / "transcript.jsonl")
    return hook_event(name, root, session_id="reliability", transcript_path=transcript, **fields)


def agent_edits(root: Path) -> dict[str, str]:
    """The files ``session`` has the agent change, with the text they will hold after it."""
    return {SPEC: (root / SPEC).read_text().replace("**Status:** Approved", "**Status:** Done")}


def _sed_to_done(root: Path) -> None:
    spec = root / SPEC
    spec.write_text(spec.read_text().replace("**Status:** Approved", "**Status:** Done"))


def _agent_transcript(root: Path) -> Path:
    path = root.parent / "agent-transcript.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "Audit the coverage of UC-005"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "# UC-005\nEvery flow is covered."}],
                "stop_reason": "end_turn",
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@dataclass(frozen=True)
class HookCall:
    script: str
    event: dict[str, Any]
    # What the agent does just before this event (the sed that check-spec-status reports).
    agent: Callable[[Path], None] | None = None


def session(root: Path) -> list[HookCall]:
    """One call per hook, in the order a session fires them."""
    sed = f"sed -i 's/Approved/Done/' {SPEC}"
    return [
        HookCall("session-start.sh", event("SessionStart", root, source="startup")),
        HookCall(
            "guard-spec-status.sh",
            event(
                "PreToolUse",
                root,
                tool_name="Edit",
                tool_use_id="toolu_1",
                tool_input={
                    "file_path": str(root / SPEC),
                    "old_string": "**Status:** Approved",
                    "new_string": "**Status:** Done",
                    "replace_all": False,
                },
            ),
        ),
        HookCall(
            "record-sensor-run.sh",
            event(
                "PostToolUse",
                root,
                tool_name="Bash",
                tool_use_id="toolu_2",
                tool_input={"command": SENSOR_COMMAND, "description": "sensors"},
                tool_response={"stdout": "", "stderr": "", "interrupted": False},
            ),
        ),
        HookCall(
            "check-spec-status.sh",
            event(
                "PostToolUse",
                root,
                tool_name="Bash",
                tool_use_id="toolu_3",
                tool_input={"command": sed, "description": "mark done"},
                tool_response={"stdout": "", "stderr": "", "interrupted": False},
            ),
            agent=_sed_to_done,
        ),
        HookCall(
            "record-coverage-check.sh",
            event(
                "SubagentStop",
                root,
                stop_hook_active=False,
                agent_id="a1",
                agent_type=COVERAGE_AGENT,
                agent_transcript_path=str(_agent_transcript(root)),
                last_assistant_message="# UC-005\nEvery flow is covered.",
            ),
        ),
        HookCall(
            "require-sensors.sh",
            event("Stop", root, stop_hook_active=False, last_assistant_message="Done."),
        ),
    ]


@dataclass(frozen=True)
class HookResult:
    script: str
    returncode: int
    stdout: str
    stderr: str
    state_changed: bool  # hook state (aiup-*) in the git directory was written or removed

    @property
    def silent(self) -> bool:
        return (self.returncode, self.stdout, self.stderr) == (0, "", "") and not self.state_changed

    @property
    def acted(self) -> bool:
        return self.returncode != 0 or bool(self.stdout or self.stderr) or self.state_changed


def same_as(result: HookResult, want: HookResult, want_root: Path, root: Path) -> bool:
    """The same exit and output as ``want``, which ran in the workspace copy ``want_root``."""
    return (result.returncode, result.stdout, result.stderr) == (
        want.returncode,
        want.stdout.replace(str(want_root), str(root)),
        want.stderr.replace(str(want_root), str(root)),
    )


def quiet(result: HookResult) -> bool:
    """Exit 0 and nothing said (hook state may have been cleared: that is failing open too)."""
    return result.returncode == 0 and not result.stdout + result.stderr


def hook_state(git_dir: Path | None) -> dict[str, int]:
    if git_dir is None or not git_dir.is_dir():
        return {}
    stamps: dict[str, int] = {}
    for path in git_dir.glob("aiup-*"):
        for item in [path, *(path.rglob("*") if path.is_dir() else [])]:
            stamps[str(item)] = item.stat().st_mtime_ns
    return stamps


def call(
    root: Path,
    hook: HookCall,
    *,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    stdin_kind: str = "socket",
    hooks_dir: Path | None = None,
    git_dir: Path | None = None,
) -> HookResult:
    """Run one hook as Claude Code would (JSON over a Unix socket unless told otherwise)."""
    if hook.agent is not None:
        hook.agent(root)
    git_dir = git_dir if git_dir is not None else root / ".git"
    before = hook_state(git_dir)
    done: subprocess.CompletedProcess[str] = run_with_stdin(
        [str((hooks_dir or root / ".claude" / "hooks") / hook.script)],
        json.dumps(hook.event) if stdin is None else stdin,
        stdin_kind,
        cwd=root,
        env=env if env is not None else clean_env(CLAUDE_PROJECT_DIR=str(root)),
    )
    changed = hook_state(git_dir) != before
    return HookResult(hook.script, done.returncode, done.stdout, done.stderr, changed)


def call_all(root: Path, hooks: list[HookCall] | None = None, **kw: Any) -> Iterator[HookResult]:
    for hook in session(root) if hooks is None else hooks:
        yield call(root, hook, **kw)


def env_with(root: Path, **extra: str) -> dict[str, str]:
    env = clean_env(CLAUDE_PROJECT_DIR=str(root))
    env.update(extra)
    return env


def without_project_dir() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
