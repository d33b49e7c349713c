"""The Node fixture on a machine without Java (the issue's "done when"): `lab init ws --fixture
node`, `lab doctor` there does not ask for Java or Maven, and the workspace's labs pass
`lab dev check`, a session on the real pinned client included.

The machine here has Java; a PATH that finds every program but java, javac and mvn (a farm of
symlinks, harness.engine.throwaway.path_without) stands in for one that never had it. This is
the only fake in the test, and it is one a participant's laptop has for real."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.engine.throwaway import path_without
from tests.builders import run_lab_process
from tests.conftest import require_real_client

pytestmark = [pytest.mark.slow]

WITHOUT_JAVA = ("java", "javac", "mvn")


def test_lab_doctor_in_a_node_workspace_does_not_ask_for_java(tmp_path: Path) -> None:
    with path_without(WITHOUT_JAVA) as path:
        env = {"PATH": path, "NO_COLOR": "1"}
        assert shutil.which("java", path=path) is None
        init = run_lab_process("init", "ws", "--fixture", "node", cwd=tmp_path, env=env)
        assert init.returncode == 0, init.stderr
        assert "could not be compiled" not in init.stdout
        assert "lab start 12" in init.stdout
        doctor = run_lab_process("doctor", "--json", cwd=tmp_path / "ws", env=env)
        human = run_lab_process("doctor", cwd=tmp_path / "ws", env=env)
    report = json.loads(doctor.stdout)
    names = {c["name"]: c for c in report["checks"]}
    assert report["fixture"] == "node"
    assert not {"java", "maven", "sensors can run"} & names.keys(), sorted(names)
    assert names["node"]["required"] and names["npm"]["required"]
    assert report["ready"] is True and doctor.returncode == 0, report
    assert "java" not in human.stdout.lower()
    assert "For the node fixture (this workspace's)." in human.stdout


def test_the_same_doctor_for_the_petclinic_asks_for_java(tmp_path: Path) -> None:
    with path_without(WITHOUT_JAVA) as path:
        done = run_lab_process("doctor", "--json", cwd=tmp_path, env={"PATH": path})
    names = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert names["java"]["state"] == "missing" and not names["node"]["required"]


def test_the_node_workspaces_labs_pass_dev_check_and_a_client_session_without_java(
    tmp_path: Path,
) -> None:
    """Every step of both Node labs fails before its solve and passes after it (lab dev check
    on the emulator), and one step's session is played on the real client, its live check
    passed: all without java. The nox ``labs`` session proves both labs on both engines with
    java; this test proves only that no part of their path needs it. What may touch java is the
    labs' setups, solves, checks and hooks (the emulator runs them all) and the client's launch
    around a session (one played session runs it); no step's play on the client differs in
    that from another's."""
    require_real_client()
    with path_without(WITHOUT_JAVA) as path:
        env = {"PATH": path, "NO_COLOR": "1"}
        init = run_lab_process("init", "ws", "--fixture", "node", cwd=tmp_path, env=env)
        assert init.returncode == 0, init.stderr
        ws = tmp_path / "ws"
        done = run_lab_process("dev", "check", "--engine", "emulator", "--json", cwd=ws, env=env)
        report = json.loads(done.stdout)
        proven = {lab["lab"]: lab["ok"] for lab in report["labs"]}
        assert proven == {"12-stop-contract": True, "13-full-cycle": True}, done.stderr[-3000:]
        assert done.returncode == 0
        for command in (("start", "13"), ("goto", "held-live")):
            assert run_lab_process(*command, cwd=ws, env=env).returncode == 0
        # A live step's solve plays its session on the real client; lab check reads it.
        played = run_lab_process("solve", "--apply", cwd=ws, env=env)
        checked = run_lab_process("check", cwd=ws, env=env)
    assert played.returncode == 0, played.stdout + played.stderr
    assert "played a session on Claude Code" in played.stdout, played.stdout
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Step 3 passed." in checked.stdout, checked.stdout
