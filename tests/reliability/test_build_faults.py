"""Surefire and Maven faults: reports that are corrupt, cut off or empty, Maven missing, a
compile error. A report that cannot be read never counts as evidence, the harness says which
file is broken, and a broken build is the participant's to fix, never a harness crash."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.engine.throwaway import path_without
from harness.maven.surefire import SENSORS, report_path
from harness.workspace import Workspace
from tests.reliability.cli import assert_clean_error, lab
from tests.reliability.hookcalls import HookCall, call, env_with, event, session
from tests.reliability.participant import EDITED, assert_intact, state
from tests.reliability.plugin import fault

INTACT = "the participant's files, progress and backups intact"
GREEN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite xmlns:xsi="http://www.w3.org/2001/'
    'XMLSchema-instance" name="ai.unifiedprocess.petclinic.{name}" time="0.2" tests="3" '
    'errors="0" skipped="0" failures="0">\n  <properties/>\n'
    '  <testcase name="one" classname="ai.unifiedprocess.petclinic.{name}" time="0.1"/>\n'
    '  <testcase name="two" classname="ai.unifiedprocess.petclinic.{name}" time="0.1"/>\n'
    "</testsuite>"
)
BROKEN = {
    "corrupt": lambda text: "\x00\x17 PK garbage where XML should be \x00" * 20,
    # The start tag with its green counts survives; the rest of the file does not.
    "truncated": lambda text: text[: text.index('<testcase name="two"') + 12],
    "empty": lambda text: "",
}


def write_reports(root: Path, kind: str | None) -> Path:
    """Fresh reports for every sensor; the last one broken as ``kind`` (None: all green)."""
    for sensor in SENSORS:
        path = report_path(root, sensor)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = GREEN.format(name=sensor)
        path.write_text(BROKEN[kind](text) if kind and sensor == SENSORS[-1] else text)
    return report_path(root, SENSORS[-1])


def record_then_stop(root: Path, calls: dict[str, HookCall]) -> tuple[bool, int, str]:
    """After session start: the sensor run reported to the hooks, then Stop.
    Returns (recorded as evidence?, Stop's exit, Stop's stderr)."""
    call(root, calls["record-sensor-run.sh"])
    recorded = (root / ".git" / "aiup-sensors-ran").exists()
    stop = call(root, calls["require-sensors.sh"])
    return recorded, stop.returncode, stop.stderr


def started_session(root: Path) -> dict[str, HookCall]:
    calls = {c.script: c for c in session(root)}
    call(root, calls["session-start.sh"])
    return calls


@fault(
    "surefire and maven",
    "a Surefire report that is {kind}",
    tried="a session: the participant's change, fresh sensor reports with the last one "
    "{kind}, the sensor run reported to the hooks, then Stop (the same with all reports "
    "intact ends the turn)",
    held=f"the run is not recorded as evidence and Stop blocks, naming the report; {INTACT}",
)
@pytest.mark.parametrize("kind", list(BROKEN))
def test_broken_report_is_no_evidence(participant: Workspace, tmp_path: Path, kind: str) -> None:
    control = tmp_path / "control"
    shutil.copytree(participant.root, control, symlinks=True)
    calls = started_session(control)
    write_reports(control, None)
    assert record_then_stop(control, calls)[:2] == (True, 0), "green reports must count"

    root = participant.root
    calls = started_session(root)
    before = state(root)
    write_reports(root, kind)
    recorded, code, said = record_then_stop(root, calls)
    assert not recorded
    assert code == 2 and SENSORS[-1] in said
    assert_intact(before, root)


@fault(
    "surefire and maven",
    "a Surefire report that is {kind}, read by the harness",
    tried="lab sensors --no-run, and lab check on lab 01's report step, with the last sensor "
    "report {kind}",
    held=f"exit 1, the broken file named as the person's to write anew (a FAIL), no traceback; "
    f"the step not passed; {INTACT}",
)
@pytest.mark.parametrize("kind", list(BROKEN))
def test_broken_report_is_named_by_the_harness(participant: Workspace, kind: str) -> None:
    root = participant.root
    assert lab(root, "start", "1").returncode == 0
    before = state(root)
    broken = write_reports(root, kind)
    assert_clean_error(lab(root, "sensors", "--no-run"), broken.name)
    checked = lab(root, "check")
    # The person's file (walk-r: a run cut short), so a FAIL naming it and the run to redo.
    assert_clean_error(checked, broken.name if kind != "empty" else SENSORS[-1])
    assert "FAIL" in checked.stdout and "ERROR" not in checked.stdout, checked.stdout
    assert_intact(before, root)


@fault(
    "surefire and maven",
    "Maven missing",
    tried="lab sensors with no mvn on PATH; a session whose agent runs ./mvnw, then Stop",
    held="lab sensors exits 1 and says mvn is missing and how to get it, no traceback; the "
    f"failed run is no evidence and Stop blocks; {INTACT}",
)
def test_maven_missing(participant: Workspace) -> None:
    root = participant.root
    with path_without(["mvn"]) as path:
        before = state(root)
        done = lab(root, "sensors", env={"PATH": path})
        assert_clean_error(done, "no 'mvn' on PATH", "apt-get install maven")
        env = env_with(root, PATH=path)
        calls = {c.script: c for c in session(root)}
        call(root, calls["session-start.sh"], env=env)
        failed = event(
            "PostToolUseFailure",
            root,
            tool_name="Bash",
            tool_use_id="toolu_9",
            tool_input={"command": "./mvnw -q test -Dgroups=sensor"},
            error="Exit code 1",
            is_interrupt=False,
        )
        for script in ("record-sensor-run.sh", "check-spec-status.sh"):
            call(root, HookCall(script, failed), env=env)
        stop = call(root, calls["require-sensors.sh"], env=env)
    assert stop.returncode == 2 and "./mvnw -q test -Dgroups=sensor" in stop.stderr
    assert not (root / ".git" / "aiup-sensors-ran").exists()
    assert_intact(before, root)


@pytest.mark.maven
@fault(
    "surefire and maven",
    "a compile error",
    tried="a Java syntax error in src/main, then lab sensors (real Maven), lab check on lab "
    "01's first step, and a session's Stop",
    held="lab sensors exits 1 showing the compiler's message; lab check fails (the "
    "participant's to fix, not a harness error); Stop blocks; the participant's files, "
    "progress and backups intact",
)
def test_compile_error(participant: Workspace) -> None:
    root = participant.root
    assert lab(root, "start", "1").returncode == 0
    broken = root / "src/main/java/ai/unifiedprocess/petclinic/Broken.java"
    broken.write_text("package ai.unifiedprocess.petclinic;\nclass Broken { int x = ; }\n")
    before = state(root)
    done = lab(root, "sensors")
    assert_clean_error(done, "Broken.java")
    checked = lab(root, "check")
    assert checked.returncode == 1 and "FAIL" in checked.stdout and "ERROR" not in checked.stdout
    calls = started_session(root)
    assert call(root, calls["require-sensors.sh"]).returncode == 2
    assert (root / EDITED).is_file()
    assert_intact(before, root)
