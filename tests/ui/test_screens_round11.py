"""Issue 51, "every failure names its cause and the next action" and "whole lines at 100
columns": the wrong-way screens walks m and n left open (/work/helpers/walk-m, walk-n): a live
step's failure that told of an older session than the one just played, a hook named in the
wrong file, a fix line a person copies wider than the terminal, a raw substring as a contract
part, a lab's end that points at a lab already done.

Real: the labs' own lab.toml and checks, provisioned workspaces, the real pinned client (in
tmux, with the scripted model) where a step is live, the renderers a person sees, screens at
80, 100 and 120 columns.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.claude.client.install import find_client
from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.grading.stop_grade import OTHER_BREAKS
from harness.grading.stop_judges import MISSES
from harness.results import CheckResult, Status
from harness.ui.lab_view import result_renderable
from harness.workspace import Workspace
from tests.builders import reach_step, run_lab
from tests.engine.terminal import fresh_home
from tests.lines import joined
from tests.recorded_sessions import (
    APPROVED,
    ASK_DONE,
    AUDIT_PROMPT,
    AUDIT_REPORT,
    AUDITOR,
    DONE,
    UC5,
    call,
    play,
    play_calls,
)
from tests.ui.screens import (
    WIDTHS,
    asked_done_past_auto_mode,
    failed_hook_session,
    fits,
    node_at,
    runs_shown,
    shown,
    smoke_passes,
    stop_prompt_hook_taken_out,
)

# ---- 1. Lab 11 step 4: the newest session's cause, headline and fix; the older one after ------


@pytest.mark.maven
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_lab11_step4_the_newest_sessions_refusal_heads_the_failure_not_an_older_session(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Walk n, Lab 11 step 4 (c): a session that came as far as the audit (then no Done), and
    after it one whose audit agent auto mode's check refused ("no usable answer"). ``lab
    check``'s headline, its cause and its fix told of the OLDER session; the newest one's cause
    (start claude --permission-mode manual) was not said at all. Real: the older session
    played on the real client, the newer one by a person in tmux (plain ``claude``, a fresh
    HOME, the scripted model whose stand-in for auto mode's check gives no answer)."""
    if find_client() is None:
        pytest.skip("the pinned Claude Code client is not installed (lab doctor)")
    reach_step(workspace, "11", "earn-done")
    root = workspace.root
    home = fresh_home(tmp_path)
    config = home / ".claude"
    played = play_calls(
        root,
        config,
        [
            call("prompt", ASK_DONE),
            call("edit", UC5, APPROVED, DONE),
            call("subagent_stop", AUDITOR, AUDIT_PROMPT, AUDIT_REPORT),
            call("stop", "UC-005 is audited; I leave the status to you."),
        ],
    )
    older = played.stem
    asked_done_past_auto_mode(
        root,
        home,
        tmp_path,
        auto_mode="I cannot tell.",  # a safety check without a usable answer
        last_words="The audit could not run here.",
        refused="no usable answer",
    )
    for width in WIDTHS:
        env = {"COLUMNS": str(width), "CLAUDE_CONFIG_DIR": str(config)}
        proc = run_lab(root, "check", env=env)
        assert proc.returncode == 1, proc
        screen = proc.stdout
        said = joined(screen)
        headline = said[said.index("✘ FAIL") : said.index("expected:")]
        assert "Claude Code's auto mode refused Claude's Agent" in headline, screen
        assert "its safety check had no usable answer" in said, screen
        assert "expected: moment 2 of 5: the end of the agent" in said, screen
        assert f"start claude in {root} as claude --permission-mode manual" in said, screen
        # The older session is named after, as what it is.
        assert (
            f"an older session here ({older}) came further: it did moments 1 to 2 of the 5, "
            "then not moment 3 (an edit mentioning 'UC-005' that is allowed" in said
        ), screen
        assert said.index("auto mode refused") < said.index("an older session here"), screen
        assert "the answer was No" not in said and "matched fewer" not in said, screen
        assert fits(screen, width), screen


# ---- 2. a hook kept in a plugin's hooks/hooks.json is named with its file --------------------

PLUGIN = ".claude/plugins/aiup-vaadin-jooq"


def _into_plugin(root: Path, event: str, entry: dict[str, Any], matcher: str = "") -> None:
    """``entry`` registered in the workspace's plugin's hooks/hooks.json, as walk n did."""
    group: dict[str, Any] = {"hooks": [entry]}
    if matcher:
        group["matcher"] = matcher
    folder = root / PLUGIN / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    data = {"hooks": {event: [group]}}
    (folder / "hooks.json").write_text(json.dumps(data, indent=2) + "\n")


@pytest.mark.maven
def test_lab10_step3_a_prompt_hook_in_the_plugin_is_named_with_its_file(
    workspace: Workspace,
) -> None:
    """Walk n (and j, l), Lab 10 step 3: the judge moved from .claude/settings.json into the
    plugin's hooks/hooks.json. ``✔ PASS file .claude/settings.json: as expected``, then "take
    the prompt hook out of the Stop group", no file named. Real: the lab's own check, its
    session played with Maven on the emulator, the plugin loaded as Claude Code loads it."""
    reach_step(workspace, "10", "evidence")
    _into_plugin(workspace.root, "Stop", stop_prompt_hook_taken_out(workspace.root))
    smoke_passes(workspace.root)
    result = failed_hook_session(workspace, "10", "evidence")
    hooks_json = f"{PLUGIN}/hooks/hooks.json"
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        said = joined(screen)
        assert f"the hook that held it is in {hooks_json}" in said, screen
        assert (
            f"session step 5 (stop) was held by a prompt hook that {hooks_json} registers "
            "(hooks.Stop[0].hooks[0]), not .claude/settings.json" in said
        ), screen
        assert f"fix: take the hook out of {hooks_json} (hooks.Stop[0].hooks[0])" in said, screen
        assert fits(screen, width), screen


@pytest.mark.maven
def test_lab08_step2_the_naming_hook_moved_into_the_plugin_is_named_with_its_file(
    workspace: Workspace,
) -> None:
    """Walk n, Lab 08 step 2: the whole old naming hook moved into the plugin: "no hook (in
    .claude/hooks/ or written inline in .claude/settings.json) may refuse it; git diff
    .claude/settings.json shows what is left": settings.json had nothing left, and the hook's
    file was named only in the output's tail. Real: the lab's own check, the step solved as
    the lab solves it, the hook then registered in the plugin."""
    runner = reach_step(workspace, "8", "drop-hook")
    root = workspace.root
    names = (root / ".claude/hooks/check-repository-names.sh").read_text()
    runner.solve(apply=True)
    script = root / PLUGIN / "hooks" / "names.sh"
    script.parent.mkdir(parents=True)
    script.write_text(names)
    script.chmod(0o755)
    command = "${CLAUDE_PLUGIN_ROOT}/hooks/names.sh"
    _into_plugin(root, "PreToolUse", {"type": "command", "command": command}, "Write")
    result = failed_hook_session(workspace, "8", "drop-hook")
    hooks_json = f"{PLUGIN}/hooks/hooks.json"
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        said = joined(screen)
        assert f"the hook that held it is in {hooks_json}" in said, screen
        assert (
            f"session step 2 (write) was held by a hook that {hooks_json} registers "
            "(hooks.PreToolUse[0].hooks[0]), not .claude/settings.json" in said
        ), screen
        assert "or written inline in .claude/settings.json) may refuse it" not in said, screen
        assert f"fix: take the hook out of {hooks_json} (hooks.PreToolUse[0].hooks[0])" in said
        assert fits(screen, width), screen


# ---- 3. a command wider than the terminal: over lines the shell joins, never cut -------------


def _shell_joined(screen: str) -> str:
    """The screen as the shell reads what is copied from it: a line ending in `` \\`` goes on
    with the next; runs of spaces one."""
    return " ".join(screen.replace(" \\\n", " ").split())


def test_lab03_step1_the_shipped_checks_rm_of_two_plugin_files_is_split_where_the_shell_can(
    workspace: Workspace,
) -> None:
    """Walk m (walk-k N2 again): ``fix: rm .claude/plugins/aiup-vaadin-jooq/hooks/after-bash.sh
    .claude/plugins/aiup-vaadin-jooq/hooks/hooks.json``, one line of 112 columns at 100: the
    terminal broke it at its edge. Real: Lab 03 step 1's own shipped check, two files added
    to the workspace's plugin."""
    runner = reach_step(workspace, "3", find_lab("3").steps[0].id)
    hooks = workspace.root / PLUGIN / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "after-bash.sh").write_text("#!/usr/bin/env bash\nexit 0\n")
    (hooks / "hooks.json").write_text('{"hooks": {}}\n')
    lab = find_lab("3")
    spec = next(c for c in lab.steps[0].checks if c.name == "shipped")
    result = spec.kind.run(runner.context(lab), spec.typed)
    assert result.status is Status.FAIL, result
    rm = f"rm {PLUGIN}/hooks/after-bash.sh {PLUGIN}/hooks/hooks.json"
    assert rm in str(result.details["fix"]), result.details
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        rows = screen.splitlines()
        assert all(len(row) <= width for row in rows), screen
        assert rm in _shell_joined(screen), screen
        if len(rm) + len("  fix: ") > width:
            fix_fmt = f"  fix: rm {PLUGIN}/hooks/after-bash.sh \\"
            assert fix_fmt in rows, screen
            assert f"         {PLUGIN}/hooks/hooks.json" in rows, screen


def test_verify_hooks_other_break_sed_wider_than_the_terminal_is_split_where_the_shell_can() -> (
    None
):
    """Walk m (L07 step 2, known since walk i): verify-hook's "lets the turn end after `sed -i
    's/failures="0"/failures="1"/' target/surefire-reports/TEST-…ArchitectureTest.xml`", 119
    columns on one line, broken by the terminal's edge at 100. Real: the grader's own words
    for that miss, with Lab 07's own --other-break command, as ``lab check`` draws them."""
    lab = find_lab("7")
    spec = next(c for s in lab.steps for c in s.checks if c.name == "verify_hook")
    sed = next(c for c in spec.typed.other_breaks if c.startswith("sed -i 's/failures"))
    miss = MISSES[(OTHER_BREAKS, "lets go")]
    said = miss.problem.format(command=sed)
    result = CheckResult.failed(
        f"3 of 10 checks fail (1 not judged): {said}",
        name="verify-hook scripts/check-before-stop.sh",
        output=f"✗ broken other ways → blocks: {said} — fix: {miss.fix}",
    )
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        rows = screen.splitlines()
        assert all(len(row) <= width for row in rows), screen
        assert sed in _shell_joined(screen), screen
        if width < len(sed) + 2:
            assert '  `sed -i \'s/failures="0"/failures="1"/\' \\' in rows, screen
            path = "target/surefire-reports/TEST-ai.unifiedprocess.petclinic.ArchitectureTest.xml`"
            assert any(row.strip() == path for row in rows), screen


# ---- 4. Lab 13: the cause in words, not a raw substring or a request already met --------------

GATE = '[ -n "${CLAUDE_PROJECT_DIR:-}" ] && { echo "Stop check passed: dist/app.js"; exit 0; }'


def test_lab13_step1_a_hook_that_ends_early_as_claude_code_runs_it_is_named_as_such(
    tmp_path: Path,
) -> None:
    """Walk n, Lab 13 step 1: the hook tested dist/missing.js, but a line after ``set -eu``
    ended it when CLAUDE_PROJECT_DIR is set, as Claude Code runs it; the failure said "point
    it at dist/missing.js", which it already did. Real: the lab's own checks on a provisioned
    Node workspace, the step solved as the lab solves it, then the walker's line added."""
    ws, runner = node_at(tmp_path, "13", "block-on-missing")
    runner.solve(apply=True)
    hook = ws.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    hook.write_text(text.replace("set -eu\n", f"set -eu\n{GATE}\n", 1))
    run = runner.check()
    assert run.status is Status.FAIL, run
    for width in WIDTHS:
        screen = runs_shown(width, run)
        said = joined(screen)
        assert (
            "✘ FAIL the hook ends alike by hand and as Claude Code runs it: run as Claude Code "
            "runs it, the hook ends otherwise than by hand: a line before its check reads "
            "CLAUDECODE, CLAUDE_CODE_ENTRYPOINT or CLAUDE_PROJECT_DIR and ends the hook" in said
        ), screen
        assert "by hand: exit 2; as Claude Code runs it (CLAUDECODE=1" in said, screen
        assert "point it at dist/missing.js" not in said, screen
        assert fits(screen, width), screen
    hook.write_text(text)  # the solve as the lab makes it: every check passes
    assert runner.check().status is Status.PASS


def test_lab13_step2_the_hook_still_naming_dist_missing_js_is_said_in_words(
    tmp_path: Path,
) -> None:
    """Walk n, Lab 13 step 2: ``expected: no 'dist/missing.js'``, a raw substring as what the
    check wants. Real: the lab's own file check on a provisioned Node workspace at that step,
    where the hook still tests dist/missing.js."""
    ws, _ = node_at(tmp_path, "13", "pass-after-fix")
    lab = find_lab("13")
    spec = next(c for c in lab.step("pass-after-fix").checks if c.name == "file")
    result = spec.kind.run(CheckContext(ws, lab.dir), spec.typed)
    assert result.status is Status.FAIL, result
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        said = joined(screen)
        assert (
            "expected: scripts/check-before-stop.sh whose code (its comments aside) no longer "
            "names dist/missing.js" in said
        ), screen
        assert "no 'dist/missing.js'" not in said, screen
        assert "found: if ! test -s dist/missing.js; then" in said, screen
        assert fits(screen, width), screen


ALWAYS_HOLD = """#!/usr/bin/env sh
# Holds the first stop of a turn, whatever is there.
case "$(cat)" in *'"stop_hook_active":true'*|*'"stop_hook_active": true'*) exit 0 ;; esac
echo "Stop check blocked: rebuild dist/app.js (npm run build)" >&2
exit 2
"""
README_LINE = "Run npm start to see the total."


@pytest.mark.skipif(find_client() is None, reason="the pinned Claude Code client is not installed")
def test_lab13_step3_a_stop_held_by_another_hook_names_both_hooks_not_the_prompt(
    tmp_path: Path,
) -> None:
    """Walk n, Lab 13 step 3: the step's hook pointed back at dist/app.js, and an added Stop
    hook, always-hold.sh, held the first stop. The failure's fix: "ask Claude: Add a line …",
    which the person had just done. Real: a provisioned Node workspace at that step, the
    session played on the real client (scripted model), ``lab check`` as a process."""
    ws, _ = node_at(tmp_path, "13", "held-live")
    root = ws.root
    hook = root / "scripts" / "check-before-stop.sh"
    hook.write_text(hook.read_text().replace("test -s dist/missing.js", "test -s dist/app.js"))
    other = root / "scripts" / "always-hold.sh"
    other.write_text(ALWAYS_HOLD)
    other.chmod(0o755)
    path = root / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    entry = {"type": "command", "command": "./scripts/always-hold.sh", "timeout": 10}
    settings["hooks"]["Stop"][0]["hooks"].append(entry)
    path.write_text(json.dumps(settings, indent=2) + "\n")
    config = tmp_path / "claude-home"
    readme = (root / "README.md").read_text()
    first = readme.splitlines(keepends=True)[0]
    play_calls(
        root,
        config,
        [
            call("prompt", f'Add a line "{README_LINE}" to README.md, then finish.'),
            call("edit", "README.md", first, f"{first}\n{README_LINE}\n"),
            call("stop", "Done: the line is in README.md."),
            call("stop", "The hook asks for a rebuild; dist/app.js is there."),
        ],
    )
    for width in WIDTHS:
        proc = run_lab(root, "check", env={"COLUMNS": str(width), "CLAUDE_CONFIG_DIR": str(config)})
        assert proc.returncode == 1, proc
        screen = proc.stdout
        said = joined(screen)
        assert "(blocked by always-hold.sh)" in said, screen
        assert (
            "and always-hold.sh held it, not check-before-stop.sh: the step's hook let that stop "
            "go, and only its hold counts" in said
        ), screen
        assert "fix: ask Claude:" not in said, screen
        assert fits(screen, width), screen


# ---- 5. a live step's replay that differs, nothing changed since: not "put back" ------------

# The walker's gate (walk-m I3), the other way round: the hook lets go wherever the client
# keeps a person's transcripts (its config folder's projects/), and judges elsewhere.
TP_GATE = """inp=$(cat)
case "$(printf '%s' "$inp" | jq -r '.transcript_path // ""')" in */projects/*) exit 0 ;; esac
exec <<<"$inp"
"""


@pytest.mark.maven
@pytest.mark.skipif(find_client() is None, reason="the pinned Claude Code client is not installed")
def test_lab07_step4_a_hook_answering_on_its_input_is_not_told_to_put_back_a_change(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Walk m, Lab 07 step 4: a hook that judges only when its transcript_path is under
    /dev/shm let the real session's stop go and blocked on the replay. The screen: "a hook,
    the settings or what they read changed after the session ... or put back what you changed
    since": nothing had changed; playing again fails the same way. Since walk-q the replay
    hands the hook its transcript where the client keeps one, so replay and session agree: the
    gate makes the hook let the stop go in both, and the screen names that, with how to see
    it. Real: the step reached as the lab solves it, the hook given the walker's gate, a
    session played on the real client."""
    reach_step(workspace, "7", "your-session")
    root = workspace.root
    hook = root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    assert text.startswith("#!/usr/bin/env bash\n"), text[:60]
    shebang, body = text.split("\n", 1)
    hook.write_text(f"{shebang}\n{TP_GATE}{body}")
    played = play("small-change", root, tmp_path / "claude-home")
    env = {"CLAUDE_CONFIG_DIR": str(played.config_dir)}
    for width in WIDTHS:
        proc = run_lab(root, "check", env={**env, "COLUMNS": str(width)})
        assert proc.returncode == 1, proc
        screen = proc.stdout
        said = joined(screen)
        assert (
            "require-sensors.sh held it, not scripts/check-before-stop.sh: the step's hook let "
            "that stop go, and only its hold counts. To see why, run it as Claude Code does" in said
        ), screen
        assert "answer differently on Hook Lab's replay" not in said, screen
        assert "put back what you changed since" not in said, screen
        assert "changed after the session" not in said, screen
        assert fits(screen, width), screen


@pytest.mark.maven
@pytest.mark.skipif(find_client() is None, reason="the pinned Claude Code client is not installed")
def test_lab11_step4_a_session_that_set_done_back_itself_is_not_told_to_put_back_a_change(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Walk n, Lab 11 step 4: Done earned, set back to Approved in the same session, the
    sensors, the stop. ``fix: put back what changed since the session (git diff shows it)``:
    nothing had changed since; the session itself set it back. Real: the step reached as the
    lab solves it, the session played on the real client (scripted model) with Maven."""
    reach_step(workspace, "11", "earn-done")
    root = workspace.root
    played = play("done-then-back", root, tmp_path / "claude-home")
    env = {"CLAUDE_CONFIG_DIR": str(played.config_dir)}
    for width in WIDTHS:
        proc = run_lab(root, "check", env={**env, "COLUMNS": str(width)})
        assert proc.returncode == 1, proc
        screen = proc.stdout
        said = joined(screen)
        assert "the workspace does not show what the session claims" in said, screen
        assert (
            f"{UC5} does not read {DONE} at the session's end either (Hook Lab's replay of the "
            "session leaves it otherwise): the session itself changed it so" in said
        ), screen
        assert (
            "fix: nothing changed since the session: the session itself left it so (see "
            f"above). Play the step again, the session ending with {DONE} in {UC5}: start "
            f"claude in {root} and ask Claude: {ASK_DONE}" in said
        ), screen
        assert "put back what changed since the session" not in said, screen
        assert fits(screen, width), screen


# ---- 6. a committed change: said to be one, with the way to make it count -----------------


@pytest.mark.parametrize(("lab_id", "changed"), [("3", "docs/notes.md"), ("6", None)])
def test_a_committed_change_is_named_with_how_to_make_it_count(
    workspace: Workspace, lab_id: str, changed: str | None
) -> None:
    """Walk m, Labs 03 and 06 step 1: the person committed their change; ``found: no
    changes``, and nothing said that a commit does not count. Real: the lab's own git check
    on a workspace at that step, a real commit, then the fix's own command."""
    lab = find_lab(lab_id)
    runner = reach_step(workspace, lab_id, lab.steps[0].id)
    root = workspace.root
    if changed is None:  # Lab 06: a hook
        changed = ".claude/hooks/session-start.sh"
        (root / changed).write_text((root / changed).read_text() + "# looked at it\n")
    else:
        (root / changed).write_text("A note.\n")
    git = ["git", "-C", str(root), "-c", "user.name=P", "-c", "user.email=p@example.com"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "my change"], check=True)
    spec = next(c for c in lab.steps[0].checks if c.name == "git")
    result = spec.kind.run(runner.context(lab), spec.typed)
    assert result.status is Status.FAIL, result
    fix = str(result.details["fix"])
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        said = joined(screen)
        assert (
            "found: no change that is not committed yet; committed since the lab started: "
            f"{changed}: a commit does not count" in said
        ), screen
        assert (
            "fix: take your commits back into uncommitted changes, your files as they are: "
            "git reset --soft " in said
        ), screen
        assert "no changes" not in said, screen
        assert fits(screen, width), screen
    # The fix works: its command, as given, and the check passes on the same files.
    command = fix[fix.index("git reset") : fix.index(";")]
    subprocess.run(["sh", "-c", command], cwd=root, check=True)
    assert spec.kind.run(runner.context(lab), spec.typed).status is Status.PASS


# ---- 7. a lab's end names a lab not done yet as the way on, never one done already ---------


def _finish(ws: Workspace, lab_id: str, done_before: str | None = None) -> str:
    """``lab next`` at the end of ``lab_id``, with ``done_before`` completed here already, as a
    real process; what it printed."""
    import time

    runner = LabRunner(ws)
    if done_before:
        runner.progress.lab_progress(find_lab(done_before).id).completed_at = time.time()
    runner.progress.lab, runner.progress.step = find_lab(lab_id).id, None
    runner.progress.lab_progress(find_lab(lab_id).id).completed_at = time.time()
    runner._save("one lab done, the other at its end, as a participant's would be")
    proc = run_lab(ws.root, "next", env={"COLUMNS": "100"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_node_labs_ends_name_the_lab_not_done_and_never_the_one_done(tmp_path: Path) -> None:
    """Walk n: Lab 12 finished after Lab 13 said "Next: lab start 13", though Lab 13 was
    complete; Lab 13's end said "Lab 12 is not done yet: lab list", not how to start it. Real:
    a provisioned Node workspace, its progress as a participant's, ``lab next`` as a process."""
    ws, _ = node_at(tmp_path, "12", "four-lines")
    after_13 = _finish(ws, "12", done_before="13")
    assert "lab start 13" not in after_13, after_13
    assert (
        "Lab 12-stop-contract complete. Every lab on the node fixture is complete here; lab list "
        "shows your progress." in joined(after_13)
    ), after_13
    assert "That was the last lab" not in after_13, after_13
    ws2, _ = node_at(tmp_path / "other", "13", "block-on-missing")
    after_12_not = _finish(ws2, "13")
    lines = [line.strip() for line in after_12_not.splitlines()]
    assert "Lab 12 is not done yet: lab start 12" in lines, after_12_not
    print(after_13, after_12_not, sep="\n")  # the screens, for a note (pytest -s)


# ---- 8. a file check's pass does not contradict the session that fails on that file --------

HOLLOW = '<testsuite tests="1" failures="1" errors="0" skipped="0"></testsuite>\n'


@pytest.mark.maven
def test_lab01_step3_the_forged_files_check_does_not_call_a_wrong_forgery_as_expected(
    workspace: Workspace,
) -> None:
    """Walk m, Lab 01 step 3: with ``failures="1"`` in answers/forged.xml, ``✔ PASS file
    answers/forged.xml: as expected`` stood beside the session check failing because of that
    very file. Real: the lab's own checks, the step's wrong forgery (its hollow solve)."""
    runner = reach_step(workspace, "1", "forge-a-report")
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "forged.xml").write_text(HOLLOW)
    run = runner.check()
    assert run.status is Status.FAIL, run
    for width in WIDTHS:
        screen = runs_shown(width, run)
        said = joined(screen)
        assert (
            "✔ PASS file answers/forged.xml: holds a <testsuite …> line; whether the Stop hook "
            "believes it, the session below says" in said
        ), screen
        assert "answers/forged.xml is not yet a report it believes" in said, screen
        assert "file answers/forged.xml: as expected" not in said, screen
        assert fits(screen, width), screen


def test_a_command_split_over_lines_is_the_same_words_to_bash(tmp_path: Path) -> None:
    """The split of item 3 is one the shell undoes: bash reads the lines, `` \\`` and all, as
    the same words as the one line. Real: bash, fed each of Lab 07's own --other-break
    commands and the walk's rm, split at a room narrower than any of them (each run with its
    first word a function that prints the words it got; a redirection's file read back)."""
    from rich.text import Text

    from harness.ui.prose import _shell_lines

    spec = next(c for s in find_lab("7").steps for c in s.checks if c.name == "verify_hook")
    commands = [*spec.typed.other_breaks, f"rm {PLUGIN}/hooks/after-bash.sh {PLUGIN}/hooks/x.json"]
    commands = [c for c in commands if len(c) > 50]  # wider than the 50 columns below
    assert len(commands) >= 4, commands
    words = "f() { printf '%s\\0' \"$@\"; }; f "
    then = "\ncat target/surefire-reports/* 2>/dev/null; rm -rf target"
    (tmp_path / "target" / "surefire-reports").mkdir(parents=True)
    for command in commands:
        pieces = _shell_lines(Text(command), 40, 50)
        assert pieces is not None and len(pieces) > 1, command
        lines = "\n  ".join(piece.plain for piece in pieces)
        said = []
        for text in (command, lines):
            (tmp_path / "target" / "surefire-reports").mkdir(parents=True, exist_ok=True)
            run = subprocess.run(
                ["bash", "-c", words + text + then], cwd=tmp_path, capture_output=True
            )
            said.append((run.returncode, run.stdout))
        assert said[0] == said[1], (command, lines)
        assert all(line.endswith(" \\") for line in lines.splitlines()[:-1]), lines
