"""The fixture's guard hooks in a provisioned workspace, on the emulator and on the real client.

Every test but three runs twice (the ``engine`` fixture): what the workshop teaches must hold in
real Claude Code, not only in our imitation of it. Maven runs for real where a step needs reports.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from harness import proc
from harness.claude.engines import CLAUDE_CODE, open_session
from harness.claude.scenario import load_scenario, run_scenario
from harness.workspace import Workspace
from tests.builders import REPO_ROOT
from tests.conftest import require_real_client

SENSOR_COMMAND = "./mvnw -q test -Dgroups=sensor"
SPEC = "docs/use_cases/UC-005-add-visit.md"
COVERAGE_AGENT = "aiup-vaadin-jooq:uc-coverage"
SED_TO_DONE = f"sed -i 's/^\\*\\*Status:\\*\\* Approved/**Status:** Done/' {SPEC}"
TEST_FILE = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")


def session(engine: str, ws: Workspace, tmp_path: Path, **kw: object):  # type: ignore[no-untyped-def]
    return open_session(engine, ws.root, transcript_dir=tmp_path / "transcripts", **kw)  # type: ignore[arg-type]


def test_an_edit_then_a_stop_is_blocked_naming_the_sensor_command(
    engine: str, workspace: Workspace, tmp_path: Path
) -> None:
    with session(engine, workspace, tmp_path) as s:
        s.session_start()
        s.prompt("Tidy the owner service.")
        edit = s.edit(
            "src/main/java/ai/unifiedprocess/petclinic/service/OwnerService.java",
            "public class OwnerService",
            "public final class OwnerService",
        )
        stop = s.stop("Done: the owner service is tidy.")
    assert (edit.outcome, edit.tool_ran) == ("allowed", True), edit
    assert (stop.outcome, stop.turn_ended) == ("blocked", False), stop
    assert stop.feedback.startswith("Stop hook feedback:\n")
    assert f"  {SENSOR_COMMAND}" in stop.feedback
    assert "OwnerService.java" in stop.feedback


def test_an_edit_to_done_is_refused_and_the_file_stays(
    engine: str, workspace: Workspace, tmp_path: Path
) -> None:
    spec = workspace.root / SPEC
    before = spec.read_text()
    with session(engine, workspace, tmp_path) as s:
        s.session_start()
        s.prompt("Set UC-005 to Done.")
        refused = s.edit(SPEC, "**Status:** Approved", "**Status:** Done")
    assert (refused.outcome, refused.tool_ran) == ("blocked", False), refused
    assert refused.feedback.startswith("PreToolUse:Edit hook error: ")
    assert "aiup-vaadin-jooq:coverage-check UC-005" in refused.feedback
    assert spec.read_text() == before


def test_a_sed_to_done_is_reported(engine: str, workspace: Workspace, tmp_path: Path) -> None:
    with session(engine, workspace, tmp_path) as s:
        s.session_start()
        s.prompt("Set UC-005 to Done, quickly.")
        step = s.bash(SED_TO_DONE)
    assert (step.outcome, step.tool_ran) == ("blocked", True), step
    assert step.feedback.startswith("PostToolUse:Bash hook blocking error from command: ")
    assert "UC-005" in step.feedback and "coverage-check UC-005" in step.feedback
    assert "**Status:** Done" in (workspace.root / SPEC).read_text()


def test_a_coverage_audit_by_the_subagent_lets_done_through(
    engine: str, workspace: Workspace, tmp_path: Path
) -> None:
    """On the real client the audit is a real Agent (Task) call to the fixture's plugin agent
    aiup-vaadin-jooq:uc-coverage; its SubagentStop hook records the audit."""
    marker = workspace.git_dir / "aiup-coverage-checked" / "UC-005"
    with session(engine, workspace, tmp_path) as s:
        s.session_start()
        s.prompt("Set UC-005 to Done.")
        assert s.edit(SPEC, "**Status:** Approved", "**Status:** Done").outcome == "blocked"
        audit = s.subagent_stop(
            COVERAGE_AGENT,
            "Audit the coverage of UC-005.",
            "# Coverage report: UC-005\nMain scenario, A1, A2, BR-001 and BR-002 have tests.\n"
            "Verdict: covered",
        )
        assert audit.outcome == "allowed", audit
        assert marker.is_file()
        accepted = s.edit(SPEC, "**Status:** Approved", "**Status:** Done")
    assert (accepted.outcome, accepted.tool_ran) == ("allowed", True), accepted
    assert "**Status:** Done" in (workspace.root / SPEC).read_text()


@pytest.mark.maven
def test_a_foreground_green_sensor_run_lets_the_first_stop_through(
    workspace: Workspace, tmp_path: Path
) -> None:
    """On the real client only: the emulator plays the same turn (a change, a green
    foreground sensor run, a stop let go) in the labs session, Lab 03 step 1's third session,
    on both engines compared step by step. Played on the emulator here it cost a Maven run."""
    require_real_client()
    with session(CLAUDE_CODE, workspace, tmp_path) as s:
        s.session_start()
        s.prompt("Add a note to UC-002 and prove it.")
        s.bash("echo 'A note.' >> docs/use_cases/UC-002-edit-owner.md")
        run = s.bash(SENSOR_COMMAND, timeout=300)
        stop = s.stop("Done; the sensors are green.")
    assert (run.outcome, run.tool_ran) == ("allowed", True), run
    assert (stop.outcome, stop.stop_hook_active, stop.turn_ended) == ("allowed", False, True)


@pytest.fixture(scope="module")
def _sensors_ran(tmp_path_factory: pytest.TempPathFactory, _compiled_template: Path) -> Path:
    """A workspace whose sensors ran green: the test copies it (times kept, so its reports are
    from before the session, as in Lab 03)."""
    root = tmp_path_factory.mktemp("sensors-ran") / "ws"
    shutil.copytree(_compiled_template, root, symlinks=True)
    assert proc.run(["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=root, timeout=600).ok
    return root


@pytest.mark.maven
def test_every_defeat_from_the_seed_still_blocks(_sensors_ran: Path, tmp_path: Path) -> None:
    """Lab 03's solution played as it stands, as one session on the real client: old reports,
    | tail, > /dev/null, || true, -Dtest=, a touched marker and a background run each leave the
    stop blocked; only the fix and a real foreground run end the turn.

    The real client only, not both engines: the emulator plays this very file in the labs
    session (Lab 03 step 2, ``lab dev check --engine both``: every trick's turn on both
    engines, compared step by step, each stop judged), and what one session adds, a prompt
    after a blocked stop starting a fresh turn, is test_claude_session's
    test_ninth_consecutive_block_is_overridden_and_a_prompt_resets. Played on the emulator
    here it cost 17 s of 43."""
    require_real_client()
    engine = CLAUDE_CODE
    root = tmp_path / "ws"
    shutil.copytree(_sensors_ran, root, symlinks=True)
    workspace = Workspace(root)
    test_file = root / TEST_FILE
    test_file.write_text(
        test_file.read_text().replace("A1: Missing Description", "A1: Missing Text")
    )
    scenario = load_scenario(REPO_ROOT / "labs/03-stop-hook/solution/tricks.toml")
    # The user approves the write into .git/ (a sensitive path): the marker is really touched.
    with session(engine, workspace, tmp_path, auto_approve=True) as s:
        outcomes = [r.outcome for r in run_scenario(scenario, s)]
    stops = [o for o in outcomes if o.do == "stop"]
    assert [o.outcome for o in stops] == ["blocked"] * 7 + ["allowed"], [
        (o.step, o.do, o.detail[:40], o.outcome, o.feedback[:80]) for o in outcomes
    ]
    for blocked in stops[:7]:
        assert SENSOR_COMMAND in blocked.feedback


def test_a_changed_hook_holds_the_turn_until_smoke_is_green(
    workspace: Workspace, tmp_path: Path
) -> None:
    """On the real client only: the emulator plays the same (a hook changed holds the stop,
    naming smoke.sh; after a green smoke.sh the stop ends the turn) in the labs session, Lab 06
    step 1's sessions, on both engines compared step by step. Played on the emulator here it
    cost a whole smoke.sh run (5.7 CPU-s of the file's 20 in a sample)."""
    require_real_client()
    hook = workspace.root / ".claude/hooks/session-start.sh"
    # A write into .claude/ asks the user on the real client: the user says yes here.
    with session(CLAUDE_CODE, workspace, tmp_path, auto_approve=True) as s:
        s.session_start()
        s.prompt("Document the session hook.")
        s.bash("printf '# Records the session base.\\n' >> .claude/hooks/session-start.sh")
        held = s.stop("Documented.")
        smoke = s.bash("./.claude/hooks/smoke.sh", timeout=300)
        s.prompt("Anything else?")
        released = s.stop("Nothing else; smoke.sh is green.")
    assert "# Records the session base." in hook.read_text()
    assert held.outcome == "blocked", held
    assert "./.claude/hooks/smoke.sh" in held.feedback
    assert (smoke.outcome, smoke.tool_ran) == ("allowed", True), smoke.tool_result[-400:]
    assert (released.outcome, released.turn_ended) == ("allowed", True), released


def test_without_jq_the_session_still_ends(
    engine: str, workspace: Workspace, tmp_path: Path
) -> None:
    """Fail open: the hooks cannot read their input without jq, so they let everything go."""
    no_jq = tmp_path / "bin-without-jq"
    no_jq.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        directory = Path(folder)
        if not directory.is_dir():
            continue
        for tool in directory.iterdir():
            link = no_jq / tool.name
            if tool.name != "jq" and not link.exists():
                link.symlink_to(tool)
    with session(engine, workspace, tmp_path, env={"PATH": str(no_jq)}) as s:
        s.session_start()
        s.prompt("Change a file and stop.")
        s.bash("echo 'A note.' >> docs/use_cases/UC-002-edit-owner.md")
        stop = s.stop("Done.")
    assert (stop.outcome, stop.turn_ended, stop.feedback) == ("allowed", True, ""), stop
