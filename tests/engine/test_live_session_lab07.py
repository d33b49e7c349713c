"""Lab 07 step 4 as a live step (the Russian seed's step 3): a real session stays open with the
participant's own Stop hook's reason while the artefact (the sensor reports) is broken. The
sessions are played on the real, pinned client (scripted model) in a workspace at that step;
each test points CLAUDE_CONFIG_DIR at its own directory (a participant's ~/.claude)."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from harness.engine.lab_runner import LabRunner
from harness.results import CheckResult, Status
from harness.workspace import Workspace
from tests.builders import CliResult
from tests.engine.live_steps import ReachStep, assert_scripted_passes_only_when_asked, check_json
from tests.recorded_sessions import (
    Played,
    copy_session,
    copy_workspace_into,
    lines,
    play,
    write_lines,
)

LAB = "07-own-stop-hook"
STEP = "your-session"
OWN_HOOK = "scripts/check-before-stop.sh"


@pytest.fixture(scope="module")
def at_step_four(workspace_at_step: ReachStep) -> Path:
    """A workspace in Lab 07 at step 4, reached as a participant would (lab goto): the hook
    written and registered, the sensor reports gone."""
    return workspace_at_step(LAB, STEP)


@pytest.fixture(scope="module")
def held(at_step_four: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The participant asked Claude Code for a small change and to say it is done."""
    base = tmp_path_factory.mktemp("held")
    return play("small-change", copy_workspace_into(at_step_four, base), base / "claude-home")


@pytest.fixture(scope="module")
def unregistered(at_step_four: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The same session in a workspace where the participant's hook is not registered: only
    the workshop's require-sensors.sh holds the stop."""
    base = tmp_path_factory.mktemp("unregistered")
    root = copy_workspace_into(at_step_four, base)
    subprocess.run(["git", "checkout", "-q", "--", ".claude/settings.json"], cwd=root, check=True)
    assert OWN_HOOK not in (root / ".claude/settings.json").read_text()
    return play("small-change", root, base / "claude-home")


def _check(
    root: Path, config: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[CliResult, dict[str, Any]]:
    """``lab check --json`` and the step's one check (the live_session check) in it."""
    done, data = check_json(root, config, monkeypatch)
    # The live check: last, or before step 2's grading of the hook when it passed.
    check: dict[str, Any] = [c for c in data["checks"] if "verify-hook" not in c["name"]][-1]
    return done, check


def _every(
    root: Path, config: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[CheckResult, CheckResult]:
    """The step's settings check and its live check, each judged (as lab dev check does):
    where the first fails, lab check shows only it."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    # After them, step 2's grading of the hook again (a guard since walk-g's stub); between,
    # require-sensors.sh still registered beside it (walk-r F12).
    registered, _kept, live, _graded = LabRunner(Workspace(root)).check(every=True).results
    return registered, live


def test_the_held_session_passes_the_step_as_live(
    held: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not (held.workspace / "target/surefire-reports").exists()  # the artefact is broken
    done, result = _check(held.workspace, held.config_dir, monkeypatch)
    assert done.code == 0, done
    assert "your own session" in result["message"]
    # Claude was shown both Stop hooks' reasons; the participant's is among them
    stop = next(e for e in result["details"]["timeline"]["entries"] if e["kind"] == "stop")
    assert stop["verdict"] == "blocked by check-before-stop.sh, require-sensors.sh"
    assert f'{OWN_HOOK}"]: Stop check blocked: no report for ArchitectureTest' in stop["feedback"]
    record = Workspace(held.workspace).read_progress()["labs"][LAB]["steps"][STEP]["passed"]
    assert record["evidence_kind"] == "live"
    assert record["session_id"] == held.transcript.stem
    assert record["client_version"] == "2.1.332"


def test_no_session_fails_and_gives_the_prompt(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    done, result = _check(root, tmp_path / "claude-home", monkeypatch)
    assert done.code == 1
    assert "no Claude Code session" in result["message"]
    assert "NOTES.md" in result["details"]["fix"] and "--scripted" in result["details"]["fix"]


def test_a_stop_held_only_by_the_workshops_hook_fails_naming_the_own_hook(
    unregistered: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    registered, result = _every(unregistered.workspace, unregistered.config_dir, monkeypatch)
    # The cause first: the step's settings check names the registration that is gone.
    assert registered.status is Status.FAIL
    assert registered.message.startswith(f"no command hook on Stop runs {OWN_HOOK}")
    assert result.status is Status.FAIL
    assert "moment 2 of 3: a stop" in (result.expected or "")
    assert OWN_HOOK in (result.expected or "")
    assert "blocked by require-sensors.sh" in (result.found or "")  # what the session did


def test_a_hold_written_into_the_transcript_by_hand_fails_by_replay(
    unregistered: Played, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The unregistered session, with a feedback line of the participant's hook added by hand.
    path = copy_session(unregistered, tmp_path / "claude-home")
    entries = lines(path)
    at, meta = next(
        (n, e)
        for n, e in enumerate(entries)
        if e.get("isMeta") and "Stop hook feedback:" in json.dumps(e)
    )
    forged = json.loads(json.dumps(meta))
    forged["uuid"] = str(uuid.uuid4())
    forged["message"]["content"] = (
        f'Stop hook feedback:\n["$CLAUDE_PROJECT_DIR/{OWN_HOOK}"]: Stop check blocked: no report '
        "for ArchitectureTest: run ./mvnw -q test -Dgroups=sensor\n"
    )
    write_lines(path, [*entries[: at + 1], forged, *entries[at + 1 :]])
    _registered, result = _every(unregistered.workspace, tmp_path / "claude-home", monkeypatch)
    assert result.status is Status.FAIL
    found = result.found or ""
    # The settings differ from the step's start here (the hook is unregistered), so the
    # headline may name that cause; the replay's verdict is in found: either way.
    assert "does not replay" in result.message + found
    assert "recorded 'blocked by check-before-stop.sh, require-sensors.sh'" in found
    assert "'blocked by require-sensors.sh'" in found


@pytest.mark.maven
def test_reports_written_after_the_session_do_not_change_its_replay(
    held: Played, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The participant runs the sensors once the session is over: the replay still starts from
    # the step's start, without reports, so the recorded hold is reproduced.
    root = copy_workspace_into(held.workspace, tmp_path)
    session = copy_session(held, tmp_path / "claude-home")
    session.write_text(session.read_text().replace(str(held.workspace), str(root)))
    sensors = subprocess.run(
        ["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=root, capture_output=True, check=False
    )
    assert sensors.returncode == 0, sensors.stdout[-2000:]
    assert (root / "target/surefire-reports").is_dir()
    done, result = _check(root, tmp_path / "claude-home", monkeypatch)
    assert done.code == 0, result


def test_scripted_passes_only_when_asked(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_scripted_passes_only_when_asked(at_step_four, tmp_path, monkeypatch, LAB, STEP)
