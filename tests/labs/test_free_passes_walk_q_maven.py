"""walk-q: a person's Maven setup cannot make red code pass Lab 01 step 1.

Where ``lab check`` takes green reports as evidence, Hook Lab runs the sensors itself on a copy
of the sources (harness/engine/checks/sensors_agree.py) with a clean Maven environment
(harness/maven/backend.py ``own_run_env``) and the fixture's own ``.mvn/``. Each way a shell or
a workspace can hand every Maven run a class path (walk-o's Quiet extension, which swallows
every test failure) is set here as the person would set it, for their own run and for the
``lab check`` process alike; the check must still find the code red.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_free_passes import at_step
from tests.labs.test_free_passes_walk_kl import MVNW
from tests.labs.test_free_passes_walk_o import SPEC, _quiet_jar

pytestmark = [pytest.mark.maven, pytest.mark.slow]

WAYS = ["MAVEN_OPTS", "MAVEN_ARGS", "mavenrc", "jvm.config", "maven.config"]


def _rig(way: str, root: Path, option: str, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """What sets ``option`` for every Maven run the person (and ``lab check``) starts."""

    def rig() -> None:
        if way in ("MAVEN_OPTS", "MAVEN_ARGS"):  # exported in the person's shell
            monkeypatch.setenv(way, option)
        elif way == "mavenrc":  # Debian's mvn sources ~/.mavenrc before each run
            # A HOME of this test's own: the suite's fake HOME serves every test of a worker.
            home = root.parent / "home"
            home.mkdir()
            monkeypatch.setenv("HOME", str(home))
            (home / ".mavenrc").write_text(f'MAVEN_OPTS="${{MAVEN_OPTS:-}} {option}"\n')
        elif way == "jvm.config":  # the JVM options of every run in this project
            config = root / ".mvn" / "jvm.config"
            config.write_text(config.read_text() + f"{option}\n")
        else:  # .mvn/maven.config: switches added to every mvn command line here
            (root / ".mvn" / "maven.config").write_text(f"{option}\n")

    return rig


@pytest.mark.parametrize("way", WAYS)
def test_lab01_step1_red_code_rigged_green_by_the_persons_maven_setup_does_not_pass(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    runner = at_step(workspace, "1", "run-sensors")
    root = workspace.root
    jar = _quiet_jar(tmp_path / "jar")
    spec = root / SPEC
    spec.write_text(
        spec.read_text().replace("### A2: Duplicate Owner\n", "### A2: Duplicate Owners\n")
    )
    plain = subprocess.run(MVNW, cwd=root, capture_output=True, text=True, check=False)
    assert plain.returncode != 0, plain.stdout  # the code is red
    _rig(way, root, f"-Dmaven.test.additionalClasspath={jar}", monkeypatch)()
    rigged = subprocess.run(MVNW, cwd=root, capture_output=True, text=True, check=False)
    if way == "MAVEN_ARGS" and rigged.returncode != 0:
        mvn = subprocess.run(["mvn", "-v"], capture_output=True, text=True, check=False)
        pytest.skip(f"this Maven reads no MAVEN_ARGS (3.9 does): {mvn.stdout.splitlines()[0]}")
    assert rigged.returncode == 0, rigged.stdout  # and the reports say green

    results = runner.check(every=True).results

    sensors = next(r for r in results if r.name.startswith("sensors"))
    assert sensors.status is Status.FAIL, sensors
    assert sensors.message.startswith(
        "your reports say UseCaseTraceabilityTest passed, but the sensors run on your sources"
    ), sensors.message
