"""End to end on the real fixture: a change blocks Stop until real Maven ran the sensors."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hooks.hookrepo import (
    FIXTURE,
    SENSOR_COMMAND,
    bash_post,
    git_dir,
    init_repo,
    start_session,
    stop,
)

pytestmark = [
    pytest.mark.maven,
    pytest.mark.skipif(
        not (FIXTURE / "pom.xml").is_file(), reason="petclinic_fixture/pom.xml does not exist yet"
    ),
    pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq"),
    pytest.mark.skipif(shutil.which("mvn") is None, reason="needs a local Maven"),
]

CHANGED = "src/main/java/ai/unifiedprocess/petclinic/service/OwnerService.java"


def mvnw(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["./mvnw", *args], cwd=root, capture_output=True, text=True, timeout=300)


@pytest.fixture
def petclinic(tmp_path: Path) -> Path:
    root = tmp_path / "petclinic"
    shutil.copytree(FIXTURE, root, symlinks=True, ignore=shutil.ignore_patterns("target"))
    init_repo(root)
    return root


def test_stop_blocks_until_the_real_sensors_ran_green(petclinic: Path) -> None:
    root = petclinic
    start_session(root)
    source = root / CHANGED
    assert source.is_file(), f"the fixture no longer has {CHANGED}"
    source.write_text(source.read_text() + "\n// reviewed in the end-to-end test\n")

    blocked = stop(root)
    assert blocked.returncode == 2
    assert CHANGED in blocked.stderr
    assert SENSOR_COMMAND in blocked.stderr

    narrowed = mvnw(root, "-q", "test", "-Dtest=InMemoryOwnerRepositoryTest")
    assert narrowed.returncode == 0, narrowed.stdout + narrowed.stderr
    bash_post(root, "./mvnw -q test -Dtest=InMemoryOwnerRepositoryTest")
    assert stop(root).returncode == 2, "a narrowed run must not count"

    run = mvnw(root, "-q", "test", "-Dgroups=sensor")
    assert run.returncode == 0, run.stdout + run.stderr
    recorded = bash_post(root, SENSOR_COMMAND, stdout=run.stdout)
    assert recorded.returncode == 0
    assert CHANGED in (git_dir(root) / "aiup-sensors-ran").read_text()

    assert stop(root).returncode == 0

    shutil.rmtree(root / "target")
    assert stop(root).returncode == 2, "reports removed after the run must block again"
