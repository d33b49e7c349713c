"""``lab doctor --prove-client``: the fixture hooks' proof on the claude on the PATH, played with
the scripted model, never touching the participant's own ~/.claude."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.engine.throwaway import path_without
from tests.builders import REPO_ROOT, run_lab_process
from tests.conftest import require_real_client

BEHAVIOURS = ["stop-after-edit", "done-refused", "sed-reported", "hook-change-held", "audit-agent"]


def _pinned() -> Path:
    from harness.claude.client.install import find_client

    require_real_client()
    client = find_client()
    assert client is not None
    return client.path


def _participant(tmp_path: Path) -> tuple[Path, Path]:
    """A participant's home with a Claude Code config of their own: a login file and user
    settings whose hook leaves a marker if any client ever read them."""
    home = tmp_path / "ada"
    config = home / ".claude"
    config.mkdir(parents=True)
    marker = tmp_path / "the-participants-settings-were-read"
    hook = {"type": "command", "command": f"touch {marker}"}
    settings = {event: [{"hooks": [hook]}] for event in ("SessionStart", "PreToolUse", "Stop")}
    (config / "settings.json").write_text(json.dumps({"hooks": settings}))
    (config / ".credentials.json").write_text('{"claudeAiOauth": {"accessToken": "ada-own"}}')
    (home / ".claude.json").write_text('{"hasCompletedOnboarding": true}')
    return home, marker


def _tree(root: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else b"")
        for p in sorted(root.rglob("*"))
    }


def _prove(bin_dir: Path, home: Path, *extra: str):  # type: ignore[no-untyped-def]
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home)}
    env["CLAUDE_CONFIG_DIR"] = str(home / ".claude")  # the participant's own, as they set it
    return run_lab_process("doctor", "--prove-client", *extra, cwd=REPO_ROOT, env=env)


def test_every_behaviour_holds_on_the_pinned_client_and_the_own_claude_is_untouched(
    tmp_path: Path,
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(_pinned())  # the participant's claude is the pinned one
    home, marker = _participant(tmp_path)
    before = _tree(home)
    done = _prove(bin_dir, home, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["holds"] is True
    assert data["client"]["path"] == str(bin_dir / "claude")
    assert data["client"]["version"] == data["client"]["pinned"]
    proofs = {p["id"]: p for p in data["proofs"]}
    assert list(proofs) == BEHAVIOURS
    assert all(p["holds"] for p in proofs.values()), proofs
    assert "coverage-check UC-005" in proofs["done-refused"]["found"]
    assert "smoke.sh" in proofs["hook-change-held"]["found"]
    # the plugin's agent, in a plain session of the trusted folder (no --plugin-dir)
    assert proofs["audit-agent"]["found"] == (
        "aiup-vaadin-jooq:uc-coverage ran and record-coverage-check.sh recorded the audit"
    )
    assert "holds" in done.stderr  # the live status, one line per behaviour as it ends
    # the participant's home, config, login and settings: not read, not changed
    assert _tree(home) == before
    assert not marker.exists()


def test_a_client_whose_hooks_never_run_is_named_behaviour_by_behaviour(tmp_path: Path) -> None:
    # A stand-in, not a real release: no Claude Code installed here fails open, so the pinned
    # client is wrapped to run with every hook off (its own disableAllHooks setting). It speaks
    # to the driver and the scripted model as any client does, but runs no hook: how a client
    # that fails open looks to the proof.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / "claude"
    stand_in.write_text(
        f'#!/usr/bin/env bash\nexec {_pinned()} "$@" --settings \'{{"disableAllHooks": true}}\'\n'
    )
    stand_in.chmod(0o755)
    home, _ = _participant(tmp_path)
    done = _prove(bin_dir, home, "--json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert data["holds"] is False
    found = {p["id"]: (p["holds"], p["found"]) for p in data["proofs"]}
    assert list(found) == BEHAVIOURS
    assert not any(holds for holds, _ in found.values()), found
    assert "the turn ended" in found["stop-after-edit"][1]
    assert "went through" in found["done-refused"][1]
    assert "no hook told Claude" in found["sed-reported"][1]
    assert "the turn ended" in found["hook-change-held"][1]
    assert "wrote no marker" in found["audit-agent"][1]
    human = _prove(bin_dir, home)
    assert human.returncode == 1
    assert human.stdout.count("does not hold") >= 5
    assert "5 of 5 do not hold on this client" in " ".join(human.stdout.split())


def test_no_claude_on_path_is_a_clear_error(tmp_path: Path) -> None:
    with path_without(["claude"]) as path:
        done = run_lab_process(
            "doctor", "--prove-client", cwd=REPO_ROOT, env={"PATH": path, "NO_COLOR": "1"}
        )
    assert done.returncode == 1
    assert "no claude on your PATH" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("reply", ["", "claude, some version"])
def test_a_claude_that_tells_no_version_is_a_clear_error(tmp_path: Path, reply: str) -> None:
    # A stand-in for a broken installation: a script that answers --version with no number.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(f"#!/bin/sh\necho '{reply}'\n")
    (bin_dir / "claude").chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = run_lab_process("doctor", "--prove-client", cwd=REPO_ROOT, env=env)
    assert done.returncode == 1
    assert "does not tell its version" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_client_that_dies_at_start_fails_every_behaviour_with_its_last_words(
    tmp_path: Path,
) -> None:
    # A stand-in for a broken client: it tells a version, then exits on every session.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(
        '#!/bin/sh\n[ "$1" = --version ] && { echo "2.1.332 (Claude Code)"; exit 0; }\n'
        "echo 'cannot find module' >&2\nexit 3\n"
    )
    (bin_dir / "claude").chmod(0o755)
    home, _ = _participant(tmp_path)
    done = _prove(bin_dir, home, "--json")
    assert done.returncode == 1, done.stderr
    proofs = json.loads(done.stdout)["proofs"]
    assert [p["id"] for p in proofs] == BEHAVIOURS
    for proof in proofs:
        assert proof["holds"] is False
        assert "could not be played" in proof["found"] and "cannot find module" in proof["found"]
    assert "Traceback" not in done.stderr
