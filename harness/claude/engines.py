"""The two engines a scripted session can run on, behind one interface.

``emulator``: the embedded runtime (``session.Session``): hooks run for real, Claude Code's
rules are imitated, no Node needed. ``claude-code``: the real, pinned client
(``client.session.ClaudeCodeSession``). ``auto`` picks the real client when it is installed.
Both take the same arguments and return the same ``StepOutcome`` per step.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from harness.claude.judge import Judgement
from harness.claude.runner import HookRun
from harness.claude.session import PayloadSink, Session, StepOutcome
from harness.claude.settings import Settings
from harness.claude.vocabulary import AUTO, ENGINE_CHOICES, ENGINES, Engine
from harness.errors import HarnessError
from harness.jail import Confinement

if TYPE_CHECKING:
    from harness.claude.client.session import ClaudeCodeSession

# Kept as names of their own: engine code reads better with the two spelled out.
EMULATOR = Engine.EMULATOR
CLAUDE_CODE = Engine.CLAUDE_CODE


class ScriptedSession(Protocol):
    """What scenarios, lab checks and the grader use; both engines provide it. The interface
    is the contract a third engine would meet, so it is spelled out rather than a union."""

    project_dir: Path
    history: list[StepOutcome]
    judgement: Judgement  # what the model answers a prompt or agent hook in the next step

    @property
    def transcript_path(self) -> Path: ...

    def __enter__(self) -> ScriptedSession: ...

    def __exit__(self, *exc: object) -> None: ...

    def close(self) -> None: ...

    def offer_tools(self, names: Iterable[str]) -> None: ...

    def session_start(self, source: str = "startup") -> StepOutcome: ...

    def prompt(self, text: str) -> StepOutcome: ...

    def edit(
        self, file: str | Path, old: str, new: str, replace_all: bool = False
    ) -> StepOutcome: ...

    def write(self, file: str | Path, content: str) -> StepOutcome: ...

    def bash(
        self,
        command: str,
        *,
        background: bool = False,
        timeout: float | None = None,
        description: str = "",
    ) -> StepOutcome: ...

    def tool(
        self, name: str, tool_input: dict[str, Any], result: str | None = None
    ) -> StepOutcome: ...

    def subagent_stop(
        self,
        agent_type: str,
        prompt: str,
        last_message: str,
        stop_reason: str = "end_turn",
        agent_id: str | None = None,
    ) -> StepOutcome: ...

    def stop(self, last_message: str = "") -> StepOutcome: ...


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
    confinement: Confinement | None = None,
    plugin_dirs: Sequence[Path] = (),
) -> ScriptedSession:
    """A scripted session on ``engine`` (emulator | claude-code | auto). ``on_payload`` is
    told the JSON of every event the engine sends its hooks, whichever engine it is.
    ``confinement``: the jail every tool call runs in (harness/jail.py), the real client
    itself included; None runs them as this process, with its environment.
    ``plugin_dirs``: plugin folders loaded as the client's ``--plugin-dir`` loads them."""
    session_class: type[Session] | type[ClaudeCodeSession] = Session
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
        confinement=confinement,
        plugin_dirs=plugin_dirs,
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
