"""The two engines a scripted session can run on, behind one interface.

``emulator``: the embedded runtime (``emulator.EmulatedSession``): hooks run for real, Claude
Code's rules are imitated, no Node needed. ``claude-code``: the real, pinned client
(``client.driver.ClaudeCodeSession``). ``auto`` picks the real client when it is installed.
Both are a ``ScriptedSession`` (scripted.py): the same arguments, the same ``StepOutcome``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Unpack

from harness.claude.emulator import EmulatedSession
from harness.claude.runner import HookRun
from harness.claude.scripted import PayloadSink, ScriptedSession, SessionOptions
from harness.claude.settings import Settings
from harness.claude.vocabulary import AUTO, ENGINE_CHOICES, ENGINES, Engine
from harness.errors import HarnessError

# Kept as names of their own: engine code reads better with the two spelled out.
EMULATOR = Engine.EMULATOR
CLAUDE_CODE = Engine.CLAUDE_CODE


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
    **options: Unpack[SessionOptions],
) -> ScriptedSession:
    """A scripted session on ``engine`` (emulator | claude-code | auto), with the options
    of ``ScriptedSession``: ``on_payload`` is told the JSON of every event the engine sends
    its hooks, whichever engine it is; ``confinement`` is the jail every tool call runs in
    (harness/jail.py), the real client itself included; ``plugin_dirs`` are loaded as the
    client's ``--plugin-dir`` loads them."""
    session_class: type[ScriptedSession] = EmulatedSession
    if resolve_engine(engine) == CLAUDE_CODE:
        from harness.claude.client.driver import ClaudeCodeSession

        session_class = ClaudeCodeSession
    return session_class(project_dir, settings, **options)


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
