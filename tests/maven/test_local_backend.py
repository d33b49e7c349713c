"""Real Maven on a provisioned workspace: green, red after a spec edit, red on a compile error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.maven import get_backend
from harness.maven.backend import SENSOR_GOALS
from harness.maven.surefire import SENSORS, sensor_reports
from harness.workspace import Workspace
from tests.builders import run_cli

pytestmark = pytest.mark.maven

UC003 = Path("docs/use_cases/UC-003-register-new-owner.md")


def rename_flow(ws: Workspace, old: str, new: str) -> None:
    spec = ws.root / UC003
    text = spec.read_text()
    assert f"### {old}" in text, f"the fixture's UC-003 has no '### {old}' heading"
    spec.write_text(text.replace(f"### {old}", f"### {new}"))


def test_sensor_run_is_green_then_red_after_a_spec_edit_then_a_compile_error(
    workspace: Workspace,
) -> None:
    backend = get_backend("local")
    first = backend.run(workspace.root, SENSOR_GOALS)
    assert first.ok, first.output
    reports = sensor_reports(workspace.root)
    assert set(reports) == set(SENSORS)
    for name, report in reports.items():
        assert report is not None, f"no report for {name}"
        assert report.green and report.tests > 0
    # Only the sensors ran: no use-case test reports beside them.
    names = sorted(p.name for p in (workspace.root / "target/surefire-reports").glob("TEST-*"))
    assert names == sorted(f"TEST-ai.unifiedprocess.petclinic.{s}.xml" for s in SENSORS)

    rename_flow(workspace, "A1: Validation Errors", "A1: Invalid Input")
    second = backend.run(workspace.root, SENSOR_GOALS)
    assert not second.ok
    trace = sensor_reports(workspace.root)["UseCaseTraceabilityTest"]
    assert trace is not None and trace.failures + trace.errors > 0
    messages = "\n".join(p.message for p in trace.problems)
    # The failure names the annotation that now points nowhere.
    assert re.search(r"UC003\w*Test\.\w+", messages), messages
    assert 'scenario="A1: Validation Errors"' in messages, messages

    rename_flow(workspace, "A1: Invalid Input", "A1: Validation Errors")
    source = next((workspace.root / "src/main/java").rglob("*.java"))
    source.write_text(source.read_text() + "\nthis is not java\n")
    third = backend.run(workspace.root, SENSOR_GOALS)
    assert not third.ok
    assert "COMPILATION ERROR" in third.output or "ERROR" in third.output
    # A failed compile leaves no report that could pass for this run's evidence.
    assert all(r is None for r in sensor_reports(workspace.root).values())


def test_lab_sensors_cli_json_and_table(workspace: Workspace) -> None:
    result = run_cli("sensors", "--json", cwd=workspace.root)
    assert result.code == 0, result
    data = json.loads(result.out)
    assert data["green"] is True and data["backend"] == "local"
    assert data["maven"]["exit_code"] == 0
    for sensor in SENSORS:
        assert data["reports"][sensor]["tests"] > 0
    table = run_cli("sensors", "--no-run", cwd=workspace.root)
    assert table.code == 0, table
    for sensor in SENSORS:
        assert sensor in table.out
    assert "green" in table.out


def test_lab_sensors_red_exit_1_and_names_the_problem(workspace: Workspace) -> None:
    rename_flow(workspace, "A1: Validation Errors", "A1: Invalid Input")
    result = run_cli("sensors", cwd=workspace.root)
    assert result.code == 1, result
    assert "UseCaseTraceabilityTest" in result.out
    assert "A1: Validation Errors" in result.out


def test_outside_a_workspace_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("sensors", cwd=tmp_path)
    assert result.code == 1
    assert "not inside a Hook Lab workspace" in result.err
