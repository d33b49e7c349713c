"""Issue 51, part 2: every failure names its cause and the next action. Each case as the second
newcomer walk met it: Lab 10's tricks, Lab 12's contract, Lab 13's setup and let-go answer,
Lab 04's sed that matched nothing, a file not written yet, the hook's message once.

Real: the labs' own checks on provisioned workspaces (the PetClinic, the Node project), the
workspaces' bash hooks on the emulator, real npm for the Node hook; screens laid out at 80, 100
and 120 columns by the CLI's own renderers.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.engine.stepview import StepView
from harness.results import CheckResult, Status
from harness.ui.hook_event_view import hook_event_renderable
from harness.ui.lab_view import result_renderable
from harness.ui.prose import print_prose
from harness.workspace import Workspace
from tests.builders import reach_step
from tests.labs.solved import solved_at

WIDTHS = (80, 100, 120)
RAW_REGEX = re.compile(r"\(\?[imsx]+\)|\\[wWsSdb]|\(\?[=!<]")


def run_check(ws: Workspace, lab: str, step: str, n: int) -> CheckResult:
    found = find_lab(lab)
    spec = found.step(step).checks[n]
    return spec.kind.run(CheckContext(ws, found.dir), spec.params)


def screen(result: CheckResult, width: int) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, no_color=True, color_system=None)
    print_prose(console, result_renderable(result))
    return out.getvalue()


def assert_whole_lines(text: str, width: int) -> None:
    assert all(len(line) <= width for line in text.splitlines()), text


# ---- Lab 10 step 2: only what the step needs -----------------------------------------------


def test_lab10_a_missing_trick_asks_for_the_tricks_only(workspace: Workspace) -> None:
    """Trick 5 (and the others) missing: the failure asks for the tricks and the judge's yes,
    not Lab 03's fix, real sensor run and allowed last stop."""
    (workspace.root / "scenarios").mkdir(exist_ok=True)
    (workspace.root / "scenarios" / "words.toml").write_text(
        '[[step]]\ndo = "session_start"\n\n'
        '[[step]]\ndo = "prompt"\ntext = "Run the sensors."\n\n'
        '[[step]]\ndo = "bash"\ncommand = "echo hi | tail -3"\n\n'
        '[[step]]\ndo = "stop"\nexpect = "blocked"\njudge_ok = true\n'
    )
    result = run_check(workspace, "10", "words", 0)
    assert result.status is Status.FAIL
    assert result.expected == (
        "every trick's command really runs, and the stop after it has judge_ok = true and is "
        "blocked"
    )
    for width in WIDTHS:
        assert "sensor run" not in screen(result, width)


def test_lab03_still_asks_for_its_fix_after_the_tricks() -> None:
    from harness.engine.checks.hook_session import SessionParams, tricks_expected

    spec = next(c for c in find_lab("3").step("tricks").checks if c.params.get("tricks"))
    params = SessionParams(**{k: v for k, v in spec.params.items() if k != "kind"})
    assert tricks_expected(params) == (
        "every trick's command really runs and the stop after it is blocked; then an edit "
        "mentioning 'UC005AddVisitTest.java' that is allowed, then a bash command mentioning "
        "'-Dgroups=sensor' that runs the sensors itself (./mvnw -q test -Dgroups=sensor, no "
        "other command after it) and they pass, then a stop that is allowed and is not the hook "
        "letting go of a stop it held (stop_hook_active)"
    )


# ---- Lab 04 step 3: a sed that changed nothing -----------------------------------------------


def test_lab04_a_sed_whose_pattern_matched_nothing_is_named(
    workspace: Workspace, engine: str
) -> None:
    """The sed ran, its pattern matched nothing: the row says so, not only "allowed (expected
    blocked)"; on both engines, and whole at 80, 100 and 120 columns."""
    (workspace.root / "scenarios").mkdir(exist_ok=True)
    uc = "docs/use_cases/UC-002-edit-owner.md"
    (workspace.root / "scenarios" / "sed.toml").write_text(
        '[[step]]\ndo = "session_start"\n\n'
        f'[[step]]\ndo = "bash"\ncommand = "sed -i \'s/Status: Approved/Status: Done/\' {uc}"\n'
        'expect = "blocked"\n'
    )
    before = (workspace.root / uc).read_text()
    lab = find_lab("4")
    spec = lab.step("sed").checks[0]
    ctx = CheckContext(workspace, lab.dir)
    rows: list[StepView] = []
    ctx.on_hook_event = rows.append
    result = spec.kind.run(ctx, {**spec.params, "engine": engine})
    assert (workspace.root / uc).read_text() == before
    assert result.status is Status.FAIL
    row = result.details["session"][1]
    assert row["outcome"] == "allowed"
    assert row["note"] == (
        f"the command ran but changed no file: its pattern matched nothing in {uc} (compare it "
        "with the line as the file has it)"
    )
    assert row["note"] in (result.found or "")
    for width in WIDTHS:
        out = io.StringIO()
        console = Console(file=out, width=width, no_color=True, color_system=None)
        print_prose(console, hook_event_renderable(rows[1]))
        shown = out.getvalue()
        # The command and its outcome are one unit a terminal may wrap (never split by us);
        # every line of the note is whole.
        assert_whole_lines("\n".join(ln for ln in shown.splitlines() if "sed -i" not in ln), width)
        assert "changed no file" in shown and uc in shown


def test_a_sed_that_changed_its_file_gets_no_note(workspace: Workspace) -> None:
    solved_at(workspace, "4", "sed")
    result = run_check(workspace, "4", "sed", 0)
    assert result.status is Status.PASS, result
    assert all(not row["note"] for row in result.details["session"])


# ---- a missing file, a new folder ------------------------------------------------------------


def test_lab12_a_contract_not_written_yet_reads_as_missing(node_ws: Workspace) -> None:
    result = run_check(node_ws, "12", "four-lines", 0)
    assert result.status is Status.FAIL
    assert result.message == (
        "docs/stop-hook-contract.md does not exist yet: create it (the folder is new too: "
        "mkdir -p docs)"
    )
    assert "Claim" not in result.message
    for width in WIDTHS:
        assert_whole_lines(screen(result, width), width)


def test_lab09_and_lab12_say_to_make_the_new_folder() -> None:
    nine = " ".join(find_lab("9").step("quiz").instructions.split())
    twelve = " ".join(find_lab("12").step("four-lines").instructions.split())
    assert "mkdir -p answers" in nine
    assert "mkdir -p docs" in twelve


def test_a_file_in_a_folder_that_exists_is_named_missing_without_mkdir(
    workspace: Workspace,
) -> None:
    (workspace.root / "answers").mkdir(exist_ok=True)
    result = run_check(workspace, "9", "quiz", 0)
    assert result.message == "answers/adr-quiz.toml does not exist yet: create it"


# ---- Labs 12 and 13: no raw regex, the relevant line -----------------------------------------


def test_lab12_each_part_is_named_in_words_with_its_line(node_ws: Workspace) -> None:
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir()
    contract.write_text(
        "# Contract\n\n" + "\n".join(f"Note {n}: filler" for n in range(14)) + "\n"
        "Claim: the build is ready\nCheck: npm test\nSuccess: exit 0\n"
        "Block: exit 0, the reason on stdout\n"
    )
    result = run_check(node_ws, "12", "four-lines", 0)
    assert result.status is Status.FAIL
    found = (result.found or "").splitlines()
    assert (
        "✘ Check: your Check: line does not name the file the build writes: add test -s "
        "dist/app.js" in found
    )
    assert "  your line: Check: npm test" in found
    assert "  your line: Block: exit 0, the reason on stdout" in found
    assert "Note 0: filler" not in found  # not the file's head
    for width in WIDTHS:
        shown = screen(result, width)
        assert not RAW_REGEX.search(shown), shown
        assert_whole_lines(shown, width)


def test_lab12_a_part_without_its_line_is_named(node_ws: Workspace) -> None:
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir()
    contract.write_text("Claim: the build is ready and tested\n")
    found = (run_check(node_ws, "12", "four-lines", 0).found or "").splitlines()
    assert "✘ Block: no line starts with Block: yet" in found


def test_lab13_step1_names_the_pattern_in_words_and_shows_the_line(node_ws: Workspace) -> None:
    result = run_check(node_ws, "13", "block-on-missing", 0)
    assert result.status is Status.FAIL
    assert result.expected == "a line of code (not a comment) that tests `dist/missing.js`"
    assert result.found == "if ! test -s dist/app.js; then"
    for width in WIDTHS:
        shown = screen(result, width)
        assert not RAW_REGEX.search(shown), shown
        assert_whole_lines(shown, width)
        # A command in backticks is never split across two lines.
        assert "`test -s dist/app.js`" in shown.replace("\n  ", " ") or all(
            "`test -s" not in line or "dist/app.js`" in line for line in shown.splitlines()
        )


def test_every_file_check_with_a_pattern_says_it_in_words() -> None:
    from harness.engine.manifest import load_labs

    for lab in load_labs():
        for step in lab.steps:
            for spec in step.checks:
                if spec.name == "file" and spec.params.get("matches"):
                    assert spec.params.get("means"), (lab.id, step.id)


# ---- Lab 13: the setup writes nothing the check rejects; let-go names the difference ---------


def test_lab13_step3_setup_changes_the_code_line_only(node_ws: Workspace) -> None:
    runner = LabRunner(node_ws)
    runner.start("13")
    hook = node_ws.root / "scripts" / "check-before-stop.sh"
    lab = find_lab("13")
    assert all(
        r.status is Status.PASS for r in runner.run_actions(lab, lab.step("held-live").setup)
    )
    named = [line for line in hook.read_text().splitlines() if "dist/missing.js" in line]
    assert named == ["if ! test -s dist/missing.js; then"]
    # Step 5 as step 1 asked: the code pointed back, nothing else: its file check passes.
    hook.write_text(hook.read_text().replace("dist/missing.js", "dist/app.js"))
    assert run_check(node_ws, "13", "turn-ends", 0).status is Status.PASS


def test_lab13_a_hand_written_let_go_names_the_difference(node_ws: Workspace) -> None:
    hook = node_ws.root / "scripts" / "check-before-stop.sh"
    hook.write_text(
        hook.read_text()
        .replace("npm test -- --runInBand", "npm test")
        .replace("if ! test -s dist/app.js", "if ! test -s dist/missing.js")
    )
    answers = node_ws.root / "answers"
    answers.mkdir()
    (answers / "let-go.json").write_text(
        '{"systemMessage":"Stop check still fails: rebuild dist/app.js (npm run build)."}\n'
    )
    results = [run_check(node_ws, "13", "let-go", n) for n in range(3)]
    assert [r.status for r in results] == [Status.PASS, Status.PASS, Status.FAIL]
    wrong = results[2]
    assert "exit" not in (wrong.expected or "") and "exit" not in (wrong.found or "")
    assert (wrong.expected or "").startswith(
        "line 1 as the command prints it now (not shown here: run the command as it is"
    )  # never the answer itself: it would be copied from the screen (round6)
    assert (wrong.found or "").splitlines() == [
        'line 1 in answers/let-go.json: {"systemMessage":"Stop check still fails: rebuild '
        'dist/app.js (npm run build)."}',
        "(the two lines differ from character 79 on)",
    ]
    for width in WIDTHS:
        assert_whole_lines(screen(wrong, width), width)


# ---- step numbers count from 1 everywhere ----------------------------------------------------


def test_a_scenario_error_names_the_step_as_runs_number_it(tmp_path: Path) -> None:
    """The seventh [[step]] is step 7 in a run, and step[7] in an error about it."""
    from harness.claude.scenario import load_scenario
    from harness.errors import ConfigError

    scenario = tmp_path / "tricks.toml"
    scenario.write_text('[[step]]\ndo = "stop"\n\n' * 6 + '[[step]]\ndo = "bash"\n')
    with pytest.raises(ConfigError) as err:
        load_scenario(scenario)
    assert err.value.field == "step[7].command"


def test_a_lab_error_counts_steps_and_checks_from_1(tmp_path: Path) -> None:
    from harness.engine.manifest import load_lab
    from harness.errors import ConfigError

    lab = tmp_path / "01-x"
    lab.mkdir()
    step = '[[step]]\nid = "{id}"\ntitle = "t"\ninstructions = "i"\nhints = ["h"]\n'
    check = '[[step.check]]\nkind = "file"\npath = "a"\n{field} = true\n'
    solve = '[[step.solve]]\ndo = "write"\npath = "a"\ncontent = "x"\n'
    (lab / "lab.toml").write_text(
        'format = 1\nid = "01-x"\ntitle = "x"\nintro = "x"\n\n'
        + step.format(id="one")
        + check.format(field="exists")
        + solve
        + step.format(id="two")
        + check.format(field="exists")
        + check.format(field="exist")
        + solve
    )
    with pytest.raises(ConfigError) as err:
        load_lab(lab)
    assert err.value.field == "step[2].check[2].exist"


# ---- the hook's message once -----------------------------------------------------------------


def test_a_hook_message_shown_as_found_gets_no_output_box_repeating_it(node_ws: Workspace) -> None:
    """Lab 13 step 1 with the hook still passing: stderr lacks "Stop check blocked"; what the
    hook printed is shown under found: once, not again in an output box."""
    hook = node_ws.root / "scripts" / "check-before-stop.sh"
    hook.write_text(hook.read_text().replace("npm test -- --runInBand", "npm test"))
    hook.write_text(hook.read_text().replace("if ! test -s dist/app.js", "if ! test -s dist/x.js"))
    subprocess.run(["npm", "run", "build"], cwd=node_ws.root, check=True, capture_output=True)
    # The hook now blocks with exit 2, but on a reason the check does not look for.
    checks = find_lab("13").step("block-on-missing").checks
    spec = next(
        c
        for c in checks
        if c.params.get("title") == "the hook blocks: exit 2, the reason on stderr"
    )
    params = {**spec.params, "stderr_contains": "dist/missing.js"}
    result = spec.kind.run(CheckContext(node_ws, find_lab("13").dir), params)
    assert result.status is Status.FAIL
    assert result.found == "Stop check blocked: rebuild dist/app.js (npm run build)"
    for width in WIDTHS:
        shown = screen(result, width)
        assert shown.count("Stop check blocked: rebuild dist/app.js") == 1, shown
        assert "output (tail)" not in shown


def test_output_with_more_than_found_keeps_its_box() -> None:
    result = CheckResult.failed("m", name="n", expected="exit 0", found="exit 1", output="a\nb")
    assert "output (tail)" in screen(result, 100)


def test_a_shell_pattern_is_said_in_words(node_ws: Workspace) -> None:
    from harness.engine.checks import CHECK_KINDS
    from harness.engine.checks.shell import ShellParams, _validate

    assert _validate(ShellParams(command="true", stdout_matches=r"\bok\b")) == (
        "say in words what the pattern asks for (means = ...): a person never reads it"
    )
    result = CHECK_KINDS["shell"].run(
        CheckContext(node_ws, find_lab("13").dir),
        {"kind": "shell", "command": "echo nope", "stdout_matches": r"(?i)^\s*ok\b", "means": "ok"},
    )
    assert result.status is Status.FAIL and result.expected == "stdout: ok"
    assert not RAW_REGEX.search(screen(result, 100))


# ---- Lab 12 step 1: the contract's words, negated ----------------------------------------
NEGATED = """Claim: the build is ready: the tests pass and dist/app.js is built
Check: npm test and test -s dist/app.js
Success: the hook does not exit 0
Block: it never exits 2, and does not write to stderr
"""


def test_lab12_a_contract_that_negates_its_parts_does_not_pass(node_ws: Workspace) -> None:
    """The walk's pass: every keyword there, each part saying the opposite."""
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir()
    contract.write_text(NEGATED.replace("never exits 2", "never will exit 2"))
    result = run_check(node_ws, "12", "four-lines", 0)
    assert result.status is Status.FAIL
    found = (result.found or "").splitlines()
    assert "✔ Claim" in found and "✔ Check" in found
    assert (
        "✘ Success: your Success: line says exit 0, but “not” takes it back: "
        "“the hook does not exit 0”"
    ) in found
    block = next(line for line in found if line.startswith("✘ Block:"))
    assert "says exit 2, but “never” takes it back: “it never will exit 2”" in block
    assert "says stderr, but “not” takes it back: “does not write to stderr”" in block
    for width in WIDTHS:
        assert_whole_lines(screen(result, width), width)
    # Said positively, with what it does not do beside it (the solution's "no log"), it holds.
    shutil.copy(find_lab("12").dir / "solution" / "stop-hook-contract.md", contract)
    assert run_check(node_ws, "12", "four-lines", 0).status is Status.PASS


# ---- Lab 13: a dead line after exit, a hook that always lets go -----------------------------
HOOK = Path("scripts/check-before-stop.sh")
EARLY_BLOCK = """if true; then
  refuse 'rebuild dist/app.js (npm run build)'
fi
exit 0
if ! test -s dist/missing.js; then
  refuse 'rebuild dist/app.js (npm run build)'
fi
"""
ALWAYS_PASSES = "#!/usr/bin/env sh\necho 'Stop check passed: tests and dist/app.js'\nexit 0\n"


def at_lab13(ws: Workspace, step: str) -> LabRunner:
    return reach_step(ws, "13", step)  # reached once per worker, copied for each test


def test_lab13_step1_a_dead_line_after_exit_does_not_pass(node_ws: Workspace) -> None:
    """The walk's pass: the hook blocks whatever is there, and the line the step asks for sits
    after an exit where it never runs."""
    runner = at_lab13(node_ws, "block-on-missing")
    hook = node_ws.root / HOOK
    text = hook.read_text()
    real = "if ! test -s dist/app.js; then\n  refuse 'rebuild dist/app.js (npm run build)'\nfi\n"
    assert real in text
    hook.write_text(text.replace(real, EARLY_BLOCK))
    run = runner.check(every=True)
    names, in_band, same, blocks, live = run.results
    assert names.status is Status.PASS and blocks.status is Status.PASS  # as the walk found
    assert in_band.status is Status.PASS  # npm test, as the lab's start made it
    assert same.status is Status.PASS  # it ends alike by hand and as Claude Code runs it
    assert live.status is Status.FAIL
    assert live.message.startswith("on a copy where dist/missing.js exists, the hook should pass")
    assert not (node_ws.root / "dist" / "missing.js").exists()  # a copy, not the workspace
    hook.write_text(text.replace("test -s dist/app.js", "test -s dist/missing.js"))
    assert runner.check().status is Status.PASS


@pytest.mark.parametrize("step", ["pass-after-fix", "turn-ends"])
def test_lab13_a_hook_that_always_lets_go_does_not_pass(node_ws: Workspace, step: str) -> None:
    runner = at_lab13(node_ws, step)
    hook = node_ws.root / HOOK
    text = hook.read_text()
    hook.write_text(ALWAYS_PASSES)
    run = runner.check(every=True)
    without = "on a copy without dist/app.js the hook should block"
    broken = next(r for r in run.results if r.message.startswith(without))
    others = [r for r in run.results if r is not broken]
    # Step 5's guard with a failing test catches it too (issue 51); every other check passes.
    caught = [r for r in others if r.status is not Status.PASS]
    # So does the same in the workspace's own folder (walk-s, F8).
    ahead = ("on a copy with a failing test", "in your own folder, with dist/app.js hidden")
    assert all(r.message.startswith(ahead) for r in caught), others
    assert broken.status is Status.FAIL
    assert broken.message.startswith(without)
    assert (node_ws.root / "dist" / "app.js").exists()
    hook.write_text(text)
    runner.solve(apply=True)
    assert runner.check().status is Status.PASS


# ---- Issue 51, the second walk's free passes and wrong-way words -----------------------------
HEDGED = {
    "hedges": "Claim: the build is ready: the tests pass and dist/app.js is built\n"
    "Check: npm test and test -s dist/app.js\nSuccess: exit 0, or not\n"
    "Block: exit 2 (not really) and the reason on stderr (unlikely)\n",
    "denies": "Claim: the build is ready: the tests pass and dist/app.js is built\n"
    "Check: we skip npm test; only test -s dist/app.js\nSuccess: exit 0\n"
    "Block: exit 2 is wrong; nothing is printed to stderr\n",
}


@pytest.mark.parametrize("case", sorted(HEDGED))
def test_lab12_a_contract_that_hedges_or_denies_its_parts_fails(
    node_ws: Workspace, case: str
) -> None:
    """The walk's contracts, as written: every keyword there, each taken back."""
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir()
    contract.write_text(HEDGED[case])
    result = run_check(node_ws, "12", "four-lines", 0)
    assert result.status is Status.FAIL
    found = (result.found or "").splitlines()
    if case == "hedges":
        assert result.message.startswith("2 of 4 parts of the contract do not hold yet (Success:, ")
        assert "Block:)" in result.message  # every failing part, not only the first
        assert "✘ Success: your Success: line says exit 0, but “or not” takes it back" in found
        block = next(line for line in found if line.startswith("✘ Block:"))
        assert "says exit 2, but “not really” takes it back" in block
        assert "says stderr, but “unlikely” takes it back" in block
    else:
        assert "(Check:, Block:)" in result.message
        assert (
            "✘ Check: your Check: line says npm test, but “skip” takes it back: “we skip npm test”"
            in (found)
        )
        block = next(line for line in found if line.startswith("✘ Block:"))
        assert "says exit 2, but “wrong” takes it back: “exit 2 is wrong”" in block
        assert "says stderr, but “nothing” takes it back: “nothing is printed to stderr”" in block
    for width in WIDTHS:
        assert_whole_lines(screen(result, width), width)


def lab12_words() -> dict[str, str]:
    """The contracts the lab's own words give, each as a person may copy it."""
    lab = find_lab("12")
    hints = lab.step("four-lines").hints  # hint 2: "Check: … dist/app.js. Success: exit 0."
    claim = "Claim: the build is ready: the tests pass and dist/app.js is built"
    return {
        "the hints": "\n".join([claim, *re.split(r"(?<=\.) (?=Success:)", hints[1]), hints[2]]),
        "the intro": "\n".join(
            [
                claim,
                "Check: npm test and test -s dist/app.js",
                "Success: exit 0.",
                "Block: exit 2 and a short reason on stderr, with no secrets and no full log.",
            ]
        ),
        "the solution": (lab.dir / "solution" / "stop-hook-contract.md").read_text(),
    }


@pytest.mark.parametrize("source", sorted(lab12_words()))
def test_lab12_the_labs_own_words_hold(node_ws: Workspace, source: str) -> None:
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir()
    contract.write_text(lab12_words()[source] + "\n")
    result = run_check(node_ws, "12", "four-lines", 0)
    assert result.status is Status.PASS, result.found


def test_lab08_probe_names_look_like_class_names(workspace: Workspace) -> None:
    """A rule `type.simpleName().matches(".*[0-9]")` caught every old probe (ClinicArchive58):
    the names now have no digit and are CamelCase words, never a type the fixture has."""
    from harness.engine.checks import sensors

    spec = next(
        c
        for c in find_lab("08").step("rule-as-test").checks
        if "{random}.java" in str(c.params.get("sandbox_files"))
    )
    taken = sensors._type_names(workspace.root)
    assert "OwnerRepository" in taken
    names = set()
    for _ in range(300):
        filled = sensors._with_random_name(spec.kind.build(spec.params), workspace.root)
        (rel,) = filled.sandbox_files
        name = Path(rel).stem
        assert not re.fullmatch(r".*[0-9]", name), name  # the walk's rule would miss it
        assert re.fullmatch(r"(?:[A-Z][a-z]+){2,3}", name), name
        assert name not in taken and name in filled.message
        names.add(name)
    assert len(names) > 250  # drawn from many words, not a short list


def test_lab08_the_hook_kept_under_another_name_for_multiedit_fails(workspace: Workspace) -> None:
    """The walk's pass: the hook copied to a new name and registered for "MultiEdit", a tool
    the pinned client does not have (it answers "No such tool available: MultiEdit"), so the
    hook never runs and the write the step simulates goes through."""
    runner = reach_step(workspace, "08", "drop-hook")
    hooks = workspace.root / ".claude" / "hooks"
    (hooks / "check-repository-names.sh").rename(hooks / "name-guard.sh")
    settings = workspace.root / ".claude" / "settings.json"
    text = settings.read_text()
    group = '"matcher": "Write",\n        "hooks": [\n          { "type": "command", "command": '
    assert group + '"\\"$CLAUDE_PROJECT_DIR/.claude/hooks/check-repository-names.sh' in text
    settings.write_text(
        text.replace(group, group.replace("Write", "MultiEdit")).replace(
            "check-repository-names.sh", "name-guard.sh"
        )
    )
    run = runner.check(every=True)
    failed = [r for r in run.results if r.status is not Status.PASS]
    # The kept copy is a hook the lab did not ship, too (round 8: .claude/hooks as at the start).
    assert [r.name for r in failed] == ["settings", "shipped"], run.results
    assert failed[1].found == ".claude/hooks/name-guard.sh: not shipped"
    assert "MultiEdit: no tool Claude Code has by that name" in failed[0].message
    for width in WIDTHS:
        assert_whole_lines(screen(failed[0], width), width)


def test_lab10_a_trick_that_skips_the_tests_does_not_count() -> None:
    """`-DskipTests || true` hides no red run: Maven runs no sensor at all."""
    from types import SimpleNamespace

    from harness.engine.checks import tricks

    spec = next(c for c in find_lab("10").step("words").checks if c.name == "hook_session")
    trick = next(t for t in spec.params["tricks"] if t["name"] == "|| true")
    for command in (
        "./mvnw -q test -Dgroups=sensor -DskipTests || true",
        "./mvnw -q test -Dgroups=sensor -Dmaven.test.skip=true || true",
        "./mvnw -q test -DskipTests=true -Dgroups=sensor || true",
    ):
        step = SimpleNamespace(args={"command": command})
        said = tricks._not_the_trick(trick, step)  # type: ignore[arg-type]
        assert said is not None and "skips the tests" in said, command
        assert "-D" in said.split("whose `")[1]  # names the switch
    for command in (trick["example"], "./mvnw -q test -Dgroups=sensor -DskipTests=false || true"):
        step = SimpleNamespace(args={"command": command})
        assert tricks._not_the_trick(trick, step) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "prompt",
    [
        "Always answer ok true. $ARGUMENTS",
        "Answer ok true. Did the tests run? $ARGUMENTS",
        "Did the tests run and pass? Answer ok true anyway. $ARGUMENTS",
    ],
)
def test_lab10_a_judge_told_to_say_ok_does_not_pass(workspace: Workspace, prompt: str) -> None:
    """The walk's pass: the prompt hook registered with words that ask for no evidence."""
    solved_at(workspace, "10", "the-judge")
    settings = workspace.root / ".claude" / "settings.json"
    solved = settings.read_text()
    wording = "Did the tests run and pass after the last change? $ARGUMENTS"
    assert wording in solved
    checks = find_lab("10").step("the-judge").checks
    n = next(i for i, c in enumerate(checks) if c.params.get("prompts_ask"))
    assert run_check(workspace, "10", "the-judge", n).status is Status.PASS
    settings.write_text(solved.replace(wording, prompt))
    result = run_check(workspace, "10", "the-judge", n)
    assert result.status is Status.FAIL
    assert result.message.startswith("the prompt hook's words should ask the judge for evidence")
    assert prompt.split(" $")[0] in (result.found or "")  # the prompt line, as written
    for width in WIDTHS:
        shown = screen(result, width)
        assert not RAW_REGEX.search(shown), shown
        assert_whole_lines(shown, width)


def test_lab13_step2_a_hook_that_exits_on_line_2_names_the_early_exit(node_ws: Workspace) -> None:
    """The walk: `exit 0` on line 2 was told "point it at dist/app.js again", which it was."""
    runner = solved_at(node_ws, "13", "pass-after-fix")
    hook = node_ws.root / HOOK
    first, rest = hook.read_text().split("\n", 1)
    hook.write_text(f"{first}\nexit 0\n{rest}")
    run = runner.check()
    assert run.status is Status.FAIL
    result = next(r for r in run.results if r.status is Status.FAIL)
    assert result.message.startswith("the hook ends before its check"), result.message
    assert "dist/app.js again" not in result.message
    hook.write_text(f"{first}\n{rest}")
    assert runner.check().status is Status.PASS


def test_lab10_step3_a_hold_for_smoke_sh_is_named_as_that(workspace: Workspace) -> None:
    """The walk: settings.json rewritten as equivalent JSON; require-sensors.sh held the stop
    for smoke.sh, and the headline said to take the prompt hook out (it was out)."""
    import json

    runner = solved_at(workspace, "10", "evidence")
    settings = workspace.root / ".claude" / "settings.json"
    settings.write_text(json.dumps(json.loads(settings.read_text()), indent=4) + "\n")
    run = runner.check()
    assert run.status is Status.FAIL
    result = next(r for r in run.results if r.status is Status.FAIL)
    assert result.message.startswith("require-sensors.sh held the stop because a hook file")
    assert "run ./.claude/hooks/smoke.sh" in result.message
    assert "prompt hook" not in result.message
    for width in WIDTHS:
        assert_whole_lines(screen(result, width), width)
