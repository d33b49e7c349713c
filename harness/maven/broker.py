"""Maven in Docker for a process that may not speak to Docker: ``lab trainer verify``'s sandbox.

Whoever reaches the Docker socket is root on the host (``docker run -v /:/host``), so the
sandbox that runs a participant's scripts must not see it. The trainer's process, outside the
sandbox, serves one narrow request on a Unix socket in the folder the sandbox may write (the
*confine* folder): "run ./mvnw ARGS in this folder". It starts the container itself, always
the same way: the Maven image, the confine folder mounted at its own path and nothing else of
the host, no network, the trainer's uid. The sandboxed side (``BrokerBackend``, the ``docker``
backend there) sends the request and reads Maven's output and exit status back. A symlink in
the confine folder resolves inside the container, where only that folder is the host's.

One JSON line each way per message: the request ``{"dir", "args", "timeout"}``; then
``{"line": ...}`` for each line of output and ``{"exit", "duration"}`` at the end, or
``{"error", "fix"}`` when it was refused.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import posixpath
import socket
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.maven.backend import BackendStatus, MavenBackend, MavenRequest, MavenRun
from harness.maven.streaming import TAIL_LINES

SOCKET_NAME = "maven-broker.sock"
MAX_REQUEST = 1 << 16  # a request is a folder and a few arguments


def confined_dir(confine: Path, requested: str) -> str:
    """``requested`` as a folder of ``confine``, judged by its text alone: the host never
    follows a link the sandbox made (in the container the same links resolve inside)."""
    if not requested.startswith("/"):
        raise ValueError(f"{requested!r} is not an absolute path")
    normal = posixpath.normpath(requested)
    root = posixpath.normpath(str(confine))
    if normal != root and not normal.startswith(root + "/"):
        raise ValueError(f"{requested!r} is outside {root}")
    return normal


class MavenBroker:
    """Serves Maven runs in Docker for the sandbox that writes ``confine``; a context manager."""

    def __init__(self, confine: Path, image: str | None = None) -> None:
        from harness.maven.docker_backend import DockerBackend

        self.confine = confine
        self.path = confine / SOCKET_NAME
        self.docker = DockerBackend(image, confine=confine)
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._threads: list[threading.Thread] = []
        self._closed = threading.Event()

    def __enter__(self) -> MavenBroker:
        self._server.bind(str(self.path))
        self._server.listen(4)
        accept = threading.Thread(target=self._accept, daemon=True)
        accept.start()
        self._threads.append(accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        self.path.unlink(missing_ok=True)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            worker = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            worker.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rwb") as stream:

            def send(**fields: Any) -> None:
                stream.write(json.dumps(fields).encode() + b"\n")
                stream.flush()

            try:
                request = json.loads(stream.readline(MAX_REQUEST))
                folder = confined_dir(self.confine, str(request["dir"]))
                args = [str(a) for a in request["args"]]
                timeout = request.get("timeout")
                run = self.docker.run(
                    Path(folder),
                    args,
                    on_output=lambda line: send(line=line),
                    timeout=float(timeout) if isinstance(timeout, int | float) else None,
                )
                send(exit=run.returncode, duration=run.duration)
            except HarnessError as err:
                with contextlib.suppress(OSError):
                    send(error=err.message, fix=err.fix)
            except (ValueError, KeyError, TypeError) as exc:
                with contextlib.suppress(OSError):
                    send(error=f"refused a Maven request: {exc}", fix=None)
            except OSError:
                return  # the sandbox went away mid-run


class BrokerBackend(MavenBackend):
    """The ``docker`` backend inside the sandbox: each run asked of the broker outside."""

    name = "docker"

    def __init__(self, path: str) -> None:
        self.path = path

    def status(self) -> BackendStatus:
        usable = os.path.exists(self.path)
        detail = f"Maven in Docker, started outside the sandbox (broker at {self.path})"
        return BackendStatus(self.name, usable, detail)

    def _run(self, request: MavenRequest) -> MavenRun:
        started = time.monotonic()
        tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        asked = {
            "dir": str(request.project_dir.absolute()),
            "args": list(request.args),
            "timeout": request.timeout,
        }
        for said in self._ask(asked):
            if "line" in said:
                line = str(said["line"])
                tail.append(line)
                if request.on_output is not None:
                    request.on_output(line)
            elif "exit" in said:
                took = time.monotonic() - started
                return MavenRun(request.argv, int(said["exit"]), "\n".join(tail), took)
            elif "error" in said:
                raise HarnessError(str(said["error"]), fix=said.get("fix") or None)
        raise HarnessError(
            "the Maven broker outside the sandbox ended without an exit status",
            fix="run lab trainer verify again; lab doctor checks Docker",
        )

    def _ask(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            try:
                conn.connect(self.path)
            except OSError as exc:
                raise HarnessError(
                    f"no Maven broker answers at {self.path}: {exc}",
                    fix="run lab trainer verify again (it starts the broker)",
                ) from None
            with conn.makefile("rwb") as stream:
                stream.write(json.dumps(request).encode() + b"\n")
                stream.flush()
                for raw in stream:
                    said = json.loads(raw)
                    if isinstance(said, dict):
                        yield said


# ---- a `docker` for the sandbox's PATH ------------------------------------------------------
# A workspace on the docker backend builds through .mvn/mvnw-docker, which calls
# `docker version`, `docker image inspect` and `docker run … IMAGE ./mvnw ARGS`. In the sandbox
# this stands in for docker: the version and image questions are answered, a run of ./mvnw is
# asked of the broker (in its folder, with its options), and anything else is refused.
_VALUED = {
    "-u", "--user", "--network", "--net", "-w", "--workdir", "-v", "--volume", "-e", "--env",
    "-l", "--label", "--name", "--entrypoint", "--mount", "--env-file", "-p", "--publish",
}  # fmt: skip
SHIM_REFUSAL = (
    "docker: in lab trainer verify's sandbox only Maven builds (docker run … ./mvnw …) run, "
    "started by verify outside the sandbox"
)


def _run_request(args: Sequence[str]) -> tuple[str | None, list[str]]:
    """``docker run`` arguments: the working folder asked for, and the command after the
    image."""
    workdir = None
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        name, has_value, value = option.partition("=")
        if name in _VALUED and not has_value and rest:
            value = rest.pop(0)
        if name in ("-w", "--workdir"):
            workdir = value
    return workdir, rest[1:]  # rest[0] is the image


def docker_shim(argv: Sequence[str], broker: str) -> int:
    if argv[:1] == ["version"]:
        print("hooklab-verify-broker")
        return 0
    if argv[:2] == ["image", "inspect"]:
        return 0
    if argv[:1] == ["run"]:
        workdir, command = _run_request(argv[1:])
        if command[:1] in (["./mvnw"], ["mvnw"]):
            folder = Path(workdir) if workdir else Path.cwd()
            try:
                run = BrokerBackend(broker).run(
                    folder, command[1:], on_output=lambda line: print(line, flush=True)
                )
            except HarnessError as err:
                print(f"docker: {err.message}", file=sys.stderr)
                return 125
            return run.returncode
    print(SHIM_REFUSAL, file=sys.stderr)
    return 125


if __name__ == "__main__":
    from harness.maven import BROKER_ENV

    sys.exit(docker_shim(sys.argv[1:], os.environ.get(BROKER_ENV, "")))
