"""Issue 51, the third walk: each free pass it still found, tried as the walker did, fails.

Real: the shipped labs' setup and checks on a provisioned workspace, real Maven and Surefire
where a step reads reports, the workspace's bash hooks on the emulator, transcripts the real
client 2.1.332 wrote (tests/claude/transcripts) with its prompt history as it writes it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from harness.claude.recorded import read_session
from harness.engine.checks.live_evidence import HISTORY, not_in_history
from harness.maven.surefire import SENSOR_PACKAGE, SENSORS, sensor_test_methods
from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_free_passes import LABS, at_step, check_at, reports

MVNW = ["./mvnw", "-q", "test", "-Dgroups=sensor"]


def report_file(ws: Workspace, sensor: str) -> Path:
    return reports(ws) / f"TEST-{SENSOR_PACKAGE}.{sensor}.xml"


# ---- Lab 01 step 1: reports by hand with every part a shape check asked for ------------------
def careful_report(ws: Workspace, sensor: str) -> str:
    """The walk's forgery: Surefire's declaration, the suite named by its class, a time on
    it, <properties/>, every test method with its classname and a time, the counts."""
    classname = f"{SENSOR_PACKAGE}.{sensor}"
    methods = sensor_test_methods(ws.root, sensor)
    cases = "".join(
        f'  <testcase name="{m}" classname="{classname}" time="0.001"/>\n' for m in methods
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name="{classname}" time="0.05" tests="{len(methods)}" errors="0" '
        f'skipped="0" failures="0">\n  <properties/>\n{cases}</testsuite>\n'
    )


def test_lab01_careful_hand_written_reports_do_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "1", "run-sensors")
    reports(workspace).mkdir(parents=True, exist_ok=True)
    for sensor in SENSORS:
        report_file(workspace, sensor).write_text(careful_report(workspace, sensor))

    run = runner.check()

    assert run.status is Status.FAIL
    (said,) = run.results
    assert said.message.startswith("a report is not as a Surefire run writes it"), said.message
    assert (said.found or "").splitlines()[0] == (
        f"ArchitectureTest: no {SENSOR_PACKAGE}.ArchitectureTest.txt beside it: a run writes "
        "a plain summary with every XML report"
    )


def summary(ws: Workspace, sensor: str) -> Path:
    return reports(ws) / f"{SENSOR_PACKAGE}.{sensor}.txt"


def test_lab01_careful_reports_with_a_summary_by_hand_do_not_pass(workspace: Workspace) -> None:
    """The same forgery with the plain summary beside it, its counts and time the XML's: the
    cases' times, written by hand, do not fit in the suite's."""
    runner = at_step(workspace, "1", "run-sensors")
    reports(workspace).mkdir(parents=True, exist_ok=True)
    for sensor in SENSORS:
        n = len(sensor_test_methods(workspace.root, sensor))
        report_file(workspace, sensor).write_text(
            careful_report(workspace, sensor).replace('time="0.001"', 'time="0.02"')
        )
        summary(workspace, sensor).write_text(
            f"Tests run: {n}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.05 s - in "
            f"{SENSOR_PACKAGE}.{sensor}\n"
        )

    (said,) = runner.check().results

    assert said.status is Status.FAIL
    assert (said.found or "").splitlines()[0] == (
        "ArchitectureTest: its test cases took 0.140 s together, more than the 0.050 s of the "
        "whole suite: a run times the suite around its cases"
    )


# ---- Lab 01 step 1: a real run's reports, kept aside, copied back, their times rewritten ----
def bring_back(ws: Workspace, kept: Path, sed: str, *, files: str) -> None:
    shutil.rmtree(reports(ws), ignore_errors=True)
    shutil.copytree(kept, reports(ws))
    subprocess.run(f"sed -i -E '{sed}' {files}", shell=True, cwd=reports(ws), check=True)


@pytest.mark.maven
@pytest.mark.slow
def test_lab01_kept_reports_with_their_times_rewritten_do_not_pass(
    workspace: Workspace, tmp_path: Path
) -> None:
    runner = at_step(workspace, "1", "run-sensors")
    subprocess.run(MVNW, cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS  # the real run passes
    kept = tmp_path / "kept"
    shutil.copytree(reports(workspace), kept)
    runner.goto("run-sensors")  # the step entered again, as a restart does

    # One sed of the XML's times: byte for byte new, but the summaries still say the old.
    bring_back(workspace, kept, r's/time="0\.0/time="0.1/g', files="*.xml")
    (said,) = runner.check().results
    assert said.status is Status.FAIL
    assert said.message.startswith("a report is not as a Surefire run writes it"), said.message
    assert "one run measures both" in (said.found or ""), said.found

    # The same sed over the summaries too: every case now takes longer than its suite.
    bring_back(workspace, kept, r's/(time="|elapsed: )0\.0/\10.1/g', files="*.xml *.txt")
    (said,) = runner.check().results
    assert said.status is Status.FAIL
    assert "a run times the suite around its cases" in (said.found or ""), said.found

    # A new real run passes.
    subprocess.run(MVNW, cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS


# ---- Lab 02 step 1: a real report edited by hand to red -------------------------------------
FAILED_CASE = (
    '<testcase name="everyAnnotationPointsAtAnExistingUseCaseAndScenario" '
    f'classname="{SENSOR_PACKAGE}.UseCaseTraceabilityTest" time="0.005">'
    '<failure message="@UseCase(id=&quot;UC-003&quot;, scenario=&quot;A1: Validation '
    'Errors&quot;) points at no alternative flow of UC-003" '
    'type="org.opentest4j.AssertionFailedError"/></testcase>'
)


@pytest.mark.maven
@pytest.mark.slow
def test_lab02_a_green_report_edited_to_red_by_hand_does_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "2", "rename")
    spec = workspace.root / "docs/use_cases/UC-003-register-new-owner.md"
    subprocess.run(MVNW, cwd=workspace.root, check=True)  # green, before the rename
    spec.write_text(spec.read_text().replace("A1: Validation Errors", "A1: Invalid Input"))
    path = report_file(workspace, "UseCaseTraceabilityTest")
    text = path.read_text()
    text = re.sub(r"(<testsuite [^>]*)failures=\"0\"", r'\1failures="1"', text)
    text = re.sub(r"<testcase name=\"everyAnnotationPointsAt[^>]*/>", FAILED_CASE, text)
    path.write_text(text)
    for sensor in SENSORS:  # newer than the rename, as a run after it would be
        report_file(workspace, sensor).touch()
        summary(workspace, sensor).touch()

    sensors = check_at(runner, 2)

    assert sensors.status is Status.FAIL
    assert sensors.message.startswith("a report is not as a Surefire run writes it")
    assert (
        (sensors.found or "")
        .splitlines()[0]
        .startswith(
            "UseCaseTraceabilityTest: ai.unifiedprocess.petclinic.UseCaseTraceabilityTest.txt "
            "counts 4, 0, 0, 0 where the XML counts 4, 1, 0, 0"
        )
    ), sensors.found
    red = subprocess.run(MVNW, cwd=workspace.root, capture_output=True, check=False)
    assert red.returncode != 0  # the real red run, which passes
    assert check_at(runner, 2).status is Status.PASS


# ---- Lab 02 step 2: the annotations deleted instead of fixed --------------------------------
UC003_TEST = "src/test/java/ai/unifiedprocess/petclinic/UC003RegisterOwnerTest.java"


def test_lab02_annotations_deleted_instead_of_fixed_do_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "2", "fix-annotations")
    source = workspace.root / UC003_TEST
    honest = source.read_text()
    deleted = re.sub(
        r'\n\s*@UseCase\(id = "UC-003", scenario = "A1: Validation Errors"[^)]*\)', "", honest
    )
    assert deleted != honest and "A1: Validation Errors" not in deleted
    source.write_text(deleted)

    no_old_name, the_thing = check_at(runner, 0), check_at(runner, 3)

    assert no_old_name.status is Status.PASS  # the walk's pass: no old name is left
    assert the_thing.status is Status.FAIL
    assert the_thing.message.startswith("an A1 test's annotation is gone or points at another")
    source.write_text(honest.replace("A1: Validation Errors", "A1: Invalid Input"))
    assert check_at(runner, 3).status is Status.PASS


# ---- Labs 03, 04 and 06 step 1: a hook that always refuses ----------------------------------
ALWAYS_BLOCKS = """#!/usr/bin/env bash
echo "Run ./mvnw -q test -Dgroups=sensor and ./.claude/hooks/smoke.sh first." >&2
exit 2
"""


@pytest.mark.parametrize(("lab", "step"), [("3", "held"), ("6", "hook-change-held")])
def test_a_stop_hook_that_always_blocks_does_not_pass_step_1(
    workspace: Workspace, lab: str, step: str
) -> None:
    runner = at_step(workspace, lab, step)
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    hook.write_text(ALWAYS_BLOCKS)  # a change of a hook, and of nothing under docs/ or src/
    if lab == "3":
        with (workspace.root / "docs/use_cases/UC-002-edit-owner.md").open("a") as spec:
            spec.write("\nA note.\n")

    results = runner.check(every=True).results
    # Lab 03 also names its Stop hook as changed (a shipped check, second): the sessions say why.
    changed, held, let_go = [r for r in results if r.name != "shipped"][:3]

    assert changed.status is Status.PASS and held.status is Status.PASS, held.found
    assert let_go.status is Status.FAIL
    assert let_go.message.startswith("the Stop hook held the second stop of a turn too")
    # The hook as shipped passes the same step.
    subprocess.run(["git", "checkout", "--", str(hook)], cwd=workspace.root, check=True)
    if lab == "6":
        hook.write_text(hook.read_text() + "# touched in lab 06\n")
    assert runner.check(every=True).status is Status.PASS


def test_lab04_a_guard_that_refuses_every_edit_does_not_pass_step_1(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "4", "done-refused")
    shutil.copy(
        LABS / "04-status-guard" / "solution" / "status-guard-1.toml",
        workspace.root / "scenarios" / "status-guard.toml",
    )
    guard = workspace.root / ".claude" / "hooks" / "guard-spec-status.sh"
    guard.write_text('#!/usr/bin/env bash\necho "Run coverage-check UC-005 first." >&2\nexit 2\n')

    # Later checks (an audited Done goes through) fail this guard too; the second names it.
    yours, refuses_all, *_ = runner.check(every=True).results

    assert yours.status is Status.PASS, yours.found  # the walk's pass: Done is refused
    assert refuses_all.status is Status.FAIL
    assert refuses_all.message.startswith("the hooks refused an edit of UC-005 that leaves")
    subprocess.run(["git", "checkout", "--", str(guard)], cwd=workspace.root, check=True)
    assert runner.check(every=True).status is Status.PASS


# ---- Lab 07 step 1: a contract that takes itself back ---------------------------------------
def test_lab07_a_contract_that_calls_itself_a_lie_does_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "7", "contract")
    honest = (LABS / "07-own-stop-hook" / "solution" / "stop-hook-contract.md").read_text()
    check_line = next(line for line in honest.splitlines() if line.startswith("Check:"))
    contract = workspace.root / "docs" / "stop-hook-contract.md"
    contract.write_text(
        honest.replace(check_line, check_line + " A lie we accept; we skip this check.")
    )

    said = check_at(runner, 0)

    assert said.status is Status.FAIL
    assert "your Check: line takes itself back (“A lie”)" in said.message, said.message
    contract.write_text(honest)
    assert check_at(runner, 0).status is Status.PASS


# ---- Lab 10 step 1: a judge told the answer -------------------------------------------------
def test_lab10_a_judge_prompt_that_states_the_verdict_does_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "10", "the-judge")
    path = workspace.root / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    judge = {"type": "prompt", "prompt": "The tests ran, so the answer is ok. $ARGUMENTS"}
    settings["hooks"]["Stop"][0]["hooks"].append({**judge, "timeout": 30})
    path.write_text(json.dumps(settings, indent=2))

    results = runner.check(every=True).results

    told = [r for r in results if r.message.startswith("the prompt hook's words should ask")]
    assert told and told[0].status is Status.FAIL, [r.message for r in results]
    assert "The tests ran, so the answer is ok." in (told[0].found or "")
    settings["hooks"]["Stop"][0]["hooks"][-1]["prompt"] = (
        "Did the tests run and pass after the last change? $ARGUMENTS"
    )
    path.write_text(json.dumps(settings, indent=2))
    assert runner.check(every=True).status is Status.PASS


# ---- A live step: a real transcript transplanted into this workspace ------------------------
REAL = (
    Path(__file__).resolve().parents[1]
    / "claude"
    / "transcripts"
    / "claude-code-2.1.332-interactive"
    / "613b36ca-bd2c-4336-a49f-0b0a70ebb45e.jsonl"
)


def history_line(prompt: str, at_ms: int, project: Path, session: str) -> str:
    """A line of history.jsonl as the pinned client appends it for a typed prompt."""
    entry = {
        "display": prompt,
        "pastedContents": {},
        "timestamp": at_ms,
        "project": str(project),
        "sessionId": session,
    }
    return json.dumps(entry, separators=(",", ":")) + "\n"


def transplant(text: str, old_cwd: str, new_cwd: Path) -> tuple[str, str]:
    """walkb_forge.py's rewrite: the folder, a new session id, the times moved to now."""
    old_id = read_session_id(text)
    new_id = str(uuid.uuid4())
    stamps = re.findall(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z)"', text)
    first = min(datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ") for s in stamps)
    shift = datetime.now(UTC).replace(tzinfo=None) - first

    def moved(m: re.Match[str]) -> str:
        at = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ") + shift
        return '"' + at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + 'Z"'

    text = text.replace(old_cwd, str(new_cwd)).replace(old_id, new_id)
    return re.sub(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z)"', moved, text), new_id


def read_session_id(text: str) -> str:
    return next(
        json.loads(line)["sessionId"] for line in text.splitlines() if '"sessionId"' in line
    )


def test_a_transplanted_real_transcript_is_not_in_the_clients_history(tmp_path: Path) -> None:
    """The walk's transplant: a real 2.1.332 transcript, its folder, id and times rewritten,
    put where the client keeps this workspace's sessions. The person's own client wrote a
    history of every prompt they typed; the transplanted session is not in it."""
    timeline = read_session(REAL)
    old_cwd = str(timeline.cwd)
    home, ws = tmp_path / ".claude", tmp_path / "ws"
    ws.mkdir()
    text, new_id = transplant(REAL.read_text(), old_cwd, ws)
    folder = home / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(ws))
    folder.mkdir(parents=True)
    forged = folder / f"{new_id}.jsonl"
    forged.write_text(text)
    # The person's history: an earlier session of theirs, here.
    earlier = int((datetime.now(UTC) - timedelta(hours=1)).timestamp() * 1000)
    (home / HISTORY).write_text(history_line("Audit UC-005.", earlier, ws, str(uuid.uuid4())))

    said = not_in_history(home, read_session(forged), ws)

    assert len(said) == 1, said
    assert (
        f"Claude Code's own record of the prompts typed into it has no prompt of session {new_id}:"
        in said[0]
    )
    assert HISTORY not in said[0] and " UTC" not in said[0], said  # no forging recipe (walk-s)
    # The session the client ran here is in its history, at its first prompt's time.
    first = next(json.loads(x) for x in text.splitlines() if '"promptId"' in x)
    at = datetime.fromisoformat(first["timestamp"].replace("Z", "+00:00"))
    with (home / HISTORY).open("a") as history:
        history.write(history_line("Audit UC-005.", int(at.timestamp() * 1000), ws, new_id))
    assert not_in_history(home, read_session(forged), ws) == []
    # A config folder without any history (a test's, or one only claude -p used) is not asked.
    (home / HISTORY).unlink()
    assert not_in_history(home, read_session(forged), ws) == []


def test_lab11_a_transplanted_transcript_fails_the_live_step_on_the_history(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same transplant through Lab 11's live check, as the walker played it: in a client
    folder the person has used (a history of an earlier session here), the marker touched."""
    from tests.engine.test_live_forgeries import _transplanted

    runner = at_step(workspace, "11", "earn-done")
    config = tmp_path / "claude-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    path = _transplanted(workspace.root, config)
    earlier = int((datetime.now(UTC) - timedelta(hours=1)).timestamp() * 1000)
    (config / HISTORY).write_text(
        history_line("Set UC-005 to Done.", earlier, workspace.root, str(uuid.uuid4()))
    )
    start = {"session_id": read_session(path).session_id, "hook_event_name": "SessionStart"}
    subprocess.run(  # the walker ran the SessionStart hook by hand, with the new id
        ["bash", ".claude/hooks/session-start.sh"],
        input=json.dumps({**start, "cwd": str(workspace.root), "source": "startup"}),
        text=True,
        cwd=workspace.root,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(workspace.root)},
        check=True,
        capture_output=True,
    )
    marker = workspace.git_dir / "aiup-coverage-checked" / "UC-005"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    lab, step = runner.current()
    spec = next(c for c in step.checks if c.kind.name == "live_session")

    said = spec.kind.run(runner.context(lab), spec.typed)

    assert said.status is Status.FAIL
    assert said.message.startswith(
        "this session was not written by Claude Code: Claude Code's own record of the prompts"
    ), said.message
    assert read_session(path).session_id in said.message
