"""The docker backend against a real Docker engine and the locally built Maven image.

Skipped (with the reason) only when no engine answers or the image is absent on a developer's
machine; under CI=true those are failures, so CI proves the container path every run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from harness.errors import HarnessError
from harness.maven.backend import SENSOR_GOALS
from harness.maven.docker_backend import CONTAINER_LABEL, PERMISSION_FIX, DockerBackend
from harness.maven.image import DEFAULT_IMAGE, IMAGE_ENV, build_fix, inputs_hash
from harness.maven.surefire import SENSORS, report_path, sensor_reports
from harness.workspace import Workspace, provision
from tests.builders import REPO_ROOT, run_cli

pytestmark = pytest.mark.docker

HOOKS = Path(".claude") / "hooks"
BUILD_SCRIPT = REPO_ROOT / "docker" / "build-image.sh"
# A uid:gid that exists nowhere on this machine or in the image: a participant who is not root.
OTHER_USER = (4321, 4321)


@pytest.fixture(scope="module")
def engine() -> Iterator[docker.DockerClient]:
    """A client for the real engine; skip (or fail under CI) when the engine or image is absent."""
    status = DockerBackend().status()
    if not status.usable:
        reason = f"docker backend unusable: {status.detail} (fix: {status.fix})"
        if os.environ.get("CI"):
            pytest.fail(f"CI must prove the docker backend: {reason}")
        pytest.skip(reason)
    client = docker.from_env()
    yield client
    client.close()


@pytest.fixture
def docker_ws(tmp_path: Path, engine: docker.DockerClient) -> Workspace:
    ws = provision(tmp_path / "ws", backend="docker").workspace
    assert (ws.root / ".mvn" / "hooklab-backend").read_text().strip() == "docker"
    return ws


def our_containers(client: docker.DockerClient, ws: Workspace) -> list[str]:
    """The names of the workspace's containers, as the engine lists them. Sparse: a full list
    inspects each container after listing it, and one that ends between the two (--rm) made
    the listing itself fail with 404 on a loaded machine."""
    found = client.containers.list(
        all=True, sparse=True, filters={"label": f"org.hooklab.workspace={ws.root}"}
    )
    return [str(c.attrs["Names"][0]).lstrip("/") for c in found]


def container_starts(client: docker.DockerClient, ws: Workspace, since: float) -> int:
    """How many containers of ours the engine started for this workspace since ``since``."""
    events = client.events(
        since=int(since) - 1,
        until=int(time.time()) + 1,
        filters={"event": "start", "label": f"org.hooklab.workspace={ws.root}"},
        decode=True,
    )
    return sum(1 for _ in events)


def hook(ws: Workspace, name: str, payload: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """Run one of the fixture's hooks the way Claude Code does: JSON on stdin, project env."""
    script = ws.root / HOOKS / name
    if not script.is_file():
        pytest.fail(f"the fixture has no {HOOKS / name}")
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(ws.root)}
    body = {"session_id": "docker-test", "transcript_path": "", "cwd": str(ws.root), **payload}
    return subprocess.run(
        [str(script)],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        cwd=ws.root,
        env=env,
        timeout=60,
        check=False,
    )


def assert_green_reports(ws: Workspace, uid: int, after: float) -> None:
    reports = sensor_reports(ws.root)
    for name in SENSORS:
        report = reports[name]
        assert report is not None, f"no report for {name} at {report_path(ws.root, name)}"
        assert report.green, report.problems
        st = report.path.stat()
        assert st.st_uid == uid, f"{report.path} is owned by uid {st.st_uid}, not {uid}"
        assert report.mtime >= after, "the report is older than the edit it must prove"


# ---- the sensors in a container ---------------------------------------------------------------
def test_container_sensor_run_is_accepted_by_the_stop_hook(
    docker_ws: Workspace, engine: docker.DockerClient
) -> None:
    ws = docker_ws
    start = hook(ws, "session-start.sh", {"hook_event_name": "SessionStart", "source": "startup"})
    assert start.returncode == 0, start.stderr
    time.sleep(0.05)  # the edit must be strictly newer than the session base
    source = next((ws.root / "src" / "main" / "java").rglob("*.java"))
    source.write_text(source.read_text() + "\n// edited in the session\n")
    edited = source.stat().st_mtime

    stop = {"hook_event_name": "Stop", "stop_hook_active": False}
    before = hook(ws, "require-sensors.sh", stop)
    assert before.returncode == 2, f"Stop let an unproven edit through: {before}"

    lines: list[str] = []
    started = time.time()
    run = DockerBackend().run(ws.root, SENSOR_GOALS, on_output=lines.append, timeout=600)
    assert run.ok, run.output
    assert run.argv == ("./mvnw", *SENSOR_GOALS)
    assert run.duration > 0
    assert container_starts(engine, ws, started) == 1
    assert our_containers(engine, ws) == [], "the run left its container behind"
    assert_green_reports(ws, os.getuid(), edited)
    # Only the sensors ran, at the paths the hooks read.
    names = sorted(p.name for p in (ws.root / "target/surefire-reports").glob("TEST-*"))
    assert names == sorted(f"TEST-ai.unifiedprocess.petclinic.{s}.xml" for s in SENSORS)

    after = hook(ws, "require-sensors.sh", stop)
    assert after.returncode == 0, f"Stop refused fresh container reports: {after}"
    assert after.stdout.strip() == "", after.stdout


def test_red_sensors_in_a_container_exit_non_zero_and_stream_the_failure(
    docker_ws: Workspace,
) -> None:
    spec = docker_ws.root / "docs/use_cases/UC-003-register-new-owner.md"
    spec.write_text(spec.read_text().replace("### A1: Validation Errors", "### A1: Renamed"))
    lines: list[str] = []
    run = DockerBackend().run(docker_ws.root, SENSOR_GOALS, on_output=lines.append)
    assert run.returncode == 1, run.output
    assert any("UseCaseTraceabilityTest" in line for line in lines), lines
    trace = sensor_reports(docker_ws.root)["UseCaseTraceabilityTest"]
    assert trace is not None and not trace.green


@pytest.mark.skipif(os.getuid() != 0, reason="only root can hand a workspace to another uid")
def test_files_written_in_the_container_belong_to_a_non_root_participant(
    docker_ws: Workspace,
) -> None:
    uid, gid = OTHER_USER
    for path in [docker_ws.root, *docker_ws.root.rglob("*")]:
        os.lchown(path, uid, gid)
    started = time.time()
    run = DockerBackend(user=f"{uid}:{gid}").run(docker_ws.root, SENSOR_GOALS)
    assert run.ok, run.output
    assert_green_reports(docker_ws, uid, started - 1)
    # Nothing Maven wrote (classes, reports, status files) is root's.
    for path in (docker_ws.root / "target").rglob("*"):
        assert path.lstat().st_uid == uid, f"{path} is owned by uid {path.lstat().st_uid}"


# ---- ./mvnw -> .mvn/mvnw-docker ---------------------------------------------------------------
def wrapper_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "HOOKLAB_BACKEND"}
    env.update(extra)
    return env


def run_mvnw(ws: Workspace) -> subprocess.CompletedProcess[str]:
    """The fixture's ./mvnw run as a participant would, in a workspace set to docker."""
    return subprocess.run(
        ["./mvnw", *SENSOR_GOALS],
        cwd=ws.root,
        env=wrapper_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_mvnw_hands_over_to_docker_and_keeps_the_exit_code(
    docker_ws: Workspace, engine: docker.DockerClient
) -> None:
    started = time.time()
    done = run_mvnw(docker_ws)
    assert done.returncode == 0, done.stdout + done.stderr
    assert container_starts(engine, docker_ws, started) == 1
    assert_green_reports(docker_ws, os.getuid(), started - 1)

    spec = docker_ws.root / "docs/use_cases/UC-003-register-new-owner.md"
    spec.write_text(spec.read_text().replace("### A1: Validation Errors", "### A1: Renamed"))
    red = run_mvnw(docker_ws)
    assert red.returncode == 1, red.stdout + red.stderr
    assert our_containers(engine, docker_ws) == []


def test_ctrl_c_on_mvnw_stops_the_container_and_removes_it(
    docker_ws: Workspace, engine: docker.DockerClient
) -> None:
    # The terminal sends SIGINT to the wrapper's process group; docker run passes it on.
    wrapper = subprocess.Popen(
        ["./mvnw", *SENSOR_GOALS],
        cwd=docker_ws.root,
        env=wrapper_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not our_containers(engine, docker_ws) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert our_containers(engine, docker_ws), "the wrapper started no container"
        time.sleep(1)  # let Maven get going inside
        os.killpg(wrapper.pid, signal.SIGINT)
        code = wrapper.wait(timeout=30)
    finally:
        if wrapper.poll() is None:
            os.killpg(wrapper.pid, signal.SIGKILL)
    assert code != 0, "an interrupted run must not look successful"
    deadline = time.monotonic() + 10
    while our_containers(engine, docker_ws) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert our_containers(engine, docker_ws) == []


def test_mvnw_docker_names_a_missing_image(docker_ws: Workspace) -> None:
    done = subprocess.run(
        ["./mvnw", *SENSOR_GOALS],
        cwd=docker_ws.root,
        env=wrapper_env(**{IMAGE_ENV: "hooklab/maven-jdk17:no-such-tag"}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "hooklab/maven-jdk17:no-such-tag is not on this machine" in done.stderr
    assert "fix:" in done.stderr


# ---- clean errors -----------------------------------------------------------------------------
@pytest.fixture
def no_daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """DOCKER_HOST at a socket path nobody listens on (the real daemon keeps running)."""
    host = f"unix://{tmp_path / 'no-daemon.sock'}"
    monkeypatch.setenv("DOCKER_HOST", host)
    return host


def test_stopped_daemon_is_a_clear_error_with_the_fix(no_daemon: str, docker_ws: Workspace) -> None:
    status = DockerBackend().status()
    assert not status.usable
    assert status.detail == f"no Docker daemon answers at {no_daemon}"
    assert status.fix is not None and "start it" in status.fix
    assert "service docker start" in status.fix and "dockerd &" in status.fix

    with pytest.raises(HarnessError) as raised:
        DockerBackend().run(docker_ws.root, SENSOR_GOALS)
    assert raised.value.message == f"no Docker daemon answers at {no_daemon}"
    assert raised.value.fix == status.fix

    cli = run_cli("sensors", "--backend", "docker", cwd=docker_ws.root)
    assert cli.code == 1, cli
    assert "no Docker daemon answers" in cli.out + cli.err
    assert "Traceback" not in cli.out + cli.err

    wrapper = subprocess.run(
        ["./mvnw", *SENSOR_GOALS],
        cwd=docker_ws.root,
        env=wrapper_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert wrapper.returncode == 1
    assert wrapper.stderr.startswith(f"mvnw-docker: no Docker daemon answers ({no_daemon})")
    assert "service docker start" in wrapper.stderr


@pytest.mark.skipif(
    os.getuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to act as a user outside the docker group",
)
def test_socket_permission_denied_names_the_docker_group(
    engine: docker.DockerClient,
) -> None:
    uid, gid = OTHER_USER
    probe = (
        "import json; from harness.maven.docker_backend import DockerBackend; "
        "s = DockerBackend().status(); print(json.dumps([s.usable, s.detail, s.fix]))"
    )
    done = subprocess.run(
        [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={gid}",
            "--clear-groups",
            "--",
            str(REPO_ROOT / ".venv/bin/python"),
            "-c",
            probe,
        ],
        cwd=REPO_ROOT,
        env={k: v for k, v in os.environ.items() if k != "DOCKER_HOST"} | {"HOME": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    usable, detail, fix = json.loads(done.stdout)
    assert usable is False
    assert detail.startswith("permission denied on the Docker socket")
    assert fix == PERMISSION_FIX
    assert "sudo usermod -aG docker $USER" in fix


def test_missing_image_names_the_image_and_the_build_command(
    docker_ws: Workspace, engine: docker.DockerClient
) -> None:
    missing = "hooklab/maven-jdk17:no-such-tag"
    status = DockerBackend(missing).status()
    assert not status.usable
    assert status.detail == f"the Docker image {missing} is not on this machine"
    assert status.fix is not None and "scripts/docker-up.sh" in status.fix

    with pytest.raises(HarnessError) as raised:
        DockerBackend(missing).run(docker_ws.root, SENSOR_GOALS)
    assert missing in raised.value.message
    assert our_containers(engine, docker_ws) == []
    # The default image's own fix is the build script.
    assert build_fix(DEFAULT_IMAGE).startswith("build it: scripts/docker-up.sh")


def test_a_folder_without_mvnw_is_refused_before_docker_touches_it(tmp_path: Path) -> None:
    missing = tmp_path / "not-a-workspace"
    with pytest.raises(HarnessError) as raised:
        DockerBackend().run(missing, SENSOR_GOALS)
    assert f"{missing} has no ./mvnw" in raised.value.message
    # Docker would have created the bind-mount source as root.
    assert not missing.exists()


def test_image_env_overrides_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(IMAGE_ENV, "maven:3.9-eclipse-temurin-17")
    assert DockerBackend().image == "maven:3.9-eclipse-temurin-17"
    assert DockerBackend("x/y:z").image == "x/y:z"
    monkeypatch.delenv(IMAGE_ENV)
    assert DockerBackend().image == DEFAULT_IMAGE


# ---- stopping -----------------------------------------------------------------------------
def test_timeout_stops_and_removes_the_container(
    docker_ws: Workspace, engine: docker.DockerClient
) -> None:
    started = time.monotonic()
    run = DockerBackend().run(docker_ws.root, SENSOR_GOALS, timeout=1.5)
    assert run.returncode == 124
    assert "[stopped after 1.5 s]" in run.output
    assert time.monotonic() - started < 15, "the timeout did not stop the run promptly"
    assert our_containers(engine, docker_ws) == []


def test_ctrl_c_stops_and_removes_the_container(
    docker_ws: Workspace, engine: docker.DockerClient
) -> None:
    # A real SIGINT to this process, as Ctrl-C in a terminal sends, while Maven runs.
    timer = threading.Timer(1.5, os.kill, args=(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            DockerBackend().run(docker_ws.root, SENSOR_GOALS)
    finally:
        timer.cancel()
    assert our_containers(engine, docker_ws) == []


# ---- the image ------------------------------------------------------------------------------
def test_image_is_current_and_a_second_build_does_nothing(engine: docker.DockerClient) -> None:
    label = engine.images.get(DEFAULT_IMAGE).labels.get("org.hooklab.inputs")
    assert label == inputs_hash(), "the image was built from other docker/ files"
    assert DockerBackend().status().fix is None
    started = time.monotonic()
    again = subprocess.run(
        [str(BUILD_SCRIPT)], capture_output=True, text=True, timeout=120, check=False
    )
    assert again.returncode == 0, again.stderr
    assert "up to date" in again.stderr
    assert time.monotonic() - started < 10


def test_build_script_and_python_agree_on_the_inputs_hash() -> None:
    printed = subprocess.run(
        [str(BUILD_SCRIPT), "--inputs-hash"], capture_output=True, text=True, check=True
    )
    assert printed.stdout.strip() == inputs_hash()
    assert CONTAINER_LABEL == "org.hooklab.backend"
