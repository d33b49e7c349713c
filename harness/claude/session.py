"""A scripted Claude Code session: events in order, tools that act for real, the stop loop.

Each method is one thing that happens in a session and returns a ``StepOutcome`` saying what
Claude and the user would see. Order inside a tool call, as in Claude Code: the tool validates
its input, ``permissions.deny`` refuses before any hook, PreToolUse decides (deny > defer > ask
> allow), ``permissions.ask`` still asks after a hook's allow, the tool runs, PostToolUse reports.
"""

from __future__ import annotations

import abc
import os
import secrets
import shutil
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Self

from harness.claude.dispatch import EventOutcome, async_output, dispatch
from harness.claude.events import OUTSIDE_TURN, Event, check_start_source
from harness.claude.judge import Judgement
from harness.claude.ladder import (
    FILE_TOOLS,
    CallFacts,
    Decision,
    HookSay,
    decide,
    input_rejected,
)
from harness.claude.plugins import flag_folders
from harness.claude.runner import BackgroundHook, HookRun, cap
from harness.claude.sensitive import is_sensitive, sensitive_write
from harness.claude.settings import HookCommand, Settings, load_settings
from harness.claude.tools import (
    CLIENT_TOOLS,
    DEFAULT_BASH_TIMEOUT,
    EMULATED_TOOLS,
    MAX_BASH_TIMEOUT,
    BackgroundShell,
    ToolError,
    apply_edit,
    apply_read,
    apply_write,
    check_edit,
    edit_input,
    is_mcp_tool,
    mcp_server,
    no_such_tool,
    played_tool,
    project_mcp_servers,
    read_only_command,
    run_bash,
    start_background,
    with_absolute_path,
)
from harness.claude.transcript import Transcript, write_agent_transcript
from harness.claude.vocabulary import Outcome, Permission, StepKind
from harness.errors import HarnessError
from harness.jail import Confinement
from harness.paths import inside, scratch_mkdtemp

# Claude Code (2.1.332) honours eight consecutive Stop blocks and overrides the ninth.
STOP_BLOCK_CAP = 9
EFFORT = "medium"  # the client's default effort level, sent in every turn's events
CAP_NOTICE = (
    f"A hook blocked the turn from ending {STOP_BLOCK_CAP} consecutive times\u2014overriding "
    "and ending turn."
)
# The permissions at which the client shows its permission prompt (and so fires
# PermissionRequest first).
PROMPTING = frozenset(
    {
        Permission.ASK,
        Permission.DEFER,
        Permission.ASK_RULE,
        Permission.ASK_SENSITIVE,
        Permission.PROMPTED,
    }
)
MAX_TOKENS = "max_tokens"  # a reply's stop reason when the model ran out of output tokens
MAX_TOKENS_ERROR = (
    "Claude's response exceeded the 128000 output token maximum. To configure this behavior, "
    "set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable."
)
COMPACT_SUMMARY = "Summary: a scripted session; nothing left to do."  # the model's, for /compact
# Told each event's JSON as it is sent to the hooks, on either engine.
PayloadSink = Callable[[dict[str, Any]], None]


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
            "step": self.step,
            "do": self.do,
            "detail": self.detail,
            "outcome": self.outcome,
            "tool_ran": self.tool_ran,
            "permission": self.permission_shown,
            "feedback": self.feedback,
            "user_message": self.user_message,
            "system_message": self.system_message,
            "additional_context": self.additional_context,
            "errors": self.errors,
            "stop_hook_active": self.stop_hook_active,
            "turn_ended": self.turn_ended,
            "tool_result": self.tool_result,
            "hooks": [run.to_json() for run in self.hooks],
            "notes": self.notes,
        }


def _collect(step: StepOutcome, *events: EventOutcome) -> StepOutcome:
    """Fold the messages of ``events`` into ``step``."""
    step.events.extend(events)
    system = [m for ev in events for m in ev.system_messages]
    context = [c for ev in events for c in ev.additional_context]
    users = [m for ev in events for m in ev.user_messages if m]
    stops = [ev.stop_reason for ev in events if ev.stopped and ev.stop_reason]
    step.system_message = cap("\n".join(system))
    step.additional_context = cap("\n".join(context))
    step.user_message = cap(
        "\n".join([*stops, *users, *([step.user_message] if step.user_message else [])])
    )
    step.errors.extend(e for ev in events for e in ev.errors)
    step.notes.extend(n for ev in events for n in ev.notes)
    return step


def _answered_by_hook(decision: Decision, asked: EventOutcome) -> Decision:
    """A PermissionRequest hook's allow or deny answers the prompt before the user does
    (observed on 2.1.332); without one, the user answers it as ``decision`` says."""
    if asked.permission_decision == "allow":
        return replace(decision, runs=True, outcome=Outcome.ALLOWED, prompt="", asked=False)
    if asked.permission_decision == "deny":
        return replace(
            decision,
            runs=False,
            outcome=Outcome.BLOCKED,
            feedback=asked.permission_reason,
            prompt="",
            asked=False,
            auto_approved=False,
        )
    return decision


SUBAGENT_CONTEXT = "SubagentStart hook additional context: "


class SessionSteps(abc.ABC):
    """What a session keeps on either engine: its numbered steps, the Stop blocks in a row in
    the running turn, and its end when a ``with`` block is left."""

    history: list[StepOutcome]
    blocked_stops: int
    project_dir: Path
    mcp_tools: frozenset[str] = frozenset()  # MCP tools Hook Lab stands in for (offer_tools)

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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abc.abstractmethod
    def close(self) -> None: ...

    def _step(self, do: str, detail: str, outcome: Outcome, **kw: Any) -> StepOutcome:
        return StepOutcome(len(self.history) + 1, do, detail, outcome, **kw)

    def _record(self, step: StepOutcome) -> StepOutcome:
        """The step joins the history; a turn that ended starts the count of Stop blocks anew."""
        if step.turn_ended:
            self.blocked_stops = 0
        self.history.append(step)
        return step


class Session(SessionSteps):
    """A scripted session in ``project_dir`` (the root holding ``.claude/``).

    ``settings`` defaults to the project's merged settings files. ``auto_approve`` makes the
    simulated user say yes when asked (the step still reports ``asked``). A permission prompt
    Claude Code would show for a tool with no allow rule is approved by the simulated user and
    recorded as ``permission="prompted"``. Transcripts go to ``transcript_dir`` (a fresh temp
    directory by default, outside the workspace so they never count as changed files).
    ``on_payload`` is told each event's JSON before its hooks read it.
    """

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
        # The --plugin-dir folders (and the project, when it is a plugin): the client guards
        # writes into them as it guards .claude/.
        self.plugin_folders = flag_folders(self.project_dir, plugin_dirs)
        if settings is None:
            settings = load_settings(self.project_dir, plugin_dirs)
        self.settings = settings
        # Bash calls run in it. Hooks start from its environment (HOME, TMPDIR, allow-list)
        # but run outside: a jail per hook run cost 1.9x a step (benchmarks/README.md).
        self.confinement = confinement
        self.on_payload = on_payload
        self.cwd = Path(cwd).resolve() if cwd is not None else self.project_dir
        self.session_id = session_id or str(uuid.uuid4())
        # A folder made here is this session's to remove on close, as the real client's is.
        self._own_dir = not transcript_dir
        base = Path(transcript_dir) if transcript_dir else scratch_mkdtemp("hooklab-session-")
        self.transcript_dir = base
        self.transcript = Transcript(base / f"{self.session_id}.jsonl", self.session_id, self.cwd)
        self.permission_mode = permission_mode
        self.auto_approve = auto_approve
        self.env = dict(env or {})
        self.history: list[StepOutcome] = []
        self.background: dict[str, BackgroundShell] = {}
        self.blocked_stops = 0  # consecutive blocked stops in this turn
        self.prompt_id = str(uuid.uuid4())  # a new one with every prompt, as the client does
        self._subagents: dict[str, tuple[str, bool]] = {}  # agent_type -> (agent_id, blocked)
        self._agent_call_id = ""  # the Agent tool call that started the running subagent
        # What the model answers a prompt or agent hook in the coming step (the scenario's).
        self.judgement = Judgement()
        self.judged: list[tuple[str, str]] = []  # (hook type, what the judge was asked)
        self._ended = False  # SessionEnd was sent for the running session
        self._background: list[BackgroundHook] = []  # async hooks whose output is not yet sent

    def __repr__(self) -> str:
        return (
            f"<Session {self.session_id[:8]} in {self.project_dir} steps={len(self.history)} "
            f"blocked_stops={self.blocked_stops}>"
        )

    def close(self) -> None:
        """Kill background shells still running (a real session ending would, too), then
        remove the transcript folder when the session made it (it may sit in memory)."""
        if self.history and not self._ended:
            self._end_session()
        for shell in self.background.values():
            shell.kill()
        if self._own_dir:
            shutil.rmtree(self.transcript_dir, ignore_errors=True)

    @property
    def transcript_path(self) -> Path:
        return self.transcript.path

    # -- plumbing ----------------------------------------------------------------------------

    def _payload(self, event: Event, **fields: Any) -> dict[str, Any]:
        """The event's JSON in the shape and key order Claude Code (2.1.332) sends it."""
        body: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript.path),
            "cwd": str(self.cwd),
        }
        if event is Event.SESSION_START:  # sent before any prompt: no turn, no mode yet
            return {**body, "hook_event_name": event.value, **fields}
        body["prompt_id"] = self.prompt_id
        agent = (
            {key: fields.pop(key) for key in ("agent_id", "agent_type")}
            if event in (Event.SUBAGENT_STOP, Event.SUBAGENT_START, Event.STOP_FAILURE)
            else {}
        )
        if event in OUTSIDE_TURN:
            return {**body, **agent, "hook_event_name": event.value, **fields}
        if event is Event.STOP_FAILURE:  # a subagent's: its effort, but no permission mode
            return {
                **body,
                **agent,
                "effort": {"level": EFFORT},
                "hook_event_name": event.value,
                **fields,
            }
        body["permission_mode"] = self.permission_mode
        body.update(agent)
        if event is not Event.USER_PROMPT_SUBMIT:
            body["effort"] = {"level": EFFORT}
        body["hook_event_name"] = event.value
        body.update(fields)
        if event in (Event.STOP, Event.SUBAGENT_STOP):
            body.setdefault("background_tasks", self._background_tasks())
            body["session_crons"] = []
        return body

    def _background_tasks(self) -> list[dict[str, Any]]:
        return [
            {"id": shell_id, "type": "shell", "status": "running"}
            for shell_id, shell in self.background.items()
            if shell.running
        ]

    def _dispatch(self, event: Event, **fields: Any) -> EventOutcome:
        payload = self._payload(event, **fields)
        if self.on_payload is not None:
            self.on_payload(payload)
        out = dispatch(
            event,
            payload,
            self.settings,
            self.project_dir,
            cwd=self.cwd,
            env=self.env,
            judge=self._judge,
            inherit=None if self.confinement is None else self.confinement.environment(),
        )
        for message in out.errors:
            self.transcript.hook_note(event.value, "error", message)
        for message in out.system_messages:
            self.transcript.hook_note(event.value, "system", message)
        self._background += out.background
        return out

    def _record(self, step: StepOutcome) -> StepOutcome:
        """A step after which the client asks the model again also sends it what the async
        hooks that have ended since said (observed on 2.1.332: a text block of its own after
        the step's own content); the others keep running and speak later."""
        asks_again = step.outcome is Outcome.BLOCKED if step.do == StepKind.STOP else True
        if step.do != StepKind.SESSION_START and not step.turn_ended and asks_again:
            ended = [b for b in self._background if b.run is not None]
            self._background = [b for b in self._background if b.run is None]
            said = [async_output(b) for b in ended]
            for text in filter(None, said):
                self.transcript.hook_note("async", "claude", text)
                step.feedback = f"{step.feedback}\n{text}" if step.feedback else text
        return super()._record(step)

    def _judge(self, hook: HookCommand, condition: str) -> str:
        """The scripted model, asked by a prompt or agent hook: the step's judgement."""
        self.judged.append((hook.kind, condition))
        return self.judgement.text()

    def _path(self, file: str | Path) -> Path:
        """Where a tool acts: in the project, never out of it (not through a symlink either),
        since the simulated tools change real files."""
        path = Path(os.path.abspath(self.cwd / file))
        try:
            inside(self.project_dir, path)
        except ValueError as exc:
            raise HarnessError(
                f"refused: {exc}", fix="the session's tools act on files inside the project only"
            ) from None
        return path

    def _tool_env(self) -> dict[str, str]:
        if self.confinement is not None:
            return self.confinement.environment({"CLAUDECODE": "1", **self.env})
        env = dict(os.environ)
        env["CLAUDECODE"] = "1"
        env.update(self.env)
        return env

    # -- events ------------------------------------------------------------------------------

    def session_start(self, source: str = "startup") -> StepOutcome:
        check_start_source(source)
        before: list[EventOutcome] = []
        if source in ("startup", "resume", "fork", "clear") and self.history and not self._ended:
            # The running session ends first; /clear ends it with reason "clear" (observed).
            before.append(self._end_session("clear" if source == "clear" else "other"))
        if source == "compact":
            pre = self._dispatch(Event.PRE_COMPACT, trigger="manual", custom_instructions=None)
            if pre.blocked:  # a PreCompact exit 2: the conversation is not compacted
                return self._record(_collect(self._compact_blocked(pre), pre))
            before.append(pre)
        self._ended = False
        out = self._dispatch(Event.SESSION_START, source=source)
        if source == "compact":  # observed: PostCompact comes after SessionStart's compact
            before.append(
                self._dispatch(
                    Event.POST_COMPACT, trigger="manual", compact_summary=COMPACT_SUMMARY
                )
            )
        step = self._step(
            StepKind.SESSION_START,
            source,
            Outcome.STOPPED if out.stopped else Outcome.ALLOWED,
            turn_ended=out.stopped,
        )
        for message in out.user_messages:
            self.transcript.hook_note("SessionStart", "user", message)
        return self._record(_collect(step, *before, out))

    def _compact_blocked(self, pre: EventOutcome) -> StepOutcome:
        """Observed on 2.1.332: /compact ends with "Compaction blocked by PreCompact hook:
        [CMD]: STDERR" for the user (and, as a local command's stderr, for Claude's next
        request); the step is blocked and the session goes on uncompacted."""
        step = self._step(StepKind.SESSION_START, "compact", Outcome.BLOCKED)
        for message in pre.user_messages:
            self.transcript.hook_note("PreCompact", "user", message)
        return step

    def _end_session(self, reason: str = "other") -> EventOutcome:
        """SessionEnd: the client fires it as its session ends (``reason: other`` when a
        ``-p`` session's input closes, as a scripted session's does; ``clear`` on /clear)."""
        self._ended = True
        return self._dispatch(Event.SESSION_END, reason=reason)

    def prompt(self, text: str) -> StepOutcome:
        self.prompt_id = str(uuid.uuid4())
        out = self._dispatch(Event.USER_PROMPT_SUBMIT, prompt=text)
        if out.stopped:
            step = self._step(StepKind.PROMPT, text, Outcome.STOPPED, turn_ended=True)
        elif out.blocked:  # the prompt is erased: no new turn starts
            step = self._step(StepKind.PROMPT, text, Outcome.BLOCKED, turn_ended=True)
            out.user_messages = [f"{m}\n\n\nOriginal prompt: {text}" for m in out.user_messages]
            for message in out.user_messages:
                self.transcript.hook_note("UserPromptSubmit", "user", message)
        else:
            self.blocked_stops = 0  # a prompt that goes through starts a new turn
            self.transcript.user(text)
            step = self._step(StepKind.PROMPT, text, Outcome.ALLOWED)
        return self._record(_collect(step, out))

    def stop(self, last_message: str = "") -> StepOutcome:
        active = self.blocked_stops > 0
        if last_message:
            self.transcript.assistant_text(last_message)
        out = self._dispatch(
            Event.STOP, stop_hook_active=active, last_assistant_message=last_message
        )
        if out.stopped:  # continue: false at a stop: the turn ends, as it was about to
            step = self._step(
                StepKind.STOP, "", Outcome.ALLOWED, turn_ended=True, stop_hook_active=active
            )
        elif out.blocked:
            self.blocked_stops += 1
            step = self._step(StepKind.STOP, "", Outcome.BLOCKED, stop_hook_active=active)
            if self.blocked_stops >= STOP_BLOCK_CAP:
                # The client overrides this block: the turn ends and Claude is not told.
                step.turn_ended = True
                step.notes.append(CAP_NOTICE)
            else:
                step.feedback = out.message
                self.transcript.hook_note("Stop", "claude", step.feedback)
        else:
            step = self._step(
                StepKind.STOP, "", Outcome.ALLOWED, turn_ended=True, stop_hook_active=active
            )
        return self._record(_collect(step, out))

    def subagent_stop(
        self,
        agent_type: str,
        prompt: str,
        last_message: str,
        stop_reason: str = "end_turn",
        agent_id: str | None = None,
    ) -> StepOutcome:
        """A subagent finishing. After a blocked stop of the same ``agent_type`` the same agent
        (same id) stops again with ``stop_hook_active: true``."""
        previous = self._subagents.get(agent_type)
        active = previous is not None and previous[1]
        if agent_id is None:
            agent_id = previous[0] if previous and active else secrets.token_hex(8)
        # The main agent starts a subagent with the Agent tool (in the foreground): its
        # PreToolUse runs before the subagent, its PostToolUse once the subagent is done.
        call = {
            "description": f"{agent_type} task",
            "prompt": prompt,
            "subagent_type": agent_type,
            "run_in_background": False,
        }
        events: list[EventOutcome] = []
        if not active:
            pre = self._start_agent(call)
            if pre.blocked or pre.stopped:
                step = self._step(
                    StepKind.SUBAGENT_STOP,
                    agent_type,
                    Outcome.STOPPED if pre.stopped else Outcome.BLOCKED,
                    tool_ran=False,
                    feedback=pre.message,
                    turn_ended=pre.stopped,
                )
                return self._record(_collect(step, pre))
            events.append(pre)
            events.append(
                self._dispatch(Event.SUBAGENT_START, agent_id=agent_id, agent_type=agent_type)
            )
        path = self.transcript_dir / self.session_id / "subagents" / f"agent-{agent_id}.jsonl"
        write_agent_transcript(path, prompt, last_message, stop_reason)
        if stop_reason == MAX_TOKENS:
            return self._record(_collect(self._cut_off(agent_type, agent_id, call), *events))
        out = self._dispatch(
            Event.SUBAGENT_STOP,
            stop_hook_active=active,
            agent_id=agent_id,
            agent_type=agent_type,
            agent_transcript_path=str(path),
            last_assistant_message=last_message,
        )
        self._subagents[agent_type] = (agent_id, out.blocked and not out.stopped)
        step = self._subagent_step(agent_type, out, active)
        if not active:  # observed: the subagent's first request opens with what it was told
            told = [f"{SUBAGENT_CONTEXT}{c}" for c in events[-1].additional_context]
            step.feedback = "\n".join([*told, step.feedback] if step.feedback else told)
        if step.outcome is Outcome.ALLOWED:  # the Agent call returns the subagent's answer
            events += self._agent_answered(step, call, prompt, last_message)
        return self._record(_collect(step, *events, out))

    def _start_agent(self, call: dict[str, Any]) -> EventOutcome:
        """The main agent's Agent call: its PreToolUse, before the subagent starts."""
        self._agent_call_id = "toolu_" + secrets.token_hex(12)
        return self._dispatch(
            Event.PRE_TOOL_USE, tool_name="Agent", tool_input=call, tool_use_id=self._agent_call_id
        )

    def _agent_answered(
        self, step: StepOutcome, call: dict[str, Any], prompt: str, answer: str
    ) -> list[EventOutcome]:
        """The Agent call returns the subagent's answer: PostToolUse, then PostToolBatch."""
        returned = self._agent_returned(call, prompt, answer)
        blocks = [{"type": "text", "text": answer}]
        batch = self._tool_batch("Agent", call, self._agent_call_id, blocks)
        if batch.stopped:  # a PostToolBatch hook stopped the agentic loop
            step.outcome, step.turn_ended = Outcome.STOPPED, True
        return [returned, batch]

    def _cut_off(self, agent_type: str, agent_id: str, call: dict[str, Any]) -> StepOutcome:
        """A subagent cut off by ``max_tokens`` (observed on 2.1.332): asked to go on and cut
        off again, the client ends it with an API error: StopFailure, no SubagentStop, and
        the Agent call fails (PostToolUseFailure) with the error Claude then reads."""
        self._subagents.pop(agent_type, None)
        failure = self._dispatch(
            Event.STOP_FAILURE,
            agent_id=agent_id,
            agent_type=agent_type,
            error="max_output_tokens",
            last_assistant_message=f"API Error: {MAX_TOKENS_ERROR}",
        )
        error = (
            "Agent terminated early due to an API error: API Error: "
            f"{MAX_TOKENS_ERROR} (error type max_output_tokens)"
        )
        failed = self._dispatch(
            Event.POST_TOOL_USE_FAILURE,
            tool_name="Agent",
            tool_input=call,
            tool_use_id=self._agent_call_id,
            error=error,
            is_interrupt=False,
            duration_ms=0,
        )
        step = self._step(StepKind.SUBAGENT_STOP, agent_type, Outcome.ALLOWED, tool_result=error)
        step.notes.append(
            f"the subagent {agent_type!r} was cut off by max_tokens: the client ended it "
            "(Agent terminated early due to an API error), with StopFailure and no SubagentStop"
        )
        if failed.messages:
            step.feedback = failed.message
        return _collect(step, failure, failed)

    def _subagent_step(self, agent_type: str, out: EventOutcome, active: bool) -> StepOutcome:
        """What the SubagentStop hooks made of the subagent's stop."""
        if out.stopped:
            return self._step(
                StepKind.SUBAGENT_STOP,
                agent_type,
                Outcome.STOPPED,
                turn_ended=True,
                stop_hook_active=active,
            )
        if out.blocked:  # the subagent keeps working with the reason as its instruction
            self.transcript.hook_note("SubagentStop", "subagent", out.message)
            return self._step(
                StepKind.SUBAGENT_STOP,
                agent_type,
                Outcome.BLOCKED,
                stop_hook_active=active,
                feedback=out.message,
            )
        return self._step(
            StepKind.SUBAGENT_STOP, agent_type, Outcome.ALLOWED, stop_hook_active=active
        )

    def _agent_returned(self, call: dict[str, Any], prompt: str, answer: str) -> EventOutcome:
        """PostToolUse of the Agent call that ran the subagent, with its answer."""
        started = time.monotonic()
        return self._dispatch(
            Event.POST_TOOL_USE,
            tool_name="Agent",
            tool_input=call,
            tool_response={
                "status": "completed",
                "prompt": prompt,
                "content": [{"type": "text", "text": answer}],
            },
            tool_use_id=self._agent_call_id,
            duration_ms=int((time.monotonic() - started) * 1000),
        )

    # -- tools -------------------------------------------------------------------------------

    def edit(self, file: str | Path, old: str, new: str, replace_all: bool = False) -> StepOutcome:
        path = self._path(file)
        tool_input = edit_input(path, old, new, replace_all)

        def check(given: dict[str, Any]) -> None:
            check_edit(
                self._path(given["file_path"]),
                given["old_string"],
                given["new_string"],
                bool(given.get("replace_all", False)),
            )

        def run(given: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
            target = self._path(given["file_path"])
            response = apply_edit(
                target,
                given["old_string"],
                given["new_string"],
                bool(given.get("replace_all", False)),
            )
            return response, f"The file {target} has been updated.", False

        return self._tool("edit", str(file), "Edit", tool_input, check=check, run=run)

    def write(self, file: str | Path, content: str) -> StepOutcome:
        path = self._path(file)
        tool_input = {"file_path": str(path), "content": content}

        def run(given: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
            target = self._path(given["file_path"])
            response = apply_write(target, given["content"])
            verb = "created" if response["type"] == "create" else "updated"
            return response, f"File {verb} successfully at: {target}", False

        return self._tool("write", str(file), "Write", tool_input, check=None, run=run)

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
        limit = min(timeout or DEFAULT_BASH_TIMEOUT, MAX_BASH_TIMEOUT)
        tool_input: dict[str, Any] = {
            "command": command,
            "description": description,
            "run_in_background": background,
        }
        if timeout is not None:
            tool_input["timeout"] = int(limit * 1000)

        def run(given: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
            command = given["command"]
            if background:
                shell_id = f"bash_{len(self.background) + 1}"
                log = self.transcript_dir / self.session_id / "background" / f"{shell_id}.log"
                self.background[shell_id] = start_background(
                    shell_id,
                    command,
                    cwd=self.cwd,
                    env=self._tool_env(),
                    log=log,
                    jail=self.confinement,
                )
                response = {
                    "stdout": "",
                    "stderr": "",
                    "interrupted": False,
                    "isImage": False,
                    "backgroundTaskId": shell_id,
                }
                return response, f"Command running in background with ID: {shell_id}", False
            result = run_bash(
                command, cwd=self.cwd, env=self._tool_env(), timeout=limit, jail=self.confinement
            )
            failed = result.interrupted or bool(result.exit_code)
            return result.response(), result.result_text(), failed

        return self._tool("bash", command, "Bash", tool_input, check=None, run=run)

    def tool(self, name: str, tool_input: dict[str, Any], result: str | None = None) -> StepOutcome:
        """Any other tool call, as the model makes it. Read runs; WebFetch fails as it does
        offline on the client; WebSearch and MCP tools answer ``result`` (nothing is searched
        or sent). A tool the pinned client does not offer (Grep, Glob, MultiEdit, …) fails
        there before any hook, and so here."""
        tool_input = with_absolute_path(tool_input, self.cwd)
        if not self._offered(name):
            use_id = "toolu_" + secrets.token_hex(12)
            self.transcript.tool_use(use_id, name, tool_input)
            refused = self._refuse("tool", name, use_id, input_rejected(no_such_tool(name)))
            return self._record(refused)
        if name not in EMULATED_TOOLS and not is_mcp_tool(name):
            # Observed on 2.1.332: NotebookEdit wants the notebook read first, ToolSearch and
            # CronList run unasked with answers of the client's own; not imitated yet.
            played = ", ".join(sorted(EMULATED_TOOLS)) + " and MCP tools (mcp__server__tool)"
            raise HarnessError(
                f"the emulator does not play the {name} tool; it plays {played}",
                fix="play the session on the real client (--engine claude-code)",
            )

        def run(given: dict[str, Any]) -> tuple[Any, str, bool]:
            if name == "Read":
                offset, limit = given.get("offset"), given.get("limit")
                return apply_read(
                    self._path(str(given.get("file_path", ""))),
                    self.cwd,
                    offset if isinstance(offset, int) else None,
                    limit if isinstance(limit, int) else None,
                )
            return played_tool(name, given, result)

        return self._tool("tool", name, name, dict(tool_input), check=None, run=run)

    def _tool(
        self,
        do: str,
        detail: str,
        name: str,
        tool_input: dict[str, Any],
        *,
        check: Callable[[dict[str, Any]], None] | None,
        run: Callable[[dict[str, Any]], tuple[Any, str, bool]],
    ) -> StepOutcome:
        """One tool call: its input check, the permission ladder (``ladder.decide``) around
        the PreToolUse hooks, the tool itself, then PostToolUse or PostToolUseFailure."""
        use_id = "toolu_" + secrets.token_hex(12)
        self.transcript.tool_use(use_id, name, tool_input)
        if check is not None:
            problem = _input_error(check, tool_input)
            if problem:
                return self._record(self._refuse(do, detail, use_id, input_rejected(problem)))

        rule, _ = self.settings.permissions.check(name, tool_input, self.project_dir, self.cwd)
        call = CallFacts(name, detail, str(tool_input.get("command", "")), rule)
        early = decide(call, None)
        if early is not None:  # a denied path refuses a file tool before any hook
            return self._record(self._refuse(do, detail, use_id, early))

        pre = self._dispatch(
            Event.PRE_TOOL_USE,
            tool_name=name,
            tool_input=tool_input,
            tool_use_id=use_id,
            **mcp_server(name, self.project_dir),
        )
        rewritten = pre.updated_input  # a hook's updatedInput replaces the input whole
        problems = tuple(input_problems(name, rewritten)) if rewritten is not None else ()
        error = ""
        if rewritten is not None and not problems:
            tool_input = schema_keys(name, rewritten)
            error = _input_error(check, tool_input) if check is not None else ""
        said = HookSay(
            pre.stopped,
            pre.permission_decision,
            pre.message,
            pre.permission_reason,
            problems,
            error,
        )
        call = replace(
            call,
            sensitive=self._sensitive_target(name, tool_input) if not problems else None,
            auto_approve=self.auto_approve,
            unasked=self._unasked(name, tool_input),
        )
        decision = decide(call, said)
        assert decision is not None  # the ladder always ends once the hooks have spoken
        before = [pre]
        if decision.permission in PROMPTING:  # the client is about to show its prompt
            decision, shown = self._prompt_shown(name, tool_input, decision)
            before += shown
        if not decision.runs:
            step = self._refuse(do, detail, use_id, decision)
            return self._record(_collect(step, *before))
        return self._run_tool(do, detail, name, use_id, tool_input, decision, before, run)

    def _unasked(self, name: str, tool_input: dict[str, Any]) -> bool:
        """A read-only call the client makes without asking: Read inside the project, a lone
        read-only Bash command."""
        if name == "Read":
            try:
                inside(self.project_dir, self.cwd / str(tool_input.get("file_path", "")))
            except ValueError:
                return False
            return True
        return name == "Bash" and read_only_command(str(tool_input.get("command", "")))

    def _prompt_shown(
        self, name: str, tool_input: dict[str, Any], decision: Decision
    ) -> tuple[Decision, list[EventOutcome]]:
        """The permission prompt: PermissionRequest first, whose decision may answer it. Left
        up while the project has Notification hooks, the simulated user (a person away from
        the terminal) answers it late, and observed on 2.1.332 a prompt unanswered for 6 s
        fires Notification in the client's words (the client drops that hook's answer)."""
        asked = self._dispatch(
            Event.PERMISSION_REQUEST,
            tool_name=name,
            tool_input=tool_input,
            permission_suggestions=[],
        )
        if asked.permission_decision in ("allow", "deny"):
            return _answered_by_hook(decision, asked), [asked]
        if not self.settings.hooks.get(Event.NOTIFICATION.value):
            return decision, [asked]  # no one to tell: the user answers at once
        waited = self._dispatch(
            Event.NOTIFICATION,
            message=f"Claude needs your permission to use {name}",
            notification_type="permission_prompt",
        )
        return decision, [asked, waited]

    def _refuse(self, do: str, detail: str, use_id: str, decision: Decision) -> StepOutcome:
        """A call that did not run: Claude reads why as the tool's error result."""
        if decision.asked:
            self.transcript.hook_note("PreToolUse", "user", decision.prompt)
        elif decision.permission is Permission.HOOK_DENY:
            self.transcript.hook_note("PreToolUse", "claude", decision.feedback)
        self.transcript.tool_result(use_id, decision.feedback, is_error=True)
        return self._step(
            do,
            detail,
            decision.outcome,
            tool_ran=False,
            permission=decision.permission,
            # A turn that ends here sends Claude nothing more (the claude-code engine reads
            # the same); the refusal stays in the transcript for the next turn.
            feedback="" if decision.turn_ended else decision.feedback,
            user_message=decision.prompt,
            turn_ended=decision.turn_ended,
        )

    def _run_tool(
        self,
        do: str,
        detail: str,
        name: str,
        use_id: str,
        tool_input: dict[str, Any],
        decision: Decision,
        before: list[EventOutcome],
        run: Callable[[dict[str, Any]], tuple[Any, str, bool]],
    ) -> StepOutcome:
        permission, approved = decision.permission, decision.auto_approved
        started = time.monotonic()
        try:
            response, text, is_error = run(tool_input)
        except ToolError as exc:
            step = self._refuse(do, detail, use_id, input_rejected(str(exc), permission))
            step.auto_approved = approved
            return self._record(_collect(step, *before))
        self.transcript.tool_result(use_id, text, is_error=is_error)

        took_ms = int((time.monotonic() - started) * 1000)
        post = self._after_tool(name, use_id, tool_input, response, text, is_error, took_ms)
        step = self._step(
            do,
            detail,
            decision.outcome,
            tool_ran=True,
            permission=permission,
            auto_approved=approved,
            tool_response=response,
            tool_result=cap(text),
        )
        if post.stopped:
            step.outcome, step.turn_ended = Outcome.STOPPED, True
        elif post.messages:
            step.feedback = post.message
            self.transcript.hook_note(post.event.value, "claude", post.message)
            if post.blocked:
                step.outcome = Outcome.BLOCKED
        batch = self._tool_batch(name, tool_input, use_id, text)
        if batch.stopped:  # a PostToolBatch hook stopped the agentic loop
            step.outcome, step.turn_ended = Outcome.STOPPED, True
        return self._record(_collect(step, *before, post, batch))

    def _tool_batch(
        self, name: str, tool_input: dict[str, Any], use_id: str, text: str | list[Any]
    ) -> EventOutcome:
        """PostToolBatch: the model's calls of this turn have all answered (one per step
        here), each with the result Claude reads (an Agent call's: its content blocks)."""
        call = {"tool_name": name, "tool_input": tool_input, "tool_use_id": use_id}
        return self._dispatch(Event.POST_TOOL_BATCH, tool_calls=[{**call, "tool_response": text}])

    def _after_tool(
        self,
        name: str,
        use_id: str,
        tool_input: dict[str, Any],
        response: Any,
        text: str,
        is_error: bool,
        took_ms: int,
    ) -> EventOutcome:
        """The event after a tool ran. A tool that failed (a Bash command exiting non-zero, or
        cut off by its timeout) fires PostToolUseFailure with the error, not PostToolUse with
        the response; keys in the client's order (the response before the call's id)."""
        if is_error:
            return self._dispatch(
                Event.POST_TOOL_USE_FAILURE,
                tool_name=name,
                tool_input=tool_input,
                tool_use_id=use_id,
                error=cap(text),
                is_interrupt=isinstance(response, dict) and bool(response.get("interrupted")),
                duration_ms=took_ms,
            )
        return self._dispatch(
            Event.POST_TOOL_USE,
            tool_name=name,
            tool_input=tool_input,
            tool_response=response,
            tool_use_id=use_id,
            duration_ms=took_ms,
            **mcp_server(name, self.project_dir),
        )

    def _sensitive_target(self, name: str, tool_input: dict[str, Any]) -> Path | None:
        if name in FILE_TOOLS:
            path = tool_input.get("file_path")
            if isinstance(path, str) and is_sensitive(
                Path(path), self.project_dir, self.plugin_folders
            ):
                return Path(os.path.normpath(path))
            return None
        if name == "Bash":
            command = str(tool_input.get("command", ""))
            return sensitive_write(command, self.cwd, self.project_dir, self.plugin_folders)
        return None


def _input_error(check: Callable[[dict[str, Any]], None], tool_input: dict[str, Any]) -> str:
    """What the tool's own input check says is wrong ("" when nothing is)."""
    try:
        check(tool_input)
    except ToolError as exc:
        return str(exc)
    return ""


# The parameters of each simulated tool, their JSON types and whether they are required: the
# input schemas the pinned client (2.1.332) sends the model (its api-request-shape lines).
TOOL_SCHEMAS: dict[str, dict[str, tuple[type, bool]]] = {
    "Write": {"file_path": (str, True), "content": (str, True)},
    "Edit": {
        "file_path": (str, True),
        "old_string": (str, True),
        "new_string": (str, True),
        "replace_all": (bool, False),
    },
    "Bash": {
        "command": (str, True),
        "description": (str, False),
        "run_in_background": (bool, False),
        "timeout": (int, False),
        "dangerouslyDisableSandbox": (bool, False),
    },
    "Read": {
        "file_path": (str, True),
        "offset": (int, False),
        "limit": (int, False),
        "pages": (str, False),
        "allow_large": (bool, False),
    },
}
_JSON_TYPE_NAMES = {str: "string", bool: "boolean", int: "number", float: "number"}


def schema_keys(tool: str, given: dict[str, Any]) -> dict[str, Any]:
    """A valid rewritten input as the tool runs with it: only the parameters its schema
    declares. The pinned client drops the others (a hook's updatedInput with an extra field,
    even one nested 100,000 levels deep, runs without it: PostToolUse does not see it;
    tests/differential/cases/updated-input-deep-*.toml), so nothing deep is passed on."""
    schema = TOOL_SCHEMAS.get(tool)
    if schema is None:
        return given
    return {key: value for key, value in given.items() if key in schema}


def input_problems(tool: str, given: dict[str, Any]) -> list[str]:
    """What is wrong with a tool input, worded as the client words it ([] when it is valid)."""
    problems = []
    for param, (kind, required) in TOOL_SCHEMAS.get(tool, {}).items():
        if param not in given:
            if required:
                problems.append(f"The required parameter `{param}` is missing")
            continue
        value = given[param]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            provided = _JSON_TYPE_NAMES.get(type(value), "null" if value is None else "object")
            if isinstance(value, list):
                provided = "array"
            problems.append(
                f"The parameter `{param}` type is expected as `{_JSON_TYPE_NAMES[kind]}` "
                f"but provided as `{provided}`"
            )
    return problems
