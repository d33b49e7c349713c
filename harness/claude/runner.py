"""Running hook commands: JSON on stdin, in parallel, each with its own timeout.

A hook's command line runs in ``/bin/sh -c`` (dash on Debian), as Claude Code (2.1.332) runs
it, not in bash: a bash-only construct on the command line fails there and here alike. The
JSON arrives on a Unix socket, as the client hands it over, not a pipe: a hook that can only
read pipes (``$(</dev/stdin)`` fails on a socket) must fail here as it fails there. Each hook
gets its own process group so a timeout can kill the whole tree (a hook that starts ``mvn``
must not leave it running). A timed-out hook's output is thrown away: it renders no decision.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import selectors
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.claude.plugins import ROOT_REFERENCE, not_run_said
from harness.claude.settings import AGENT_TYPE, MODEL_TYPES, HookCommand
from harness.proc import kill_group
from harness.schema import pick

# A prompt or agent hook's request as the model receives it, and its answer: the model is
# whoever plays it (the scenario's scripted judge). Returns the answer's text.
Judge = Callable[[HookCommand, str], str]

# What a run keeps of its stdout and stderr for display and transcripts. What Claude is sent is
# not cut: the real client passed 20,000 characters of stderr on whole.
OUTPUT_CAP = 100_000
_CUT_MARK = "\n[... output capped at 100,000 characters]"


def cap(text: str, limit: int = OUTPUT_CAP) -> str:
    """At most ``limit`` characters, keeping the head: hook messages lead with the reason."""
    if len(text) <= limit:
        return text
    return text[: limit - len(_CUT_MARK)] + _CUT_MARK


@dataclass(frozen=True)
class HookRun:
    """One hook process: what ran and what it said. ``exit_code`` is None when it timed out."""

    event: str
    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration: float
    started: float = 0.0  # time.monotonic() at start and end, to reason about overlap
    ended: float = 0.0
    kind: str = "command"  # the hook's type; an http hook's exit_code is its HTTP status

    @property
    def succeeded(self) -> bool:
        """Exit 0, or a 2xx answer for an http hook."""
        if self.kind == "http":
            return self.exit_code is not None and 200 <= self.exit_code < 300
        return self.exit_code == 0

    def __repr__(self) -> str:
        status = "timed out" if self.timed_out else f"exit {self.exit_code}"
        first = self.stderr.strip().splitlines()[0] if self.stderr.strip() else ""
        tail = f", stderr={first[:60]!r}" if first else ""
        return f"<HookRun {self.event} {self.command!r} {status} in {self.duration:.2f}s{tail}>"

    def to_json(self) -> dict[str, object]:
        return {
            **pick(self, "event command exit_code timed_out"),
            "duration": round(self.duration, 3),
            "type": self.kind,
        }


def _feed(sock: socket.socket, data: bytes) -> None:
    """Write the event and close our end, so the hook sees end-of-file after the JSON."""
    with contextlib.suppress(OSError), sock:  # a hook that exits without reading is no error
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)


def _send_at_once(sock: socket.socket, data: bytes) -> int:
    """Send what the socket takes without waiting; how many bytes went."""
    sock.setblocking(False)
    try:
        return sock.send(data) if data else 0
    except (BlockingIOError, InterruptedError):
        return 0
    except OSError:  # the hook is gone already: the rest can go nowhere either
        return len(data)
    finally:
        sock.setblocking(True)


def _communicate(proc: subprocess.Popen[bytes], timeout: float) -> tuple[bytes, bytes]:
    """``proc.communicate(timeout=...)`` without its polling wait.

    With a timeout, Popen.wait polls with sleeps from half a millisecond up; a hook's pipes
    close a moment before it can be reaped, so every hook paid that sleep. Here the exit is
    awaited on a pidfd where the system has them. Raises TimeoutExpired like communicate.
    """
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout)
            for key, _events in selector.select(remaining):
                data = os.read(key.fd, 65536)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
    _wait_for_exit(proc, deadline, timeout)
    proc.stdout.close()
    proc.stderr.close()
    return b"".join(chunks[out_fd]), b"".join(chunks[err_fd])


def _wait_for_exit(proc: subprocess.Popen[bytes], deadline: float, timeout: float) -> None:
    remaining = max(0.0, deadline - time.monotonic())
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux, or an old kernel
        proc.wait(remaining)
        return
    try:
        readable, _, _ = select.select([pidfd], [], [], remaining)
    finally:
        os.close(pidfd)
    if not readable:
        raise subprocess.TimeoutExpired(proc.args, timeout)
    proc.wait()


def _interpolate(value: str, env: Mapping[str, str], allowed: Sequence[str]) -> str:
    """A header value with ``$NAME`` and ``${NAME}`` filled in from the environment for the
    names ``allowedEnvVars`` lists; any other reference becomes empty (the client sent
    ``"X-Token": "$MYTOK"`` as an empty header when the variable was not there)."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", fill, value)


def run_http_hook(event: str, hook: HookCommand, body: bytes, env: Mapping[str, str]) -> HookRun:
    """POST the event's JSON to the hook's URL, as the client does: ``Content-Type:
    application/json`` and the hook's headers. The answer's body is read as a command hook's
    stdout; its HTTP status stands where a command's exit code does (2xx: success)."""
    started = time.monotonic()
    request = urllib.request.Request(hook.command, data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json, text/plain, */*")
    for name, value in hook.headers:
        request.add_header(name, _interpolate(value, env, hook.allowed_env_vars))
    status, text, error, timed_out = 0, "", "", False
    try:
        with urllib.request.urlopen(request, timeout=hook.timeout) as answer:
            status, text = answer.status, answer.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError as exc:
        status, error = exc.code, f"HTTP {exc.code}"
        text = exc.read().decode("utf-8", errors="replace")
    except TimeoutError:
        timed_out = True
    except (urllib.error.URLError, OSError) as exc:
        error = f"request failed: {getattr(exc, 'reason', exc)}"
        status = 1
    ended = time.monotonic()
    code = None if timed_out else status
    return HookRun(
        event, hook.label, code, text, error, timed_out, ended - started, started, ended, "http"
    )


def run_model_hook(event: str, hook: HookCommand, body: bytes, judge: Judge | None) -> HookRun:
    """A prompt or agent hook: the model is asked and answers ``{"ok": ..., "reason": ...}``.
    ``ok: false`` holds the event as an exit 2 with the reason on stderr does (the client words
    it ``[PROMPT]: REASON`` for a prompt hook, ``Agent hook condition was not met: REASON``
    for an agent hook, both observed on Stop); an answer that is not that JSON is a
    non-blocking error, "JSON validation failed"."""
    started = time.monotonic()
    condition = hook.command.replace("$ARGUMENTS", body.decode("utf-8"))
    answer = judge(hook, condition) if judge is not None else ""
    verdict = _verdict(answer)
    ended = time.monotonic()
    if verdict is None:
        code, stderr = 1, "JSON validation failed"
    elif verdict[0]:
        code, stderr = 0, ""
    elif hook.kind == AGENT_TYPE:
        code, stderr = 2, f"Agent hook condition was not met: {verdict[1]}"
    else:
        code, stderr = 2, verdict[1]
    return HookRun(
        event, hook.label, code, answer, stderr, False, ended - started, started, ended, hook.kind
    )


def _verdict(answer: str) -> tuple[bool, str] | None:
    try:
        data = json.loads(answer)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
        return None
    reason = data.get("reason")
    return data["ok"], reason if isinstance(reason, str) else ""


def run_hook(
    event: str,
    hook: HookCommand,
    stdin: bytes,
    *,
    cwd: Path,
    env: Mapping[str, str],
    judge: Judge | None = None,
) -> HookRun:
    """One hook of any type the simulator plays: a command, an http POST, a model's answer."""
    if hook.kind == "http":
        return run_http_hook(event, hook, stdin, env)
    if hook.kind in MODEL_TYPES:
        return run_model_hook(event, hook, stdin, judge)
    if hook.plugin_root:
        env = {**env, "CLAUDE_PLUGIN_ROOT": hook.plugin_root}
    elif ROOT_REFERENCE.search(hook.label):
        return _not_run(event, hook)
    return run_command_hook(event, hook, stdin, cwd=cwd, env=env)


def _exec_argv(hook: HookCommand, env: Mapping[str, str]) -> list[str]:
    """The exec form's argv. No shell runs, but the client fills in ``${CLAUDE_PROJECT_DIR}``
    (in braces; ``$CLAUDE_PROJECT_DIR`` stays as written) in the command and in each argument
    as plain text (observed on 2.1.332: handler-args-braced-project-dir)."""
    root = env.get("CLAUDE_PROJECT_DIR", "")
    parts = [hook.command, *(hook.args or ())]
    return [part.replace("${CLAUDE_PROJECT_DIR}", root) for part in parts]


def _not_run(event: str, hook: HookCommand) -> HookRun:
    """A settings hook naming ``${CLAUDE_PLUGIN_ROOT}``: the client does not run it and answers
    for it as a failed hook (exit 1, its own words on stderr), a non-blocking error."""
    now = time.monotonic()
    return HookRun(event, hook.label, 1, "", not_run_said(hook.label), False, 0.0, now, now)


def run_command_hook(
    event: str, hook: HookCommand, stdin: bytes, *, cwd: Path, env: Mapping[str, str]
) -> HookRun:
    started = time.monotonic()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # The shell form runs in /bin/sh as the client does; the exec form starts the command
        # itself (looked up on PATH, or relative to the cwd), its args passed as they are.
        argv = ["/bin/sh", "-c", hook.command] if hook.args is None else _exec_argv(hook, env)
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=theirs.fileno(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # Its own process group (not session: setsid made every hook ~2 ms slower).
            process_group=0,
        )
    except OSError as exc:  # no bash, or cwd gone: a non-blocking error like a missing script
        ours.close()
        theirs.close()
        ended = time.monotonic()
        return HookRun(
            event,
            hook.label,
            127,
            "",
            f"cannot start hook: {exc}",
            False,
            ended - started,
            started,
            ended,
        )
    theirs.close()
    # An event that fits in the socket's buffer goes in at once. A thread writes the rest, so a
    # hook that reads nothing (or slowly) cannot stall the reading of its output, whatever the
    # size of the event; starting one for every hook cost a fifth of a small hook's time.
    sent = _send_at_once(ours, stdin)
    if sent == len(stdin):
        _feed(ours, b"")
    else:
        threading.Thread(target=_feed, args=(ours, stdin[sent:]), daemon=True).start()
    try:
        out, err = _communicate(proc, hook.timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        # A grandchild that left the group may still hold the pipes: do not wait for it.
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=5)
        ended = time.monotonic()
        return HookRun(event, hook.label, None, "", "", True, ended - started, started, ended)
    ended = time.monotonic()
    return HookRun(
        event,
        hook.label,
        proc.returncode,
        out.decode("utf-8", errors="replace"),
        err.decode("utf-8", errors="replace"),
        False,
        ended - started,
        started,
        ended,
    )


def run_hooks(
    event: str,
    hooks: Sequence[HookCommand],
    stdin: bytes,
    *,
    cwd: Path,
    env: Mapping[str, str],
    judge: Judge | None = None,
) -> list[HookRun]:
    """Run every hook at the same time; results in the order of ``hooks``."""
    if len(hooks) == 1:  # no thread for the common case
        return [run_hook(event, hooks[0], stdin, cwd=cwd, env=env, judge=judge)]
    results: list[HookRun | None] = [None] * len(hooks)

    def work(i: int, hook: HookCommand) -> None:
        results[i] = run_hook(event, hook, stdin, cwd=cwd, env=env, judge=judge)

    threads = [threading.Thread(target=work, args=(i, h), daemon=True) for i, h in enumerate(hooks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [r for r in results if r is not None]


@dataclass
class BackgroundHook:
    """A hook left to run on its own; ``run`` is its result once it has ended."""

    hook: HookCommand
    run: HookRun | None = None
    label: str = ""  # how the client names the event in messages ("PostToolUse:Bash")

    @property
    def ended(self) -> bool:
        return self.run is not None


def start_async_hooks(
    event: str,
    hooks: Sequence[HookCommand],
    stdin: bytes,
    *,
    cwd: Path,
    env: Mapping[str, str],
) -> list[BackgroundHook]:
    """Start hooks marked ``async``: they run on their own and decide nothing, as in Claude
    Code; each is still killed at its timeout."""
    started = [BackgroundHook(hook) for hook in hooks]

    def work(background: BackgroundHook) -> None:
        background.run = run_hook(event, background.hook, stdin, cwd=cwd, env=env)

    for background in started:
        threading.Thread(target=work, args=(background,), daemon=True).start()
    return started
