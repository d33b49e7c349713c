"""A scripted Claude Code session, whichever engine plays it: what a step returns
(``StepOutcome``) and what both engines share (``ScriptedSession``).

The emulator (``emulator.py``) imitates the client's rules; the real-client driver
(``client/driver.py``) reads what the pinned client did. Both take the same arguments, keep
the same history and blocked stops, and shape each step's tool input the same way here; each
keeps only what differs. Scenarios, lab checks and the grader type against ``ScriptedSession``.
"""

from __future__ import annotations

import abc
import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self, TypedDict

from harness.claude.dispatch import EventOutcome
from harness.claude.events import check_start_source
from harness.claude.judge import Judgement
from harness.claude.plugins import flag_folders
from harness.claude.runner import HookRun
from harness.claude.settings import Settings, load_settings
from harness.claude.tools import (
    CLIENT_TOOLS,
    edit_input,
    is_mcp_tool,
    project_mcp_servers,
    with_absolute_path,
)
from harness.claude.vocabulary import Engine, Outcome, Permission, StepKind
from harness.jail import Confinement
from harness.paths import scratch_mkdtemp
from harness.schema import pick

# Claude Code (2.1.332) honours eight consecutive Stop blocks and overrides the ninth.
STOP_BLOCK_CAP = 9
MAX_TOKENS = "max_tokens"  # a reply's stop reason when the model ran out of output tokens
COMPACT_SUMMARY = "Summary: a scripted session; nothing left to do."  # the model's, for /compact
# The SessionStart sources that come from a new run of the client (a plain start, --resume,
# --fork-session); the others (clear, compact) are slash commands typed into the running one.
RELAUNCH_SOURCES = ("startup", "resume", "fork")
# Told each event's JSON as it is sent to the hooks, on either engine.
PayloadSink = Callable[[dict[str, Any]], None]

# The fields of a step's JSON after its permission, kept as they are.
_AS_JSON = """feedback user_message system_message additional_context errors stop_hook_active
turn_ended tool_result"""


@dataclass
class StepOutcome:
    """What one step did.

    ``outcome``: allowed (went through), blocked (refused by a rule or hook, or a PostToolUse
    hook reported back; ``tool_ran`` tells which), asked (the user is asked: an ``ask``/``defer``
    decision or an ask rule), stopped (a hook said ``continue: false``), error (the tool
    rejected its input, e.g. an Edit whose old_string is not in the file — no hook ran).
    ``feedback`` is what Claude is shown; ``user_message`` what only the user sees.
    """

    step: int
    do: str
    detail: str
    outcome: Outcome
    tool_ran: bool | None = None
    permission: Permission | None = None
    auto_approved: bool = False  # the simulated user said yes to the prompt it was shown
    feedback: str = ""
    user_message: str = ""
    system_message: str = ""
    additional_context: str = ""
    errors: list[str] = field(default_factory=list)
    stop_hook_active: bool | None = None
    turn_ended: bool = False
    tool_response: dict[str, Any] | None = None
    tool_result: str = ""  # the tool's own result text, as Claude reads it
    events: list[EventOutcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    hook_runs: list[HookRun] | None = None  # the claude-code engine reads these off the client

    @property
    def hooks(self) -> list[HookRun]:
        if self.hook_runs is not None:
            return self.hook_runs
        return [run for ev in self.events for run in ev.runs]

    @property
    def permission_shown(self) -> str | None:
        return None if self.permission is None else self.permission.shown(self.auto_approved)

    def __repr__(self) -> str:
        ran = "" if self.tool_ran is None else f" tool_ran={self.tool_ran}"
        said = f" feedback={self.feedback[:60]!r}" if self.feedback else ""
        return f"<StepOutcome {self.step} {self.do} {self.outcome}{ran}{said}>"

    def to_json(self) -> dict[str, Any]:
        return {
            **pick(self, "step do detail outcome tool_ran"),
            "permission": self.permission_shown,
            **pick(self, _AS_JSON),
            "hooks": [run.to_json() for run in self.hooks],
            "notes": self.notes,
        }


@dataclass(frozen=True)
class ToolUse:
    """One tool call the model makes in a step: the step's ``do`` and ``detail``, the tool's
    name and input, and what a WebSearch or an MCP tool answers (``result``)."""

    do: str
    detail: str
    name: str
    tool_input: dict[str, Any]
    result: str | None = None


@dataclass(frozen=True)
class SubagentEnd:
    """A subagent finishing in a step: its type, the main agent's Agent ``call`` that starts
    it, its last message and stop reason, and the id a scenario gives it (None: the engine's
    choice)."""

    agent_type: str
    call: dict[str, Any]
    last_message: str
    stop_reason: str
    agent_id: str | None

    @property
    def prompt(self) -> str:
        return str(self.call["prompt"])


def agent_call(agent_type: str, prompt: str) -> dict[str, Any]:
    """The main agent's Agent tool input that starts a subagent (in the foreground)."""
    return {
        "description": f"{agent_type} task",
        "prompt": prompt,
        "subagent_type": agent_type,
        "run_in_background": False,
    }


def cut_off_note(agent_type: str) -> str:
    """The note on a subagent whose answers ``max_tokens`` cut off (observed on 2.1.332)."""
    return (
        f"the subagent {agent_type!r} was cut off by max_tokens: the client ended it "
        "(Agent terminated early due to an API error), with StopFailure and no SubagentStop"
    )


def told_first(told: Sequence[str], feedback: str) -> str:
    """A subagent's first stop: what its SubagentStart hooks told it opens its request (observed),
    before the feedback of the stop itself."""
    return "\n".join([*told, feedback] if feedback else told)


class SessionOptions(TypedDict, total=False):
    """The keyword options of ``ScriptedSession``, which each engine passes on unchanged."""

    cwd: Path | str | None
    session_id: str | None
    transcript_dir: Path | str | None
    permission_mode: str
    auto_approve: bool
    env: Mapping[str, str] | None
    on_payload: PayloadSink | None
    confinement: Confinement | None
    plugin_dirs: Sequence[Path]


class ScriptedSession(abc.ABC):
    """A scripted session in ``project_dir`` (the root holding ``.claude/``), on either engine.

    ``settings`` defaults to the project's merged settings files. ``auto_approve`` makes the
    simulated user say yes when asked (the step still reports ``asked``). Transcripts go to
    ``transcript_dir`` (a fresh temp folder by default, outside the workspace so they never
    count as changed files, removed on close). ``on_payload`` is told each event's JSON as its
    hooks read it. ``confinement``: the jail every tool call runs in (harness/jail.py); None
    runs them as this process. ``plugin_dirs``: folders loaded as ``--plugin-dir`` loads them.
    Each step method returns a ``StepOutcome`` and joins ``history``.
    """

    engine: ClassVar[Engine]
    scratch_prefix: ClassVar[str]  # the name a session's own temp folder starts with
    judgement: Judgement  # what the model answers a prompt or agent hook in the next step
    mcp_tools: frozenset[str] = frozenset()  # MCP tools Hook Lab stands in for (offer_tools)

    def __init__(
        self,
        project_dir: Path | str,
        settings: Settings | None = None,
        *,
        cwd: Path | str | None = None,
        session_id: str | None = None,
        transcript_dir: Path | str | None = None,
        permission_mode: str = "default",
        auto_approve: bool = False,
        env: Mapping[str, str] | None = None,
        on_payload: PayloadSink | None = None,
        confinement: Confinement | None = None,
        plugin_dirs: Sequence[Path] = (),
    ) -> None:
        self.project_dir = Path(project_dir).resolve()
        # The --plugin-dir folders: those given, and the project when it is a plugin. The
        # client loads them, and guards writes into them as it guards .claude/.
        self.plugin_dirs = tuple(flag_folders(self.project_dir, plugin_dirs))
        self.settings = settings if settings is not None else self._load_settings()
        self.cwd = Path(cwd).resolve() if cwd is not None else self.project_dir
        self.session_id = session_id or str(uuid.uuid4())
        self.permission_mode = permission_mode
        self.auto_approve = auto_approve
        self.env = dict(env or {})
        self.on_payload = on_payload
        self.confinement = confinement
        # A folder made here is this session's to remove on close, as the real client's is.
        self._own_dir = not transcript_dir
        self.transcript_dir = (
            Path(transcript_dir) if transcript_dir else scratch_mkdtemp(self.scratch_prefix)
        )
        self.history: list[StepOutcome] = []
        self.blocked_stops = 0  # consecutive blocked stops in the running turn

    def _load_settings(self) -> Settings:
        return load_settings(self.project_dir, self.plugin_dirs)

    @property
    @abc.abstractmethod
    def transcript_path(self) -> Path: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abc.abstractmethod
    def close(self) -> None: ...

    def offer_tools(self, names: Iterable[str]) -> None:
        """The MCP tools a scenario calls (``mcp__server__tool``), told before its first step:
        for a server the project's ``.mcp.json`` does not name, Hook Lab stands in, and each
        call answers the step's ``result``. Other tools the client has need no offer."""
        self.mcp_tools = self.mcp_tools | {n for n in names if is_mcp_tool(n)}

    def _offered(self, name: str) -> bool:
        """Whether the pinned client would offer the model ``name`` in this session."""
        if not is_mcp_tool(name):
            return name in CLIENT_TOOLS
        return name in self.mcp_tools or name.split("__")[1] in project_mcp_servers(
            self.project_dir
        )

    def _step(self, do: str, detail: str, outcome: Outcome, **kw: Any) -> StepOutcome:
        return StepOutcome(len(self.history) + 1, do, detail, outcome, **kw)

    def _record(self, step: StepOutcome) -> StepOutcome:
        """The step joins the history; a turn that ended starts the count of Stop blocks anew."""
        if step.turn_ended:
            self.blocked_stops = 0
        self.history.append(step)
        return step

    # -- the steps ---------------------------------------------------------------------------

    def session_start(self, source: str = "startup") -> StepOutcome:
        """SessionStart with ``source``: a new run of the client (``RELAUNCH_SOURCES``) or
        /clear or /compact typed into the running one."""
        check_start_source(source)
        return self._session_start(source)

    @abc.abstractmethod
    def _session_start(self, source: str) -> StepOutcome: ...

    @abc.abstractmethod
    def prompt(self, text: str) -> StepOutcome: ...

    def stop(self, last_message: str = "") -> StepOutcome:
        """The model ends its turn saying ``last_message``; the Stop hooks may hold it. After a
        block the next stop comes with ``stop_hook_active: true``."""
        return self._stop(last_message, active=self.blocked_stops > 0)

    @abc.abstractmethod
    def _stop(self, last_message: str, active: bool) -> StepOutcome: ...

    def subagent_stop(
        self,
        agent_type: str,
        prompt: str,
        last_message: str,
        stop_reason: str = "end_turn",
        agent_id: str | None = None,
    ) -> StepOutcome:
        """A subagent of ``agent_type`` finishing with ``last_message``. The first time, the
        main agent calls the Agent tool (in the foreground) with ``prompt``; after a blocked
        stop the same subagent stops again with ``stop_hook_active: true``. ``stop_reason``
        ``max_tokens`` plays a subagent whose answers are cut off."""
        call = agent_call(agent_type, prompt)
        end = SubagentEnd(agent_type, call, last_message, stop_reason, agent_id)
        return self._subagent_stop(end)

    @abc.abstractmethod
    def _subagent_stop(self, end: SubagentEnd) -> StepOutcome: ...

    def edit(self, file: str | Path, old: str, new: str, replace_all: bool = False) -> StepOutcome:
        """Claude's Edit of ``file`` (from the session's cwd): ``old`` becomes ``new``."""
        tool_input = edit_input(self._target(file), old, new, replace_all)
        return self._use_tool(ToolUse(StepKind.EDIT, str(file), "Edit", tool_input))

    def write(self, file: str | Path, content: str) -> StepOutcome:
        tool_input = {"file_path": str(self._target(file)), "content": content}
        return self._use_tool(ToolUse(StepKind.WRITE, str(file), "Write", tool_input))

    def bash(
        self,
        command: str,
        *,
        background: bool = False,
        timeout: float | None = None,
        description: str = "",
    ) -> StepOutcome:
        """Run ``command`` with ``bash -c`` in the session cwd. ``timeout`` is in seconds
        (sent to hooks in milliseconds, as Claude Code does)."""
        tool_input = self._bash_input(command, background, timeout, description)
        return self._use_tool(ToolUse(StepKind.BASH, command, "Bash", tool_input))

    def tool(self, name: str, tool_input: dict[str, Any], result: str | None = None) -> StepOutcome:
        """Any other tool call, as the model makes it. A tool the pinned client does not offer
        (Grep, Glob, MultiEdit, …) fails before any hook. WebSearch and MCP tools answer
        ``result`` (nothing is searched or sent)."""
        tool_input = with_absolute_path(tool_input, self.cwd)
        return self._use_tool(ToolUse(StepKind.TOOL, name, name, tool_input, result))

    def _target(self, file: str | Path) -> Path:
        """The absolute path a file tool is given, as the model sends it."""
        return Path(os.path.abspath(self.cwd / file))

    @abc.abstractmethod
    def _bash_input(
        self, command: str, background: bool, timeout: float | None, description: str
    ) -> dict[str, Any]:
        """The Bash tool's input as this engine's model sends it."""

    @abc.abstractmethod
    def _use_tool(self, use: ToolUse) -> StepOutcome:
        """One tool call of the model, recorded as a step."""
