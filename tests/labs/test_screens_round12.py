"""Issue 51, part 2 ("every failure names its cause and the next action") and part 4 (whole
lines at 80, 100 and 120 columns): the screens a newcomer walk left wrong.

1. A check's internal id (``hook_session``, ``live_session``, ``git``) as its name.
2. Lab 03 step 2: a sensor command refused for a Maven switch, without naming the switch.
3. Lab 04 step 3: the person's own step shown under ``expected:``.
4. A prompt hook's refusal labelled by its prompt's first word ("blocked by Did").
5. "(denied)" for a No the person answered to the permission prompt.
6. ``lab init`` again: a notice whose before and after read the same.

Real: the labs' own lab.toml and checks, provisioned workspaces, the real pinned client (in
tmux or through the scripted model) where the client's own words matter, the renderers a
person sees, screens at 80, 100 and 120 columns.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.person import AUTO_MODE_NOTICES, client_env
from harness.claude.client.terminal import Terminal, fresh_home
from harness.claude.judge import Judgement
from harness.claude.recorded import USER, config_root, find_sessions, read_session
from harness.engine.actions import ACTION_KINDS
from harness.engine.checks import CHECK_KINDS
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import Lab, Spec, find_lab, load_labs
from harness.engine.moment import moments_of
from harness.errors import HarnessError
from harness.results import CheckResult, Status
from harness.ui.lab_view import print_results, print_step_run
from harness.workspace import Workspace
from tests.builders import reach_step, run_lab
from tests.claude.hookproject import HookProject
from tests.conftest import require_real_client
from tests.ui.test_screens_round9 import console_at, joined
from tests.ui.test_screens_round10 import fits

WIDTHS = (80, 100, 120)
# Every kind's id, checks' and actions': none is a word a person reads on a screen.
KIND_IDS = sorted(set(CHECK_KINDS) | set(ACTION_KINDS))


def ids_on(screen: str) -> list[str]:
    """The kind ids a screen shows: one with an underscore anywhere, any other as a result's
    name (``✘ FAIL git:``) or as what failed (``compile failed``)."""
    found = []
    for kind in KIND_IDS:
        as_name = rf"(PASS|FAIL|ERROR) {kind}:|^\s*{kind} failed|: {kind} failed"
        if ("_" in kind and re.search(rf"\b{kind}\b", screen)) or re.search(as_name, screen, re.M):
            found.append(kind)
    return found


def _screen(results: list[CheckResult], width: int) -> str:
    console, out = console_at(width)
    print_results(console, results)
    return out.getvalue()


# ---- 1. a check's name in words, never its kind's id --------------------------------------


def _one_spec_per_kind(registry: dict[str, Any], field: str) -> list[tuple[Lab, Spec]]:
    """For each kind of ``registry``, the first spec a lab writes of it (its real params)."""
    found: dict[str, tuple[Lab, Spec]] = {}
    for lab in load_labs():
        for step in lab.steps:
            more = step.solve + step.hollow if field == "setup" else ()
            for spec in getattr(step, field) + more:
                if spec.name in registry and spec.name not in found:
                    found[spec.name] = (lab, spec)
    return [found[k] for k in sorted(found)]


def _broken(spec: Spec) -> Spec:
    """The spec as it is, but its kind cannot run here (the machine, not the person)."""

    def boom(ctx: object, params: object) -> CheckResult:
        raise HarnessError("the disk is full")

    return dataclasses.replace(spec, kind=dataclasses.replace(spec.kind, call=boom))


def test_every_check_kind_that_could_not_run_is_named_in_words(workspace: Workspace) -> None:
    """A check that could not run was named by its kind's id (``✘ ERROR live_session: the
    check could not run``). Each kind the labs use, with the params a lab gives it."""
    specs = _one_spec_per_kind(CHECK_KINDS, "checks")
    assert {spec.name for _, spec in specs} == set(CHECK_KINDS), "a kind no lab uses"
    runner = LabRunner(workspace)
    lab = find_lab("3")
    step = dataclasses.replace(lab.steps[0], checks=tuple(_broken(s) for _, s in specs))
    run = runner.run_checks(lab, step, every=True)
    assert len(run.results) == len(CHECK_KINDS)
    for width in WIDTHS:
        console, out = console_at(width)
        print_step_run(console, run)
        screen = out.getvalue()
        assert not ids_on(screen), (ids_on(screen), screen)
        assert fits(screen, width), screen
    for (_, spec), result in zip(specs, run.results, strict=True):
        assert result.name and result.name != spec.name, result
        assert result.name == (spec.params.get("title") or result.name)  # the lab's own title


def test_every_setup_action_that_failed_is_named_in_words(workspace: Workspace) -> None:
    """A setup action that failed read ``play_session failed: …``, ``compile failed``."""
    specs = _one_spec_per_kind(ACTION_KINDS, "setup")
    # No lab applies a patch yet: its spec as a lab would write it.
    patch = ACTION_KINDS["patch"]
    typed = patch.build({"do": "patch", "from": "fix.diff"})
    specs.append((find_lab("3"), Spec(patch, {"do": "patch"}, "step[0].setup[0]", typed)))
    assert {spec.name for _, spec in specs} == set(ACTION_KINDS), "an action no lab uses"
    runner = LabRunner(workspace)
    for lab, spec in specs:
        (result,) = runner.run_actions(lab, [_broken(spec)])
        for width in WIDTHS:
            screen = _screen([result], width)
            assert not ids_on(screen), (spec.name, screen)
            assert "failed: the disk is full" in joined(screen)


def test_a_maven_refusal_names_the_session_in_words_at_each_width(
    workspace: Workspace,
) -> None:
    """Walk: an edited ./mvnw refused a step's session as ``✘ FAIL hook_session: mvnw is not
    as the lab shipped it`` (Lab 03 step 1) and ``✘ FAIL live_session: …`` (step 3). As a
    real ``lab check`` at 80, 100 and 120 columns, for a scripted and a live step."""
    assert run_lab(workspace.root, "start", "3").returncode == 0
    notes = workspace.root / "docs" / "use_cases" / "UC-002-edit-owner.md"
    notes.write_text(notes.read_text() + "\nA note.\n")
    mvnw = workspace.root / "mvnw"
    mvnw.write_text(mvnw.read_text() + "\n# changed\n")
    live = find_lab("3").step("your-session")
    for width in WIDTHS:
        out = run_lab(workspace.root, "check", env={"COLUMNS": str(width)})
        screen = out.stdout
        assert out.returncode == 1, screen + out.stderr
        assert not ids_on(screen), screen
        assert "✘ FAIL stop after a change: mvnw is not as the lab shipped it" in joined(screen)
        assert fits(screen, width), screen
    # The live step's refusal, in-process: the same guard, the same renderer.
    runner = LabRunner(workspace)
    run = runner.run_checks(find_lab("3"), live, every=True)
    for width in WIDTHS:
        console, out_ = console_at(width)
        print_step_run(console, run)
        screen = out_.getvalue()
        assert not ids_on(screen), screen
        assert "FAIL your session: a change, held until the sensors ran: mvnw" in joined(screen)


def test_the_git_shipped_and_settings_checks_are_named_in_words(workspace: Workspace) -> None:
    """``✘ FAIL git: change a file under docs/ or src/ first`` and ``✔ PASS shipped: …``:
    Lab 03 step 1 before any change, as a real ``lab check`` at each width."""
    assert run_lab(workspace.root, "start", "3").returncode == 0
    for width in WIDTHS:
        out = run_lab(workspace.root, "check", env={"COLUMNS": str(width)})
        screen = out.stdout
        assert not ids_on(screen), screen
        assert "✘ FAIL your changes: change a file under docs/ or src/ first" in joined(screen)
        assert fits(screen, width), screen


def test_the_scan_finds_the_old_names() -> None:
    """The scan itself: the screens the walk saw are caught."""
    assert ids_on("✘ FAIL hook_session: mvnw is not as the lab shipped it") == ["hook_session"]
    assert ids_on("✔ PASS shipped: the hooks and their settings are as shipped") == ["shipped"]
    assert ids_on("✘ ERROR compile: compile failed: no java") == ["compile"]
    assert ids_on("✘ FAIL your changes: change a file first") == []


# ---- 2. Lab 03 step 2: the switch that made the last run no sensor run, named -------------

TRICKS = Path(__file__).parents[2] / "labs" / "03-stop-hook" / "solution" / "tricks.toml"
PLAIN_RUN = 'command = "./mvnw -q test -Dgroups=sensor"'


@pytest.mark.maven
@pytest.mark.parametrize(
    ("switch", "why"),
    [
        ("-Pfast", "it switches on a Maven profile"),
        ("-DargLine=-Xmx64m", "it sets a Maven property"),
    ],
)
def test_lab03_step2_a_switch_on_the_sensor_run_is_quoted_with_why_and_what_to_run(
    workspace: Workspace, switch: str, why: str
) -> None:
    """Walk: the tricks file's last run carried a switch the plain list does not take; the
    failure said only "your session lacks a bash command … that runs the sensors itself". It
    quotes the switch, says what it does and what to run instead, at 80, 100 and 120."""
    runner = reach_step(workspace, "3", "tricks")
    text = TRICKS.read_text()
    at = text.rindex(PLAIN_RUN)  # the real run after the fix
    mine = f'command = "./mvnw -q test -Dgroups=sensor {switch}"'
    (workspace.root / "scenarios" / "tricks.toml").write_text(
        text[:at] + mine + text[at + len(PLAIN_RUN) :]
    )
    run = runner.check()
    failed = next(r for r in run.results if r.status is not Status.PASS)
    for width in WIDTHS:
        screen = _screen([failed], width)
        said = joined(screen)
        assert (
            f"tricks.toml step 24 (./mvnw -q test -Dgroups=sensor {switch}) is no sensor run: "
            f"its {switch} runs the tests otherwise than the fixture does: {why}"
        ) in said, screen
        assert f"run ./mvnw -q test -Dgroups=sensor without {switch}" in said, screen
        assert fits(screen, width), screen
        # the command to run is never broken across lines
        assert any("./mvnw -q test -Dgroups=sensor without" in ln for ln in screen.splitlines())


# ---- 3. Lab 04 step 3: expected is the check's, found is the person's run -------------------

SED_NOTHING = """\
[[step]]
do = "session_start"

[[step]]
do = "bash"
command = "sed -i 's/Status: Approved/Status: Done/' docs/use_cases/UC-002-edit-owner.md"
expect = "blocked"
"""


def _blocks(screen: str) -> tuple[str, str]:
    """The words under ``expected:`` and under ``found:`` of one failure."""
    said = joined(screen)
    expected = said.split("expected: ", 1)[1].split(" found: ", 1)[0]
    found = said.split(" found: ", 1)[1]
    return expected, found


@pytest.mark.maven
def test_lab04_step3_expected_is_what_the_check_wants_not_the_persons_own_step(
    workspace: Workspace,
) -> None:
    """Walk: a sed whose pattern matched nothing, predicted blocked, read ``expected: sed.toml
    step 2 (bash sed -i …): blocked``: the person's own step and guess as the expectation."""
    runner = reach_step(workspace, "4", "sed")
    (workspace.root / "scenarios" / "sed.toml").write_text(SED_NOTHING)
    run = runner.check()
    failed = next(r for r in run.results if r.status is not Status.PASS)
    for width in WIDTHS:
        screen = _screen([failed], width)
        expected, found = _blocks(screen)
        assert "sed.toml step" not in expected and "sed -i" not in expected, screen
        assert expected.startswith("a bash command mentioning 'UC-002' that is blocked"), screen
        assert "docs/use_cases/UC-002-edit-owner.md contains '**Status:** Done'" in expected
        # what the run did is under found:, the step and the pattern that matched nothing
        assert found.startswith("sed.toml step 2 (bash sed -i"), screen
        assert "you predicted blocked, it was allowed" in found, screen
        assert "its pattern matched nothing" in found, screen
        assert fits(screen, width), screen


# ---- 6. lab init again: what changed in the Maven the checks trust, named ------------------


def test_lab_init_again_names_a_maven_whose_content_changed_at_the_same_path(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Walk: the Maven lab init recorded changed only in content (the same path); lab init
    again said "is now X (java J), no longer X (java J)", both sides the same. It names the
    file that changed and its sha256 before and after, in whole lines at each width."""
    real = shutil.which("mvn")
    assert real, "Maven is not installed here"
    folder = tmp_path / "bin"
    folder.mkdir()
    shim = folder / "mvn"
    shim.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    shim.chmod(0o755)
    path = {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    first = run_lab(tmp_path, "init", str(workspace.root), env=path)
    assert first.returncode == 0, first.stderr
    assert f"./mvnw now runs {shim}, not " in joined(first.stdout), first.stdout
    for width in WIDTHS:
        before = hashlib.sha256(shim.read_bytes()).hexdigest()[:12]
        shim.write_text(shim.read_text() + f"# changed for {width} columns\n")
        after = hashlib.sha256(shim.read_bytes()).hexdigest()[:12]
        again = run_lab(tmp_path, "init", str(workspace.root), env={**path, "COLUMNS": str(width)})
        assert again.returncode == 0, again.stderr
        screen = again.stdout
        assert f"{shim} has new content (sha256 {before} before, {after} now)" in joined(screen), (
            screen
        )
        assert fits(screen, width), screen
        assert any(str(shim) in line for line in screen.splitlines()), screen  # never broken


# ---- 4 and 5. a prompt hook named as one; a No answer told from a deny rule and a hook ------

PROMPT = "Did the tests run and pass? $ARGUMENTS"
REASON = "insufficient evidence in transcript"


def _three_refusals_and_a_judge(root: Path) -> None:
    """A project whose settings deny one command, whose PreToolUse hook refuses another, and
    whose Stop group has a prompt hook (the judge of Lab 10)."""
    project = HookProject(root)
    project.hook(
        "PreToolUse",
        'c=$(jq -r .tool_input.command); case "$c" in rm*) echo "no rm here" >&2; exit 2;; '
        "esac; exit 0",
        matcher="Bash",
        name="guard.sh",
    )
    project.permit("deny", "Bash(touch denied.txt)")
    project.group("Stop", [{"type": "prompt", "prompt": PROMPT}])
    project.file("x.txt", "x\n")
    project.commit("start")


def _manual_mode(terminal: Terminal, prompt: str) -> None:
    """``claude --permission-mode manual`` typed, the folder trusted, the prompt sent: in that
    mode the client asks the person before a command (auto mode's check decides otherwise)."""
    terminal.type("claude --permission-mode manual")
    terminal.key("Enter")
    deadline = time.monotonic() + 60
    while "manual mode on" not in terminal.screen():
        assert time.monotonic() < deadline, terminal.screen()
        shown = terminal.screen()
        if "Yes, I trust this folder" in shown:
            terminal.choose("Yes, I trust this folder")
        elif "Do you want to use this API key?" in shown:
            terminal.choose("Yes")
        time.sleep(0.3)
    terminal._type_into_box(prompt)
    terminal.key("Enter")


def _played_with_a_no(root: Path, tmp_path: Path) -> Path:
    """Plain ``claude`` in tmux on the pinned client with the scripted model: a command a deny
    rule refuses, one the hook refuses, one the person answers No to; then a stop the prompt
    hook holds once. The session's transcript."""
    turns = [
        Reply.tool_use("toolu_1", "Bash", {"command": "touch denied.txt", "description": "a"}),
        Reply.tool_use("toolu_2", "Bash", {"command": "rm x.txt", "description": "b"}),
        Reply.tool_use("toolu_3", "Bash", {"command": "touch asked.txt", "description": "c"}),
    ]

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("All done."))

    home = fresh_home(tmp_path)
    with ScriptedApi(on_request=answer) as api:
        api.judgement = Judgement(False, REASON)

        def said_yes_after_the_first() -> None:  # the judge holds the first stop only
            while not api.judged:
                time.sleep(0.05)
            api.judgement = Judgement(True, "fine")

        threading.Thread(target=said_yes_after_the_first, daemon=True).start()
        terminal = Terminal(root, client_env(home, api.base_url), tmp_path / "terminal")
        try:
            _manual_mode(terminal, "Please tidy up.")
            terminal.wait_until(
                lambda s: "Do you want to proceed?" in s, "the prompt", 120, AUTO_MODE_NOTICES
            )
            terminal.choose("No")
            terminal.wait_until(lambda s: "Interrupted" in s, "the No", 60, AUTO_MODE_NOTICES)
            terminal._type_into_box("Then finish.")
            terminal.key("Enter")
            terminal.wait_until(lambda s: "All done." in s, "the end", 120, AUTO_MODE_NOTICES)
            time.sleep(3)  # the prompt hook's second judgement, the turn's end
            terminal.quit_claude()
        finally:
            (tmp_path / "screens.txt").write_text(terminal.transcript())
            terminal.close()
    (found,) = find_sessions(root, root=config_root({"HOME": str(home)}))
    return found.path


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_a_no_a_deny_rule_a_hooks_deny_and_a_prompt_hook_each_read_as_what_they_are(
    tmp_path: Path,
) -> None:
    """On the pinned client (2.1.332), what each refusal records, read back and shown: a No
    to the permission prompt (``toolDenialKind: user-rejected``) read "(denied)" as if a rule
    or hook had denied it; a prompt hook's hold read "blocked by Did" (its prompt's first
    word). Each is named for what it is, the prompt hook with its reason, at every width."""
    require_real_client()
    root = tmp_path / "project"
    _three_refusals_and_a_judge(root)
    timeline = read_session(_played_with_a_no(root, tmp_path))
    rule, hook, no = timeline.tool_calls
    # What the client wrote, as the reader tells them apart (never guessed: seen here).
    assert (rule.denied, rule.denial) == ("config", "rule:projectSettings")
    assert hook.refused_by == "guard.sh" and not hook.denied
    assert (no.denied, no.denial) == (USER, "user-rejected")
    held = timeline.stops[0]
    assert held.blocked_by == ["the prompt hook on Stop"], held.blocked_by
    assert f"[{PROMPT}]: {REASON}" in held.feedback  # the client names it by its prompt
    rows = [m.shown() for m in moments_of(timeline)]
    said = CheckResult.failed(
        "the session does not do what the step asks yet",
        name="your session",
        expected="moment 1 of 1: a stop that is allowed",
        found="session did instead:\n  " + "\n  ".join(rows),
    )
    for width in WIDTHS:
        screen = joined(_screen([said], width))
        assert "bash touch asked.txt (you answered No to the permission prompt" in screen
        assert "bash touch denied.txt (a deny rule of the settings refused it" in screen
        assert "bash rm x.txt (refused by guard.sh)" in screen
        held_by = "stop (blocked by the prompt hook on Stop in .claude/settings.json, which said "
        assert f'{held_by}"{REASON}")' in screen, screen
        assert "(denied)" not in screen and "by Did" not in screen, screen
    # lab replay's table, as a real process: the No is the person's, the hold a prompt hook's.
    for width in WIDTHS:
        replayed = run_lab(root, "replay", str(timeline.path), env={"COLUMNS": str(width)})
        table = replayed.stdout
        assert "│ you answered No " in table, table  # the recorded cell, not "denied"
        assert "recorded 'blocked by the prompt hook on Stop'" in joined(table), table
        assert "by Did" not in table, table
