"""The lab commands driven for real, as separate processes, in a provisioned workspace."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.builders import run_cli, run_lab, tmux
from tests.lines import fnmatch_lines

REPO = Path(__file__).resolve().parents[2]
SOLUTION = REPO / "labs" / "04-status-guard" / "solution"


def lab(ws: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    return run_lab(ws.root, *args, timeout=300)


def started(ws: Workspace, lab_id: str) -> None:
    """``lab start`` in-process, where it only brings the workspace to the command under test
    (a process's start is paid where the process is the thing tested)."""
    done = run_cli("start", lab_id, cwd=ws.root)
    assert done.code == 0, done


def test_start_wrong_hint_fix_next_reset_restore(ws: Workspace) -> None:
    out = lab(ws, "start", "4")
    assert out.returncode == 0, out.stderr
    fnmatch_lines(out.stdout, ["*04-status-guard · step 1/3: Done is refused without an audit*"])
    scenario = ws.root / "scenarios" / "status-guard.toml"
    assert scenario.is_file()

    # A wrong attempt: an edit the guard has no reason to refuse.
    scenario.write_text(
        scenario.read_text() + '\n[[step]]\ndo = "edit"\n'
        'file = "docs/use_cases/UC-005-add-visit.md"\n'
        'old = "**Status:** Approved"\nnew = "**Status:** Draft"\n'
    )
    out = lab(ws, "check")
    assert out.returncode == 1
    # The simulated event, rendered on its line, then the verdict naming what is missing.
    fnmatch_lines(
        out.stdout,
        [
            "*2 edit *docs/use_cases/UC-005-add-visit.md → allowed",
            "✘ FAIL status-guard.toml: your session does not show the Done edit of UC-005 being"
            " refused",
        ],
        consecutive=True,
    )

    tiers = [lab(ws, "hint").stdout for _ in range(3)]
    for said, tier in zip(tiers, ("1/2", "2/2", "2/2"), strict=True):
        fnmatch_lines(said, [f"*─ hint {tier} ─*"])
    fnmatch_lines(tiers[1], ['│ *expect = "blocked".'])

    shutil.copyfile(SOLUTION / "status-guard-1.toml", scenario)
    out = lab(ws, "check", "--json")
    assert out.returncode == 0, out.stdout
    result = json.loads(out.stdout)
    assert result["status"] == "pass" and result["checks"][0]["status"] == "pass"

    out = lab(ws, "next")
    assert out.returncode == 0 and "Earn the status with an audit" in out.stdout

    # Work in progress, then reset: backed up first, and restorable.
    scenario.write_text("# my half-done audit scenario\n")
    out = lab(ws, "reset")
    assert out.returncode == 0, out.stderr
    assert "half-done" not in scenario.read_text()
    backed_up = fnmatch_lines(out.stdout, ["Your files were backed up first: lab restore *"])
    name = backed_up[0].rsplit(" ", 1)[1]
    out = lab(ws, "restore", name)
    assert out.returncode == 0, out.stderr
    assert scenario.read_text() == "# my half-done audit scenario\n"


def test_progress_survives_restart_and_is_reverified(ws: Workspace) -> None:
    assert lab(ws, "start", "4").returncode == 0
    for _ in range(3):
        assert lab(ws, "solve", "--apply").returncode == 0
        assert lab(ws, "check").returncode == 0
        status = json.loads(lab(ws, "status", "--json").stdout)  # a new process each time
        assert status["labs"]["04-status-guard"]["steps"][status["step"]]["passed"]
        out = lab(ws, "next", "--json")
        assert out.returncode == 0, out.stdout
    moved = json.loads(out.stdout)
    assert moved["step"] is None and moved["note"] == "lab complete"
    assert [r["status"] for r in moved["reverified"]] == ["pass", "pass", "pass"]
    listed = json.loads(lab(ws, "list", "--json").stdout)
    assert next(x for x in listed if x["id"] == "04-status-guard")["progress"]["completed_at"]


def test_next_before_passing_is_refused(ws: Workspace) -> None:
    started(ws, "9")
    out = lab(ws, "next")
    assert out.returncode == 1 and "has not passed its check yet" in out.stderr


def test_check_of_a_step_without_maven_never_starts_maven(ws: Workspace) -> None:
    """Speed is measured in benchmarks/bench_lab_check.py; here: no JVM is even looked for."""
    from harness.engine.throwaway import path_without

    started(ws, "9")
    with path_without(["mvn", "java"]) as path:
        out = run_lab(ws.root, "check", env={"PATH": path}, timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "FAIL" in out.stdout and "ERROR" not in out.stdout


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_watch_updates_on_change_and_exits_130(ws: Workspace) -> None:
    started(ws, "9")
    session = "watch"
    socket = str(ws.root.parent / "tmux.sock")
    cmd = f"cd {ws.root} && NO_COLOR=1 {sys.executable} -m harness watch; echo EXIT=$?; sleep 30"
    tmux(socket, "new-session", "-d", "-s", session, "-x", "160", "-y", "50", cmd)

    def screen() -> str:
        return tmux(socket, "capture-pane", "-p", "-t", session, check=False)

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            shown = screen()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared:\n{screen()}")

    try:
        wait_for("FAIL")
        (ws.root / "answers").mkdir()
        shutil.copyfile(
            REPO / "labs/09-read-the-adrs/solution/adr-quiz.toml",
            ws.root / "answers" / "adr-quiz.toml",
        )
        shown = wait_for("PASS")
        assert "answers/adr-quiz.toml" in shown
        tmux(socket, "send-keys", "-t", session, "C-c")
        assert "EXIT=130" in wait_for("EXIT=")
    finally:
        tmux(socket, "kill-server", check=False)


@pytest.mark.maven
def test_a_lab_whose_evidence_the_participant_built_completes_after_reverification(
    ws: Workspace,
) -> None:
    """Lab 02 the way a participant does it: edit, run ./mvnw by hand, check, next.

    Re-verification happens on a copy at each step's verified state, where today's reports
    (from a later state) must not count: the sensors are run again there.
    """
    spec = ws.root / "docs/use_cases/UC-003-register-new-owner.md"
    test = ws.root / "src/test/java/ai/unifiedprocess/petclinic/UC003RegisterOwnerTest.java"

    def sensors() -> None:
        subprocess.run(
            ["./mvnw", "-q", "test", "-Dgroups=sensor"],
            cwd=ws.root,
            capture_output=True,
            check=False,
            timeout=300,
        )

    started(ws, "2")
    spec.write_text(spec.read_text().replace("### A1: Validation Errors", "### A1: Invalid Input"))
    sensors()
    first = lab(ws, "check")
    assert first.returncode == 0, first.stdout
    shown = " ".join(first.stdout.split())
    assert 'scenario="A1: Validation Errors") points at no alternative flow' in shown
    assert lab(ws, "next").returncode == 0
    test.write_text(test.read_text().replace("A1: Validation Errors", "A1: Invalid Input"))
    sensors()
    assert lab(ws, "check").returncode == 0
    done = lab(ws, "next")
    assert done.returncode == 0, done.stdout
    lines = [line.strip() for line in done.stdout.splitlines()]
    # Step 1 passed at an earlier state: its sensors run again there. Step 2 passed just now on
    # this very state, with these very reports: not run again, as the participant guide says.
    assert "re-verified step 1 rename: ✔ pass" in lines, done.stdout
    assert (
        "re-verified step 2 fix-annotations: ✔ pass (passed on this very state, not run again)"
        in lines
    ), done.stdout
    assert "complete" in lab(ws, "status", "--json").stdout


def test_reset_does_not_stack_up_commits_on_head(ws: Workspace) -> None:
    """Lab 08's setup commits a hook; resetting the step replays that setup on a rewound HEAD."""
    started(ws, "8")
    for _ in range(2):
        out = lab(ws, "reset")
        assert out.returncode == 0, out.stdout + out.stderr
        assert "lab restore" in out.stdout  # the work before the reset is kept
    log = subprocess.run(
        ["git", "log", "--format=%s"], cwd=ws.root, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert log.count("Refuse repository classes not named ...Repository (hook)") == 1, log
