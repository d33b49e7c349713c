"""Issue 51, "every failure names its cause and the next action" and "whole lines at 100
columns": the screens walks i and j left open (/work/helpers/walk-i, walk-j): a lab's end that
sends a person back to a step without saying their files are a later step's, an async Stop
hook never named as the reason it cannot hold the turn, the live steps' scenario words, a raw
substring as a contract part, ``exit 0: exit 0 as expected``, and a command cut with "…".

Real: the labs' own lab.toml and checks, provisioned workspaces, the lab runner and the
renderers a person sees, screens at 80, 100 and 120 columns.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.claude.client.install import find_client
from harness.engine.context import CheckContext
from harness.engine.manifest import find_lab, load_labs
from harness.results import CheckResult, Status
from harness.ui.lab_view import print_moved, result_renderable
from harness.workspace import Workspace
from tests.builders import reach_step, run_lab
from tests.engine.terminal import fresh_home
from tests.lines import joined
from tests.ui.screens import (
    WIDTHS,
    asked_done_past_auto_mode,
    console_at,
    fits,
    node_at,
    runs_shown,
    shown,
)
from tests.ui.test_screens_round5 import lab06_sent_back_to_step_1

# ---- 1. sent back by the lab's end: the files are a later step's, and lab reset is the way ---


def test_a_step_sent_back_at_the_labs_end_names_the_later_state_and_lab_reset(
    workspace: Workspace,
) -> None:
    """Walk i, Lab 03: ``lab next`` at the last step judged step 2 again, it failed, and the
    person was back at step 2 with the files as step 3 left them (the annotation put back);
    step 2's own edit then failed with "String to replace not found", and the screen said only
    "check it again". Real: Lab 06's check judged again at a state it does not hold at."""
    runner, moved = lab06_sent_back_to_step_1(workspace)
    last = len(moved.lab.steps)
    assert moved.step is not None and moved.step.index == 0 and last > 1
    for width in WIDTHS:
        console, out = console_at(width)
        print_moved(console, moved)
        screen = out.getvalue()
        said = joined(screen)
        assert "check it again" not in said, screen
        assert (
            f"back at step 1, but your files are still as step {last} left them, not as step 1 "
            "began: lab reset puts back step 1's start (your files are backed up first); then "
            "do step 1 again and lab check" in said
        ), screen
        assert said.index("it fails for what is named above") < said.index("back at step 1")
        assert any("lab reset" in line for line in screen.splitlines()), screen
        assert fits(screen, width), screen
    # The way on works: the reset puts step 1's start back, the person's files backed up.
    again = runner.reset()
    assert again.step is not None and again.step.index == 0 and again.backup is not None


# ---- 2. Lab 07 step 3: an async Stop hook is named as the reason it cannot hold the turn ----


def test_lab07_step3_an_async_entry_is_named_as_why_the_hook_cannot_hold_the_turn(
    workspace: Workspace,
) -> None:
    """Walk i, Lab 07 step 3: the person's entry had ``"async": true``. ``✔ PASS settings:
    scripts/check-before-stop.sh runs on Stop``, then a session whose feedback lacked the hook,
    and nothing said an async hook is one Claude Code never waits for. Real: the lab's own
    checks on the step's solved settings."""
    runner = reach_step(workspace, "7", "register")
    runner.solve(apply=True)
    path = workspace.root / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    stop = settings["hooks"]["Stop"][0]["hooks"]
    mine = next(n for n, h in enumerate(stop) if "check-before-stop" in h.get("command", ""))
    stop[mine]["async"] = True
    path.write_text(json.dumps(settings, indent=2) + "\n")
    run = runner.check()
    assert run.status is Status.FAIL
    failed = next(r for r in run.results if r.status is not Status.PASS)
    assert failed.name == "settings", failed
    for width in WIDTHS:
        screen = shown(result_renderable(failed), width)
        said = joined(screen)
        assert (
            'the Stop hook that runs scripts/check-before-stop.sh is `"async": true`: Claude '
            "Code starts it in the background and does not wait for its answer, so it can "
            'never hold the turn; drop `"async": true` from its entry' in said
        ), screen
        assert f'.claude/settings.json: hooks.Stop[0].hooks[{mine}]: "async": true' in said
        assert fits(screen, width), screen


# ---- 3. Lab 11 step 4, live: the client's words, not its reason code or the scenario's -----

BLOCKED = "<block>yes</block>Changing a spec's status is a risky action."


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_lab11_step4_auto_modes_block_is_told_in_the_screens_words(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Walk j, Lab 11 step 4: auto mode's check blocked the audit agent (the client: ``Blocked
    by auto mode · /permissions to review``); ``lab check`` said "its safety check refused it
    (classifier:auto-mode)" and "expected: moment 2 of 5: a subagent_stop mentioning
    'aiup-vaadin-jooq:uc-coverage'": a reason code and a scenario file's word in a live step.
    Real: plain ``claude`` in tmux with a fresh HOME, the scripted model whose stand-in for
    auto mode's check answers "block", the workspace's hooks and plugin."""
    if find_client() is None:
        pytest.skip("the pinned Claude Code client is not installed (lab doctor)")
    reach_step(workspace, "11", "earn-done")
    root = workspace.root
    home = fresh_home(tmp_path)
    session = asked_done_past_auto_mode(
        root,
        home,
        tmp_path,
        auto_mode=BLOCKED,
        last_words="I could not change the status.",
        refused="Blocked by auto mode",
    )
    assert "/permissions to review" in session, session
    for width in WIDTHS:
        env = {"COLUMNS": str(width), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
        proc = run_lab(root, "check", env=env)
        assert proc.returncode == 1, proc
        screen = proc.stdout
        said = joined(screen)
        assert (
            "Claude Code's auto mode refused Claude's Agent (aiup-vaadin-jooq:uc-coverage) call"
            in said
        ), screen
        assert (
            "its safety check judged the call too risky (the screen said 'Blocked by auto mode "
            "· /permissions to review')" in said
        ), screen
        assert "moment 2 of 5: the end of the agent 'aiup-vaadin-jooq:uc-coverage'" in said
        assert "classifier" not in said and "subagent_stop" not in said, screen
        assert fits(screen, width), screen
        print(screen)  # the screens, for a note (pytest -s)


# ---- 4. Lab 12 step 2: the contract part in words, not a raw substring -----------------------

RUN_IN_BAND = "npm test -- --runInBand >/dev/null 2>&1"


def test_lab12_step2_names_the_jest_option_in_words_and_catches_it_however_spaced(
    tmp_path: Path,
) -> None:
    """Walk j, Lab 12 step 2: ``expected: no 'npm test -- --runInBand >'``, a raw substring with
    a dangling ``>``; and with two spaces before ``>`` the file check passed, so the failure
    that followed never said the hook still runs --runInBand. Real: the lab's own check on a
    provisioned Node workspace at that step."""
    ws, runner = node_at(tmp_path, "12", "run-in-band")
    lab = find_lab("12")
    spec = next(c for c in lab.step("run-in-band").checks if c.kind.name == "file")
    hook = ws.root / "scripts" / "check-before-stop.sh"
    as_given = hook.read_text()
    assert RUN_IN_BAND in as_given
    for text in (as_given, as_given.replace(RUN_IN_BAND, RUN_IN_BAND.replace(" >", "  >"))):
        hook.write_text(text)
        result = spec.kind.run(CheckContext(ws, lab.dir), spec.typed)
        assert result.status is Status.FAIL, result
        for width in WIDTHS:
            screen = shown(result_renderable(result), width)
            said = joined(screen)
            assert (
                "expected: the hook's check runs this project's test command, npm test, with no "
                "Jest option (no --runInBand)" in said
            ), screen
            assert "found: if ! npm test -- --runInBand " in said, screen
            assert "'npm test -- --runInBand >'" not in said, screen
            assert fits(screen, width), screen
    hook.write_text(as_given.replace("npm test -- --runInBand", "npm test"))  # the solve's way
    assert spec.kind.run(CheckContext(ws, lab.dir), spec.typed).status is Status.PASS
    # Item 5 too: verify-hook's verdict named the script twice ("…/x.sh: x.sh: 8 of 9 …").
    run = runner.check()
    assert run.status is Status.PASS, run
    for width in WIDTHS:
        said = joined(runs_shown(width, run))
        assert "✔ PASS verify-hook scripts/check-before-stop.sh: 8 of 9 checks pass" in said, said
        assert "check-before-stop.sh: check-before-stop.sh" not in said, said


# ---- 5. a verdict says a thing once: no "exit 0: exit 0 as expected" --------------------------


def test_lab13_step4_verdicts_say_each_thing_once(tmp_path: Path) -> None:
    """Walk j, Lab 13 step 4: ``✔ PASS the hook, still broken, lets go on stop_hook_active:
    true: exit 0: exit 0 as expected`` and ``✘ FAIL file answers/let-go.json:
    answers/let-go.json does not exist yet``: the message repeated the end of the check's name.
    Real: the lab's own checks on a provisioned Node workspace, before and after the solve."""
    _, runner = node_at(tmp_path, "13", "let-go")
    before = runner.check()
    runner.solve(apply=True)
    after = runner.check()
    assert (before.status, after.status) == (Status.FAIL, Status.PASS), (before, after)
    for width in WIDTHS:
        screen = runs_shown(width, before, after)
        said = joined(screen)
        assert "✘ FAIL file answers/let-go.json: does not exist yet: create it" in said, screen
        assert "lets go on stop_hook_active: true: exit 0, as expected" in said, screen
        assert "(stop_hook_active: false): exit 2, as expected" in said, screen
        assert "is what the hook prints: kept as the hook printed it" in said, screen
        for twice in ("exit 0: exit 0", "exit 2: exit 2", "answers/let-go.json: answers/"):
            assert twice not in said, screen
        assert fits(screen, width), screen


def test_no_labs_pass_line_says_its_title_twice() -> None:
    """Labs 03, 04 and 13 gave checks a pass message that begins with, or is, the check's
    title: ``✔ PASS dist/app.js is built from src/ as it is now: dist/app.js is built from src/
    as it is now``. Real: every lab's lab.toml, each pass line as ``lab check`` draws it."""
    said_twice = []
    for lab in load_labs():
        for step in lab.steps:
            for spec in step.checks:
                title, passed = spec.params.get("title"), spec.params.get("pass_message")
                if not title or not passed:
                    continue
                result = CheckResult.passed(passed, name=title)
                for width in WIDTHS:
                    screen = shown(result_renderable(result), width)
                    assert fits(screen, width), screen
                    if joined(screen).count(title) != 1:
                        said_twice.append(joined(screen))
    assert not said_twice, "\n".join(said_twice)


# ---- 6. verify-hook: the example command a person copies is whole ----------------------------


# Step 2's own command: no --stale.
LAB12_VERIFY = ("verify-hook", "scripts/check-before-stop.sh", "--break", "rm -f dist/app.js")
LAB12_VERIFY += ("--fix", "npm run build")


def test_verify_hook_without_stale_offers_a_whole_command(tmp_path: Path) -> None:
    """Walk j, Lab 12 step 2: ``lab verify-hook`` as the step gives it (no --stale) noted
    "give --stale CMD, e.g. --stale 'touch src/…'": a command cut with "…", which a person
    copies. It names a real source of the project now, whole on one line. Real: ``lab`` as a
    process on a provisioned Node workspace, the hook as the step's solve leaves it."""
    ws, runner = node_at(tmp_path, "12", "run-in-band")
    runner.solve(apply=True)
    source = sorted(f for f in (ws.root / "src").rglob("*") if f.is_file())[0]
    example = f"--stale 'touch {source.relative_to(ws.root).as_posix()}'"
    for width in WIDTHS:
        proc = run_lab(ws.root, *LAB12_VERIFY, env={"COLUMNS": str(width)})
        screen = proc.stdout
        assert proc.returncode == 0, screen + proc.stderr
        assert "…" not in screen, screen
        assert any(example in line for line in screen.splitlines()), screen
        assert "a command that makes a source newer than the artefact" in joined(screen), screen
        assert fits(screen, width), screen
