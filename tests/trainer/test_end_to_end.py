"""One participant, the real fixture, real Maven, a real git daemon: lab 01 done in a terminal,
submitted on its own, seen by the trainer and verified from the submission alone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.maven.surefire import SENSORS
from harness.workspace import Workspace
from tests.builders import run_lab
from tests.trainer.servers import GitDaemon, bare_repo, remote_refs


def lab(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_lab(cwd, *args, unset=["HOOKLAB_LABS"])  # the real labs


@pytest.mark.maven
@pytest.mark.slow
def test_a_participant_passes_lab_01_and_the_trainer_sees_and_verifies_it(
    tmp_path: Path, workspace: Workspace
) -> None:
    served = tmp_path / "served"
    served.mkdir()
    bare_repo(served / "room.git")
    with GitDaemon(served) as daemon:
        url = daemon.url("room.git")
        ws = workspace.root
        out = lab(
            tmp_path, "init", str(ws), "--remote", url, "--participant", "pat", "--cohort", "e2e"
        )
        assert out.returncode == 0, out.stderr
        out = lab(ws, "start", "1")
        assert out.returncode == 0, out.stderr
        assert "↑ submitted to cohort e2e as pat" in out.stdout

        # Step 1 the participant's way: run the sensors by hand, then check.
        maven = subprocess.run(
            ["./mvnw", "-q", "test", "-Dgroups=sensor"],
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert maven.returncode == 0, maven.stdout[-2000:]
        out = lab(ws, "check")
        assert out.returncode == 0, out.stdout
        assert "↑ submitted to cohort e2e as pat" in out.stdout
        assert lab(ws, "next").returncode == 0

        # Step 2: answer the quiz in the file and check; step 3: the forged report the
        # Stop hook believes; then complete the lab.
        (ws / "answers").mkdir()
        (ws / "answers" / "reports.toml").write_text('q1 = "b"\nq2 = "b"\nq3 = "a"\n')
        assert lab(ws, "check").returncode == 0
        assert lab(ws, "next").returncode == 0
        (ws / "answers" / "forged.xml").write_text(
            '<testsuite tests="1" failures="0" errors="0" skipped="0"></testsuite>\n'
        )
        assert lab(ws, "check").returncode == 0
        done = lab(ws, "next")
        assert done.returncode == 0, done.stdout
        assert "Lab 01-sensor-reports complete. Next: lab start 2" in done.stdout
        assert "↑ submitted to cohort e2e as pat" in done.stdout

        head = Workspace(ws).progress_head()
        assert remote_refs(served / "room.git") == {"refs/hooklab/cohorts/e2e/pat": head}

        status = lab(tmp_path, "trainer", "status", url, "--cohort", "e2e", "--json")
        assert status.returncode == 0, status.stderr
        pat = json.loads(status.stdout)["participants"][0]
        assert pat["participant"] == "pat"
        assert pat["labs"]["01-sensor-reports"] == {
            "completed_steps": 3,
            "steps": 3,
            "complete": True,
            "passed": ["run-sensors", "read-a-report", "forge-a-report"],
            # how each live step passed: Lab 01 has none
            "evidence": {},
            "timeline_left_out": {},
            "verification": {},  # nobody verified it yet
            # no hint taken, nothing solved with lab solve
            "hints": {},
            "solved_with_help": [],
        }

        verified = lab(tmp_path, "trainer", "verify", url, "pat", "--cohort", "e2e", "--json")
        assert verified.returncode == 0, verified.stdout + verified.stderr
        report = json.loads(verified.stdout)
        assert report["ok"] is True
        assert [(s["step"], s["status"]) for s in report["steps"]] == [
            ("run-sensors", "pass"),
            ("read-a-report", "pass"),
            ("forge-a-report", "pass"),
        ]
        assert f"{len(SENSORS)} reports match their digests" in report["steps"][0]["message"]
        # recorded: the dashboard shows the verdict, per step, with real Maven
        status = lab(tmp_path, "trainer", "status", url, "--cohort", "e2e", "--json")
        pat = json.loads(status.stdout)["participants"][0]
        assert pat["verification"] == "verified"
        assert pat["labs"]["01-sensor-reports"]["verification"] == {
            "run-sensors": "pass",
            "read-a-report": "pass",
            "forge-a-report": "pass",
        }
