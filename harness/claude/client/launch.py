"""The real client's side of a driven session: its config folder and environment, the
scripted Messages API it talks to, the jail it runs in with its sockets out, and each run of
the process (``process.py``), started with the arguments a ``-p`` proof needs.

``driver.py`` plays the scenario; ``turns.py`` waits for what the client does in a turn.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.claude.client import mcp_stub
from harness.claude.client.api import ScriptedApi
from harness.claude.client.process import ClientProcess, Inbox, last_words
from harness.claude.client.reading import RECORDER_MARK
from harness.claude.events import Event
from harness.claude.tools import stub_servers
from harness.errors import HarnessError
from harness.jail import LoopbackBridge, loopback_ports, socket_folder
from harness.paths import cache_home

if TYPE_CHECKING:
    from harness.claude.client.driver import ClaudeCodeSession

_CLIENT_ENV_DROP = (
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_MODEL",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
)


class Launcher:
    """Starts, feeds and ends the client for ``session`` (whose options it reads). Its
    ``inbox`` gets the API requests and stream-json lines in arrival order; ``events`` and
    ``stderr_lines`` keep every line, as evidence."""

    def __init__(self, session: ClaudeCodeSession) -> None:
        self.session = session
        self.events: list[dict[str, Any]] = []  # every stream-json line, as evidence
        self.stderr_lines: list[str] = []
        self.inbox = Inbox()
        self.api = ScriptedApi(on_request=lambda r: self.inbox.put("request", r))
        self.api.__enter__()
        self.proc: ClientProcess | None = None
        self.launches = 0
        self.initialize_id = ""  # the open handshake of the running client (see launch)
        self._payloads_read = 0  # bytes of the recorder's log already passed on
        # The client runs in the jail, and so its tools and hooks; the scripted model is
        # reached on a Unix socket bound in (see launch).
        self.socket: Path | None = None
        self.bridges: list[LoopbackBridge] = []
        if session.confinement is not None:
            self.socket = socket_folder() / "api.sock"
            self.api.listen_on(self.socket)
            self.bridges = self._bridge_http_hooks(self.socket.parent)

    def _bridge_http_hooks(self, folder: Path) -> list[LoopbackBridge]:
        """A way out of the jail for each http hook's server on this machine's loopback, as
        the emulator reaches it; nothing else of the network."""
        urls = [
            hook.command
            for groups in self.session.settings.hooks.values()
            for group in groups
            for hook in group.hooks
            if hook.kind == "http"
        ]
        ports = sorted(loopback_ports(urls) - {self.api.port})
        return [LoopbackBridge(folder / f"hook-{port}.sock", port) for port in ports]

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
        if self.session.confinement is not None:
            # The jail's own HOME (empty, as _shell_home's) and nothing of the user's.
            env = self.session.confinement.environment({"HOOKLAB_CACHE": str(cache_home())})
        else:
            env = {k: v for k, v in os.environ.items() if k not in _CLIENT_ENV_DROP}
            env.update(self._shell_home(env))
        env.update(self.session.env)
        # Not a person's either: the client's own config directory (the transcripts stay
        # Hook Lab's) and no traffic to Anthropic (telemetry, updates, error reports: the
        # proof runs offline). -p runs in the default permission mode, so auto mode's check,
        # which CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC turns off, plays no part here; the
        # interactive proofs run without any of these.
        env.update(
            ANTHROPIC_BASE_URL=self.api.base_url,
            ANTHROPIC_API_KEY="hooklab-scripted-model-no-key",
            CLAUDE_CONFIG_DIR=str(self.session.config_dir),
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
        config = self.session.config_dir
        # A config folder named .claude is the client's own in a HOME (session_home.py): its
        # hooks then read their transcript at $HOME/.claude/projects/, as in a person's session.
        home = config.parent if config.name == ".claude" else config / "shell-home"
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

        if not self.session.trusted:
            return
        accept_trust(self.session.config_dir, self.session.project_dir)
        missing = register_marketplaces(
            self.session.client.path,
            self.session.project_dir,
            self.session.config_dir,
            self._client_env(),
            jail=self.session.confinement,
        )
        if missing:
            self.stderr_lines.append(
                "the project's plugin marketplaces were not registered: "
                + ", ".join(sorted(missing))
            )

    @property
    def _payload_log(self) -> Path:
        return self.session.config_dir / "hooklab-payloads.jsonl"

    @property
    def debug_log(self) -> Path:
        """The client's own debug log (--debug-file), in a folder of its own: the client puts
        a ``latest`` link beside it. turns.NotificationRuns reads it."""
        return self.session.config_dir / "hooklab-debug" / "client.log"

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
        path = self.session.config_dir / "hooklab-recorder.json"
        path.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
        return path

    def pass_on_payloads(self) -> None:
        """Tell ``on_payload`` the event JSON the recorder logged since the last step."""
        if self.session.on_payload is None or not self._payload_log.is_file():
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
                    self.session.on_payload(payload)

    def launch(self, session_id: str, *, resume: bool, fork_to: str | None = None) -> None:
        """Start the client on ``session_id``: ``resume`` it, or fork it to ``fork_to`` (a new
        session with the old one's conversation, as ``--fork-session`` makes)."""
        if self.launches == 0:
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
        # --debug-file keeps the client's debug log, the only record of a Notification hook's
        # end (turns.py); a hook sees the same environment with it (observed on 2.1.332).
        self.debug_log.parent.mkdir(parents=True, exist_ok=True)
        argv = [
            str(self.session.client.path),
            "--debug-file",
            str(self.debug_log),
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
        if self.session.permission_mode != "default":
            argv += ["--permission-mode", self.session.permission_mode]
        argv += ["--resume", session_id] if resume else ["--session-id", session_id]
        if fork_to is not None:
            argv += ["--fork-session", "--session-id", fork_to]
        if self.session.on_payload is not None:
            argv += ["--settings", str(self._recorder_settings())]
        for folder in self.session.plugin_dirs:
            argv += ["--plugin-dir", str(folder)]
        argv += self._mcp_config()
        env = self._client_env()
        if self.session.confinement is not None and self.socket is not None:
            argv = self.session.confinement.wrap(
                argv,
                cwd=self.session.cwd,
                env=env,
                writable=[self.session.config_dir],
                forward=[(self.socket, self.api.port)]
                + [(bridge.path, bridge.port) for bridge in self.bridges],
                readable=self.session.plugin_dirs,
            )
        self.proc = ClientProcess(
            argv,
            cwd=self.session.cwd,
            env=env,
            inbox=self.inbox,
            events=self.events,
            stderr_lines=self.stderr_lines,
        )
        # The SDKs' opening handshake. Claude Code 2.1.332 answers it only once its SessionStart
        # hooks have all answered (observed with a hook that sleeps), so the answer tells a
        # session start that is over from one whose hooks are still running.
        self.launches += 1
        self.initialize_id = f"hooklab_initialize_{self.launches}"
        self.send(
            {
                "type": "control_request",
                "request_id": self.initialize_id,
                "request": {"subtype": "initialize"},
            }
        )

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.running

    def send(self, message: dict[str, Any]) -> None:
        if self.proc is None:
            raise HarnessError(
                "Claude Code is not running in this session: " + self.last_words(),
                fix="start the scenario with a session_start step",
            )
        self.proc.send(message)

    def last_words(self) -> str:
        if self.proc is not None:
            self.proc.settle()
        return last_words(self.stderr_lines)

    def end(self, *, in_flight: bool) -> None:
        """End the running client, if any: ``in_flight`` when a model request is unanswered."""
        process, self.proc = self.proc, None
        if process is not None:
            process.end(in_flight=in_flight)

    def close(self) -> None:
        """Once the client has ended: the scripted API down, the jail's ways out closed."""
        self.api.close()
        for bridge in self.bridges:
            bridge.close()
        if self.socket is not None:
            shutil.rmtree(self.socket.parent, ignore_errors=True)

    @property
    def mcp_answer(self) -> Path:
        return self.session.config_dir / "hooklab-mcp-answer.txt"

    def _mcp_config(self) -> list[str]:
        """``--mcp-config`` for the MCP servers Hook Lab stands in for (``offer_tools``): each
        runs ``mcp_stub.py``, which answers every call with the step's result."""
        servers = stub_servers(self.session.mcp_tools, self.session.project_dir)
        if not servers:
            return []
        stub = Path(mcp_stub.__file__).resolve()
        config = {
            "mcpServers": {
                server: {
                    "type": "stdio",
                    "command": sys.executable,
                    "args": [str(stub), server, str(self.mcp_answer), *tools],
                }
                for server, tools in servers.items()
            }
        }
        path = self.session.config_dir / "hooklab-mcp.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        return ["--mcp-config", str(path)]
