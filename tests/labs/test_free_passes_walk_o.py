"""walk-o's free passes: red sensors made to write green reports from outside the sources.

The step's code stays broken; the run that writes the reports is given a class path of its own
(``-Dmaven.test.additionalClasspath=JAR``, walk-o AC) or JVM options from the shell
(``MAVEN_OPTS``, what ``~/.mavenrc`` sets; walk-m S, walk-o S'). The jar holds walk-k's Quiet
extension, which swallows every test failure, and the two files that switch it on. Hook Lab's
own run of the sources (harness/engine/checks/sensors_agree.py) finds them red.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.engine.checks.scenario_kind import audit_gap
from harness.engine.sensor_run import runs_sensors, why_no_sensor_run
from harness.maven.backend import own_run_env
from harness.results import Status
from harness.workspace import Workspace
from tests.labs.solved import solved_at
from tests.labs.test_free_passes import at_step
from tests.labs.test_free_passes_walk_kl import MVNW, QUIET

JUNIT_API = Path("/usr/share/maven-repo/org/junit/jupiter/junit-jupiter-api/5.9.2")
SPEC = "docs/use_cases/UC-003-register-new-owner.md"


def _quiet_jar(folder: Path) -> Path:
    """walk-o's q.jar: the Quiet extension, registered, with autodetection on."""
    api = JUNIT_API / "junit-jupiter-api-5.9.2.jar"
    if not api.is_file():
        pytest.skip(f"no {api} (Debian's packaged JUnit) to compile the extension against")
    src = folder / "src" / "zz"
    src.mkdir(parents=True)
    (src / "Quiet.java").write_text(QUIET)
    classes = folder / "classes"
    services = classes / "META-INF" / "services"
    services.mkdir(parents=True)
    (services / "org.junit.jupiter.api.extension.Extension").write_text("zz.Quiet\n")
    (classes / "junit-platform.properties").write_text(
        "junit.jupiter.extensions.autodetection.enabled=true\n"
    )
    javac = ["javac", "-nowarn", "-cp", str(api), "-d", str(classes), str(src / "Quiet.java")]
    subprocess.run(javac, check=True, capture_output=True)
    jar = folder / "q.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(classes), "."], check=True)
    return jar


def _red_code_green_reports(
    workspace: Workspace, switch: list[str], env: dict[str, str], rig: Callable[[], None]
) -> None:
    """Lab 02 step 2 solved, then the spec's A2 renamed: A2's annotations point at nothing, so
    a plain run is red; the rigged run writes green reports."""
    root = workspace.root
    spec = root / SPEC
    spec.write_text(
        spec.read_text().replace("### A2: Duplicate Owner\n", "### A2: Duplicate Owners\n")
    )
    plain = subprocess.run(MVNW, cwd=root, capture_output=True, text=True, check=False)
    assert plain.returncode != 0, plain.stdout  # the code is red
    rig()
    rigged = subprocess.run(
        [*MVNW, *switch], cwd=root, capture_output=True, text=True, env=env, check=False
    )
    assert rigged.returncode == 0, rigged.stdout  # and the reports say green


@pytest.mark.maven
@pytest.mark.slow
@pytest.mark.parametrize("way", ["switch", "MAVEN_OPTS", "pom.xml"])
def test_lab02_step2_green_reports_of_red_code_do_not_pass(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    runner = solved_at(workspace, "2", "fix-annotations")
    jar = _quiet_jar(tmp_path / "jar")
    option = f"-Dmaven.test.additionalClasspath={jar}"
    switch = [option] if way == "switch" else []
    shell = dict(os.environ, MAVEN_OPTS=option) if way == "MAVEN_OPTS" else dict(os.environ)

    def rig() -> None:
        if way != "pom.xml":
            return
        # walk-q: the class path in the pom, the command plain
        pom = workspace.root / "pom.xml"
        text = pom.read_text()
        surefire = text.rindex("<artifactId>maven-surefire-plugin</artifactId>")
        at = text.index("<configuration>", surefire) + len("<configuration>")
        extra = f"<additionalClasspathElements><additionalClasspathElement>{jar}"
        extra += "</additionalClasspathElement></additionalClasspathElements>"
        pom.write_text(text[:at] + extra + text[at:])

    _red_code_green_reports(workspace, switch, shell, rig)
    if way == "MAVEN_OPTS":  # the person's shell (or ~/.mavenrc) hands every run the jar
        monkeypatch.setenv("MAVEN_OPTS", option)

    results = runner.check(every=True).results

    sensors = next(r for r in results if r.name.startswith(("sensors", "the sensors")))
    assert sensors.status is Status.FAIL, sensors
    assert sensors.message.startswith(
        "your reports say UseCaseTraceabilityTest passed, but the sensors run on your sources"
    ), sensors.message
    assert sensors.details["fix"] == (
        "run ./mvnw -q test -Dgroups=sensor as it is (no other switch) and fix what it names"
    )


def test_hook_labs_own_maven_runs_leave_the_persons_jvm_options_and_mavenrc_out() -> None:
    person = {"PATH": "/usr/bin", "MAVEN_OPTS": "-javaagent:/tmp/q.jar", "JAVA_TOOL_OPTIONS": "x"}
    env = own_run_env(person)
    assert env == {"PATH": "/usr/bin", "MAVEN_SKIP_RC": "1"}


@pytest.mark.parametrize(
    ("run", "said"),
    [
        (  # walk-o R2: walk-m R's agent, spelt the long way
            "./mvnw -q test -Dgroups=sensor --define surefire.forkCount=1 "
            "--define argLine=-javaagent:/tmp/q.jar",
            "its --define surefire.forkCount=1 runs the tests otherwise than the fixture does",
        ),
        (  # walk-o F: the sensors of a fixed copy, their reports written here
            "./mvnw -q test -Dgroups=sensor -f /tmp/wo-pom/pom.xml",
            "its -f /tmp/wo-pom/pom.xml runs the tests otherwise than the fixture does",
        ),
        (  # walk-o AC: a class path of the run's own, no fork needed
            "./mvnw -q test -Dgroups=sensor -Dmaven.test.additionalClasspath=/tmp/q.jar",
            "its -Dmaven.test.additionalClasspath=/tmp/q.jar runs the tests otherwise",
        ),
        ("./mvnw -q test -Dgroups=sensor -P quiet", "its -P quiet runs the tests otherwise"),
    ],
)
def test_a_sensor_run_with_a_switch_off_the_plain_list_is_no_sensor_run(
    run: str, said: str
) -> None:
    assert not runs_sensors(run)
    assert why_no_sensor_run(run).startswith(said), why_no_sensor_run(run)


@pytest.mark.parametrize(
    "run",
    [
        "./mvnw -q test -Dgroups=sensor",
        "./mvnw test -Dgroups=sensor -B -o 2>&1 | tail -20",
        "./mvnw -q test -Dgroups=sensor > /dev/null 2>&1 || true",
        "cd /tmp/ws && ./mvnw -q -e test -Dgroups=sensor --no-transfer-progress",
    ],
)
def test_the_plain_sensor_run_with_output_switches_is_a_sensor_run(run: str) -> None:
    assert runs_sensors(run), why_no_sensor_run(run)


@pytest.mark.slow
def test_a_java_wrapper_first_on_the_path_is_refused_like_a_maven_one(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-o J: Debian's mvn runs the first java on the PATH; a wrapper there can add
    walk-o AC's class path to every run, the sensor command left plain."""
    runner = solved_at(workspace, "2", "fix-annotations")
    real = shutil.which("java")
    assert real is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "java"
    wrapper.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("JAVA_HOME", raising=False)

    results = runner.check(every=True).results

    sensors = next(r for r in results if r.name.startswith(("sensors", "the sensors")))
    assert sensors.status is Status.FAIL, sensors
    assert sensors.message.startswith(f"Maven would run the java {wrapper}, not the one"), sensors
    assert sensors.details["fix"].startswith(f"remove {wrapper} (or take its folder off")


@pytest.mark.parametrize(
    "hidden",
    [".claude/settings.local.json", ".claude/plugins/aiup-vaadin-jooq/hooks/hooks.json"],
)
def test_a_hook_file_hidden_by_the_persons_git_exclude_is_still_not_shipped(
    workspace: Workspace, hidden: str
) -> None:
    """walk-o P and P': a rewriting hook kept in the workspace's own plugin or in
    settings.local.json, hidden from git by one line in .git/info/exclude."""
    runner = at_step(workspace, "3", "tricks")
    path = workspace.root / hidden
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"hooks": {}}\n')
    exclude = workspace.root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    with exclude.open("a") as out:
        out.write(hidden + "\n")

    results = runner.check(every=True).results

    shipped = next(r for r in results if r.name.startswith("shipped"))
    assert shipped.status is Status.FAIL, shipped
    assert hidden in shipped.message, shipped.message


@pytest.mark.slow
def test_lab07_step2_a_hook_that_lets_every_real_session_go_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-o K: one line after `set -u` lets the stop go whenever CLAUDECODE is set, as the
    pinned client sets it for every hook; the graded runs had it not."""
    runner = solved_at(workspace, "7", "write-hook")
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    assert "\nset -u\n" in text or "\nset -eu\n" in text, text
    anchor = "\nset -u\n" if "\nset -u\n" in text else "\nset -eu\n"
    hook.write_text(text.replace(anchor, anchor + '[ -n "${CLAUDECODE:-}" ] && exit 0\n', 1))

    results = runner.check(every=True).results

    graded = next(r for r in results if r.name.startswith("verify-hook"))
    assert graded.status is Status.FAIL, graded


@pytest.mark.parametrize("count", ["1 of 3 flows tested", "2 of 3 flows", "2 out of 3 flows"])
def test_an_audit_that_counts_less_than_every_flow_reports_a_gap(count: str) -> None:
    """walk-o E3: "UC-005 is fully covered by tests (1 of 3 flows tested)." passed Lab 04."""
    said = audit_gap(f"UC-005 is fully covered by tests ({count}).")
    assert said is not None and said.startswith("reports a gap (“"), said
    assert audit_gap("UC-005 is fully covered by tests (3 of 3 flows).") is None
