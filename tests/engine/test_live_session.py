"""Lab 11 step 4 as a live step: sessions played on the real, pinned client (scripted model) in
a workspace at that step, read back from the transcripts the client wrote, replayed and
matched. Each test points CLAUDE_CONFIG_DIR at its own directory (a participant's ~/.claude)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import Lab, Step
from harness.workspace import Workspace
from tests.engine.live_steps import ReachStep, assert_scripted_passes_only_when_asked, check_json
from tests.recorded_sessions import (
    Played,
    accepted_copy,
    copy_session,
    copy_workspace_into,
    play,
)

LAB = "11-try-it-yourself"


@pytest.fixture(scope="module")
def at_step_four(workspace_at_step: ReachStep) -> Path:
    """A workspace in Lab 11 at step 4, reached as a participant would (lab goto)."""
    return workspace_at_step(LAB, "earn-done")


@pytest.fixture(scope="module")
def earned(at_step_four: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The participant asked Claude Code to set UC-005 to Done: refused, audited, accepted,
    sensors, stop; the client wrote the session into this participant's config directory."""
    base = tmp_path_factory.mktemp("earned")
    root = copy_workspace_into(at_step_four, base)
    return play("earn-done", root, base / "claude-home")


def _live(data: dict[str, Any]) -> dict[str, Any]:
    """The step's one check (the live_session check) in ``lab check --json``."""
    check: dict[str, Any] = data["checks"][-1]  # the live check, last
    return check


@pytest.mark.maven
def test_the_real_session_passes_the_step_as_live(
    earned: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    done, data = check_json(earned.workspace, earned.config_dir, monkeypatch)
    assert done.code == 0, done
    result = _live(data)
    assert "your own session" in result["message"]
    assert result["details"]["session_id"] == earned.transcript.stem
    progress = Workspace(earned.workspace).read_progress()
    record = progress["labs"][LAB]["steps"]["earn-done"]["passed"]
    assert record["evidence_kind"] == "live"
    assert record["session_id"] == earned.transcript.stem
    assert record["client_version"] == "2.1.332"
    assert record["timeline_digest"].startswith("sha256:")
    assert record["scripted_model"] is True  # the test's model is Hook Lab's scripted one


@pytest.mark.maven
def test_done_set_back_to_approved_after_the_session_does_not_pass(
    earned: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-j: Done earned, then set back to Approved before the sensor run; the check said
    "refused, audited, earned" with UC-005 still Approved."""
    spec = earned.workspace / "docs" / "use_cases" / "UC-005-add-visit.md"
    was = spec.read_text()
    assert "**Status:** Done" in was
    spec.write_text(was.replace("**Status:** Done", "**Status:** Approved"))
    try:
        done, data = check_json(earned.workspace, earned.config_dir, monkeypatch)
    finally:
        spec.write_text(was)
    assert done.code == 1, done
    result = _live(data)
    assert result["message"] == "the workspace does not show what the session claims"
    assert (
        "docs/use_cases/UC-005-add-visit.md does not read **Status:** Done now" in result["found"]
    )
    assert "put back what changed since the session" in result["details"]["fix"]


@pytest.mark.maven
def test_done_typed_in_by_hand_after_the_session_set_it_back_does_not_pass(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-l: the session earned Done, set it back to Approved, ran the sensors and stopped;
    then the person typed Done in by hand, and the file read Done as the step wants."""
    root = copy_workspace_into(at_step_four, tmp_path)
    played = play("done-then-back", root, tmp_path / "claude-home")
    spec = root / "docs" / "use_cases" / "UC-005-add-visit.md"
    assert "**Status:** Approved" in spec.read_text()
    spec.write_text(spec.read_text().replace("**Status:** Approved", "**Status:** Done"))

    done, data = check_json(root, played.config_dir, monkeypatch)

    assert done.code == 1, done
    result = _live(data)
    assert result["message"] == "the workspace does not show what the session claims"
    assert "the session's last change of docs/use_cases/UC-005-add-visit.md" in result["found"]


@pytest.mark.maven
def test_a_refusal_edited_to_look_accepted_fails_by_replay_naming_the_line(
    earned: Played, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tampered, line = accepted_copy(earned, tmp_path / "claude-home")
    done, data = check_json(earned.workspace, tmp_path / "claude-home", monkeypatch)
    assert done.code == 1, done
    result = _live(data)
    assert "does not replay" in result["message"]
    # the row is the Edit's tool_use line: the assistant line whose tool_use the edited result
    # answers (other lines, attachments, may stand between the two)
    entries = [json.loads(text) for text in tampered.read_text().splitlines()]
    answered = entries[line - 1]["message"]["content"][0]["tool_use_id"]
    edit_line = next(
        number
        for number, entry in enumerate(entries, start=1)
        if entry.get("type") == "assistant"
        and any(b.get("id") == answered for b in entry["message"]["content"])
    )
    assert f"transcript line {edit_line} " in result["found"], result["found"]
    assert "recorded 'ran'" in result["found"]
    assert "'refused by guard-spec-status.sh'" in result["found"]


@pytest.mark.maven
def test_an_audit_of_another_use_case_does_not_earn_the_marker_made_by_hand(
    earned: Played, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The transcript's audit rewritten to name UC-004: the workspace's UC-005 marker (as a
    person could touch it) is not one the session's SubagentStop leaves on the replay."""
    path = copy_session(earned, tmp_path / "claude-home")
    swaps = {
        "UC-005 (docs/use_cases/UC-005-add-visit.md)": "UC-004 (docs/use_cases/UC-004-pet.md)",
        "Coverage report: UC-005": "Coverage report: UC-004",
    }
    for file in [path, *path.with_suffix("").rglob("*.jsonl")]:
        text = file.read_text()
        for old, new in swaps.items():
            text = text.replace(old, new)
        file.write_text(text)
    done, data = check_json(earned.workspace, tmp_path / "claude-home", monkeypatch)
    assert done.code == 1, done
    found = _live(data)["found"]
    assert "leaves no .git/aiup-coverage-checked/UC-005" in found, found
    assert "subagent" in found or "Agent" in found, found


def test_no_session_fails_and_says_what_to_ask(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    done, data = check_json(root, tmp_path / "claude-home", monkeypatch)
    assert done.code == 1
    result = _live(data)
    assert "no Claude Code session" in result["message"]
    assert "Set it to Done" in result["details"]["fix"] and "--scripted" in result["details"]["fix"]


def test_the_session_without_the_audit_fails_naming_the_missing_audit(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    played = play("no-audit", root, tmp_path / "claude-home")
    done, data = check_json(root, played.config_dir, monkeypatch)
    assert done.code == 1, done
    result = _live(data)
    wanted = "moment 2 of 5: the end of the agent 'aiup-vaadin-jooq:uc-coverage'"
    assert wanted in result["expected"]
    assert "refused by guard-spec-status.sh" in result["found"]  # what it did instead
    fix = result["details"]["fix"]
    assert fix.startswith("in the session Claude refused in, type /aiup-vaadin-jooq:coverage")
    assert "start claude again" in fix  # the session may be over by now
    # The person follows the fix in a new session, which audits first and is never refused:
    # the check judges the newest session (walk-l, walk-n: the screen told of the older one),
    # and names the older one, which came further, after it.
    newer = play("audit-only", root, tmp_path / "claude-home")
    done, data = check_json(root, played.config_dir, monkeypatch)
    assert done.code == 1, done
    result = _live(data)
    assert result["expected"].startswith("moment 1 of 5: an edit mentioning 'UC-005'"), result
    found = " ".join(result["found"].split())
    assert found.startswith(f"session {newer.transcript.stem} "), found
    assert (
        f"an older session here ({played.transcript.stem}) came further: it did moment 1 of "
        "the 5, then not moment 2 (the end of the agent" in found
    ), found


def test_a_session_from_before_the_step_does_not_count(
    earned: Played, at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    # the earned session, moved to this workspace, but entering the step again is later
    config = tmp_path / "claude-home"
    path = copy_session(earned, config)
    path.write_text(path.read_text().replace(str(earned.workspace), str(root)))
    runner = LabRunner(Workspace(root))
    runner.goto("earn-done")
    done, data = check_json(root, config, monkeypatch)
    assert done.code == 1
    assert "no Claude Code session" in _live(data)["message"]


def test_scripted_passes_only_when_asked(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_scripted_passes_only_when_asked(at_step_four, tmp_path, monkeypatch, LAB, "earn-done")


def _rerun_at_claim(
    root: Path, tmp_path: Path
) -> tuple[LabRunner, Lab, Step, dict[str, Any], Path]:
    """What lab trainer verify does with a claim: the checks again, on a copy at its state."""
    runner = LabRunner(Workspace(root))
    lab = runner.lab(LAB)
    step = lab.step("earn-done")
    record = runner.progress.lab_progress(lab.id).step(step.id).passed
    assert record is not None
    copy = tmp_path / "claim"
    shutil.copytree(root, copy, symlinks=True)
    Workspace(copy).restore_commit(record["snapshot"])
    shutil.rmtree(copy / "target", ignore_errors=True)
    return runner, lab, step, record, copy


@pytest.mark.maven
def test_a_live_claim_is_rechecked_from_its_timeline_without_the_transcript(
    earned: Played, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done, _ = check_json(earned.workspace, earned.config_dir, monkeypatch)
    assert done.code == 0, done
    # the trainer's machine has no transcript: only the claim and its evidence commit
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "nobody"))
    runner, lab, step, record, copy = _rerun_at_claim(earned.workspace, tmp_path)
    assert record["live_start"] and record["evidence"]
    run = runner.run_checks(lab, step, copy, rebuild_evidence=True)
    assert run.status.value == "pass", [r.to_json() for r in run.results]
    assert "replays" in run.results[0].message
    # an edited digest in the claim: the timeline no longer matches it
    record["timeline_digest"] = "sha256:" + "0" * 64
    run = runner.run_checks(lab, step, copy, rebuild_evidence=True)
    assert run.status.value == "fail"
    assert "was edited" in run.results[0].message
