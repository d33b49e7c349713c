"""Issue 51, the screens the second walk still found sending a person the wrong way or breaking
a line: a step judged again at a lab's end failing with no reason, a replay mismatch told as
"no hook ran … untrusted folder", Lab 05's ``found: exit 1`` beside "exited 2", a sed without
``-i`` or on a missing file not named, a command cut in Lab 04's expected/found rows,
verify-hook's confinement line soft-wrapped mid-word, and a step panel's title 81 wide at 80.

Real: provisioned workspaces with the labs' own checks and bash hooks on the emulator (the real
client where a test says so), ``lab`` as a process for verify-hook, screens laid out at 80, 100
and 120 columns by the CLI's own renderers.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab, load_labs
from harness.engine.step_results import Moved
from harness.engine.stepview import StepView
from harness.jail import CONFINED
from harness.results import CheckResult, Status
from harness.ui.hook_event_view import hook_event_renderable
from harness.ui.lab_view import (
    intro_panel,
    print_moved,
    result_renderable,
    step_panel,
)
from harness.workspace import Workspace
from tests.builders import run_lab
from tests.lines import fnmatch_lines, joined, shell_joined
from tests.ui.screens import WIDTHS, shown


def assert_whole_lines(text: str, width: int, *, except_: str = "") -> None:
    """Every line fits ``width``, but a single word wider than the terminal (a path) or
    ``except_`` (a command): each is left whole to the terminal's own soft wrap, so copying
    keeps it one line."""
    wide = [line for line in text.splitlines() if len(line) > width]
    assert all(" " not in line.strip() or (except_ and except_ in line) for line in wide), (
        width,
        wide,
        text,
    )


# ---- 1. a step judged again at the lab's end: its ✘ names the cause and the next action ------


def lab06_sent_back_to_step_1(workspace: Workspace) -> tuple[LabRunner, Moved]:
    """Lab 06 step 1 passed, its record pointed at a state where no hook changed, then the
    lab's end: step 1 fails again there, and the person is sent back to it."""
    runner = LabRunner(workspace)
    runner.start("6")
    lab = runner.lab()
    before_the_change = runner._snapshot(lab, "verified/before-the-change")
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS
    record = runner.progress.lab_progress(lab.id).step("hook-change-held").passed
    assert record is not None
    record["snapshot"] = before_the_change
    moved = runner.complete(lab)
    assert moved.step is not None and moved.step.id == "hook-change-held"
    return runner, moved


def test_a_step_failing_its_reverification_says_why_and_what_next(workspace: Workspace) -> None:
    """Lab 06 step 1 passed; the state it is judged again at is one where no hook changed
    (the walk saw a bare ``re-verified step 1 hook-change-held: ✘ fail``)."""
    _, moved = lab06_sent_back_to_step_1(workspace)
    for width in WIDTHS:
        out = io.StringIO()
        print_moved(Console(file=out, width=width, no_color=True, color_system=None), moved)
        screen = out.getvalue()
        fnmatch_lines(
            screen,
            [
                "  re-verified step 1 hook-change-held: ✘ fail",
                "    ✘ FAIL your changes: change a hook (or .claude/settings.json) first",
                "      expected: a change to one of .claude/hooks/*, .claude/settings.json",
                "      found:    no changes",
                "      it passed before; judged again on a copy of your files as they were *",
                "  re-verified step 2 broken-hook: ✘ fail",
                "    ✘ FAIL progress: this step has no verified state (not verified)",
                "      it is checked when you reach it again: lab check, then lab next",
            ],
        )
        assert "lab reset puts back step 1's start" in joined(screen)
        assert_whole_lines(screen, width)


def test_a_smoke_run_after_lab06_step1_does_not_fail_it_at_the_labs_end(
    workspace: Workspace,
) -> None:
    """The walk's ✘, reproduced: step 1 passed (a hook changed, the stop held for smoke.sh),
    then smoke.sh run by hand as step 2 asks, green: it records the hooks it proved in
    .git/aiup-smoke-ran. Step 1, judged again on a copy at its own state, met that later proof
    and saw the stop let go. The proofs as they were at the pass are put back on the copy."""
    import subprocess

    runner = LabRunner(workspace)
    runner.start("6")
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS
    guard = workspace.root / ".claude" / "hooks" / "guard-spec-status.sh"
    guard.write_text(guard.read_text() + "# reviewed\n")  # the state moves on: step 1 re-runs
    smoke = subprocess.run(
        ["./.claude/hooks/smoke.sh"], cwd=workspace.root, capture_output=True, text=True
    )
    assert smoke.returncode == 0, smoke.stdout[-2000:]
    assert (workspace.git_dir / "aiup-smoke-ran").is_file()
    moved = runner.complete(runner.lab())
    first = moved.reverified[0]
    assert first.step.id == "hook-change-held" and not first.unchanged
    assert first.status is Status.PASS, [r.to_json() for r in first.results]


# ---- 2. a replay that differs is not told as "no hook ran" -----------------------------------


def _lab07_session(workspace: Workspace, config: Path) -> Path:
    """Lab 07 step 4's session played on the real, pinned client (the step's own solve), then
    put where a person's own ``claude`` keeps it (``config``: their ~/.claude)."""
    from tests.conftest import require_real_client

    require_real_client()
    runner = LabRunner(workspace)
    runner.start("7")
    runner.goto("your-session")
    runner.solve(apply=True)
    played = workspace.git_dir / "hooklab" / "claude-sessions" / "projects"
    (folder,) = played.iterdir()
    shutil.copytree(folder, config / "projects" / folder.name)
    shutil.rmtree(folder)
    (transcript,) = (config / "projects" / folder.name).glob("*.jsonl")
    return transcript


@pytest.mark.parametrize("summaries", ["kept", "never written"])
def test_a_replay_mismatch_is_named_as_one_not_as_an_untrusted_folder(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, summaries: str
) -> None:
    """The session's Stop hook held the turn; the hook was changed afterwards (it now always
    lets go). "never written": the session ended before the client wrote its stop summaries
    and hook attachments, only the feedback lines Claude was shown are there (what the walk
    met: the cause read "no hook of the workspace ran … an untrusted folder")."""
    from tests.engine.live_steps import check_json

    config = tmp_path / "claude-home"
    transcript = _lab07_session(workspace, config)
    if summaries == "never written":
        lines = transcript.read_text().splitlines(keepends=True)
        kept = [
            line
            for line in lines
            if json.loads(line).get("subtype") != "stop_hook_summary"
            and not str((json.loads(line).get("attachment") or {}).get("type", "")).startswith(
                "hook_"
            )
        ]
        assert len(kept) < len(lines)
        transcript.write_text("".join(kept))
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    hook.write_text("#!/usr/bin/env bash\nexit 0\n")
    done, data = check_json(workspace.root, config, monkeypatch, "--engine", "emulator")
    assert done.code == 1, data
    # The settings checks first: the hook still registered, require-sensors.sh beside it.
    registered, kept, check = data["checks"]
    assert registered["status"] == "pass", registered
    assert kept["status"] == "pass", kept
    assert check["message"].startswith("your hooks now answer differently than they did in your")
    assert "untrusted" not in check["message"] and "no hook" not in check["message"]
    assert check["details"]["fix"].startswith("keep the hooks as they are now and play the")
    assert "recorded 'blocked by check-before-stop.sh" in joined(check["found"])
    result = CheckResult.failed(
        check["message"],
        name=check["name"],
        expected=check["expected"],
        found=check["found"],
        details=check["details"],
    )
    for width in WIDTHS:
        assert_whole_lines(shown(result_renderable(result), width), width)


# ---- 3. Lab 05: the rows name the hook that did not fail open, not the loop's exit 1 ---------


def test_lab05_garbage_names_the_hook_and_its_exit(workspace: Workspace) -> None:
    runner = LabRunner(workspace)
    runner.start("5")
    runner.solve(apply=True)
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    text = hook.read_text()
    # Strict on bad JSON only (the sessions before it, with good JSON, still pass).
    strict = (
        'input=$(cat)\nif [ -n "$input" ] && ! printf %s "$input" | jq -e . >/dev/null 2>&1; '
        'then echo "bad json" >&2; exit 2; fi\nexec <<<"$input"\naiup_fail_open\n'
    )
    hook.write_text(text.replace("\naiup_fail_open\n", "\n" + strict, 1))
    lab = find_lab("5")
    spec = lab.step("strict-stop-hook").checks[2]
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.params)
    assert result.status is Status.FAIL
    assert result.expected == "every hook exits 0 and says nothing, on garbage and on empty stdin"
    assert result.found == (
        ".claude/hooks/require-sensors.sh exited 2 on garbage stdin, saying: bad json"
    )
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        assert "exit 1" not in screen
        assert screen.count("exited 2 on garbage") == 1, screen  # no output box repeating it
        assert_whole_lines(screen, width)
    # Quiet on every input again: the check passes.
    hook.write_text(text)
    assert spec.kind.run(CheckContext(workspace, lab.dir), spec.params).status is Status.PASS


# ---- 4. Lab 04 step 3: a sed without -i, a sed on a missing file -----------------------------

UC2 = "docs/use_cases/UC-002-edit-owner.md"
SCRIPT = "'s/^\\\\*\\\\*Status:\\\\*\\\\* Approved/**Status:** Done/'"
SEDS = {
    "without -i": (
        f"sed {SCRIPT} {UC2}",
        f"the command ran but changed no file: sed without -i prints the changed text and "
        f"leaves {UC2} as it was (`sed -i` changes the file in place)",
    ),
    "a missing file": (
        f"sed -i {SCRIPT} docs/use_cases/UC-002-edit.md",
        "the command ran but changed no file: docs/use_cases/UC-002-edit.md does not exist "
        f"(did you mean {UC2}?)",
    ),
}


@pytest.mark.parametrize("case", sorted(SEDS))
def test_lab04_a_sed_that_could_change_nothing_is_named(
    workspace: Workspace, engine: str, case: str
) -> None:
    command, note = SEDS[case]
    (workspace.root / "scenarios").mkdir(exist_ok=True)
    (workspace.root / "scenarios" / "sed.toml").write_text(
        '[[step]]\ndo = "session_start"\n\n'
        f'[[step]]\ndo = "bash"\ncommand = "{command}"\nexpect = "blocked"\n'
    )
    lab = find_lab("4")
    spec = lab.step("sed").checks[0]
    ctx = CheckContext(workspace, lab.dir)
    rows: list[StepView] = []
    ctx.on_hook_event = rows.append
    result = spec.kind.run(ctx, {**spec.params, "engine": engine})
    assert result.status is Status.FAIL
    row = result.details["session"][1]
    assert row["outcome"] == "allowed"
    assert row["note"] == note
    assert note in (result.found or "")
    for width in WIDTHS:
        screen = shown(hook_event_renderable(rows[1]), width)
        assert note.split(": ", 1)[1].replace("`", "") in joined(screen)
        assert_whole_lines("\n".join(ln for ln in screen.splitlines() if "sed " not in ln), width)


def test_lab04_rows_keep_the_sed_command_whole(workspace: Workspace) -> None:
    """The walk: ``expected: sed.toml step 2 (bash sed -i '…Done/'`` / ``docs/…md): blocked``:
    the quoted script was kept whole, the command around it was not."""
    sed = f"sed -i {SCRIPT.replace('Approved', 'Aproved')} {UC2}"  # matches nothing
    (workspace.root / "scenarios").mkdir(exist_ok=True)
    (workspace.root / "scenarios" / "sed.toml").write_text(
        '[[step]]\ndo = "session_start"\n\n'
        f'[[step]]\ndo = "bash"\ncommand = "{sed}"\nexpect = "blocked"\n'
    )
    lab = find_lab("4")
    spec = lab.step("sed").checks[0]
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.params)
    assert result.status is Status.FAIL
    typed = sed.replace("\\\\", "\\")
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        # found: with the command whole to the shell (a command wider than the terminal goes
        # on over lines ending in " \\"); expected: is the check's, without the person's step
        assert shell_joined(screen).count(" ".join(typed.split())) == 1, screen
        assert all(len(line) <= width for line in screen.splitlines()), screen


# ---- 5. verify-hook's confinement line, the step panels' titles ------------------------------


def test_verify_hook_says_where_calls_ran_in_whole_lines(tmp_path: Path) -> None:
    from tests.grading.stop_hooks import BREAK, CORRECT, FIX, STALE, make_project, write_hook

    if shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap (the confined line is what is tested)")
    root = make_project(tmp_path / "proj")
    write_hook(root, CORRECT)
    args = ("--break", BREAK, "--fix", FIX, "--stale", STALE, "--timeout", "5")
    for width in WIDTHS:
        done = run_lab(
            root, "verify-hook", "scripts/check-before-stop.sh", *args,
            env={"COLUMNS": str(width)},
        )  # fmt: skip
        assert done.returncode == 0, done
        assert_whole_lines(done.stdout, width)
        assert CONFINED in joined(done.stdout)


def test_every_panel_title_fits_the_terminal() -> None:
    """Lab 10's step panel was 81 wide at 80 columns: a title line just short of the width
    got its closing `` ──`` anyway."""
    for lab in load_labs():
        panels = [intro_panel(lab), *(step_panel(lab, step) for step in lab.steps)]
        for width in (60, *WIDTHS):
            for panel in panels:
                lines = shown(panel, width).splitlines()
                last = next(n for n, line in enumerate(lines) if line.endswith("─"))
                heads = lines[: last + 1]  # the title, up to its closing ──
                assert all(len(line) <= width for line in heads), (lab.id, width, heads)
