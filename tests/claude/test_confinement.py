"""`lab simulate` is confined by default, on both engines: a step that writes outside the
copy, into HOME, reads ~/.ssh, opens a socket or reads the environment changes and learns
nothing outside the copy; a guard that lets ``rm -rf "$HOME"`` through costs nothing."""

from __future__ import annotations

import json
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.engine.throwaway import path_without
from harness.jail import unavailable
from tests.builders import run_lab_process
from tests.claude.hookproject import HookProject
from tests.claude.test_hook_types import Posts

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))

SECRET = "SECRET-KEY-of-the-person"


class Listener:
    """A loopback listener on this machine; it counts who reaches it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.reached = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.reached += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    served = Listener()
    yield served
    served.close()


@pytest.fixture
def person(tmp_path: Path) -> Path:
    """The home of the person running lab: a key in ~/.ssh, nothing else."""
    home = tmp_path / "person-home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    return home


def guarded(project: HookProject) -> None:
    """A broken guard: it means to stop `rm -rf /` and lets `rm -rf "$HOME"` through."""
    project.hook(
        "PreToolUse",
        """
        grep -q 'rm -rf /"' && { echo "not the root" >&2; exit 2; }
        exit 0
        """,
        matcher="Bash",
    )


def scenario(tmp: Path, outside: Path, home: Path, port: int) -> Path:
    commands = [
        f"echo leaked > {outside}/x; echo leaked > {tmp}; echo planted > ~/planted",
        f'cat ~/.ssh/id_rsa {home}/.ssh/id_rsa; echo "token=$HOOKLAB_TEST_TOKEN"',
        f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo REACHED",
        f'rm -rf "$HOME" {home}; echo inside > in-the-copy.txt',
    ]
    steps = "\n".join(f'[[step]]\ndo = "bash"\ncommand = {json.dumps(c)}\n' for c in commands)
    path = outside.parent / "scenario.toml"
    path.write_text("[session]\nauto_approve = true\n\n" + steps)
    return path


def play(project: HookProject, engine: str, person: Path, port: int, *extra: str) -> tuple:
    outside = project.root.parent / "outside"
    outside.mkdir()
    tmp = Path("/tmp") / f"hooklab-confinement-test-{uuid.uuid4().hex}"
    path = scenario(tmp, outside, person, port)
    done = run_lab_process(
        "simulate",
        str(path),
        "--json",
        "--engine",
        engine,
        *extra,
        cwd=project.root,
        env={"HOME": str(person), "HOOKLAB_TEST_TOKEN": "tok-123"},
    )
    return done, outside, tmp


def test_a_step_changes_nothing_outside_the_copy(
    engine: str, project: HookProject, person: Path, listener: Listener
) -> None:
    guarded(project)
    done, outside, tmp = play(project, engine, person, listener.port)
    assert done.returncode == 0, done.stderr
    steps = [json.loads(line) for line in done.stdout.splitlines()]
    # Each ran (the client asks before rm -rf; the simulated user says yes).
    assert [s["tool_ran"] for s in steps] == [True] * 4, steps
    results = [str(s["tool_result"]) for s in steps]
    # Outside the copy: neither a folder of the machine's nor /tmp, nor the person's home.
    assert not (outside / "x").exists() and not tmp.exists()
    assert not (person / "planted").exists()
    # ~/.ssh and the environment: not there to read.
    assert SECRET not in results[1] and "tok-123" not in results[1], results[1]
    # No network: the listener on this machine's loopback is never reached.
    assert "REACHED" not in results[2], results[2]
    assert listener.reached == 0
    # The guard let rm -rf "$HOME" through: the person's home is all there.
    assert (person / ".ssh" / "id_rsa").read_text() == SECRET + "\n"
    # Inside the copy the step acts (and the copy goes with the session).
    assert not (project.root / "in-the-copy.txt").exists()


def test_unconfined_runs_as_the_person(
    project: HookProject, person: Path, listener: Listener
) -> None:
    """--unconfined is what it says (and what the test above would see without the jail):
    the step writes outside the copy, reads the person's key and reaches the listener. (Its
    rm -rf removes the test's own stand-in home, nothing more.)"""
    done, outside, tmp = play(project, "emulator", person, listener.port, "--unconfined")
    try:
        assert (outside / "x").read_text() == "leaked\n"
        assert tmp.read_text() == "leaked\n"
        assert SECRET in done.stdout and "tok-123" in done.stdout
        assert listener.reached == 1
    finally:
        tmp.unlink(missing_ok=True)


def test_without_bubblewrap_it_refuses_and_names_the_fix(project: HookProject) -> None:
    path = project.root / "scenario.toml"
    path.write_text('[[step]]\ndo = "bash"\ncommand = "true"\n')
    with path_without(["bwrap"]) as searched:
        done = run_lab_process("simulate", str(path), cwd=project.root, env={"PATH": searched})
    assert done.returncode == 1
    said = " ".join(done.stderr.split())
    assert (
        "lab simulate runs every tool call in a jail (bubblewrap), and bubblewrap (bwrap) "
        "is not installed" in said
    )
    assert "sudo apt-get install bubblewrap" in said
    assert "lab simulate --unconfined (the tool calls then run as you" in said


def test_an_http_hook_on_loopback_is_reached_from_the_jail(
    engine: str, project: HookProject
) -> None:
    """The one way out: an http hook's own server on this machine's loopback, which the
    emulator posts to from outside and the client in the jail reaches through a bridge.
    A command in the same session still reaches nothing."""
    posts = Posts(answer=json.dumps({"decision": "block", "reason": "run the tests"}).encode())
    try:
        settings = {"hooks": {"Stop": [{"hooks": [{"type": "http", "url": posts.url}]}]}}
        (project.root / ".claude" / "settings.json").write_text(json.dumps(settings))
        path = project.root / "scenario.toml"
        path.write_text('[[step]]\ndo = "prompt"\ntext = "hi"\n\n[[step]]\ndo = "stop"\n')
        done = run_lab_process(
            "simulate", str(path), "--json", "--engine", engine, cwd=project.root
        )
        assert done.returncode == 0, done.stderr
        stop = [json.loads(line) for line in done.stdout.splitlines()][-1]
        assert stop["outcome"] == "blocked" and "run the tests" in stop["feedback"], stop
        assert [p["body"]["hook_event_name"] for p in posts.seen][:1] == ["Stop"]
    finally:
        posts.server.shutdown()
        posts.server.server_close()
