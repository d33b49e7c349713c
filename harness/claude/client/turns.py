"""One turn of the real client, waited for: what it asks the model next, how the turn ended,
the permission prompts it raises on the way (answered as the simulated user), and the hook
runs it reports, each kept for the step that started it.

``driver.py`` plays the scenario with it; ``launch.py`` runs the client; ``reading.py`` reads
what the lines mean.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.claude.client.api import ApiRequest
from harness.claude.client.launch import Launcher
from harness.claude.client.reading import StepLog, read_prompt
from harness.claude.events import UNAWAITED, Event
from harness.claude.settings import DEFAULT_TIMEOUT, HookCommand
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.claude.client.driver import ClaudeCodeSession

NOTIFICATION = "Notification"
NOTIFY_AFTER = 6.0  # seconds a permission prompt stays unanswered before Notification fires
STEP_TIMEOUT = 120.0  # seconds a step may wait for the client, beyond its own hook timeouts


NOTIFIED = "Notification (permission_prompt) fired and its hooks answered; then the user did"


class NotificationRuns:
    """Whether the Notification hooks a permission prompt fired have all answered.

    Observed on 2.1.332: the client prints no line for a Notification hook in stream-json or
    the transcript, but its debug log (``--debug-file``, launch.py) records each one's end:
    ``Notification:permission_prompt [COMMAND] completed with status N``, or ``… cancelled``
    when its timeout killed it, COMMAND as the settings write it. The line is written as the
    hook ends, so a hook quicker than any poll still leaves it: over once every command hook
    has one. (Watching the client's children, as before, missed a hook quicker than a poll.)
    The stream's hook lines still count, should a client print them. An http or prompt hook
    is not waited for by its line: only the deadline ends its wait."""

    def __init__(self, hooks: list[HookCommand], log: Path) -> None:
        watchable = all(h.kind == "command" for h in hooks)
        self.ends = [_ends_of(h.command) for h in hooks] if watchable else []
        self.log = log
        self.read_from = log.stat().st_size if log.is_file() else 0  # earlier prompts' lines
        self.fresh = b""
        self.running: set[str] = set()  # the hooks whose start line came, not yet their answer
        self.answered = False  # an answer line came

    def heard(self, event: dict[str, Any]) -> None:
        if event.get("hook_event") != NOTIFICATION:
            return
        if event.get("subtype") == "hook_started":
            self.running.add(str(event.get("hook_id")))
        elif event.get("subtype") == "hook_response":
            self.running.discard(str(event.get("hook_id")))
            self.answered = True

    def over(self) -> bool:
        if self.answered and not self.running:
            return True
        if not self.ends:
            return False
        if self.log.is_file():
            with self.log.open("rb") as log:
                log.seek(self.read_from)
                chunk = log.read()
            self.read_from += len(chunk)
            self.fresh += chunk
        return all(any(end in self.fresh for end in ends) for ends in self.ends)


def _ends_of(command: str) -> list[bytes]:
    """The debug-log texts that say a Notification hook running ``command`` has ended."""
    return [
        f"{NOTIFICATION}:permission_prompt [{command}] {how}".encode()
        for how in ("completed with status", "cancelled")
    ]


def permission_decided(answer: dict[str, Any]) -> bool:
    """Whether a PermissionRequest hook's ``hook_response`` line may answer the prompt: exit
    2 (deny), or a JSON stdout with a ``decision``. Anything else leaves the prompt up."""
    if answer.get("exit_code") == 2:
        return True
    try:
        said = json.loads(str(answer.get("stdout") or "").strip() or "{}")
    except ValueError:
        return False
    specific = said.get("hookSpecificOutput") if isinstance(said, dict) else None
    return isinstance(specific, dict) and specific.get("decision") is not None


@dataclass
class Turn:
    """What came back for one model turn: the request that followed, or the turn's end."""

    kind: str  # request (main loop) | subagent | result | exit | timeout
    request: ApiRequest | None = None
    result: dict[str, Any] | None = None


class TurnLoop:
    """Waits on ``launcher``'s inbox for ``session``. ``subagents`` (agent type -> its prompt
    and its request waiting for the model) is the driver's: a request whose opening prompt is
    a subagent's is kept there for that subagent's step."""

    def __init__(
        self,
        session: ClaudeCodeSession,
        launcher: Launcher,
        subagents: dict[str, tuple[str, ApiRequest | None]],
    ) -> None:
        self.session = session
        self.launcher = launcher
        self.subagents = subagents
        # Hooks whose start an earlier step saw. The client prints a hook's answer about when
        # it asks the model again, so on a loaded machine the answer can be read after the
        # request: it belongs to the step that started the hook, never to the next one.
        self.earlier_hooks: set[str] = set()

    def hook_budget(self) -> float:
        """How long to wait for the client in one step: its hooks' timeouts (a hook with the
        600 s default is budgeted a minute) on top of the step's own allowance."""
        longest = max(
            (
                min(hook.timeout, 60.0) if hook.timeout == DEFAULT_TIMEOUT else hook.timeout
                for groups in self.session.settings.hooks.values()
                for g in groups
                for hook in g.hooks
            ),
            default=60.0,
        )
        return STEP_TIMEOUT + longest

    def wait(self, *, record: StepLog, extra: float = 0.0) -> Turn:
        """Wait until the client asks the model again, ends the turn, or exits; answer the
        permission prompts it raises on the way. ``extra``: a tool's own time allowance."""
        deadline = time.monotonic() + self.hook_budget() + extra
        while time.monotonic() < deadline:
            item = self.launcher.inbox.get(0.1)
            if item is None:
                continue
            kind, value = item
            if kind == "request":
                if self._route_request(value, record):
                    return Turn("request", request=value)
                return Turn("subagent", request=value)
            if kind == "exit":
                if value is self.launcher.proc:
                    return Turn("exit")
                continue
            event: dict[str, Any] = value
            self.take_event(event, record)
            if event.get("type") == "control_request":
                self._answer_control(event, record)
            elif event.get("type") == "result":
                return Turn("result", result=event)
        return Turn("timeout")

    def await_result_line(self, use_id: str, record: StepLog, timeout: float = 30.0) -> None:
        """The client prints a tool's result line on stdout about when it asks the model
        again; wait for that line, which tells whether the tool really ran."""
        deadline = time.monotonic() + timeout
        kept: list[tuple[str, Any]] = []
        while record.tool_result_event(use_id) is None and time.monotonic() < deadline:
            item = self.launcher.inbox.get(0.05)
            if item is None:
                continue
            if item[0] == "event":
                self.take_event(item[1], record)
            else:
                kept.append(item)
        for item in kept:
            self.launcher.inbox.hold(item)

    def _route_request(self, request: ApiRequest, record: StepLog) -> bool:
        """True for a main-loop request; a subagent's is kept for its own step."""
        opening = request.opening_prompt()
        for agent_type, (prompt, _) in self.subagents.items():
            if opening == prompt:
                self.subagents[agent_type] = (prompt, request)
                record.subagent_requests.append((agent_type, request))
                return False
        return True

    def _answer_control(self, event: dict[str, Any], record: StepLog) -> None:
        request = event.get("request") or {}
        if request.get("subtype") != "can_use_tool":
            self.launcher.send(
                {
                    "type": "control_response",
                    "response": {
                        "subtype": "error",
                        "request_id": event.get("request_id"),
                        "error": "not supported by the scripted user",
                    },
                }
            )
            return
        if self._hook_answered_prompt(str(event.get("request_id") or ""), record):
            return
        self._slow_to_answer(record)
        read = read_prompt(request, self.session.auto_approve)
        record.permission = read.permission
        if read.asked:
            record.asked, record.ask_text, record.auto_approved = True, read.ask_text, read.allow
        self.launcher.send(
            {
                "type": "control_response",
                "response": {
                    "subtype": "success",
                    "request_id": event.get("request_id"),
                    "response": read.response(request),
                },
            }
        )

    def _hook_answered_prompt(self, request_id: str, record: StepLog) -> bool:
        """Read the permission prompt as a person does, slower than a PermissionRequest hook.

        Observed on 2.1.332: the client sends its prompt and runs the PermissionRequest hooks
        at once; a hook's ``decision`` (allow or deny) answers it and the client withdraws the
        prompt (``control_cancel_request``), but a scripted user who answers at once wins the
        race. So with such hooks registered the user waits until the client withdraws the
        prompt (True: nothing to answer) or every hook it started has answered (False): at
        once when none of them decided (exit 0, no ``decision``: the prompt stays, as the
        client's lines show), else once 2 s have passed without a withdrawal."""
        groups = self.session.settings.hooks.get(Event.PERMISSION_REQUEST.value)
        timeouts = [hook.timeout for group in groups or () for hook in group.hooks]
        if not timeouts:
            return False
        started = time.monotonic()
        deadline = started + min(max(timeouts), 60.0) + 5.0
        running: set[str] = set()
        undecided = decided = 0  # the answers heard, by whether they can answer the prompt
        kept: list[tuple[str, Any]] = []
        withdrawn = False
        while time.monotonic() < deadline:
            quiet = time.monotonic() - started > 2.0 and not running
            passed = undecided and not decided and not running  # nobody will withdraw it
            if withdrawn or quiet or passed:
                break
            item = self.launcher.inbox.get(0.05)
            if item is None:
                continue
            if item[0] != "event":
                kept.append(item)
                continue
            event: dict[str, Any] = item[1]
            withdrawn = (
                event.get("type") == "control_cancel_request"
                and event.get("request_id") == request_id
            )
            if event.get("hook_event") == Event.PERMISSION_REQUEST.value:
                hook_id = str(event.get("hook_id"))
                if event.get("subtype") == "hook_started":
                    running.add(hook_id)
                elif event.get("subtype") == "hook_response":
                    running.discard(hook_id)
                    if permission_decided(event):
                        decided += 1
                    else:
                        undecided += 1
            if event.get("type") == "control_request" or event.get("type") == "result":
                kept.append(item)
            else:
                self.take_event(event, record)
        for item in kept:
            self.launcher.inbox.hold(item)
        if withdrawn:
            record.notes.append("a PermissionRequest hook answered the permission prompt")
        return withdrawn

    def _slow_to_answer(self, record: StepLog) -> None:
        """Leave the permission prompt up, as a person away from the terminal does, while the
        project has Notification hooks for it. Observed on 2.1.332: a prompt left unanswered
        for 6 s fires Notification (``notification_type: permission_prompt``), which a
        scripted user answering at once never lets happen. The user answers once those hooks
        have answered (bounded by their timeout), so their runs are over before the tool's."""
        hooks = self.session.settings.commands_for(Event.NOTIFICATION, "permission_prompt")
        if not hooks:
            return
        deadline = time.monotonic() + NOTIFY_AFTER + min(max(h.timeout for h in hooks), 60.0)
        runs = NotificationRuns(hooks, self.launcher.debug_log)
        kept: list[tuple[str, Any]] = []
        while time.monotonic() < deadline + 5.0 and not runs.over():
            item = self.launcher.inbox.get(0.05)
            if item is None:
                continue
            if item[0] != "event" or item[1].get("type") in ("control_request", "result"):
                kept.append(item)
                continue
            runs.heard(item[1])
            self.take_event(item[1], record)
        for item in kept:
            self.launcher.inbox.hold(item)
        if runs.over():
            record.notes.append(NOTIFIED)

    # -- steps -------------------------------------------------------------------------------

    def take_event(self, event: dict[str, Any], record: StepLog) -> None:
        """A stream-json line into this step's record, unless it is the late answer of a hook
        an earlier step started."""
        if event.get("subtype") == "hook_response" and event.get("hook_id") in self.earlier_hooks:
            return
        record.events.append(event)

    def _surely_started(self, event: str) -> bool:
        """Whether ``event`` has command hooks that run whenever it fires (none async, none
        with a condition), so a step in which it fired must see one of them start."""
        hooks = [
            hook for group in self.session.settings.hooks.get(event) or () for hook in group.hooks
        ]
        return any(
            hook.kind == "command" and not hook.run_async and hook.condition is None
            for hook in hooks
        )

    def await_hook_answers(
        self, record: StepLog, timeout: float = 5.0, fired: str | None = None
    ) -> None:
        """Wait for the answers of this step's hooks that have finished. By the time the client
        asks the model again its hooks have answered, but it prints their starts and answers
        about then, so on a loaded machine a Stop hook's block can be read before the run that
        made it, or before the line saying it started (``fired``: an event this step surely
        fired, whose hooks are waited for even when no start was read yet). An event with an
        async hook, or one the client does not wait for (StopFailure), is not waited for: those
        answer whenever they end."""
        background = {
            event
            for event, groups in self.session.settings.hooks.items()
            if event in UNAWAITED or any(hook.run_async for group in groups for hook in group.hooks)
        }
        surely = fired is not None and fired not in background and self._surely_started(fired)
        expected = fired if surely else ""

        def waiting() -> bool:
            if record.unanswered_hooks(skip_events=background):
                return True
            return bool(expected) and not any(
                e.get("subtype") == "hook_started" and e.get("hook_event") == expected
                for e in record.events
            )

        deadline = time.monotonic() + timeout
        kept: list[tuple[str, Any]] = []
        while waiting() and time.monotonic() < deadline:
            item = self.launcher.inbox.get(0.05)
            if item is None:
                continue
            if item[0] == "event" and item[1].get("subtype") in ("hook_started", "hook_response"):
                self.take_event(item[1], record)
            else:
                kept.append(item)
        for item in kept:
            self.launcher.inbox.hold(item)

    def describe(self, turn: Turn) -> str:
        if turn.kind == "result" and turn.result is not None:
            return f"the turn ended ({turn.result.get('result') or turn.result.get('subtype')})"
        if turn.kind == "exit":
            return "the client exited: " + self.launcher.last_words()
        return "no answer within the step's time"

    def _expected_session_start_hooks(self, source: str) -> int:
        recorder = 1 if self.session.on_payload is not None else 0
        return len(self.session.settings.commands_for(Event.SESSION_START, source)) + recorder

    def collect_session_start(self, source: str, record: StepLog) -> None:
        """Wait until the client has answered the opening handshake, which it does once every
        SessionStart hook it runs for ``source`` has answered; a client that ran fewer than
        the settings register is named in the notes (its hooks may not run)."""
        expected = self._expected_session_start_hooks(source)
        wait = (
            self.hook_budget() if self.session.startup_wait is None else self.session.startup_wait
        )
        deadline = time.monotonic() + wait
        handshake = False
        while not handshake and time.monotonic() < deadline:
            item = self.launcher.inbox.get(0.1)
            if item is None:
                continue
            kind, value = item
            if kind == "exit" and value is self.launcher.proc:
                raise HarnessError(
                    "Claude Code exited at session start: " + self.launcher.last_words(),
                    fix="run lab doctor to check the client",
                )
            if kind != "event":
                continue  # an earlier run's exit: nothing else comes before the first prompt
            self.take_event(value, record)
            response = value.get("response") or {}
            handshake = (
                value.get("type") == "control_response"
                and response.get("request_id") == self.launcher.initialize_id
            )
        answered = sum(
            1
            for e in record.events
            if e.get("subtype") == "hook_response" and e.get("hook_event") == "SessionStart"
        )  # the recorder's answer counts: it is among the expected
        if answered < expected:
            when = "when it had started" if handshake else f"within {wait:.0f} s"
            record.notes.append(
                f"{answered} of {expected} SessionStart hooks answered {when}: the client's "
                "hooks may not run"
            )
