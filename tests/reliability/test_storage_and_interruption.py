"""Storage and interruption: a full disk, Ctrl-C (a real SIGINT to a real `lab` process) in the
middle of init, reset, goto and submit, and two `lab` commands at once in one workspace."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.builders import REPO_ROOT
from tests.reliability.cli import assert_clean_error, lab
from tests.reliability.hookcalls import call, quiet, same_as, session
from tests.reliability.participant import EDITED, NOTES, assert_intact, backup_holds, state
from tests.reliability.plugin import fault
from tests.reliability.storage import fill, tiny_tmpfs

INTACT = "the participant's files, progress and backups intact"
LABS = Path(__file__).resolve().parent / "labs"


# ---- a real `lab` process and a real Ctrl-C --------------------------------------------------


def start_lab(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``lab ARGS`` in its own process group, as a shell runs a foreground job."""
    return subprocess.Popen(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd,
        env=dict(os.environ, NO_COLOR="1", COLUMNS="200", **(env or {})),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait_for(condition: Callable[[], bool], process: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"lab ended (exit {process.returncode}) before {what}:\n{out}{err}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"waited a minute for {what}")
        time.sleep(0.005)


def ctrl_c(process: subprocess.Popen[str]) -> tuple[int, str]:
    """Ctrl-C as a terminal sends it (SIGINT to the foreground process group)."""
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    return process.returncode, out + err


def interrupted_cleanly(code: int, said: str) -> None:
    assert code == 130, f"exit {code}:\n{said}"
    assert "interrupted" in said
    assert "Traceback" not in said and "crashed unexpectedly" not in said, said


# ---- lab init --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture plus a few thousand files: provisioning takes long enough to interrupt."""
    root = tmp_path_factory.mktemp("fixture") / "petclinic"
    shutil.copytree(REPO_ROOT / "petclinic_fixture", root, ignore=shutil.ignore_patterns("target"))
    bulk = root / "docs" / "bulk"
    bulk.mkdir()
    for i in range(4000):
        (bulk / f"note-{i:04}.md").write_text(f"note {i}\n" * 20)
    return root


def _copying(target: Path) -> bool:
    return (target / "docs").is_dir()


def _committing(target: Path) -> bool:
    return (target / ".git" / "objects").is_dir()


@fault(
    "storage and interruption",
    "Ctrl-C in lab init, {moment}",
    tried="lab init NEW_DIR from a fixture of 4,000 files, SIGINT to its process group {moment}",
    held="exit 130, 'interrupted', no traceback; no half workspace left behind (the directory "
    "is gone), so lab init DIR then succeeds",
)
@pytest.mark.parametrize("moment", ["while copying the fixture", "while committing it"])
def test_ctrl_c_in_lab_init(tmp_path: Path, big_fixture: Path, moment: str) -> None:
    target = tmp_path / "ws"
    began = _copying if moment.startswith("while copying") else _committing
    process = start_lab(tmp_path, "init", str(target), env={"HOOKLAB_FIXTURE": str(big_fixture)})
    wait_for(lambda: began(target), process, moment)
    interrupted_cleanly(*ctrl_c(process))
    assert not target.exists(), sorted(p.name for p in target.iterdir())
    again = lab(tmp_path, "init", str(target))
    assert again.returncode == 0, again.stdout + again.stderr
    assert Workspace(target).head()


# ---- lab goto and lab reset ------------------------------------------------------------------


def edit_as_participant(root: Path) -> None:
    (root / EDITED).write_text((root / EDITED).read_text() + "\nWritten during the lab.\n")
    (root / NOTES).parent.mkdir(exist_ok=True)
    (root / NOTES).write_text("still thinking\n")


@pytest.fixture
def mid_lab(participant: Workspace) -> Workspace:
    """The participant in the interruptible lab at step 1 with uncommitted edits."""
    root = participant.root
    started = lab(root, "start", "1", env={"HOOKLAB_LABS": str(LABS)})
    assert started.returncode == 0, started.stdout + started.stderr
    edit_as_participant(root)  # `lab start` backed their earlier edits up and rewound
    return participant


def _backups(root: Path) -> set[str]:
    """Backup refs written (a ref being written is still a .lock file)."""
    folder = root / ".git" / "refs" / "hooklab" / "backups"
    if not folder.is_dir():
        return set()
    return {p.name for p in folder.iterdir() if not p.name.endswith(".lock")}


@pytest.fixture
def hold(tmp_path: Path) -> Path:
    """While this file exists, step 2's setup waits (see labs/01-interruptible)."""
    path = tmp_path / "hold"
    path.touch()
    return path


MOMENTS = ("while the files are rewound", "while a step's setup runs")


@fault(
    "storage and interruption",
    "Ctrl-C in lab {command}, {moment}",
    tried="lab {command} in a workspace holding the participant's uncommitted edits, SIGINT "
    "to its process group {moment}",
    held="exit 130, 'interrupted', no traceback; the files and HEAD put back as they were, the "
    f"progress not moved, the new backup holds the edits; {INTACT}",
)
@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("command", ["goto 2", "reset"])
def test_ctrl_c_in_goto_and_reset(
    mid_lab: Workspace, hold: Path, command: str, moment: str
) -> None:
    root = mid_lab.root
    env = {"HOOKLAB_LABS": str(LABS)}
    if command == "reset":  # reset step 2: its setup (replayed) is where the pause is
        assert lab(root, "goto", "2", env=env).returncode == 0
        (root / "setup" / "began.txt").unlink()
        edit_as_participant(root)
    before = state(root)
    known = _backups(root)
    process = start_lab(root, *command.split(), env={**env, "HOOKLAB_TEST_HOLD": str(hold)})
    if moment == MOMENTS[0]:
        wait_for(lambda: bool(_backups(root) - known), process, "the backup before rewinding")
    else:
        wait_for(lambda: (root / "setup" / "began.txt").exists(), process, "step 2's setup")
    interrupted_cleanly(*ctrl_c(process))
    assert_intact(before, root, new_backups=True)
    first = sorted(_backups(root) - known)[0]  # "before goto …": the rewind may add its own
    assert backup_holds(root, f"refs/hooklab/backups/{first}", EDITED, "Written during the lab.")


@fault(
    "storage and interruption",
    "Ctrl-C in lab goto 2 with a clean worktree",
    tried="lab goto 2 with nothing of the participant's to back up (no backup is taken), SIGINT "
    "while step 2's setup runs, after step 1 was replayed",
    held="exit 130, no traceback; the files the replay wrote are gone again, HEAD and the "
    f"progress as they were, no backup made; {INTACT}",
)
def test_ctrl_c_in_goto_with_a_clean_worktree(participant: Workspace, hold: Path) -> None:
    root = participant.root
    env = {"HOOKLAB_LABS": str(LABS)}
    assert lab(root, "start", "1", env=env).returncode == 0
    before = state(root)
    process = start_lab(root, "goto", "2", env={**env, "HOOKLAB_TEST_HOLD": str(hold)})
    wait_for(lambda: (root / "setup" / "began.txt").exists(), process, "step 2's setup")
    assert (root / "first.txt").exists()  # step 1's solve was replayed
    interrupted_cleanly(*ctrl_c(process))
    assert_intact(before, root)


class StallingRemote:
    """A git:// remote on loopback that takes the connection and never answers: a push to it
    hangs the way one to an overloaded server does, until someone presses Ctrl-C."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"git://127.0.0.1:{self.server.getsockname()[1]}/cohort.git"
        self.connected = threading.Event()
        self.held: list[socket.socket] = []

    def __enter__(self) -> StallingRemote:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = self.server.accept()
                self.held.append(connection)
                self.connected.set()

    def __exit__(self, *exc: object) -> None:
        for connection in self.held:
            connection.close()
        self.server.close()


@fault(
    "storage and interruption",
    "Ctrl-C in lab submit",
    tried="lab submit to a git:// remote that takes the connection and never answers, SIGINT to "
    "its process group while the push waits",
    held="exit 130, 'interrupted', no traceback; nothing changed in the workspace (files, "
    f"progress, backups); the next submit to a working remote sends the progress; {INTACT}",
)
def test_ctrl_c_in_lab_submit(participant: Workspace, tmp_path: Path) -> None:
    root = participant.root
    before = state(root)
    with StallingRemote() as remote:
        process = start_lab(root, "submit", "--remote", remote.url, "--participant", "alice")
        wait_for(remote.connected.is_set, process, "the push to reach the remote")
        interrupted_cleanly(*ctrl_c(process))
    assert_intact(before, root)
    cohort = tmp_path / "cohort.git"
    subprocess.run(["git", "init", "-q", "--bare", str(cohort)], check=True)
    done = lab(root, "submit", "--remote", str(cohort), "--participant", "alice")
    assert done.returncode == 0, done.stdout + done.stderr
    refs = subprocess.run(
        ["git", "--git-dir", str(cohort), "for-each-ref", "refs/hooklab/"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "alice" in refs.stdout, refs.stdout


# ---- two commands at once --------------------------------------------------------------------


@fault(
    "storage and interruption",
    "two lab commands at once in one workspace",
    tried="lab goto 2 held in step 2's setup while lab hint, lab reset and lab check start in "
    "the same workspace; then the goto is let go",
    held="each second command exits 1 naming the command at work and changes nothing; the "
    "goto completes and the progress is the goto's, not overwritten",
)
def test_two_commands_at_once(mid_lab: Workspace, hold: Path) -> None:
    root = mid_lab.root
    env = {"HOOKLAB_LABS": str(LABS)}
    process = start_lab(root, "goto", "2", env={**env, "HOOKLAB_TEST_HOLD": str(hold)})
    wait_for(lambda: (root / "setup" / "began.txt").exists(), process, "step 2's setup")
    before = state(root)
    for second in (["hint"], ["reset"], ["check"]):
        done = lab(root, *second, env=env)
        assert_clean_error(done, "another lab command is working in this workspace", "goto 2")
    assert state(root) == before
    hold.unlink()
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, out + err
    status = lab(root, "status", "--json", env=env)
    assert '"step": "second"' in status.stdout, status.stdout
    assert lab(root, "hint", env=env).returncode == 0


# ---- a full disk -----------------------------------------------------------------------------


@fault(
    "storage and interruption",
    "a full disk",
    tried="the participant's workspace on a 16 MB tmpfs filled to the last byte: the six "
    "hooks with their acting events, then lab hint, check, reset, goto 1, start 3 and restore",
    held="hooks exit 0 and stay silent, or refuse exactly as with space; every lab command "
    "exits 0 or 1 with a clear message (no traceback, no crash); after space is freed lab "
    f"reset works; {INTACT}",
)
def test_a_full_disk(participant: Workspace, tmp_path: Path) -> None:
    with tiny_tmpfs(tmp_path / "disk", "16m") as disk:
        root = shutil.copytree(participant.root, disk / "ws", symlinks=True)
        room = shutil.copytree(root, tmp_path / "room", symlinks=True)
        # The agent's own sed is left out: a tool writing to a full disk is not a hook fault.
        # Events (the coverage agent's transcript too) are written before the disk fills.
        calls = [dataclasses.replace(c, agent=None) for c in session(root)]
        with_room = {
            c.script: call(room, dataclasses.replace(c, agent=None)) for c in session(room)
        }
        before = state(root)
        filler = fill(disk)
        for hook in calls:
            result = call(root, hook)
            assert quiet(result) or same_as(result, with_room[hook.script], room, root), result
        for command in (["hint"], ["check"], ["reset"], ["goto", "1"], ["start", "3"]):
            done = lab(root, *command)
            said = done.stdout + done.stderr
            assert done.returncode in (0, 1), f"lab {' '.join(command)}: {said}"
            assert "Traceback" not in said and "crashed" not in said, said
            if done.returncode == 1 and "No space left" not in said:
                assert "FAIL" in said, f"lab {' '.join(command)}: {said}"
        (backup,) = [b.name for b in Workspace(root).backups()]
        restored = lab(root, "restore", backup)
        assert restored.returncode == 1 and "No space left on device" in restored.stderr
        assert_intact(before, root)
        filler.unlink()
        assert lab(root, "reset").returncode == 0
