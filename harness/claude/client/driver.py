"""The ``claude-code`` engine: a scripted session played on the real Claude Code client.

The pinned CLI runs in ``-p`` mode with stream-json in and out, pointed at the scripted
Messages API on 127.0.0.1 (``api.py``). This class plays the model: each scenario step becomes
the model's next turn (a ``tool_use`` block, an ``end_turn`` text, an ``Agent`` call whose
subagent answers with the step's last message), and each user action becomes a stream-json
input line (a prompt, ``/clear``) or a relaunch (``--resume``). What the step did is read back
from what the client sent next (the tool result, hook feedback, system reminders), from its
stream-json output (``--include-hook-events``: every hook run with exit code and output) and
from its permission requests (``--permission-prompt-tool stdio``), which the simulated user
answers. The result is the same ``StepOutcome`` the emulator gives.

The client's own rules apply, not ours: its hooks, matchers, permission rules, timeouts and
stop loop. Nothing here decides an outcome; it only reads what the client did.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Unpack

from harness.claude.client.api import ApiRequest, Reply, blocks_text
from harness.claude.client.install import ClientInstall, require_client
from harness.claude.client.launch import Launcher
from harness.claude.client.reading import (
    StepLog,
    compact_blocked,
    failed_hooks,
    first_text,
    hook_feedback,
    ran,
    read_stop_end,
    read_tool,
    subagent_start_context,
)
from harness.claude.client.turns import Turn, TurnLoop
from harness.claude.events import Event
from harness.claude.judge import Judgement
from harness.claude.runner import HookRun
from harness.claude.scripted import (
    COMPACT_SUMMARY,
    MAX_TOKENS,
    RELAUNCH_SOURCES,
    ScriptedSession,
    SessionOptions,
    StepOutcome,
    SubagentEnd,
    ToolUse,
    cut_off_note,
    told_first,
)
from harness.claude.settings import AGENT_TYPE, Settings, load_settings
from harness.claude.vocabulary import Engine, Outcome, StepKind
from harness.errors import HarnessError

IMPLICIT_PROMPT = "Go on."  # opens a turn when a scenario acts before any prompt
MAX_CONTINUATIONS = 8  # more than the client asks a cut-off subagent to go on (3 on 2.1.332)


class ClaudeCodeSession(ScriptedSession):
    """A scripted session on the real client (``ScriptedSession`` has the arguments).

    ``client``: the install to run (the pinned one by default). ``startup_wait``: how long a
    session start waits for its SessionStart hooks (default: a step's whole budget); a client
    whose hooks never run would otherwise keep every start that long. ``trusted``: a person
    has accepted the folder's trust dialog before any session there (the interactive client
    asks first); False plays an untrusted folder. The transcript folder is the client's
    config folder (``config_dir``)."""

    engine: ClassVar[Engine] = Engine.CLAUDE_CODE
    scratch_prefix: ClassVar[str] = "hooklab-claude-code-"

    def __init__(
        self,
        project_dir: Path | str,
        settings: Settings | None = None,
        *,
        client: ClientInstall | None = None,
        startup_wait: float | None = None,
        trusted: bool = True,
        **options: Unpack[SessionOptions],
    ) -> None:
        self.client = client or require_client()  # before a folder is made for it
        super().__init__(project_dir, settings, **options)
        self.startup_wait = startup_wait
        self.trusted = trusted
        self.config_dir = self.transcript_dir = self.transcript_dir.resolve()
        self.config_dir.mkdir(parents=True, exist_ok=True)
        self.launcher = Launcher(self)
        self.api = self.launcher.api
        self.events = self.launcher.events  # every stream-json line, as evidence
        self.stderr_lines = self.launcher.stderr_lines
        self._pending: ApiRequest | None = None  # the main loop waiting for the model
        self._subagents: dict[str, tuple[str, ApiRequest | None]] = {}  # type -> (prompt, req)
        self.turns = TurnLoop(self, self.launcher, self._subagents)
        self._tool_ids = 0
        self._judged_seen = 0  # the hook judgements the scripted model gave in earlier steps

    def _load_settings(self) -> Settings:
        """The project's settings as far as this engine needs them (which SessionStart hooks
        to wait for, how long a step may take). The client reads the files itself: a file
        our own validation rejects is the client's to judge, so it counts as no hooks here."""
        try:
            return load_settings(self.project_dir, self.plugin_dirs)
        except HarnessError:
            return Settings()

    def __repr__(self) -> str:
        state = "running" if self.launcher.running else "idle"
        return f"<ClaudeCodeSession {self.client.version} {state} steps={len(self.history)}>"

    @property
    def judgement(self) -> Judgement:
        """What the scripted model answers a prompt or agent hook in the next step."""
        return self.api.judgement

    @judgement.setter
    def judgement(self, value: Judgement) -> None:
        self.api.judgement = value

    @property
    def transcript_path(self) -> Path:
        slug = re.sub(r"[^A-Za-z0-9]", "-", str(self.cwd))
        return self.config_dir / "projects" / slug / f"{self.session_id}.jsonl"

    @property
    def requests(self) -> list[ApiRequest]:
        return self.api.requests

    def close(self) -> None:
        self._end_process()
        self.launcher.close()
        if self._own_dir:
            shutil.rmtree(self.config_dir, ignore_errors=True)
        else:
            self.save_evidence(self.config_dir)

    def save_evidence(self, folder: Path) -> None:
        """Every request the client sent the scripted model, and every line it printed."""
        self.launcher.save_evidence(folder)

    def _launch(self, resume: bool, fork: bool = False) -> None:
        """Start the client; ``resume`` the session, or ``fork`` it (a new session with the
        old one's conversation, as ``--fork-session`` makes)."""
        running = self.session_id
        if fork:
            self.session_id = str(uuid.uuid4())
        self.launcher.launch(running, resume=resume, fork_to=self.session_id if fork else None)

    def _end_process(self) -> None:
        in_flight = self._pending is not None or any(r for _, r in self._subagents.values())
        self._pending = None
        self.launcher.end(in_flight=in_flight)

    def _done(
        self,
        step: StepOutcome,
        record: StepLog,
        *,
        settle: bool = True,
        fired: str | None = None,
    ) -> StepOutcome:
        """``settle``: wait for late hook answers (a session start's handshake comes after its
        hooks' answers on the same stream, and a start that timed out has hooks still running).
        ``fired``: an event the step surely fired (see ``_await_hook_answers``)."""
        if settle:
            self.turns.await_hook_answers(record, fired=fired)
        self.turns.earlier_hooks.update(
            str(e["hook_id"])
            for e in record.events
            if e.get("subtype") == "hook_started" and e.get("hook_id")
        )
        fresh = self.api.judged[self._judged_seen :]
        self._judged_seen += len(fresh)
        step.hook_runs = record.hook_runs() + judged_runs(fresh, self.settings)
        step.errors += failed_hooks(step.hook_runs)
        self.launcher.pass_on_payloads()
        step.notes += record.plugin_errors()
        step.notes += [text for text in record.informational() if "hook" in text.lower()]
        for note in record.notes:
            step.notes.append(note)
        return self._record(step)

    def _ensure_running(self, record: StepLog) -> None:
        if not self.launcher.running:
            # Every real session opens with SessionStart; a scenario that skips the step
            # still gets it here, and the step says so.
            record.notes.append("the client started a session first (SessionStart: startup)")
            self._launch(resume=False)
            self.turns.collect_session_start("startup", record)

    def _ensure_turn(self, record: StepLog) -> ApiRequest:
        """The main loop's request waiting for the model, opening a turn if none is."""
        self._ensure_running(record)
        if self._pending is not None:
            return self._pending
        record.notes.append(
            f"the scenario acts without a prompt: the user said {IMPLICIT_PROMPT!r}"
        )
        self.launcher.send(user_says(IMPLICIT_PROMPT))
        turn = self.turns.wait(record=record)
        if turn.kind != "request" or turn.request is None:
            raise HarnessError(
                "Claude Code did not start a turn for the scenario's step: "
                + self.turns.describe(turn),
                fix="check the UserPromptSubmit hooks, or start the step with a prompt",
            )
        self._pending = turn.request
        return turn.request

    def _new_tool_id(self) -> str:
        self._tool_ids += 1
        return f"toolu_scripted_{self._tool_ids:03d}"

    # session_start, prompt, stop -----------------------------------------------------------

    def _session_start(self, source: str) -> StepOutcome:
        record = StepLog()
        if source in RELAUNCH_SOURCES:
            if source != "startup" and self.launcher.proc is None and not self.history:
                raise HarnessError(
                    f"session_start source {source!r} needs an earlier session to resume",
                    fix="start with a startup session first",
                )
            self._end_process()
            self._subagents.clear()
            if source == "startup":
                self.session_id = str(uuid.uuid4())
            self._launch(resume=source != "startup", fork=source == "fork")
            self.turns.collect_session_start(source, record)
        else:
            self._ensure_running(record)
            self._close_open_turn(record)
            self.launcher.send(user_says(f"/{source}"))
            turn = self.turns.wait(record=record)
            for _ in range(5):  # /compact asks the model for a summary of the session first
                if turn.kind not in ("request", "subagent") or turn.request is None:
                    break
                self.api.answer(turn.request, Reply.text(COMPACT_SUMMARY))
                turn = self.turns.wait(record=record)
            if turn.kind == "result" and turn.result and turn.result.get("session_id"):
                self.session_id = str(turn.result["session_id"])
            if turn.kind == "result" and turn.result and source == "compact":
                said = str(turn.result.get("result") or "")
                if said and "compact" in said.lower() and "not enough" in said.lower():
                    record.notes.append(f"/compact: {said}")
        step = self._step(StepKind.SESSION_START, source, Outcome.ALLOWED)
        runs = record.hook_runs("SessionStart")
        contexts = [r.stdout.strip() for r in runs if r.exit_code == 0 and r.stdout.strip()]
        step.additional_context = "\n".join(contexts)
        step.user_message = "\n".join(r.stderr.strip() for r in runs if r.exit_code == 2)
        blocked = compact_blocked(record)
        if blocked:
            step.outcome, step.user_message = Outcome.BLOCKED, blocked
        return self._done(step, record, settle=False)

    def _close_open_turn(self, record: StepLog) -> None:
        """End a turn still in flight before the user acts (a new prompt, /clear): the model
        says it is done, and a blocking Stop hook is answered the same way until it lets go."""
        for _ in range(12):
            if self._pending is None:
                return
            record.notes.append("the open turn was ended first (the model said it was done)")
            request, self._pending = self._pending, None
            self.api.answer(request, Reply.text("Stopping here."))
            turn = self.turns.wait(record=record)
            if turn.kind == "request":
                self._pending = turn.request
        raise HarnessError(
            "Claude Code kept the turn open after 12 replies", fix="check the Stop hooks"
        )

    def prompt(self, text: str) -> StepOutcome:
        record = StepLog()
        self._ensure_running(record)
        self._close_open_turn(record)
        self.launcher.send(user_says(text))
        turn = self.turns.wait(record=record)
        if turn.kind == "request":
            self._pending = turn.request
            self.blocked_stops = 0
            step = self._step(StepKind.PROMPT, text, Outcome.ALLOWED)
        else:
            blocked = record.informational("UserPromptSubmit")
            stopped = record.prompt_stopped() or (
                turn.result is not None and turn.result.get("terminal_reason") == "hook_stopped"
            )
            if stopped:
                blocked = record.informational("Operation stopped by hook")
            step = self._step(
                StepKind.PROMPT,
                text,
                Outcome.STOPPED if stopped else Outcome.BLOCKED,
                turn_ended=True,
            )
            step.user_message = "\n".join(blocked)
        return self._done(step, record)

    def _stop(self, last_message: str, active: bool) -> StepOutcome:
        record = StepLog()
        request = self._ensure_turn(record)
        self._pending = None
        self.api.answer(request, Reply.text(last_message or "Done."))
        turn = self.turns.wait(record=record)
        fired = None  # a block surely fired the Stop hooks; an end may be the client's own
        if turn.kind == "request" and turn.request is not None:
            self._pending = turn.request
            self.blocked_stops += 1
            fired = Event.STOP.value
            background = has_async_hooks(self.settings)
            feedback = hook_feedback(turn.request, after=request, background=background)
            step = self._step(
                StepKind.STOP,
                "",
                Outcome.BLOCKED,
                stop_hook_active=active,
                feedback="\n".join(feedback),
            )
        elif turn.kind == "result" and turn.result is not None:
            outcome = read_stop_end(record, turn.result)
            step = self._step(StepKind.STOP, "", outcome, turn_ended=True, stop_hook_active=active)
            step.system_message = record.system_messages()
        else:
            raise HarnessError(
                "Claude Code did not answer the stop: " + self.turns.describe(turn),
                fix="see the client's output in the step's notes",
            )
        return self._done(step, record, fired=fired)

    # tools ---------------------------------------------------------------------------------

    def _bash_input(
        self, command: str, background: bool, timeout: float | None, description: str
    ) -> dict[str, Any]:
        tool_input: dict[str, Any] = {"command": command, "description": description or command}
        if background:
            tool_input["run_in_background"] = True
        if timeout is not None:
            tool_input["timeout"] = int(min(timeout, 600) * 1000)
        return tool_input

    def _use_tool(self, use: ToolUse) -> StepOutcome:
        """The scripted model calls the tool; the client runs it, or refuses a tool it does
        not offer. A WebSearch finds ``result`` (the scripted model answers the search); an
        MCP tool answers what the project's MCP server answers."""
        do, detail, name, tool_input = use.do, use.detail, use.name, use.tool_input
        if do == StepKind.TOOL:
            self.api.search_result = use.result or ""
            self.launcher.mcp_answer.write_text(use.result or "", encoding="utf-8")
        record = StepLog()
        request = self._ensure_turn(record)
        use_id = self._new_tool_id()
        self._pending = None
        self.api.answer(request, Reply.tool_use(use_id, name, tool_input))
        allowance = float(tool_input.get("timeout", 120_000)) / 1000  # Bash's own limit
        turn = self.turns.wait(record=record, extra=allowance)
        result_event = record.tool_result_event(use_id)
        if turn.kind == "result" and turn.result is not None:
            step = self._step(do, detail, Outcome.STOPPED, turn_ended=True)
            step.tool_ran = result_event is not None and ran(result_event)
            step.permission, step.auto_approved = record.permission, record.auto_approved
            return self._done(step, record)
        if turn.kind != "request" or turn.request is None:
            raise HarnessError(
                f"Claude Code did not finish the {name} call: " + self.turns.describe(turn),
                fix="see the client's output in the step's notes",
            )
        self._pending = turn.request
        self.turns.await_result_line(use_id, record)
        read = read_tool(
            record,
            use_id,
            before=request,
            after=turn.request,
            auto_approve=self.auto_approve,
            background=has_async_hooks(self.settings),
        )
        step = self._step(do, detail, **dataclasses.asdict(read))
        return self._done(step, record)

    # subagents -----------------------------------------------------------------------------

    def _subagent_stop(self, end: SubagentEnd) -> StepOutcome:
        """The first time, the main loop's Agent call starts the subagent; after a blocked
        stop the same subagent answers again."""
        agent_type, last_message, stop_reason = end.agent_type, end.last_message, end.stop_reason
        record = StepLog()
        if end.agent_id:
            record.notes.append(f"agent_id {end.agent_id!r} is the client's to choose; ignored")
        waiting = self._subagents.get(agent_type)
        active = waiting is not None and waiting[1] is not None
        if not active:
            self._start_subagent(agent_type, end.call, record)
        prompt, sub_request = self._subagents[agent_type]
        assert sub_request is not None
        told = "" if active else subagent_start_context(sub_request)
        self._subagents[agent_type] = (prompt, None)
        self.api.answer(sub_request, Reply.text(last_message, stop_reason))
        turn = self.turns.wait(record=record)
        if stop_reason == MAX_TOKENS:
            turn = self._cut_off(agent_type, Reply.text(last_message, stop_reason), turn, record)
        blocked_request = self._subagents.get(agent_type, (prompt, None))[1]
        if blocked_request is not None:
            feedback = hook_feedback(
                blocked_request, after=sub_request, background=has_async_hooks(self.settings)
            )
            step = self._step(
                StepKind.SUBAGENT_STOP,
                agent_type,
                Outcome.BLOCKED,
                stop_hook_active=active,
                feedback=told_first([told] if told else [], "\n".join(feedback)),
            )
            if turn.kind == "request":
                self._pending = turn.request
            return self._done(step, record, fired=Event.SUBAGENT_STOP.value)
        del self._subagents[agent_type]
        if turn.kind == "request":
            self._pending = turn.request
        step = self._step(
            StepKind.SUBAGENT_STOP,
            agent_type,
            Outcome.ALLOWED,
            stop_hook_active=active,
            feedback=told,
        )
        if turn.kind == "result" and turn.result is not None:
            step.turn_ended = True
            if turn.result.get("terminal_reason") == "hook_stopped":
                step.outcome = Outcome.STOPPED
        return self._done(step, record)

    def _cut_off(self, agent_type: str, reply: Reply, turn: Turn, record: StepLog) -> Turn:
        """A subagent whose answers are cut off by ``max_tokens``. Observed on 2.1.332: the
        client asks it to go on (three times), each answer cut off again, then ends it
        ("Agent terminated early due to an API error"), fires StopFailure and no
        SubagentStop, and the Agent call fails. Every request it makes gets the same reply."""
        for _ in range(MAX_CONTINUATIONS):
            prompt, waiting = self._subagents.get(agent_type, ("", None))
            if turn.kind != "subagent" or waiting is None:
                break
            self._subagents[agent_type] = (prompt, None)
            self.api.answer(waiting, reply)
            turn = self.turns.wait(record=record)
        record.notes.append(cut_off_note(agent_type))
        return turn

    def _start_subagent(self, agent_type: str, call: dict[str, Any], record: StepLog) -> None:
        """The main loop makes the Agent ``call``; the subagent's first request to the model
        is then waiting in ``_subagents``."""
        main_request = self._ensure_turn(record)
        prompt = str(call["prompt"])
        self._subagents[agent_type] = (prompt, None)
        self._pending = None
        self.api.answer(main_request, Reply.tool_use(self._new_tool_id(), "Agent", call))
        turn = self.turns.wait(record=record)
        if self._subagents.get(agent_type, (prompt, None))[1] is not None:
            return
        if turn.kind == "request":
            self._pending = turn.request
        said = first_text(turn.request) if turn.request is not None else self.turns.describe(turn)
        raise HarnessError(
            f"Claude Code did not start the subagent {agent_type!r}: {said}",
            fix="ship the agent in the project (.claude/agents), or a namespaced one as a plugin "
            "its settings enable (enabledPlugins) from a marketplace they declare "
            "(extraKnownMarketplaces)",
        )


def user_says(text: str) -> dict[str, Any]:
    """A stream-json input line: the user types ``text`` (a prompt or a slash command)."""
    return {"type": "user", "message": {"role": "user", "content": text}}


def has_async_hooks(settings: Settings) -> bool:
    """Whether the settings have async hooks, whose output the client sends on a later turn."""
    groups = [g for event_groups in settings.hooks.values() for g in event_groups]
    return any(hook.run_async for group in groups for hook in group.hooks)


def judged_runs(
    fresh: Sequence[tuple[str, ApiRequest, Judgement]], settings: Settings
) -> list[HookRun]:
    """The prompt and agent hooks the client ran, read off the ``fresh`` judging requests it
    sent the scripted model (it prints no hook event for them)."""
    runs = []
    for kind, request, judgement in fresh:
        blocks = request.last_user_blocks()
        if any(b.get("type") == "tool_result" for b in blocks):
            continue  # an agent hook's verifier after its StructuredOutput call
        asked = blocks_text(request.messages[0].get("content") if kind == AGENT_TYPE else blocks)
        event, label = _judged_hook(settings, kind, asked)
        code, stderr = (0, "") if judgement.ok else (2, judgement.reason)
        if kind == AGENT_TYPE and not judgement.ok:
            stderr = f"Agent hook condition was not met: {judgement.reason}"
        text = judgement.text()
        runs.append(HookRun(event, label, code, text, stderr, False, 0.0, kind=kind))
    return runs


def _judged_hook(settings: Settings, kind: str, asked: str) -> tuple[str, str]:
    """The event and the hook a judging request came from: the event JSON it quotes
    (``$ARGUMENTS``), and the settings' hook of that type whose prompt it holds."""
    named = re.search(r'"hook_event_name":"(\w+)"', asked)
    event = named.group(1) if named else "Stop"
    for groups in (settings.hooks.get(event, ()), *settings.hooks.values()):
        for hook in (h for g in groups for h in g.hooks if h.kind == kind):
            if hook.command.split("$ARGUMENTS")[0].strip() in asked:
                return event, hook.label
    return event, f"({kind} hook)"
