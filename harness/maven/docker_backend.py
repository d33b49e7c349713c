"""The ``docker`` backend: the workspace's ``./mvnw`` inside the lab's Maven image.

For participants without Java or Maven. The container sees the workspace at the same absolute
path and runs as the participant's uid:gid, so reports land where the hooks look, owned by the
participant, with mtimes from the same clock: the hooks cannot tell them from a local run.
"""

from __future__ import annotations

import codecs
import collections
import contextlib
import os
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker

from harness.errors import HarnessError
from harness.maven.backend import BackendStatus, MavenBackend, MavenRequest, MavenRun
from harness.maven.image import ImageInfo, build_fix, configured_image, image_info
from harness.maven.streaming import TAIL_LINES

M2_VOLUME = "hooklab-m2"
CONTAINER_HOME = "/home/lab"
CONTAINER_LABEL = "org.hooklab.backend"
DEFAULT_SOCKET = "unix:///var/run/docker.sock"
# Answering a ping takes milliseconds; a daemon that needs longer is as good as absent.
PING_TIMEOUT = 10
STOP_GRACE = 5

START_FIX = (
    "start it: sudo service docker start (or: sudo systemctl start docker; "
    "without an init system: sudo dockerd &); scripts/docker-up.sh does all of it"
)
PERMISSION_FIX = (
    "add yourself to the docker group: sudo usermod -aG docker $USER, then log in again"
)


def docker_host() -> str:
    return os.environ.get("DOCKER_HOST") or DEFAULT_SOCKET


def _caused_by_permission(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, PermissionError) or "Permission denied" in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def daemon_error(exc: BaseException) -> HarnessError:
    """What went wrong reaching the daemon, as the user's problem with its fix."""
    host = docker_host()
    if _caused_by_permission(exc):
        socket = host.removeprefix("unix://")
        return HarnessError(f"permission denied on the Docker socket {socket}", fix=PERMISSION_FIX)
    return HarnessError(f"no Docker daemon answers at {host}", fix=START_FIX)


class DockerBackend(MavenBackend):
    name = "docker"

    def __init__(
        self, image: str | None = None, *, user: str | None = None, confine: Path | None = None
    ) -> None:
        self.image = configured_image(image)
        # Set for lab trainer verify's broker (harness/maven/broker.py): the container sees
        # this folder of the host and nothing else, and has no network.
        self.confine = confine
        # The participant's ids: files the container writes into the workspace are theirs.
        self.user = user or f"{os.getuid()}:{os.getgid()}"

    # ---- connecting --------------------------------------------------------------------
    def _client(self, timeout: float | None = PING_TIMEOUT) -> docker.DockerClient:
        """A client whose daemon has answered a ping; HarnessError when there is none."""
        try:
            client = docker.from_env(timeout=PING_TIMEOUT)
            client.ping()
        except docker.errors.DockerException as exc:
            raise daemon_error(exc) from None
        except OSError as exc:
            raise daemon_error(exc) from None
        # Streaming a quiet Maven run must not hit a read timeout: None once it is known to be up.
        client.api.timeout = timeout
        return client

    def _image(self, client: docker.DockerClient) -> ImageInfo:
        try:
            found = client.images.get(self.image)
        except docker.errors.ImageNotFound:
            raise HarnessError(
                f"the Docker image {self.image} is not on this machine", fix=build_fix(self.image)
            ) from None
        except docker.errors.APIError as exc:
            raise HarnessError(
                f"Docker could not inspect the image {self.image}: {exc.explanation or exc}",
                fix=build_fix(self.image),
            ) from None
        return image_info(found.attrs, self.image)

    # ---- MavenBackend ------------------------------------------------------------------
    def status(self) -> BackendStatus:
        try:
            client = self._client()
        except HarnessError as err:
            return BackendStatus(self.name, False, err.message, fix=err.fix)
        with contextlib.closing(client):
            version = str(client.version().get("Version", "?"))
            facts = {"daemon": version, "host": docker_host(), "image": self.image}
            try:
                info = self._image(client)
            except HarnessError as err:
                return BackendStatus(self.name, False, err.message, fix=err.fix, facts=facts)
        facts["image id"] = info.id
        detail = f"Docker {version}, image {self.image} ({info.id}, {info.size_mb} MB)"
        if info.stale:
            return BackendStatus(
                self.name,
                True,
                detail + ": built from older docker/ files",
                fix=f"rebuild it: {build_fix(self.image).removeprefix('build it: ')}",
                facts=facts,
            )
        return BackendStatus(self.name, True, detail, facts=facts)

    def _run(self, request: MavenRequest) -> MavenRun:
        # Confined, the folder is taken as named: a link in it resolves in the container.
        project_dir = request.project_dir if self.confine else request.project_dir.resolve()
        argv = request.argv
        if not self.confine and not (project_dir / "mvnw").is_file():
            # Checked here: Docker would create a missing bind-mount source, owned by root.
            raise HarnessError(
                f"{project_dir} has no ./mvnw to run in the container",
                fix="run it in a Hook Lab workspace (create one: lab init --backend docker DIR)",
            )
        started = time.monotonic()
        client = self._client(timeout=None)
        with contextlib.closing(client):
            self._image(client)
            try:
                if not self.confine:
                    self._ensure_m2_volume(client)
                container = client.containers.create(
                    self.image,
                    list(argv),
                    **self.container_options(project_dir),
                )
            except docker.errors.DockerException as exc:
                raise HarnessError(
                    f"Docker refused to create the Maven container: {_explain(exc)}",
                    fix=f"check that {project_dir} exists and Docker may mount it",
                ) from None
            try:
                container.start()
                return self._follow(container, request, started)
            except (docker.errors.DockerException, OSError) as exc:
                # OSError: requests' connection errors, e.g. the daemon stopped mid-run.
                raise HarnessError(
                    f"the Maven container failed: {_explain(exc)}",
                    fix="check the engine with: docker info (restart it: scripts/docker-up.sh)",
                ) from None
            finally:
                # Ctrl-C, timeout, error or success: no container outlives the run.
                with contextlib.suppress(docker.errors.DockerException, OSError):
                    container.remove(force=True)

    # ---- internals ---------------------------------------------------------------------
    def container_options(self, project_dir: Path) -> dict[str, Any]:
        """Everything but image and command; .mvn/mvnw-docker passes the same to docker run."""
        env = {
            # The fixture's ./mvnw must run Maven itself in here, not hand over to Docker again.
            "HOOKLAB_BACKEND": "local",
            "HOME": CONTAINER_HOME,
            # Java takes user.home from passwd, where the participant's uid has no entry.
            "MAVEN_OPTS": f"-Duser.home={CONTAINER_HOME}",
        }
        if self.confine is not None:
            # A participant's mvnw runs in here: no network, no volume it could leave a
            # poisoned Maven cache in, the confine folder its only view of the host.
            return {
                "working_dir": str(project_dir),
                "user": self.user,
                "environment": env,
                "volumes": {str(self.confine): {"bind": str(self.confine), "mode": "rw"}},
                "labels": {CONTAINER_LABEL: self.name, "org.hooklab.verify": str(self.confine)},
                "network_mode": "none",
                "init": True,
            }
        if os.environ.get("HOOKLAB_MAVEN_ONLINE"):
            env["HOOKLAB_MAVEN_ONLINE"] = os.environ["HOOKLAB_MAVEN_ONLINE"]
        return {
            "working_dir": str(project_dir),
            "user": self.user,
            "environment": env,
            "volumes": {
                # The same absolute path inside: report paths and mtimes line up with the host.
                str(project_dir): {"bind": str(project_dir), "mode": "rw"},
                M2_VOLUME: {"bind": f"{CONTAINER_HOME}/.m2", "mode": "rw"},
            },
            "labels": {CONTAINER_LABEL: self.name, "org.hooklab.workspace": str(project_dir)},
            "network_mode": "host",
            # An init as PID 1 passes signals on to Maven, as docker run --init does.
            "init": True,
        }

    def _ensure_m2_volume(self, client: docker.DockerClient) -> None:
        """Create the shared Maven cache once, writable by any uid (the image may lack the dir)."""
        try:
            client.volumes.get(M2_VOLUME)
            return
        except docker.errors.NotFound:
            pass
        client.volumes.create(M2_VOLUME, labels={CONTAINER_LABEL: self.name})
        client.containers.run(
            self.image,
            ["chmod", "1777", "/m2"],
            user="0:0",
            volumes={M2_VOLUME: {"bind": "/m2", "mode": "rw"}},
            labels={CONTAINER_LABEL: self.name},
            entrypoint=[],
            remove=True,
        )

    def _follow(self, container: Any, request: MavenRequest, started: float) -> MavenRun:
        argv, on_output, timeout = request.argv, request.on_output, request.timeout
        tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        lines: queue.Queue[str | None] = queue.Queue()
        reader = threading.Thread(target=_pump, args=(container, lines), daemon=True)
        reader.start()
        deadline = None if timeout is None else started + timeout
        while True:
            # The reader blocks on the socket; the main thread waits here, so Ctrl-C and the
            # deadline both reach it promptly.
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                # It may have ended on its own in the meantime: killing it then is a no-op.
                with contextlib.suppress(docker.errors.APIError):
                    container.kill()
                tail.append(f"[stopped after {timeout} s]")
                return MavenRun(argv, 124, "\n".join(tail), time.monotonic() - started)
            if line is None:
                break
            tail.append(line)
            if on_output is not None:
                on_output(line)
        code = int(container.wait(timeout=STOP_GRACE + 60).get("StatusCode", 1))
        return MavenRun(argv, code, "\n".join(tail), time.monotonic() - started)


def _explain(exc: BaseException) -> str:
    explanation = getattr(exc, "explanation", None)
    return str(explanation or exc)


def _lines(chunks: Iterator[bytes]) -> Iterator[str]:
    """Whole lines from a byte stream cut anywhere (even inside a UTF-8 character)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    for chunk in chunks:
        pending += decoder.decode(chunk)
        *complete, pending = pending.split("\n")
        yield from (line.rstrip("\r") for line in complete)
    pending += decoder.decode(b"", final=True)
    if pending:
        yield pending.rstrip("\r")


def _pump(container: Any, lines: queue.Queue[str | None]) -> None:
    try:
        for line in _lines(container.logs(stream=True, follow=True)):
            lines.put(line)
    except Exception as exc:  # the container went away under us: end the stream, say why
        lines.put(f"[log stream ended: {exc}]")
    finally:
        lines.put(None)
