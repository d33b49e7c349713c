"""Submitting and reading a cohort over ssh://, against a real OpenSSH sshd on loopback."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.engine.progress import Progress
from harness.trainer.publish import make_settings, submit
from harness.trainer.remote import RemoteError
from tests.builders import run_cli
from tests.trainer.cohort_builder import SyntheticLabs, participant
from tests.trainer.servers import SSHD, SshServer, keygen, remote_refs


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SshServer]:
    if not (os.access(SSHD, os.X_OK) and shutil.which("ssh")):
        message = "OpenSSH's sshd and ssh are not installed (scripts/test.sh installs them)"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must install them")
        pytest.skip(message)
    with SshServer(tmp_path / "sshd") as running:
        # The key a trainer set up for git reaches dulwich the way it reaches git.
        monkeypatch.setenv("GIT_SSH_COMMAND", running.ssh_command())
        yield running


def test_participants_submit_over_ssh_and_the_trainer_reads_the_room(
    tmp_path: Path, labs: SyntheticLabs, served: Path, sshd: SshServer
) -> None:
    url = sshd.url(served / "room.git")
    people = {
        "dora": participant(tmp_path / "dora", labs, 1),
        "emil": participant(tmp_path / "emil", labs, 3),
    }
    for name, ws in people.items():
        done = submit(ws, make_settings(url, name, "tuesday"))
        assert done.commit == ws.progress_head()
    assert remote_refs(served / "room.git") == {
        f"refs/hooklab/cohorts/tuesday/{name}": ws.progress_head() for name, ws in people.items()
    }

    out = run_cli("trainer", "status", url, "--cohort", "tuesday", "--json")
    assert out.code == 0, out
    rows = {p["participant"]: p for p in json.loads(out.out)["participants"]}
    assert {n: r["labs"]["01-warmup"]["completed_steps"] for n, r in rows.items()} == {
        "dora": 1,
        "emil": 2,
    }


def test_a_key_the_server_does_not_know_is_named_with_the_fix_and_nothing_is_lost(
    tmp_path: Path,
    labs: SyntheticLabs,
    served: Path,
    sshd: SshServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = sshd.url(served / "room.git")
    ws = participant(tmp_path / "fay", labs, 2)
    head = ws.progress_head()
    stranger = keygen(tmp_path / "stranger_key")
    monkeypatch.setenv("GIT_SSH_COMMAND", sshd.ssh_command(stranger))

    with pytest.raises(RemoteError) as refused:
        submit(ws, make_settings(url, "fay", "tuesday"))
    said = str(refused.value)
    assert url in said and "ssh could not connect" in said and "Permission denied" in said
    assert f"ssh -p {sshd.port} " in (refused.value.fix or "")
    assert remote_refs(served / "room.git") == {}
    assert ws.progress_head() == head  # the refused submit changed nothing here

    monkeypatch.setenv("GIT_SSH_COMMAND", sshd.ssh_command())  # the right key: it catches up
    done = submit(ws, make_settings(url, "fay", "tuesday"))
    # The chain, with the document naming fay on top (staged by the submit, kept once pushed).
    assert done.commit == ws.progress_head() and Progress.load(ws).submits_as == "fay"
    assert remote_refs(served / "room.git") == {"refs/hooklab/cohorts/tuesday/fay": done.commit}


def test_core_ssh_command_in_the_git_config_is_honoured_like_git(
    tmp_path: Path,
    labs: SyntheticLabs,
    served: Path,
    sshd: SshServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = sshd.url(served / "room.git")
    ws = participant(tmp_path / "gil", labs, 1)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f'[core]\n\tsshCommand = "{sshd.ssh_command()}"\n')
    monkeypatch.delenv("GIT_SSH_COMMAND")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)

    assert submit(ws, make_settings(url, "gil", "tuesday")).commit == ws.progress_head()
    assert list(remote_refs(served / "room.git")) == ["refs/hooklab/cohorts/tuesday/gil"]
