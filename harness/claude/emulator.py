"""The ``emulator`` engine: a scripted session played by Hook Lab itself, no Node needed.

Events go out in the client's order and shape, hooks run for real, tools act on the real
files (emulated_tools.py), and Claude Code's rules (permissions, the stop loop and its cap,
async hooks, subagents, compaction) are imitated as the pinned client 2.1.332 was observed to
keep them. Each step returns the same ``StepOutcome`` the real-client driver reads off the
client (client/driver.py); what both engines share is ``ScriptedSession`` (scripted.py).
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
import uuid
from pathlib import Path
from typing import Any, ClassVar, Unpack

from harness.claude.client_env import EFFORT
from harness.claude.dispatch import EventOutcome, async_output, dispatch
from harness.claude.emulated_tools import (
    ToolPlay,
    bash_run,
    collect,
    edit_runners,
    other_run,
    write_run,
)
from harness.claude.events import OUTSIDE_TURN, Event
from harness.claude.judge import Judgement
from harness.claude.runner import BackgroundHook
from harness.claude.scripted import (
    COMPACT_SUMMARY,
    MAX_TOKENS,
    RELAUNCH_SOURCES,
    STOP_BLOCK_CAP,
    ScriptedSession,
    SessionOptions,
    StepOutcome,
    SubagentEnd,
    ToolUse,
    cut_off_note,
    told_first,
)
from harness.claude.settings import HookCommand, Settings
from harness.claude.tools import (
    DEFAULT_BASH_TIMEOUT,
    EMULATED_TOOLS,
    MAX_BASH_TIMEOUT,
    BackgroundShell,
    is_mcp_tool,
    no_such_tool,
)
from harness.claude.transcript import Transcript, write_agent_transcript
from harness.claude.vocabulary import Engine, Outcome, StepKind
from harness.errors import HarnessError
from harness.paths import inside

CAP_NOTICE = (
    f"A hook blocked the turn from ending {STOP_BLOCK_CAP} consecutive times\u2014overriding "
    "and ending turn."
)
MAX_TOKENS_ERROR = (
    "Claude's response exceeded the 128000 output token maximum. To configure this behavior, "
    "set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable."
)
SUBAGENT_CONTEXT = "SubagentStart hook additional context: "


class EmulatedSession(ScriptedSession):
    """A scripted session on the emulator (``ScriptedSession`` has the arguments). A
    permission prompt Claude Code would show for a tool with no allow rule is approved by the
    simulated user and recorded as ``permission="prompted"``."""

    engine: ClassVar[Engine] = Engine.EMULATOR
    scratch_prefix: ClassVar[str] = "hooklab-session-"

    def __init__(
        self,
        project_dir: Path | str,
        settings: Settings | None = None,
        **options: Unpack[SessionOptions],
    ) -> None:
        super().__init__(project_dir, settings, **options)
        self.transcript = Transcript(
            self.transcript_dir / f"{self.session_id}.jsonl", self.session_id, self.cwd
        )
        self.background: dict[str, BackgroundShell] = {}
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
            f"<EmulatedSession {self.session_id[:8]} in {self.project_dir} "
            f"steps={len(self.history)} blocked_stops={self.blocked_stops}>"
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
            shells = [i for i, shell in self.background.items() if shell.running]
            tasks = [{"id": i, "type": "shell", "status": "running"} for i in shells]
            body.setdefault("background_tasks", tasks)
            body["session_crons"] = []
        return body

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
            env=self._client_env(),
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

    def _target(self, file: str | Path) -> Path:
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

    def _client_env(self) -> dict[str, str]:
        """What the session adds to the environment it inherits: the settings' "env" (the
        client sets it in its own environment, so every hook and tool gets it: observed on
        2.1.332, a PATH there is every hook's PATH), then what Hook Lab gives the session."""
        return {**self.settings.env, **self.env}

    def _tool_env(self) -> dict[str, str]:
        if self.confinement is not None:
            return self.confinement.environment({"CLAUDECODE": "1", **self._client_env()})
        env = dict(os.environ)
        env["CLAUDECODE"] = "1"
        env.update(self._client_env())
        return env

    # -- events ------------------------------------------------------------------------------

    def _session_start(self, source: str) -> StepOutcome:
        before: list[EventOutcome] = []
        ends_running = source in RELAUNCH_SOURCES or source == "clear"
        if ends_running and self.history and not self._ended:
            # The running session ends first; /clear ends it with reason "clear" (observed).
            before.append(self._end_session("clear" if source == "clear" else "other"))
        if source == "compact":
            pre = self._dispatch(Event.PRE_COMPACT, trigger="manual", custom_instructions=None)
            if pre.blocked:  # a PreCompact exit 2: the conversation is not compacted
                return self._record(collect(self._compact_blocked(pre), pre))
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
        return self._record(collect(step, *before, out))

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
        return self._record(collect(step, out))

    def _stop(self, last_message: str, active: bool) -> StepOutcome:
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
        return self._record(collect(step, out))

    def _subagent_stop(self, end: SubagentEnd) -> StepOutcome:
        """After a blocked stop of the same ``agent_type`` the same agent (same id) stops
        again."""
        agent_type, call, prompt = end.agent_type, end.call, end.prompt
        last_message, stop_reason, agent_id = end.last_message, end.stop_reason, end.agent_id
        previous = self._subagents.get(agent_type)
        active = previous is not None and previous[1]
        if agent_id is None:
            agent_id = previous[0] if previous and active else secrets.token_hex(8)
        # The main agent starts a subagent with the Agent tool (in the foreground): its
        # PreToolUse runs before the subagent, its PostToolUse once the subagent is done.
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
                return self._record(collect(step, pre))
            events.append(pre)
            events.append(
                self._dispatch(Event.SUBAGENT_START, agent_id=agent_id, agent_type=agent_type)
            )
        path = self.transcript_dir / self.session_id / "subagents" / f"agent-{agent_id}.jsonl"
        write_agent_transcript(path, prompt, last_message, stop_reason)
        if stop_reason == MAX_TOKENS:
            return self._record(collect(self._cut_off(agent_type, agent_id, call), *events))
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
            step.feedback = told_first(told, step.feedback)
        if step.outcome is Outcome.ALLOWED:  # the Agent call returns the subagent's answer
            events += self._agent_answered(step, call, prompt, last_message)
        return self._record(collect(step, *events, out))

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
        step.notes.append(cut_off_note(agent_type))
        if failed.messages:
            step.feedback = failed.message
        return collect(step, failure, failed)

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

    def _tool_batch(
        self, name: str, tool_input: dict[str, Any], use_id: str, text: str | list[Any]
    ) -> EventOutcome:
        """PostToolBatch: the model's calls of this turn have all answered (one per step
        here), each with the result Claude reads (an Agent call's: its content blocks)."""
        call = {"tool_name": name, "tool_input": tool_input, "tool_use_id": use_id}
        return self._dispatch(Event.POST_TOOL_BATCH, tool_calls=[{**call, "tool_response": text}])

    # -- tools (emulated_tools.py plays each call) -------------------------------------------

    def _bash_input(
        self, command: str, background: bool, timeout: float | None, description: str
    ) -> dict[str, Any]:
        limit = min(timeout or DEFAULT_BASH_TIMEOUT, MAX_BASH_TIMEOUT)
        tool_input: dict[str, Any] = {
            "command": command,
            "description": description,
            "run_in_background": background,
        }
        if timeout is not None:
            tool_input["timeout"] = int(limit * 1000)
        return tool_input

    def _use_tool(self, use: ToolUse) -> StepOutcome:
        """Edit, Write and Bash act on the project; of the other tools, Read runs, WebFetch
        fails as it does offline on the client, WebSearch and MCP tools answer ``result``."""
        do, name, tool_input = use.do, use.name, use.tool_input
        play = ToolPlay(self, do, use.detail, name)
        if do == StepKind.EDIT:
            check, run = edit_runners(self)
            return self._record(play.play(tool_input, check, run))
        if do == StepKind.WRITE:
            return self._record(play.play(tool_input, None, write_run(self)))
        if do == StepKind.BASH:
            return self._record(play.play(tool_input, None, bash_run(self, tool_input)))
        if not self._offered(name):
            return self._record(play.refused(tool_input, no_such_tool(name)))
        if name not in EMULATED_TOOLS and not is_mcp_tool(name):
            # Observed on 2.1.332: NotebookEdit wants the notebook read first, ToolSearch and
            # CronList run unasked with answers of the client's own; not imitated yet.
            played = ", ".join(sorted(EMULATED_TOOLS)) + " and MCP tools (mcp__server__tool)"
            raise HarnessError(
                f"the emulator does not play the {name} tool; it plays {played}",
                fix="play the session on the real client (--engine claude-code)",
            )
        return self._record(play.play(dict(tool_input), None, other_run(self, name, use.result)))


def fire(session: EmulatedSession, event: Event, **fields: Any) -> EventOutcome:
    """One event's hooks in ``session``, run as the client runs them but outside a step: for
    a check that feeds a single hook its event (harness/claude/as_client.py)."""
    return session._dispatch(event, **fields)
