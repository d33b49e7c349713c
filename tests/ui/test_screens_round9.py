"""Issue 51, "every failure names its cause and the next action" and "whole lines at 100
columns": the screens walks g and h left open (/work/helpers/walk-g, walk-h): a reset that put
the lab's solution in place of the person's own hook, a failed ``lab solve --apply`` blamed on
the machine, a live step's fix that misnamed the trouble, and the smaller wordings.

Real: the labs' own lab.toml, provisioned workspaces, the lab runner and the renderers a person
sees, screens at 80, 100 and 120 columns.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.install import find_client
from harness.claude.recorded import read_session
from harness.engine.checks.live_causes import diagnose
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.ui.lab_view import hint_panel, print_moved, result_renderable
from harness.workspace import Workspace
from tests.builders import REPO_ROOT, reach_step, run_lab
from tests.lines import joined, shell_joined
from tests.recorded_sessions import APPROVED, ASK_DONE, DONE, UC5
from tests.ui.screens import (
    WIDTHS,
    console_at,
    failed_hook_session,
    runs_shown,
    shown,
    smoke_passes,
    stop_prompt_hook_taken_out,
)

# ---- 1. lab reset keeps the person's own work of the steps they passed ----------------------

MINE = "# my own hook, written in step 2\n"


def test_lab07_reset_at_step3_keeps_the_persons_own_step2_hook(workspace: Workspace) -> None:
    """Walk g, Lab 07: ``lab reset`` at step 3 or 4 put the lab's reference hook, contract
    and settings in place of the person's own, and the screen said only "backed up". A reset
    puts back the start of THIS step: the person's step-2 hook as it passed, said on screen."""
    runner = reach_step(workspace, "7", "contract")
    runner.solve(apply=True)
    assert runner.check().status.value == "pass"
    runner.next()
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    runner.solve(apply=True)
    hook.write_text(hook.read_text() + MINE)
    assert runner.check().status.value == "pass"
    runner.next()
    assert runner.current()[1].id == "register"
    (workspace.root / ".claude" / "settings.json").write_text("{}\n")  # this step's work
    move = runner.reset()
    assert hook.read_text().endswith(MINE), hook.read_text()[-300:]
    assert (workspace.root / ".claude" / "settings.json").read_text() != "{}\n"
    for width in WIDTHS:
        console, out = console_at(width)
        print_moved(console, move)
        screen = out.getvalue()
        said = joined(screen)
        assert "step 3 is back as it began: steps 1 and 2 as you passed them" in said, screen
        assert "lab's solution" not in said, screen
        assert all(len(line) <= width for line in screen.splitlines()), screen


# ---- 2. lab solve --apply on a file the person changed: their change, not the machine -------


def test_lab05_solve_apply_after_an_edit_names_the_edit_and_the_way_out(
    workspace: Workspace,
) -> None:
    """Walk g, Lab 05: ``lab solve --apply`` after editing the strict lines said "you changed
    it since", then "This is the harness or the machine, not your work" and "Now run lab
    check.": two causes, and a next step that judges a solution never applied."""
    reach_step(workspace, "5", "strict-stop-hook")
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    hook.write_text(hook.read_text().replace("exit 2; }", "exit 0; }"))
    for width in WIDTHS:
        proc = run_lab(workspace.root, "solve", "--apply", env={"COLUMNS": str(width)})
        assert proc.returncode == 1, proc
        screen = proc.stdout
        said = joined(screen)
        assert "harness or the machine" not in said and "ERROR" not in said, screen
        assert "Now run lab check" not in said, screen
        assert (
            "✘ FAIL a change to a file: .claude/hooks/require-sensors.sh is not as this step's "
            "solution expects: the lines it replaces (below) are no longer in it, because you "
            "changed them since the step began" in said
        ), screen
        lines = screen.splitlines()
        assert any("git checkout .claude/hooks/require-sensors.sh" in ln for ln in lines), screen
        assert any("lab solve --apply again" in ln for ln in lines), screen
        assert "The solution is not applied: do what the fix says first." in said, screen
        assert all(len(line) <= width for line in lines), screen


# ---- 4. Lab 11 step 4: the audit's marker made outside the session --------------------------


def test_lab11_step4_a_marker_made_by_hand_mid_session_is_named_with_the_fix(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Walk h, Lab 11 step 4: Done refused, the marker written by hand in another terminal,
    the edit tried again and let through. ``lab check`` said only "the recorded session does
    not replay … recorded 'ran', Hook Lab's replay gave 'refused by guard-spec-status.sh'": no
    cause, no fix. Real: the pinned client (scripted model), the workspace's own hooks."""
    client = find_client()
    if client is None:
        pytest.skip("the pinned Claude Code client is not installed (lab doctor)")
    reach_step(workspace, "11", "earn-done")
    root, config = workspace.root, tmp_path / "claude-home"
    with ClaudeCodeSession(root, client=client, transcript_dir=config) as session:
        session.session_start()
        session.prompt(ASK_DONE)
        session.edit(UC5, APPROVED, DONE)  # refused: no audit yet
        marker = root / ".git" / "aiup-coverage-checked" / "UC-005"
        marker.parent.mkdir(parents=True)
        marker.write_text("audited by hand\n")  # the walker's other terminal
        session.edit(UC5, APPROVED, DONE)
        session.stop("UC-005 is Done.")
    for width in WIDTHS:
        env = {"COLUMNS": str(width), "CLAUDE_CONFIG_DIR": str(config)}
        proc = run_lab(root, "check", env=env)
        assert proc.returncode == 1, proc
        screen = proc.stdout
        said = joined(screen)
        assert (
            "the coverage audit's marker .git/aiup-coverage-checked/UC-005 is in the workspace, "
            "but no coverage audit of this session wrote it: Claude's Edit "
            "(docs/use_cases/UC-005-add-visit.md) call at transcript line"
        ) in said, screen
        assert "was it made by hand, or by another session?" in said, screen
        assert (
            "fix: remove it (rm -r .git/aiup-coverage-checked), start claude again and let the "
            "audit agent (aiup-vaadin-jooq:uc-coverage) run" in said
        ), screen
        assert all(len(line) <= width for line in screen.splitlines()), screen


# ---- 6. Lab 11 step 4: the client's own question, and hints that lead out of the refusal -----

REFUSALS = REPO_ROOT / "tests" / "claude" / "transcripts" / "claude-code-2.1.332-refusals"
EDIT_ASKED = "'Do you want to make this edit to …?' before an edit"


@pytest.mark.parametrize("width", WIDTHS)
def test_lab11_step4_auto_modes_refusal_names_the_question_the_client_asks(width: int) -> None:
    """Walk h: the fix said "answer Yes to 'Do you want to proceed?'", but in ``claude
    --permission-mode manual`` the audit agent ran without a question and the client asked
    "Do you want to make this edit to UC-005-add-visit.md?". Real: a transcript the pinned
    client wrote when auto mode's check had no usable answer (the walker's case)."""
    timeline = read_session(REFUSALS / "auto-mode-no-verdict.jsonl")
    cause = diagnose(timeline, Path(timeline.cwd), matched=0)
    assert cause is not None and "auto mode refused" in cause.headline
    result = CheckResult.failed(cause.headline, name="your session", details={"fix": cause.fix})
    screen = shown(result_renderable(result), width)
    said = joined(screen)
    assert "answer Yes each time it asks (" + EDIT_ASKED in said, screen
    assert "'Do you want to proceed?' before a command); then do the step again" in said, screen
    assert any("claude --permission-mode manual" in line for line in screen.splitlines()), screen
    assert all(len(line) <= width for line in screen.splitlines()), screen


def test_lab11_step4_hints_1_and_2_lead_out_of_auto_modes_refusal() -> None:
    """Walk h, after the refusal: hint 1 opened with "Run claude in the workspace folder
    itself" and told to answer Yes "when it asks to run the agent" (manual mode does not ask
    for the agent; it asks before the edit); hint 2 sent the person to type the audit in the
    same auto-mode session."""
    step = find_lab("11").step("earn-done")
    first, second = step.hints[:2]
    assert first.startswith("Did the screen say `Not run · auto mode's check had no usable"), first
    assert "`Do you want to make this edit to UC-005-add-visit.md?`" in first, first
    assert "asks to run the agent" not in first, first
    assert "same auto-mode session meets the same refusal" in second, second
    assert "`claude --permission-mode manual`" in second and "answer Yes" in second, second
    for width in WIDTHS:
        for n, hint in enumerate((first, second), 1):
            screen = shown(hint_panel(step, n, hint), width)
            assert all(len(line) <= width for line in screen.splitlines()), screen


# ---- 5. Lab 10 step 3: the prompt hook moved to .claude/settings.local.json is named --------


def test_lab10_step3_a_prompt_hook_in_settings_local_json_is_named_with_its_place(
    workspace: Workspace,
) -> None:
    """Walk h, Lab 10 step 3: the prompt hook moved from .claude/settings.json into
    .claude/settings.local.json. ``✔ PASS file .claude/settings.json: as expected``, then a
    failure asking to take the prompt hook out of the Stop group, and settings.local.json was
    never named. Real: the lab's own check, its session played with Maven."""
    reach_step(workspace, "10", "evidence")
    local = {"hooks": {"Stop": [{"hooks": [stop_prompt_hook_taken_out(workspace.root)]}]}}
    local_json = workspace.root / ".claude" / "settings.local.json"
    local_json.write_text(json.dumps(local, indent=2) + "\n")
    # As the walker did: smoke.sh after changing a hook file (require-sensors.sh asks for it).
    smoke_passes(workspace.root)
    result = failed_hook_session(workspace, "10", "evidence")
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        said = joined(screen)
        assert "the hook that held it is in .claude/settings.local.json" in said, screen
        assert (
            "session step 5 (stop) was held by a prompt hook that .claude/settings.local.json "
            "registers (hooks.Stop[0].hooks[0]), not .claude/settings.json" in said
        ), screen
        assert all(len(line) <= width for line in screen.splitlines()), screen


# ---- 3. Lab 03 step 3: a sensor run with a command after it is named as such -----------------

PUTGREEN = "touch target/surefire-reports/*.xml\n"  # walk-e's putgreen.sh, in one line


def test_lab03_step3_a_command_after_the_sensor_run_is_the_trouble_named(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Walk g, Lab 03 step 3, live: Claude ran ``./mvnw -q test -Dgroups=sensor; bash
    putgreen.sh`` in the foreground; the fix said "run ./mvnw -q test -Dgroups=sensor in the
    foreground", the wrong trouble: the command after ``;`` is why it is no sensor run.
    Real: the pinned client (scripted model), Maven, the workspace's Stop hook."""
    client = find_client()
    if client is None:
        pytest.skip("the pinned Claude Code client is not installed (lab doctor)")
    reach_step(workspace, "3", "your-session")
    root, config = workspace.root, tmp_path / "claude-home"
    (tmp_path / "putgreen.sh").write_text(PUTGREEN)
    chained = f"./mvnw -q test -Dgroups=sensor; bash {tmp_path}/putgreen.sh"
    with ClaudeCodeSession(root, client=client, transcript_dir=config) as session:
        session.session_start()
        session.prompt("Add a one-line note to docs/notes.md, then tell me you are done.")
        session.write("docs/notes.md", "A note from the session.\n")
        session.stop("Done.")  # held: no sensor run since the change
        session.bash(chained)
        session.stop("Done: the note is in and the sensors are green.")
    for width in WIDTHS:
        env = {"COLUMNS": str(width), "CLAUDE_CONFIG_DIR": str(config)}
        proc = run_lab(root, "check", env=env)
        assert proc.returncode == 1, proc
        screen = proc.stdout
        # As the shell reads it: a path too wide for the row is split with " \" (the
        # test's own tmp path, longer under xdist, decides whether it is).
        said = shell_joined(screen)
        fix = said[said.index("fix: ") :]
        assert "in the foreground" not in fix, screen
        assert (
            f"({chained}) is no sensor run: bash {tmp_path}/putgreen.sh runs after "
            "it and may put other reports in place of the run's; tell Claude: run ./mvnw -q "
            "test -Dgroups=sensor on its own, nothing after it" in fix
        ), screen
        lines = screen.splitlines()
        assert any("./mvnw -q test -Dgroups=sensor on its own" in ln for ln in lines), screen
        # A line over the width holds only what no terminal may break: the command, or the
        # script's path alone (longer than 80 columns under xdist's folders).
        script = f"{tmp_path}/putgreen.sh"
        assert all(
            len(line) <= width for line in lines if chained not in line and script not in line
        ), screen


# ---- 7. Lab 02 step 2: one verdict per file ---------------------------------------------------

TEST_FILE = "src/test/java/ai/unifiedprocess/petclinic/UC003RegisterOwnerTest.java"


def test_lab02_step2_a_file_that_fails_one_check_is_not_also_as_expected(
    workspace: Workspace,
) -> None:
    """Walk g, Lab 02 step 2, the annotations' scenario dropped: ``✔ PASS file
    …UC003RegisterOwnerTest.java: as expected`` and, on the next lines, ``✘ FAIL file
    …UC003RegisterOwnerTest.java: an A1 test's annotation is gone``. Real: the lab's checks and
    Maven, as lab check runs them; the screen as print_step_run draws it."""
    runner = reach_step(workspace, "2", "fix-annotations")
    path = workspace.root / TEST_FILE
    path.write_text(path.read_text().replace(', scenario = "A1: Validation Errors"', ""))
    subprocess.run(
        ["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=workspace.root, capture_output=True
    )
    run = runner.check(every=True)
    named = [r for r in run.results if r.name == f"file {TEST_FILE}"]
    assert {r.status for r in named} == {Status.PASS, Status.FAIL}, named  # two checks, one file
    for width in WIDTHS:
        screen = runs_shown(width, run)
        said = joined(screen)
        assert f"✘ FAIL file {TEST_FILE}: an A1 test's annotation is gone" in said, screen
        assert f"PASS file {TEST_FILE}" not in said, screen
        assert said.count(f"file {TEST_FILE}") == 1, screen
