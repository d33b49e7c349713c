"""The Node fixture on a machine without Java (the issue's "done when"): `lab init ws --fixture
node` and `lab doctor` there do not ask for Java or Maven. That the fixture's labs pass
`lab dev check --engine both` without Java, the real pinned client included, the labs session
proves (noxfile.py: it proves the Node fixture's labs on such a PATH, the only proof of them).

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
