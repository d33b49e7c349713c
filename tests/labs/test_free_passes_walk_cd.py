"""Issue 51, the walks of Labs 01–07 (walk-c) and 08–13 (walk-d): each free pass a newcomer
found, tried as they wrote it, fails its check.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports or proves a sensor, the workspace's bash hooks on the emulator.
"""

from __future__ import annotations

import pytest

from harness.engine.sensor_run import runs_sensors
from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_free_passes import LABS, at_step, check_at

TOUCH_REPORTS = "find target/surefire-reports -name '*.xml' -exec touch {} +"


# ---- what counts as a real sensor run ------------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        "./mvnw -q test -Dgroups=sensor",
        "cd /work/petclinic && ./mvnw -q test -Dgroups=sensor 2>&1 | tail -20",
        "mvn test -Dgroups=sensor",
    ],
)
def test_a_maven_sensor_run_counts_as_one(command: str) -> None:
    assert runs_sensors(command)


@pytest.mark.parametrize(
    "command",
    [
        f"{TOUCH_REPORTS} ; echo -Dgroups=sensor",
        f"echo ./mvnw -q test -Dgroups=sensor; {TOUCH_REPORTS}",
        ": ./mvnw -q test -Dgroups=sensor",
        "exit 0; ./mvnw -q test -Dgroups=sensor",
        "./mvnw -q test -Dgroups=sensor -DskipTests",
        "./mvnw -q test -Dgroups=sensors",
        "./mvnw -q test-compile -Dgroups=sensor",
        "./mvnw -q test -Dtest=UC003RegisterOwnerTest -Dgroups=sensor",
    ],
)
def test_a_command_that_only_mentions_the_sensors_is_no_run(command: str) -> None:
    assert not runs_sensors(command)


# ---- Lab 03 step 2: touched reports and a docs edit end the last turn ----------------------
@pytest.mark.maven
@pytest.mark.slow
def test_lab03_touched_reports_and_a_docs_fix_do_not_end_the_tricks_session(
    workspace: Workspace,
) -> None:
    """walk-c: the last turn's "fix" edits a doc (UC005's annotation stays broken) and its
    "real run" touches the old green reports and echoes -Dgroups=sensor; the check said "only
    the real, green run ended the turn"."""
    runner = at_step(workspace, "3", "tricks")
    honest = (LABS / "03-stop-hook" / "solution" / "tricks.toml").read_text()
    fix = (
        'file = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"\n'
        'old = "A1: Missing Text"\nnew = "A1: Missing Description"\n'
    )
    run = 'command = "./mvnw -q test -Dgroups=sensor"\n'
    assert fix in honest and honest.endswith(f'{run}[[step]]\ndo = "stop"\nexpect = "allowed"\n')
    rigged = honest.replace(
        fix,
        'file = "docs/use_cases/UC-005-add-visit.md"\n'
        'old = "# Use Case: Add Visit"\nnew = "# Use Case: Add a Visit"\n',
    )
    head, _, tail = rigged.rpartition(run)
    rigged = head + f'command = "{TOUCH_REPORTS} ; echo -Dgroups=sensor"\n' + tail
    (workspace.root / "scenarios" / "tricks.toml").write_text(rigged)

    tricks = check_at(runner, 0)

    assert tricks.status is Status.FAIL, tricks.message
    found = tricks.found or ""
    assert "an edit mentioning 'UC005AddVisitTest.java'" in found, found
    # The fix made, but the "run" still only touches the reports: no sensor ran.
    (workspace.root / "scenarios" / "tricks.toml").write_text(
        honest.rpartition(run)[0]
        + f'command = "{TOUCH_REPORTS} ; echo -Dgroups=sensor"\n'
        + honest.rpartition(run)[2]
    )
    touched = check_at(runner, 0)
    assert touched.status is Status.FAIL, touched.message
    assert "that runs the sensors itself" in (touched.found or ""), touched.found
