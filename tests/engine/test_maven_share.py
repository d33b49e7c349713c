"""A session played on both engines in the dev check shares its Maven runs
(harness/maven/share.py): real Maven, the real hooks and the real Claude Code client."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.engine.checks import CHECK_KINDS
from harness.engine.context import CheckContext
from harness.results import CheckResult, Status
from harness.schema import check_table
from harness.workspace import Workspace
from tests.conftest import require_real_client

pytestmark = pytest.mark.maven

LAB_DIR = Path(__file__).resolve().parents[2] / "labs" / "03-stop-hook"
SENSOR_RUN = "./mvnw -q test -Dgroups=sensor"
DOC = "docs/use_cases/UC-002-edit-owner.md"


def play_on_both(
    ws: Workspace, steps: list[dict[str, Any]], *, share_maven: bool = True, **params: Any
) -> CheckResult:
    """The steps as a hook_session check on the emulator and the real client; ``share_maven``:
    as the dev check plays it (False: as a participant's own check does)."""
    require_real_client()
    spec = CHECK_KINDS["hook_session"]
    table = {"kind": "hook_session", "steps": steps, **params}
    p = check_table(table, spec.params, path="t", where="c")
    ctx = CheckContext(
        ws,
        LAB_DIR,
        engine="both",
        engine_forced=True,
        share_maven=share_maven,
        lab_start_commit=ws.head(),
    )
    return spec.run(ctx, p)


def hows(result: CheckResult) -> list[str]:
    return sorted(call["how"] for call in result.details["maven_calls"])


def test_both_engines_agree_on_one_shared_run_and_old_reports_never_count(
    ws: Workspace,
) -> None:
    # Green reports from before a change: the session must not take them for evidence.
    subprocess.run(SENSOR_RUN.split(), cwd=ws.root, check=True, capture_output=True)
    (ws.root / DOC).write_text((ws.root / DOC).read_text() + "\nA note.\n")
    steps = [
        {"do": "session_start"},
        {"do": "stop", "expect": "blocked", "feedback_contains": SENSOR_RUN},
        {"do": "prompt", "text": "Run the sensors."},
        {"do": "bash", "command": SENSOR_RUN, "expect": "allowed"},
        {"do": "stop", "expect": "allowed"},
    ]

    result = play_on_both(ws, steps)

    # Passed: every step as expected on each engine, and no step where the two disagree.
    assert result.status is Status.PASS, result.found
    sessions = result.details["sessions"]
    for engine in ("emulator", "claude-code"):
        assert [s["outcome"] for s in sessions[engine]] == [
            "allowed",
            "blocked",
            "allowed",
            "allowed",
            "allowed",
        ]
    # One engine ran Maven; the other's identical call was served from that run, and its
    # hooks took the restored reports as fresh evidence (its last stop went through).
    # Together they ran Maven as often as one engine alone: once.
    assert hows(result) == ["real", "restored"]


def test_the_same_edit_on_both_engines_shares_the_run_after_it(
    ws: Workspace,
) -> None:
    steps = [
        {"do": "session_start"},
        {"do": "prompt", "text": "Add a note, then run the sensors."},
        {"do": "write", "file": "docs/notes.md", "content": "A note.\n", "expect": "allowed"},
        {"do": "bash", "command": SENSOR_RUN, "expect": "allowed"},
        {"do": "stop", "expect": "allowed"},
    ]

    result = play_on_both(ws, steps)

    assert result.status is Status.PASS, result.found
    # The same note on both, written at two moments but in the same place among the files'
    # times: Maven would decide the same on each, so one run serves both.
    assert hows(result) == ["real", "restored"]


def test_turns_played_apart_share_a_repeated_sensor_run_and_never_a_changed_one(
    ws: Workspace,
) -> None:
    # Three turns from one start: the second repeats the first's Maven call around another
    # shell (the same files, the same ./mvnw arguments); the third changes a file first.
    steps = [
        {"do": "session_start"},
        {"do": "prompt", "text": "Run the sensors."},
        {"do": "bash", "command": f"{SENSOR_RUN} | tail -3", "expect": "allowed"},
        {"do": "stop", "expect": "allowed"},
        {"do": "prompt", "text": "Quietly."},
        {"do": "bash", "command": f"{SENSOR_RUN} > /dev/null 2>&1", "expect": "allowed"},
        {"do": "stop", "expect": "allowed"},
        {"do": "prompt", "text": "Add a note, then run them."},
        {"do": "write", "file": "docs/notes.md", "content": "A note.\n", "expect": "allowed"},
        {"do": "stop", "expect": "blocked"},
        {"do": "bash", "command": SENSOR_RUN, "expect": "allowed"},
        {"do": "stop", "expect": "allowed"},
    ]
    # A participant's own check (no dev-check share): turns apart share all the same, and so
    # do the two engines playing them.
    result = play_on_both(ws, steps, share_maven=False, turns_apart=True)

    # Each turn's hooks judged its own run: the restored reports counted as fresh evidence
    # (the second turn's stop went through), the changed file's stale ones did not.
    assert result.status is Status.PASS, result.found
    calls = result.details["maven_calls"]
    assert all(" ".join(call["argv"]).endswith("-q test -Dgroups=sensor") for call in calls)
    # One real run of the repeated call for both engines and both turns (3 served from it);
    # the note's turn changes the files, so it runs for real once, and the other engine's
    # same note (written later, in the same order) takes that run.
    assert sorted(call["how"] for call in calls) == ["real"] * 2 + ["restored"] * 4
    for engine in ("emulator", "claude-code"):
        stops = [s["outcome"] for s in result.details["sessions"][engine] if s["do"] == "stop"]
        assert stops == ["allowed", "allowed", "blocked", "allowed"], engine


VET = "src/main/java/ai/unifiedprocess/petclinic/domain/Vet.java"


def test_a_method_body_edit_by_the_real_client_compiles_that_file_alone(ws: Workspace) -> None:
    """The client's own Edit, then the sensors through its Bash tool (./mvnw with the client's
    stdin and signals): the edit changed no signature, so ./mvnw compiles Vet.java alone, and
    the fresh reports release the stop. Each engine plays on its own copy, for real."""
    subprocess.run(SENSOR_RUN.split(), cwd=ws.root, check=True, capture_output=True)
    steps = [
        {"do": "session_start"},
        {"do": "prompt", "text": "Make setId keep a null as it is."},
        {
            "do": "edit",
            "file": VET,
            "old": "this.id = id;",
            "new": "this.id = id == null ? null : id;",
            "expect": "allowed",
        },
        {"do": "stop", "expect": "blocked"},
        {
            "do": "bash",
            "command": "./mvnw test -Dgroups=sensor > sensors.log 2>&1;"
            " grep -E 'Compiling [0-9]+ source' sensors.log",
            "expect": "allowed",
        },
        {"do": "stop", "expect": "allowed"},
    ]

    result = play_on_both(ws, steps, share_maven=False)

    assert result.status is Status.PASS, result.found
    for engine in ("emulator", "claude-code"):
        bash = [s for s in result.details["sessions"][engine] if s["do"] == "bash"]
        after = [e for e in bash[0]["events"] if e.get("hook_event_name") == "PostToolUse"]
        assert after, (engine, bash)
        stdout = str(after[0]["tool_response"]["stdout"])
        assert "Compiling 1 source file to" in stdout, (engine, stdout)
        assert "Compiling 33" not in stdout, (engine, stdout)
