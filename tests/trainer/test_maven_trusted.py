"""walk-q: a java wrapper recorded by ``lab init`` run again is trusted by every check, and the
trainer sees it.

A java wrapper first on the PATH (walk-o J: it can add a class path to every Maven run) is
refused by the checks until ``lab init`` records it. Recording it is allowed (a Maven installed
on purpose looks the same), but the participant's progress now says so, and ``lab trainer
status`` and ``lab trainer verify`` name it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from harness.workspace import Workspace
from harness.workspace.maven_found import maven_found, not_the_machines
from tests.builders import run_lab
from tests.trainer.servers import GitDaemon, bare_repo


def _java_wrapper(folder: Path) -> Path:
    real = shutil.which("java")
    if real is None:
        pytest.skip("no java on the PATH")
    folder.mkdir()
    wrapper = folder / "java"
    wrapper.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def test_a_java_wrapper_is_named_as_not_the_machines_own(
    workspace: Workspace, tmp_path: Path
) -> None:
    own = maven_found(workspace.root)
    assert own is not None and not_the_machines(own) == []
    wrapper = _java_wrapper(tmp_path / "bin")
    env = {**os.environ, "PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("JAVA_HOME", None)
    found = maven_found(workspace.root, env)
    assert found is not None
    assert not_the_machines(found) == [
        f"java {wrapper} is outside the system's folders",
        f"java {wrapper} is a script, not a Java program",
    ]


@pytest.mark.slow
def test_lab_init_again_with_a_java_wrapper_shows_in_the_trainers_view(
    workspace: Workspace, tmp_path: Path
) -> None:
    served = tmp_path / "served"
    served.mkdir()
    bare_repo(served / "room.git")
    wrapper = _java_wrapper(tmp_path / "bin")
    path = f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"
    with GitDaemon(served) as daemon:
        url = daemon.url("room.git")
        ws = workspace.root
        # The participant's shell, the wrapper first: lab init here again, joining the room.
        out = run_lab(
            tmp_path,
            *("init", str(ws), "--remote", url, "--participant", "pat", "--cohort", "q"),
            env={"PATH": path},
            unset=["JAVA_HOME", "HOOKLAB_LABS"],
        )
        assert out.returncode == 0, out.stdout + out.stderr
        assert "Your progress records this for your trainer" in out.stdout, out.stdout

        status = run_lab(
            tmp_path, "trainer", "status", url, "--cohort", "q", "--json", unset=["HOOKLAB_LABS"]
        )
        assert status.returncode == 0, status.stderr
        pat = json.loads(status.stdout)["participants"][0]
        assert pat["participant"] == "pat"
        [said] = pat["maven_trusted"]
        assert said.startswith("lab init made the checks trust mvn "), said
        assert f"(java {wrapper}) instead of " in said, said
        assert said.endswith(f"java {wrapper} is a script, not a Java program"), said
