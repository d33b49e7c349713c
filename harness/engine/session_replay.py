"""Replay a recorded session: its tool calls and stops against the workspace's hooks as they
are now, in a throwaway copy of the workspace at the session's start state.

The timeline (harness/claude/recorded.py) becomes scenario steps: prompts, tool calls (Edit,
Write and Bash as their own steps, the Agent tool as a subagent that ends with its recorded
last message, Read and the tools the pinned client does not offer, Grep, Glob, MultiEdit…, as a
``tool`` step; the client's other tools, AskUserQuestion, Skill…, are not played) and stops.
Both engines play them through the one session interface: on the emulator as a scenario, on
the real client as the scripted model's turns, each answer the recorded one. Every tool call
and stop gets a row: the recorded verdict beside the replayed one. A call no hook ran for says
so in its row (the hooks cannot change it); a call an engine cannot play says why in its row,
and is not compared on that engine.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.engines import CLAUDE_CODE, EMULATOR, open_session, resolve_engine
from harness.claude.events import Event
from harness.claude.recorded import (
    AUTO_MODE_CHECK,
    USER,
    Prompt,
    StopAttempt,
    Timeline,
    ToolCall,
)
from harness.claude.scenario import ScenarioStep, run_step, tools_called
from harness.claude.session_home import SessionHome, client_layout, session_home
from harness.claude.settings import Settings
from harness.claude.tools import CLIENT_TOOLS, is_mcp_tool
from harness.claude.vocabulary import BOTH, StepKind
from harness.engine.moment import same_verdict, verdict_of
from harness.engine.start_state import hook_settings, resolve_start, start_state
from harness.errors import HarnessError
from harness.jail import Confinement, confined
from harness.schema import pick

# The tools a replay plays; any tool the pinned client does not offer is played too (both
# engines answer "No such tool available", before any hook).
REPLAYED_TOOLS = frozenset(
    {"Edit", "Write", "Bash", "Read", "Agent", "Task", "WebFetch", "WebSearch"}
)
# Tools whose recorded result is played back as the step's result (nothing is searched or
# sent again): WebSearch, and MCP tools (mcp__server__tool), whose server Hook Lab stands in for.
_RESULT_PLAYED = ("WebSearch",)
# A call no hook ran for on any engine (no matcher selects it, or the tool or client refused
# it first): its verdict is the tool's or the client's own, not the hooks'.
NO_HOOK_RAN = "no hook ran for this call: its verdict is not the hooks'"
# A call the client's permission mode refused (auto mode's check, the person's No): the tool
# never ran, and a replay, whose engines approve every call, cannot ask either again.
MODE_REFUSED = "{who}, not a hook: not played (a replay cannot ask it again)"


@dataclass
class ReplayRow:
    """One tool call or stop: what the recording says and what each engine did now."""

    number: int
    line: int  # the transcript line of the call or the end of turn
    kind: str  # tool | stop
    what: str
    recorded: str
    replayed: dict[str, str] = field(default_factory=dict)
    feedback: dict[str, str] = field(default_factory=dict)
    note: str = ""  # what the row's reader should know (no hook ran, no result, …)
    compared: bool = True  # False: the recording has no verdict to compare (no result)
    unplayed: set[str] = field(default_factory=set)  # engines that could not play the call
    hooks_ran: dict[str, bool] = field(default_factory=dict)
    # per engine, the asked-for markers (``replay(markers=…)``) the row's step wrote in the
    # copy's git dir: what the hooks, not a person, left there
    markers: dict[str, set[str]] = field(default_factory=dict)

    def compared_on(self, engine: str) -> bool:
        return self.compared and engine not in self.unplayed and engine in self.replayed

    def differs(self, engine: str) -> bool:
        return self.compared_on(engine) and not same_verdict(self.recorded, self.replayed[engine])

    def played(self, engine: str, verdict: str, feedback: str, hooks_ran: bool) -> None:
        self.replayed[engine] = verdict
        self.feedback[engine] = feedback[:2000]
        self.hooks_ran[engine] = hooks_ran
        if self.kind == StepKind.TOOL and not self.note and not any(self.hooks_ran.values()):
            self.note = NO_HOOK_RAN
        elif self.note == NO_HOOK_RAN and hooks_ran:
            self.note = ""

    def not_played(self, engine: str, why: str) -> None:
        self.replayed[engine] = f"not played: {why}"[:200]
        self.unplayed.add(engine)

    def to_json(self) -> dict[str, Any]:
        return {
            **pick(self, "number line kind what recorded"),
            "replayed": dict(self.replayed),
            "agrees": {
                engine: (not self.differs(engine)) if self.compared_on(engine) else None
                for engine in self.replayed
            },
            **pick(self, "compared note"),
        }


@dataclass
class ReplayReport:
    timeline: Timeline
    engines: list[str]
    start: str  # the commit the copy started from
    rows: list[ReplayRow] = field(default_factory=list)
    # hook scripts outside .claude/ played as they are on disk now, where the start differs
    hooks_now: list[str] = field(default_factory=list)
    # ignored build output written after the session began, left out of the start state
    output_left_out: list[str] = field(default_factory=list)
    # per engine, each asked-for file (``replay(files=…)``) of the copy: (at the start, at the
    # end of the replay); None where it does not exist
    files: dict[str, dict[str, tuple[str | None, str | None]]] = field(default_factory=dict)

    def divergences(self, only_lines: Collection[int] | None = None) -> list[tuple[ReplayRow, str]]:
        """Each row and engine whose verdict differs; with ``only_lines``, only the rows at
        those transcript lines."""
        return [
            (row, e)
            for row in self.rows
            if only_lines is None or row.line in only_lines
            for e in self.engines
            if row.differs(e)
        ]

    @property
    def first_divergence(self) -> tuple[ReplayRow, str] | None:
        found = self.divergences()
        return found[0] if found else None

    @property
    def agrees(self) -> bool:
        return not self.divergences()

    @property
    def compared(self) -> int:
        """The rows whose recorded verdict was compared on some engine: 0 tested nothing."""
        return sum(1 for row in self.rows if any(row.compared_on(e) for e in self.engines))

    def describe_divergence(self, only_lines: Collection[int] | None = None) -> str:
        found = self.divergences(only_lines)
        if not found:
            return ""
        row, engine = found[0]
        # A person reads this: "Hook Lab's replay", not the engine's name.
        replayed = "Hook Lab's replay" if engine == EMULATOR else f"the replay on {engine}"
        return (
            f"transcript line {row.line} ({row.what}): recorded {row.recorded!r}, "
            f"{replayed} gave {row.replayed[engine]!r}"
        )

    def to_json(self) -> dict[str, Any]:
        first = self.first_divergence
        return {
            "transcript": str(self.timeline.path),
            "session_id": self.timeline.session_id,
            "client_version": self.timeline.client_version,
            "digest": self.timeline.digest(),
            "engines": self.engines,
            "start": self.start,
            "rows": [row.to_json() for row in self.rows],
            "agrees": self.agrees,
            "compared": self.compared,
            "first_divergence": None
            if first is None
            else {"line": first[0].line, "engine": first[1], "what": first[0].what},
            "warnings": self.timeline.warnings,
            "hooks_now": self.hooks_now,
            "output_left_out": self.output_left_out,
        }


# -- the timeline as steps -------------------------------------------------------------------


@dataclass(frozen=True)
class _Planned:
    step: ScenarioStep | None  # None: not played (a row that says why)
    row: ReplayRow | None  # None: a prompt (played, no row)


def _relative(path: str, recorded_cwd: str) -> str | None:
    """A recorded absolute path inside the recorded workspace, relative to it."""
    if not recorded_cwd or not os.path.isabs(path):
        return path
    try:
        return str(Path(path).relative_to(recorded_cwd))
    except ValueError:
        return None


def _what(call: ToolCall, cwd: str) -> str:
    i = call.input
    named = ("file_path", "command", "subagent_type", "url", "query")
    detail = str(next((i[k] for k in named if i.get(k)), ""))
    if "file_path" in i:
        detail = _relative(detail, cwd) or detail
    return f"{call.name} {detail}".strip()[:120]


def plan(timeline: Timeline, copy_root: Path, settings: Settings | None = None) -> list[_Planned]:
    """The recorded session as scenario steps, with a row per tool call and stop. ``settings``:
    the hooks the copy has, to say of a call Hook Lab does not play whether a hook selects it."""
    cwd = timeline.cwd
    hooks = settings or Settings()
    planned = [_Planned(ScenarioStep(1, StepKind.SESSION_START, {"source": "startup"}), None)]

    def step(do: str, **args: Any) -> ScenarioStep:
        return ScenarioStep(len(planned) + 1, do, args)

    rows = 0
    # Background agents (2.1.332) end where the client recorded it, not at their call: what
    # Claude did meanwhile met the hooks before the agent's SubagentStop ran.
    ending: list[tuple[int, _Planned]] = []
    for entry in timeline.entries:
        planned += _ended_before(ending, entry.line)
        if isinstance(entry, Prompt):
            planned.append(_Planned(step(StepKind.PROMPT, text=entry.text), None))
            continue
        rows += 1
        if isinstance(entry, StopAttempt):
            row = ReplayRow(rows, entry.line, StepKind.STOP, StepKind.STOP, entry.verdict)
            planned.append(_Planned(step(StepKind.STOP, last_message=entry.last_message), row))
            continue
        call = entry
        row = ReplayRow(rows, call.line, StepKind.TOOL, _what(call, cwd), call.verdict)
        if call.result_line is None:
            row.note = "the transcript has no result for this call"
            row.compared = False
            planned.append(_Planned(None, row))
            continue
        if call.denied in (AUTO_MODE_CHECK, USER):
            # Not compared: the row says who refused it, not the bare "denied" a rule gets.
            row.recorded = "you answered No" if call.denied == USER else f"{call.denied} refused"
            who = "you answered No to the permission prompt" if call.denied == USER else ""
            row.note = MODE_REFUSED.format(who=who or f"{call.denied} refused it")
            row.compared = False
            planned.append(_Planned(None, row))
            continue
        item = _Planned(_call_step(call, cwd, copy_root, hooks, step, row), row)
        ended = call.subagent.ended_line if call.subagent is not None else None
        if ended is not None and ended > call.line:
            row.note = f"a background agent: its end played where recorded (line {ended})"
            ending.append((ended, item))
        else:
            planned.append(item)
    return planned + _ended_before(ending, None)


def _ended_before(ending: list[tuple[int, _Planned]], line: int | None) -> list[_Planned]:
    """The agents of ``ending`` that ended before ``line`` (all of them with None), taken
    from it, in the order they ended."""
    due = sorted((e for e in ending if line is None or e[0] < line), key=lambda e: e[0])
    for e in due:
        ending.remove(e)
    return [item for _, item in due]


def _call_step(
    call: ToolCall,
    cwd: str,
    copy_root: Path,
    hooks: Settings,
    step: Callable[..., ScenarioStep],
    row: ReplayRow,
) -> ScenarioStep | None:
    i = call.input
    if call.subagent is not None:
        run = call.subagent
        return step(
            StepKind.SUBAGENT_STOP,
            agent_type=run.agent_type,
            prompt=run.prompt or f"{run.agent_type} task",
            last_message=run.last_message or "Done.",
            stop_reason=run.stop_reason or "end_turn",
        )
    if call.name not in ("Edit", "Write", "Bash"):
        return _other_tool_step(call, cwd, hooks, step, row)
    if call.name == "Bash":
        command = str(i.get("command", ""))
        if cwd:
            command = command.replace(cwd, str(copy_root))
        timeout = i.get("timeout")
        return step(
            StepKind.BASH,
            command=command,
            background=i.get("run_in_background") is True,
            timeout=float(timeout) / 1000 if isinstance(timeout, int | float) else None,
            description=str(i.get("description", "")),
        )
    file = _relative(str(i.get("file_path", "")), cwd)
    if file is None:
        row.note = "the file is outside the session's workspace: not replayed"
        return None
    if call.name == "Edit":
        return step(
            StepKind.EDIT,
            file=file,
            old=str(i.get("old_string", "")),
            new=str(i.get("new_string", "")),
            replace_all=i.get("replace_all") is True,
        )
    return step(StepKind.WRITE, file=file, content=str(i.get("content", "")))


def _selected_by(hooks: Settings, tool: str) -> list[str]:
    """The tool events whose hooks a call of ``tool`` would run."""
    events = (Event.PRE_TOOL_USE, Event.POST_TOOL_USE, Event.POST_TOOL_USE_FAILURE)
    return [e.value for e in events if hooks.commands_for(e, tool)]


def _other_tool_step(
    call: ToolCall,
    cwd: str,
    hooks: Settings,
    step: Callable[..., ScenarioStep],
    row: ReplayRow,
) -> ScenarioStep | None:
    """Read, Grep, MultiEdit or any other tool, with its recorded input; a path inside the
    recorded workspace is made relative, so it names the same file in the copy. A tool the
    client offers but Hook Lab does not play (AskUserQuestion, Skill, …: they ask the user or
    the model more than a replay can answer) gets a row that says whether a hook selects it."""
    if call.name in CLIENT_TOOLS and call.name not in REPLAYED_TOOLS:
        selected = _selected_by(hooks, call.name)
        row.note = f"Hook Lab does not replay {call.name}; " + (
            f"a {', '.join(selected)} hook selects it, so the hooks could change it"
            if selected
            else "no hook's matcher selects it, so the hooks cannot change it"
        )
        return None
    tool_input = dict(call.input)
    path = tool_input.get("file_path")
    if isinstance(path, str):
        inner = _relative(path, cwd)
        if inner is None:
            row.note = "the file is outside the session's workspace: not replayed"
            return None
        tool_input["file_path"] = inner
    if call.name in _RESULT_PLAYED or is_mcp_tool(call.name):
        return step(StepKind.TOOL, tool=call.name, input=tool_input, result=call.result_text)
    return step(StepKind.TOOL, tool=call.name, input=tool_input)


# -- playing -------------------------------------------------------------------------------


def replay_engines(name: str) -> list[str]:
    if name == BOTH:
        return [EMULATOR, resolve_engine(CLAUDE_CODE)]
    return [resolve_engine(name)]


def _session_cwd(timeline: Timeline, workspace: Path, copy: Path) -> Path:
    """Where the session plays in the copy: in the same subfolder of the workspace as the
    recorded session ran in, else (the root, or a folder the copy lacks) the copy's root."""
    if timeline.cwd:
        inner = _relative(timeline.cwd, str(workspace))
        if inner and inner != "." and (copy / inner).is_dir():
            return copy / inner
    return copy


def _marker_times(copy: Path, markers: Sequence[str]) -> dict[str, int]:
    """When each of ``markers`` in the copy's git dir was last written (absent: left out)."""
    times = {}
    for marker in markers:
        try:
            times[marker] = (copy / ".git" / marker).stat().st_mtime_ns
        except OSError:
            continue
    return times


def replay(
    timeline: Timeline,
    workspace: Path,
    *,
    engines: list[str],
    start: str | None = None,
    on_row: Callable[[ReplayRow, str], None] | None = None,
    confine: bool = False,
    plugin_dirs: Sequence[Path] = (),
    markers: Sequence[str] = (),
    files: Sequence[str] = (),
) -> ReplayReport:
    """Play ``timeline`` on each engine, from a fresh copy at the start state each time;
    ``confine``: every tool call in a jail where that copy is the only writable folder;
    ``plugin_dirs``: plugins loaded as ``--plugin-dir`` loads them (one inside ``workspace``
    is taken from the copy); ``markers``: paths in the git dir each row notes once played;
    ``files``: workspace files whose text the report keeps from the start and the end."""
    commit = resolve_start(workspace, start)
    report = ReplayReport(timeline, engines, commit)
    for engine in engines:
        started = timeline.started.timestamp() if timeline.started else None
        with (
            start_state(
                workspace,
                commit,
                report.hooks_now,
                started=started,
                left_out=report.output_left_out,
            ) as copy,
            confined(copy, confine) as jail,
            session_home() as home,
        ):
            plugins = [
                copy / p.relative_to(workspace) if p.is_relative_to(workspace) else p
                for p in plugin_dirs
            ]
            steps = plan(timeline, copy, hook_settings(copy, plugins))
            if not report.rows:
                # in the transcript's order, also where a background agent's end is played later
                report.rows = sorted((p.row for p in steps if p.row), key=lambda r: r.number)
            by_number = {row.number: row for row in report.rows}
            cwd = _session_cwd(timeline, workspace, copy)
            at_start = {rel: _text(copy / rel) for rel in files}
            options = {**_client_layout(engine, home, copy, jail), "plugin_dirs": plugins}
            with open_session(
                engine, copy, cwd=cwd, auto_approve=True, confinement=jail, **options
            ) as session:
                session.offer_tools(tools_called([i.step for i in steps if i.step is not None]))
                for item in steps:
                    if item.step is None:
                        if item.row is not None and item.row.compared:
                            by_number[item.row.number].not_played(engine, item.row.note)
                        continue
                    row = by_number[item.row.number] if item.row is not None else None
                    before = _marker_times(copy, markers)
                    if _played(session, item.step, row, engine) and row is not None:
                        after = _marker_times(copy, markers)
                        row.markers[engine] = {m for m, t in after.items() if before.get(m) != t}
                        if on_row is not None:
                            on_row(row, engine)
            report.files[engine] = {rel: (at_start[rel], _text(copy / rel)) for rel in files}
    return report


def _client_layout(
    engine: str, home: SessionHome, copy: Path, jail: Confinement | None
) -> dict[str, Any]:
    """The transcript where the client keeps one, under the HOME the hooks see (walk-q: one
    under /dev/shm told a hook it was replayed)."""
    real_client = resolve_engine(engine) == CLAUDE_CODE
    return client_layout(home, copy, real_client=real_client, confinement=jail)


def _text(path: Path) -> str | None:
    """A file's text (None: there is none)."""
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


def _played(session: Any, step: ScenarioStep, row: ReplayRow | None, engine: str) -> bool:
    """Play one step, its outcome in its row; False when the engine could not play it."""
    try:
        outcome = run_step(session, step).outcome
    except HarnessError as exc:
        if row is None:
            raise
        if step.do == StepKind.TOOL:  # a tool this engine does not play
            row.not_played(engine, exc.message)
        else:
            row.replayed[engine] = f"could not play: {exc.message}"[:200]
        return False
    if row is not None:
        row.played(engine, verdict_of(outcome), outcome.feedback, bool(outcome.hooks))
    return True


__all__ = [
    "ReplayReport",
    "ReplayRow",
    "plan",
    "replay",
    "replay_engines",
    "resolve_start",
    "same_verdict",
    "start_state",
    "verdict_of",
]
