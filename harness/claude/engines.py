"""The two engines a scripted session can run on, behind one interface.

``emulator``: the embedded runtime (``session.Session``): hooks run for real, Claude Code's
rules are imitated, no Node needed. ``claude-code``: the real, pinned client
(``client.session.ClaudeCodeSession``). ``auto`` picks the real client when it is installed.
Both take the same arguments and return the same ``StepOutcome`` per step.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from harness.claude.runner import HookRun
from harness.claude.session import PayloadSink, Session
from harness.claude.settings import Settings
from harness.claude.vocabulary import AUTO, ENGINE_CHOICES, ENGINES, Engine
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.claude.client.session import ClaudeCodeSession

# Kept as names of their own: engine code reads better with the two spelled out.
EMULATOR = Engine.EMULATOR
CLAUDE_CODE = Engine.CLAUDE_CODE


# What scenarios, lab checks and the grader use: a session on either engine. A union, not a
# protocol of its own, so that mypy checks each use against both engines' real signatures.
ScriptedSession: TypeAlias = "Session | ClaudeCodeSession"


def resolve_engine(name: str) -> Engine:
    """``auto`` becomes the real client when it is installed, else the emulator."""
    if name == AUTO:
        from harness.claude.client.install import find_client

        return CLAUDE_CODE if find_client() is not None else EMULATOR
    if name not in ENGINES:
        raise HarnessError(
            f"engine {name!r} is not one of " + ", ".join(ENGINE_CHOICES),
            fix="use --engine emulator (built in) or --engine claude-code (the real client)",
        )
    return Engine(name)


def open_session(
    engine: str,
    project_dir: Path | str,
    settings: Settings | None = None,
    *,
    cwd: Path | str | None = None,
    transcript_dir: Path | str | None = None,
    permission_mode: str = "default",
    auto_approve: bool = False,
    env: Mapping[str, str] | None = None,
    on_payload: PayloadSink | None = None,
) -> ScriptedSession:
    """A scripted session on ``engine`` (emulator | claude-code | auto). ``on_payload`` is
    told the JSON of every event the engine sends its hooks, whichever engine it is."""
    session_class: type[ScriptedSession] = Session
    if resolve_engine(engine) == CLAUDE_CODE:
        from harness.claude.client.session import ClaudeCodeSession

        session_class = ClaudeCodeSession
    return session_class(
        project_dir,
        settings,
        cwd=cwd,
        transcript_dir=transcript_dir,
        permission_mode=permission_mode,
        auto_approve=auto_approve,
        env=env,
        on_payload=on_payload,
    )


__all__ = [
    "CLAUDE_CODE",
    "EMULATOR",
    "ENGINES",
    "ENGINE_CHOICES",
    "Engine",
    "HookRun",
    "PayloadSink",
    "ScriptedSession",
    "open_session",
    "resolve_engine",
]
