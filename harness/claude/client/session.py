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

import contextlib
import dataclasses
import json
import os
import re
import shlex
import shutil
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.claude.client import mcp_stub
from harness.claude.client.api import ApiRequest, Reply, ScriptedApi, blocks_text
from harness.claude.client.install import ClientInstall, require_client
from harness.claude.client.process import ClientProcess, Inbox, last_words
from harness.claude.client.reading import (
    RECORDER_MARK,
    StepLog,
    compact_blocked,
    failed_hooks,
    first_text,
    hook_feedback,
    ran,
    read_prompt,
    read_stop_end,
    read_tool,
    subagent_start_context,
)
from harness.claude.events import UNAWAITED, Event, check_start_source
from harness.claude.judge import Judgement
from harness.claude.plugins import flag_folders
from harness.claude.runner import HookRun
from harness.claude.session import (
    COMPACT_SUMMARY,
    MAX_TOKENS,
    PayloadSink,
    SessionSteps,
    StepOutcome,
)
from harness.claude.settings import AGENT_TYPE, DEFAULT_TIMEOUT, Settings, load_settings
from harness.claude.tools import edit_input, stub_servers, with_absolute_path
from harness.claude.vocabulary import Engine, Outcome, StepKind
from harness.errors import HarnessError
from harness.jail import Confinement, LoopbackBridge, loopback_ports, socket_folder
from harness.paths import cache_home, scratch_mkdtemp

IMPLICIT_PROMPT = "Go on."  # opens a turn when a scenario acts before any prompt
MAX_CONTINUATIONS = 8  # more than the client asks a cut-off subagent to go on (3 on 2.1.332)
NOTIFICATION = "Notification"
NOTIFY_AFTER = 6.0  # seconds a permission prompt stays unanswered before Notification fires
STEP_TIMEOUT = 120.0  # seconds a step may wait for the client, beyond its own hook timeouts
_CLIENT_ENV_DROP = (
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_MODEL",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
)


@dataclass
class _Turn:
    """What came back for one model turn: the request that followed, or the turn's end."""

    kind: str  # request (main loop) | subagent | result | exit | timeout
    request: ApiRequest | None = None
    result: dict[str, Any] | None = None


class ClaudeCodeSession(SessionSteps):
    """A scripted session on the real client, with the emulator ``Session``'s interface."""

    engine = Engine.CLAUDE_CODE

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
        client: ClientInstall | None = None,
        on_payload: PayloadSink | None = None,
        startup_wait: float | None = None,
        trusted: bool = True,
        confinement: Confinement | None = None,
        plugin_dirs: Sequence[Path] = (),
    ) -> None:
        self.project_dir = Path(project_dir).resolve()
        # The folders handed to the client's --plugin-dir: those given, and the project when
        # it is a plugin. The plugins its settings enable from its marketplace the client
        # loads by itself, once the folder is trusted (_accept_trust).
        self.plugin_dirs = tuple(flag_folders(self.project_dir, plugin_dirs))
        if settings is None:
            settings = _settings_or_none(self.project_dir, self.plugin_dirs)
        self.settings = settings
        self.cwd = Path(cwd).resolve() if cwd is not None else self.project_dir
        self.session_id = session_id or str(uuid.uuid4())
        self.permission_mode = permission_mode
        self.auto_approve = auto_approve
        self.env = dict(env or {})
        self.client = client or require_client()
        self._own_dir = transcript_dir is None
        self.config_dir = Path(transcript_dir or scratch_mkdtemp("hooklab-claude-code-")).resolve()
        self.config_dir.mkdir(parents=True, exist_ok=True)
        self.on_payload = on_payload
        # How long a session start waits for its SessionStart hooks (default: a step's whole
        # budget). A client whose hooks never run would otherwise keep every start that long.
        self.startup_wait = startup_wait
        # A person has accepted the folder's trust dialog before any session there (the
        # interactive client asks first): False plays an untrusted folder.
        self.trusted = trusted
        self._payloads_read = 0  # bytes of the recorder's log already passed on
        self.history: list[StepOutcome] = []
        self.blocked_stops = 0
        self.events: list[dict[str, Any]] = []  # every stream-json line, as evidence
        self.stderr_lines: list[str] = []
        self._inbox = Inbox()
        self.api = ScriptedApi(on_request=lambda r: self._inbox.put("request", r))
        self.api.__enter__()
        self._proc: ClientProcess | None = None
        # The client runs in it, and so its tools and hooks; the scripted model is reached
        # on a Unix socket bound in (see _launch).
        self.confinement = confinement
        self._socket: Path | None = None
        self._bridges: list[LoopbackBridge] = []
        if confinement is not None:
            self._socket = socket_folder() / "api.sock"
            self.api.listen_on(self._socket)
            self._bridges = self._bridge_http_hooks(self._socket.parent)
        self._pending: ApiRequest | None = None  # the main loop waiting for the model
        self._subagents: dict[str, tuple[str, ApiRequest | None]] = {}  # type -> (prompt, req)
        self._tool_ids = 0
        self._launches = 0
        self._initialize_id = ""  # the open handshake of the running client (see _launch)
        # Hooks whose start an earlier step saw. The client prints a hook's answer about when
        # it asks the model again, so on a loaded machine the answer can be read after the
        # request: it belongs to the step that started the hook, never to the next one.
        self._earlier_hooks: set[str] = set()
        self._judged_seen = 0  # the hook judgements the scripted model gave in earlier steps

    def __repr__(self) -> str:
        state = "running" if self._proc and self._proc.running else "idle"
        return f"<ClaudeCodeSession {self.client.version} {state} steps={len(self.history)}>"

    @property
    def judgement(self) -> Judgement:
        """What the scripted model answers a prompt or agent hook in the next step."""
        return self.api.judgement

    @judgement.setter
    def judgement(self, value: Judgement) -> None:
        self.api.judgement = value

    @property
    def _background(self) -> bool:
        """The settings have async hooks, whose output the client sends on a later turn."""
        groups = [g for event_groups in self.settings.hooks.values() for g in event_groups]
        return any(hook.run_async for group in groups for hook in group.hooks)

    @property
    def transcript_path(self) -> Path:
        slug = re.sub(r"[^A-Za-z0-9]", "-", str(self.cwd))
        return self.config_dir / "projects" / slug / f"{self.session_id}.jsonl"

    @property
    def requests(self) -> list[ApiRequest]:
        return self.api.requests

    def _bridge_http_hooks(self, folder: Path) -> list[LoopbackBridge]:
        """A way out of the jail for each http hook's server on this machine's loopback, as
        the emulator reaches it; nothing else of the network."""
        urls = [
            hook.command
            for groups in self.settings.hooks.values()
            for group in groups
            for hook in group.hooks
            if hook.kind == "http"
        ]
        ports = sorted(loopback_ports(urls) - {self.api.port})
        return [LoopbackBridge(folder / f"hook-{port}.sock", port) for port in ports]

    def close(self) -> None:
        self._end_process()
        self.api.close()
        for bridge in self._bridges:
            bridge.close()
        if self._socket is not None:
            shutil.rmtree(self._socket.parent, ignore_errors=True)
        if self._own_dir:
            shutil.rmtree(self.config_dir, ignore_errors=True)
        else:
            self.save_evidence(self.config_dir)

    def save_evidence(self, folder: Path) -> None:
        """Every request the client sent the scripted model, and every line it printed."""
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "api-requests.jsonl").open("w", encoding="utf-8") as out:
            for request in self.api.requests:
                out.write(
                    json.dumps({"seq": request.seq, "path": request.path, "body": request.body})
                    + "\n"
                )
        with (folder / "stream-json.jsonl").open("w", encoding="utf-8") as out:
            for event in self.events:
                out.write(json.dumps(event) + "\n")

    # -- the client process ------------------------------------------------------------------

    def _client_env(self) -> dict[str, str]:
        if self.confinement is not None:
            # The jail's own HOME (empty, as _shell_home's) and nothing of the user's.
            env = self.confinement.environment({"HOOKLAB_CACHE": str(cache_home())})
        else:
            env = {k: v for k, v in os.environ.items() if k not in _CLIENT_ENV_DROP}
            env.update(self._shell_home(env))
        env.update(self.env)
        # Not a person's either: the client's own config directory (the transcripts stay
        # Hook Lab's) and no traffic to Anthropic (telemetry, updates, error reports: the
        # proof runs offline). -p runs in the default permission mode, so auto mode's check,
        # which CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC turns off, plays no part here; the
        # interactive proofs run without any of these.
        env.update(
            ANTHROPIC_BASE_URL=self.api.base_url,
            ANTHROPIC_API_KEY="hooklab-scripted-model-no-key",
            CLAUDE_CONFIG_DIR=str(self.config_dir),
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_ERROR_REPORTING="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        return env

    def _shell_home(self, env: Mapping[str, str]) -> dict[str, str]:
        """An empty HOME for the client, and what it must still find of the real one.

        Before its first Bash command the client snapshots a login shell that sources the
        user's ~/.bashrc or ~/.zshrc. A scripted session is Hook Lab's proof, not the user's
        shell: their startup files (pyenv, nvm, conda) took 1.5 to 9 s a session here under
        load, could print or alias into the proof, and pyenv's even rewrote ~/.pyenv. Maven
        is not moved by it (Java takes user.home from the password database, not $HOME); git
        and docker are pointed back at the user's own configuration, and ./mvnw at Hook Lab's
        cache (its class-data archive: the same Maven options as on the emulator, so --engine
        both shares the run)."""
        home = self.config_dir / "shell-home"
        home.mkdir(exist_ok=True)
        moved = {"HOME": str(home)}
        if "HOOKLAB_CACHE" not in env:
            moved["HOOKLAB_CACHE"] = str(cache_home())
        if not env.get("HOME"):
            return moved
        real = Path(env["HOME"])
        git_configs = (real / ".gitconfig", real / ".config" / "git" / "config")
        git_config = next((path for path in git_configs if path.is_file()), None)
        if "GIT_CONFIG_GLOBAL" not in env and git_config is not None:
            moved["GIT_CONFIG_GLOBAL"] = str(git_config)
        if "DOCKER_CONFIG" not in env and (real / ".docker").is_dir():
            moved["DOCKER_CONFIG"] = str(real / ".docker")
        return moved

    def _accept_trust(self) -> None:
        """Before the first launch: the folder trusted and the project's marketplaces
        registered, as the person's own first ``claude`` there left them (``trust.py``)."""
        from harness.claude.client.trust import accept_trust, register_marketplaces

        if not self.trusted:
            return
        accept_trust(self.config_dir, self.project_dir)
        missing = register_marketplaces(
            self.client.path,
            self.project_dir,
            self.config_dir,
            self._client_env(),
            jail=self.confinement,
        )
        if missing:
            self.stderr_lines.append(
                "the project's plugin marketplaces were not registered: "
                + ", ".join(sorted(missing))
            )

    @property
    def _payload_log(self) -> Path:
        return self.config_dir / "hooklab-payloads.jsonl"

    def _recorder_settings(self) -> Path:
        """Settings with one more hook on every event, which appends the JSON it reads to a
        log: the client shows no hook's input anywhere else. It is given with --settings,
        beside the project's files; it says nothing on stdout, exits 0 and is told apart
        from the project's hooks by what it writes on stderr."""
        log = shlex.quote(str(self._payload_log))
        command = f"{{ cat; echo; }} >> {log}; echo {RECORDER_MARK} >&2"
        hooks = {
            event.value: [{"hooks": [{"type": "command", "command": command}]}] for event in Event
        }
        path = self.config_dir / "hooklab-recorder.json"
        path.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
        return path

    def _pass_on_payloads(self) -> None:
        """Tell ``on_payload`` the event JSON the recorder logged since the last step."""
        if self.on_payload is None or not self._payload_log.is_file():
            return
        with self._payload_log.open("rb") as log:
            log.seek(self._payloads_read)
            fresh = log.read()
        done = fresh.rfind(b"\n") + 1  # a line still being written waits for the next step
        self._payloads_read += done
        for line in fresh[:done].splitlines():
            with contextlib.suppress(ValueError):
                payload = json.loads(line)
                if isinstance(payload, dict):
                    self.on_payload(payload)

    def _launch(self, resume: bool, fork: bool = False) -> None:
        """Start the client; ``resume`` the session, or ``fork`` it (a new session with the
        old one's conversation, as ``--fork-session`` makes)."""
        if self._launches == 0:
            self._accept_trust()
        # What a person's plain `claude` does not have, and why a -p proof needs each: -p and
        # stream-json in and out are the driver's channel to the client (a person types into
        # the screen); --verbose and --include-hook-events only add what the client reports
        # (every hook run), they change nothing a hook sees; --permission-prompt-tool stdio
        # hands a permission prompt to the simulated user, as nobody can answer one in -p
        # (without it -p denies). The interactive proofs in tmux take the same live steps
        # with none of these (tests/engine/test_live_interactive.py). The settings sources
        # are the client's own (user, project, local), as a person's are; a permission mode
        # is passed only when a scenario asks for one, else the client picks its default.
        argv = [
            str(self.client.path),
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
            "--permission-prompt-tool",
            "stdio",
        ]
        if self.permission_mode != "default":
            argv += ["--permission-mode", self.permission_mode]
        argv += ["--resume", self.session_id] if resume else ["--session-id", self.session_id]
        if fork:
            self.session_id = str(uuid.uuid4())
            argv += ["--fork-session", "--session-id", self.session_id]
        if self.on_payload is not None:
            argv += ["--settings", str(self._recorder_settings())]
        for folder in self.plugin_dirs:
            argv += ["--plugin-dir", str(folder)]
        argv += self._mcp_config()
        env = self._client_env()
        if self.confinement is not None and self._socket is not None:
            argv = self.confinement.wrap(
                argv,
                cwd=self.cwd,
                env=env,
                writable=[self.config_dir],
                forward=[(self._socket, self.api.port)]
                + [(bridge.path, bridge.port) for bridge in self._bridges],
                readable=self.plugin_dirs,
            )
        self._proc = ClientProcess(
            argv,
            cwd=self.cwd,
            env=env,
            inbox=self._inbox,
            events=self.events,
            stderr_lines=self.stderr_lines,
        )
        # The SDKs' opening handshake. Claude Code 2.1.332 answers it only once its SessionStart
        # hooks have all answered (observed with a hook that sleeps), so the answer tells a
        # session start that is over from one whose hooks are still running.
        self._launches += 1
        self._initialize_id = f"hooklab_initialize_{self._launches}"
        self._send(
            {
                "type": "control_request",
                "request_id": self._initialize_id,
                "request": {"subtype": "initialize"},
            }
        )

    def _send(self, message: dict[str, Any]) -> None:
        if self._proc is None:
            raise HarnessError(
                "Claude Code is not running in this session: " + self._last_words(),
                fix="start the scenario with a session_start step",
            )
        self._proc.send(message)

    def _last_words(self) -> str:
        if self._proc is not None:
            self._proc.settle()
        return last_words(self.stderr_lines)

    def _end_process(self) -> None:
        process, self._proc = self._proc, None
        if process is None:
            return
        in_flight = self._pending is not None or any(r for _, r in self._subagents.values())
        self._pending = None
        process.end(in_flight=in_flight)

    # -- waiting for the client --------------------------------------------------------------

    def _hook_budget(self) -> float:
        """How long to wait for the client in one step: its hooks' timeouts (a hook with the
        600 s default is budgeted a minute) on top of the step's own allowance."""
        longest = max(
            (
                min(hook.timeout, 60.0) if hook.timeout == DEFAULT_TIMEOUT else hook.timeout
                for groups in self.settings.hooks.values()
                for g in groups
                for hook in g.hooks
            ),
            default=60.0,
        )
        return STEP_TIMEOUT + longest

    def _await(self, *, record: StepLog, extra: float = 0.0) -> _Turn:
        """Wait until the client asks the model again, ends the turn, or exits; answer the
        permission prompts it raises on the way. ``extra``: a tool's own time allowance."""
        deadline = time.monotonic() + self._hook_budget() + extra
        while time.monotonic() < deadline:
            item = self._inbox.get(0.1)
            if item is None:
                continue
            kind, value = item
            if kind == "request":
                if self._route_request(value, record):
                    return _Turn("request", request=value)
                return _Turn("subagent", request=value)
            if kind == "exit":
                if value is self._proc:
                    return _Turn("exit")
                continue
            event: dict[str, Any] = value
            self._take_event(event, record)
            if event.get("type") == "control_request":
                self._answer_control(event, record)
            elif event.get("type") == "result":
                return _Turn("result", result=event)
        return _Turn("timeout")

    def _await_result_line(self, use_id: str, record: StepLog, timeout: float = 30.0) -> None:
        """The client prints a tool's result line on stdout about when it asks the model
        again; wait for that line, which tells whether the tool really ran."""
        deadline = time.monotonic() + timeout
        kept: list[tuple[str, Any]] = []
        while record.tool_result_event(use_id) is None and time.monotonic() < deadline:
            item = self._inbox.get(0.05)
            if item is None:
                continue
            if item[0] == "event":
                self._take_event(item[1], record)
            else:
                kept.append(item)
        for item in kept:
            self._inbox.hold(item)

    def _route_request(self, request: ApiRequest, record: StepLog) -> bool:
        """True for a main-loop request; a subagent's is kept for its own step."""
        opening = request.opening_prompt()
        for agent_type, (prompt, _) in self._subagents.items():
            if opening == prompt:
                self._subagents[agent_type] = (prompt, request)
                record.subagent_requests.append((agent_type, request))
                return False
        return True

    def _answer_control(self, event: dict[str, Any], record: StepLog) -> None:
        request = event.get("request") or {}
        if request.get("subtype") != "can_use_tool":
            self._send(
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
        read = read_prompt(request, self.auto_approve)
        record.permission = read.permission
        if read.asked:
            record.asked, record.ask_text, record.auto_approved = True, read.ask_text, read.allow
        self._send(
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
        prompt (True: nothing to answer) or every hook it started has answered (False)."""
        groups = self.settings.hooks.get(Event.PERMISSION_REQUEST.value)
        timeouts = [hook.timeout for group in groups or () for hook in group.hooks]
        if not timeouts:
            return False
        started = time.monotonic()
        deadline = started + min(max(timeouts), 60.0) + 5.0
        running: set[str] = set()
        kept: list[tuple[str, Any]] = []
        withdrawn = False
        while time.monotonic() < deadline:
            quiet = time.monotonic() - started > 2.0 and not running
            if withdrawn or quiet:
                break
            item = self._inbox.get(0.05)
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
            if event.get("type") == "control_request" or event.get("type") == "result":
                kept.append(item)
            else:
                self._take_event(event, record)
        for item in kept:
            self._inbox.hold(item)
        if withdrawn:
            record.notes.append("a PermissionRequest hook answered the permission prompt")
        return withdrawn

    def _slow_to_answer(self, record: StepLog) -> None:
        """Leave the permission prompt up, as a person away from the terminal does, while the
        project has Notification hooks. Observed on 2.1.332: a prompt left unanswered for 6 s
        fires Notification (``notification_type: permission_prompt``), which a scripted user
        answering at once never lets happen. The user answers once those hooks have answered
        (bounded by their timeout), so the step holds their runs."""
        groups = self.settings.hooks.get(NOTIFICATION)
        timeouts = [hook.timeout for group in groups or () for hook in group.hooks]
        if not timeouts:
            return
        deadline = time.monotonic() + NOTIFY_AFTER + min(max(timeouts), 60.0) + 5.0
        running: set[str] = set()
        kept: list[tuple[str, Any]] = []
        heard = False
        while time.monotonic() < deadline and not (heard and not running):
            item = self._inbox.get(0.05)
            if item is None:
                continue
            if item[0] != "event" or item[1].get("type") in ("control_request", "result"):
                kept.append(item)
                continue
            event: dict[str, Any] = item[1]
            if event.get("hook_event") == NOTIFICATION:
                hook_id = str(event.get("hook_id"))
                if event.get("subtype") == "hook_started":
                    running.add(hook_id)
                elif event.get("subtype") == "hook_response":
                    running.discard(hook_id)
                    heard = True
            self._take_event(event, record)
        for item in kept:
            self._inbox.hold(item)

    # -- steps -------------------------------------------------------------------------------

    def _take_event(self, event: dict[str, Any], record: StepLog) -> None:
        """A stream-json line into this step's record, unless it is the late answer of a hook
        an earlier step started."""
        if event.get("subtype") == "hook_response" and event.get("hook_id") in self._earlier_hooks:
            return
        record.events.append(event)

    def _surely_started(self, event: str) -> bool:
        """Whether ``event`` has command hooks that run whenever it fires (none async, none
        with a condition), so a step in which it fired must see one of them start."""
        hooks = [hook for group in self.settings.hooks.get(event) or () for hook in group.hooks]
        return any(
            hook.kind == "command" and not hook.run_async and hook.condition is None
            for hook in hooks
        )

    def _await_hook_answers(
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
            for event, groups in self.settings.hooks.items()
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
            item = self._inbox.get(0.05)
            if item is None:
                continue
            if item[0] == "event" and item[1].get("subtype") in ("hook_started", "hook_response"):
                self._take_event(item[1], record)
            else:
                kept.append(item)
        for item in kept:
            self._inbox.hold(item)

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
            self._await_hook_answers(record, fired=fired)
        self._earlier_hooks.update(
            str(e["hook_id"])
            for e in record.events
            if e.get("subtype") == "hook_started" and e.get("hook_id")
        )
        step.hook_runs = record.hook_runs() + self._judged_runs()
        step.errors += failed_hooks(step.hook_runs)
        self._pass_on_payloads()
        step.notes += record.plugin_errors()
        step.notes += [text for text in record.informational() if "hook" in text.lower()]
        for note in record.notes:
            step.notes.append(note)
        return self._record(step)

    def _judged_runs(self) -> list[HookRun]:
        """The prompt and agent hooks the client ran since the last step, read off the
        requests it sent the scripted model (it prints no hook event for them)."""
        fresh = self.api.judged[self._judged_seen :]
        self._judged_seen += len(fresh)
        runs = []
        for kind, request, judgement in fresh:
            blocks = request.last_user_blocks()
            if any(b.get("type") == "tool_result" for b in blocks):
                continue  # an agent hook's verifier after its StructuredOutput call
            asked = blocks_text(
                request.messages[0].get("content") if kind == AGENT_TYPE else blocks
            )
            event, label = self._judged_hook(kind, asked)
            code, stderr = (0, "") if judgement.ok else (2, judgement.reason)
            if kind == AGENT_TYPE and not judgement.ok:
                stderr = f"Agent hook condition was not met: {judgement.reason}"
            text = judgement.text()
            runs.append(HookRun(event, label, code, text, stderr, False, 0.0, kind=kind))
        return runs

    def _judged_hook(self, kind: str, asked: str) -> tuple[str, str]:
        """The event and the hook a judging request came from: the event JSON it quotes
        (``$ARGUMENTS``), and the settings' hook of that type whose prompt it holds."""
        named = re.search(r'"hook_event_name":"(\w+)"', asked)
        event = named.group(1) if named else "Stop"
        for groups in (self.settings.hooks.get(event, ()), *self.settings.hooks.values()):
            for hook in (h for g in groups for h in g.hooks if h.kind == kind):
                if hook.command.split("$ARGUMENTS")[0].strip() in asked:
                    return event, hook.label
        return event, f"({kind} hook)"

    def _ensure_running(self, record: StepLog) -> None:
        if self._proc is None or not self._proc.running:
            # Every real session opens with SessionStart; a scenario that skips the step
            # still gets it here, and the step says so.
            record.notes.append("the client started a session first (SessionStart: startup)")
            self._launch(resume=False)
            self._collect_session_start("startup", record)

    def _ensure_turn(self, record: StepLog) -> ApiRequest:
        """The main loop's request waiting for the model, opening a turn if none is."""
        self._ensure_running(record)
        if self._pending is not None:
            return self._pending
        record.notes.append(
            f"the scenario acts without a prompt: the user said {IMPLICIT_PROMPT!r}"
        )
        self._send({"type": "user", "message": {"role": "user", "content": IMPLICIT_PROMPT}})
        turn = self._await(record=record)
        if turn.kind != "request" or turn.request is None:
            raise HarnessError(
                "Claude Code did not start a turn for the scenario's step: " + self._describe(turn),
                fix="check the UserPromptSubmit hooks, or start the step with a prompt",
            )
        self._pending = turn.request
        return turn.request

    def _describe(self, turn: _Turn) -> str:
        if turn.kind == "result" and turn.result is not None:
            return f"the turn ended ({turn.result.get('result') or turn.result.get('subtype')})"
        if turn.kind == "exit":
            return "the client exited: " + self._last_words()
        return "no answer within the step's time"

    def _expected_session_start_hooks(self, source: str) -> int:
        recorder = 1 if self.on_payload is not None else 0
        return len(self.settings.commands_for(Event.SESSION_START, source)) + recorder

    def _collect_session_start(self, source: str, record: StepLog) -> None:
        """Wait until the client has answered the opening handshake, which it does once every
        SessionStart hook it runs for ``source`` has answered; a client that ran fewer than
        the settings register is named in the notes (its hooks may not run)."""
        expected = self._expected_session_start_hooks(source)
        wait = self._hook_budget() if self.startup_wait is None else self.startup_wait
        deadline = time.monotonic() + wait
        handshake = False
        while not handshake and time.monotonic() < deadline:
            item = self._inbox.get(0.1)
            if item is None:
                continue
            kind, value = item
            if kind == "exit" and value is self._proc:
                raise HarnessError(
                    "Claude Code exited at session start: " + self._last_words(),
                    fix="run lab doctor to check the client",
                )
            if kind != "event":
                continue  # an earlier run's exit: nothing else comes before the first prompt
            self._take_event(value, record)
            response = value.get("response") or {}
            handshake = (
                value.get("type") == "control_response"
                and response.get("request_id") == self._initialize_id
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

    def _new_tool_id(self) -> str:
        self._tool_ids += 1
        return f"toolu_scripted_{self._tool_ids:03d}"

    # session_start, prompt, stop ---------------------------------------------------------------

    def session_start(self, source: str = "startup") -> StepOutcome:
        check_start_source(source)
        record = StepLog()
        if source in ("startup", "resume", "fork"):
            if source != "startup" and self._proc is None and not self.history:
                raise HarnessError(
                    f"session_start source {source!r} needs an earlier session to resume",
                    fix="start with a startup session first",
                )
            self._end_process()
            self._subagents.clear()
            if source == "startup":
                self.session_id = str(uuid.uuid4())
            self._launch(resume=source != "startup", fork=source == "fork")
            self._collect_session_start(source, record)
        else:
            self._ensure_running(record)
            self._close_open_turn(record)
            self._send({"type": "user", "message": {"role": "user", "content": f"/{source}"}})
            turn = self._await(record=record)
            for _ in range(5):  # /compact asks the model for a summary of the session first
                if turn.kind not in ("request", "subagent") or turn.request is None:
                    break
                self.api.answer(turn.request, Reply.text(COMPACT_SUMMARY))
                turn = self._await(record=record)
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
            turn = self._await(record=record)
            if turn.kind == "request":
                self._pending = turn.request
        raise HarnessError(
            "Claude Code kept the turn open after 12 replies", fix="check the Stop hooks"
        )

    def prompt(self, text: str) -> StepOutcome:
        record = StepLog()
        self._ensure_running(record)
        self._close_open_turn(record)
        self._send({"type": "user", "message": {"role": "user", "content": text}})
        turn = self._await(record=record)
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

    def stop(self, last_message: str = "") -> StepOutcome:
        record = StepLog()
        request = self._ensure_turn(record)
        active = self.blocked_stops > 0
        self._pending = None
        self.api.answer(request, Reply.text(last_message or "Done."))
        turn = self._await(record=record)
        fired = None  # a block surely fired the Stop hooks; an end may be the client's own
        if turn.kind == "request" and turn.request is not None:
            self._pending = turn.request
            self.blocked_stops += 1
            fired = Event.STOP.value
            feedback = hook_feedback(turn.request, after=request, background=self._background)
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
                "Claude Code did not answer the stop: " + self._describe(turn),
                fix="see the client's output in the step's notes",
            )
        return self._done(step, record, fired=fired)

    # tools ---------------------------------------------------------------------------------

    def edit(self, file: str | Path, old: str, new: str, replace_all: bool = False) -> StepOutcome:
        path = Path(os.path.abspath(self.cwd / file))
        tool_input = edit_input(path, old, new, replace_all)
        return self._tool("edit", str(file), "Edit", tool_input)

    def write(self, file: str | Path, content: str) -> StepOutcome:
        path = Path(os.path.abspath(self.cwd / file))
        return self._tool("write", str(file), "Write", {"file_path": str(path), "content": content})

    def bash(
        self,
        command: str,
        *,
        background: bool = False,
        timeout: float | None = None,
        description: str = "",
    ) -> StepOutcome:
        tool_input: dict[str, Any] = {"command": command, "description": description or command}
        if background:
            tool_input["run_in_background"] = True
        if timeout is not None:
            tool_input["timeout"] = int(min(timeout, 600) * 1000)
        return self._tool("bash", command, "Bash", tool_input)

    def tool(self, name: str, tool_input: dict[str, Any], result: str | None = None) -> StepOutcome:
        """Any other tool call, as the model makes it: the client runs it, or refuses a tool
        it does not offer. A WebSearch finds ``result`` (the scripted model answers the
        search); an MCP tool answers what the project's MCP server answers."""
        tool_input = with_absolute_path(tool_input, self.cwd)
        self.api.search_result = result or ""
        self._mcp_answer.write_text(result or "", encoding="utf-8")
        return self._tool("tool", name, name, tool_input)

    @property
    def _mcp_answer(self) -> Path:
        return self.config_dir / "hooklab-mcp-answer.txt"

    def _mcp_config(self) -> list[str]:
        """``--mcp-config`` for the MCP servers Hook Lab stands in for (``offer_tools``): each
        runs ``mcp_stub.py``, which answers every call with the step's result."""
        servers = stub_servers(self.mcp_tools, self.project_dir)
        if not servers:
            return []
        stub = Path(mcp_stub.__file__).resolve()
        config = {
            "mcpServers": {
                server: {
                    "type": "stdio",
                    "command": sys.executable,
                    "args": [str(stub), server, str(self._mcp_answer), *tools],
                }
                for server, tools in servers.items()
            }
        }
        path = self.config_dir / "hooklab-mcp.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        return ["--mcp-config", str(path)]

    def _tool(self, do: str, detail: str, name: str, tool_input: dict[str, Any]) -> StepOutcome:
        record = StepLog()
        request = self._ensure_turn(record)
        use_id = self._new_tool_id()
        self._pending = None
        self.api.answer(request, Reply.tool_use(use_id, name, tool_input))
        allowance = float(tool_input.get("timeout", 120_000)) / 1000  # Bash's own limit
        turn = self._await(record=record, extra=allowance)
        result_event = record.tool_result_event(use_id)
        if turn.kind == "result" and turn.result is not None:
            step = self._step(do, detail, Outcome.STOPPED, turn_ended=True)
            step.tool_ran = result_event is not None and ran(result_event)
            step.permission, step.auto_approved = record.permission, record.auto_approved
            return self._done(step, record)
        if turn.kind != "request" or turn.request is None:
            raise HarnessError(
                f"Claude Code did not finish the {name} call: " + self._describe(turn),
                fix="see the client's output in the step's notes",
            )
        self._pending = turn.request
        self._await_result_line(use_id, record)
        read = read_tool(
            record,
            use_id,
            before=request,
            after=turn.request,
            auto_approve=self.auto_approve,
            background=self._background,
        )
        step = self._step(do, detail, **dataclasses.asdict(read))
        return self._done(step, record)

    # subagents -----------------------------------------------------------------------------

    def subagent_stop(
        self,
        agent_type: str,
        prompt: str,
        last_message: str,
        stop_reason: str = "end_turn",
        agent_id: str | None = None,
    ) -> StepOutcome:
        """A subagent of ``agent_type`` finishing with ``last_message``. The first time, the
        main loop calls the Agent tool (in the foreground) with ``prompt``; after a blocked
        stop the same subagent answers again."""
        record = StepLog()
        if agent_id:
            record.notes.append(f"agent_id {agent_id!r} is the client's to choose; ignored")
        waiting = self._subagents.get(agent_type)
        active = waiting is not None and waiting[1] is not None
        if not active:
            self._start_subagent(agent_type, prompt, record)
        prompt, sub_request = self._subagents[agent_type]
        assert sub_request is not None
        told = "" if active else subagent_start_context(sub_request)
        self._subagents[agent_type] = (prompt, None)
        self.api.answer(sub_request, Reply.text(last_message, stop_reason))
        turn = self._await(record=record)
        if stop_reason == MAX_TOKENS:
            turn = self._cut_off(agent_type, Reply.text(last_message, stop_reason), turn, record)
        blocked_request = self._subagents.get(agent_type, (prompt, None))[1]
        if blocked_request is not None:
            feedback = hook_feedback(
                blocked_request, after=sub_request, background=self._background
            )
            step = self._step(
                StepKind.SUBAGENT_STOP,
                agent_type,
                Outcome.BLOCKED,
                stop_hook_active=active,
                feedback="\n".join([told, *feedback] if told else feedback),
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

    def _cut_off(self, agent_type: str, reply: Reply, turn: _Turn, record: StepLog) -> _Turn:
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
            turn = self._await(record=record)
        record.notes.append(
            f"the subagent {agent_type!r} was cut off by max_tokens: the client ended it "
            "(Agent terminated early due to an API error), with StopFailure and no SubagentStop"
        )
        return turn

    def _start_subagent(self, agent_type: str, prompt: str, record: StepLog) -> None:
        """The main loop calls the Agent tool; the subagent's first request to the model is
        then waiting in ``_subagents``."""
        main_request = self._ensure_turn(record)
        self._subagents[agent_type] = (prompt, None)
        self._pending = None
        call = {
            "description": f"{agent_type} task",
            "prompt": prompt,
            "subagent_type": agent_type,
            "run_in_background": False,
        }
        self.api.answer(main_request, Reply.tool_use(self._new_tool_id(), "Agent", call))
        turn = self._await(record=record)
        if self._subagents.get(agent_type, (prompt, None))[1] is not None:
            return
        if turn.kind == "request":
            self._pending = turn.request
        said = first_text(turn.request) if turn.request is not None else self._describe(turn)
        raise HarnessError(
            f"Claude Code did not start the subagent {agent_type!r}: {said}",
            fix="ship the agent in the project (.claude/agents), or a namespaced one as a plugin "
            "its settings enable (enabledPlugins) from a marketplace they declare "
            "(extraKnownMarketplaces)",
        )


def _settings_or_none(project_dir: Path, plugin_dirs: Sequence[Path] = ()) -> Settings:
    """The project's settings as far as this engine needs them (which SessionStart hooks to
    wait for, how long a step may take). The client reads the files itself: a file our own
    validation rejects is the client's to judge, so it counts as no hooks here."""
    try:
        return load_settings(project_dir, plugin_dirs)
    except HarnessError:
        return Settings()
