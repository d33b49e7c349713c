"""Free passes of issue 51 still open after round 8, each tried as the walker (walk-i, walk-j)
wrote it.

Real: the shipped labs' setup and checks on a provisioned workspace, real Maven where a step
runs it, the workspace's bash hooks. The Maven shim is a real program first on the PATH, as a
person's ``~/.local/bin/mvn`` is.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from harness.maven.surefire import SENSORS
from harness.results import Status
from harness.workspace import Workspace
from tests.builders import run_lab_process
from tests.labs.solved import checked, solved_at
from tests.labs.step_edits import HONEST_07, HONEST_12, with_line
from tests.labs.test_free_passes import LABS, at_step, check_at

# ---- walk-i B and C: a Maven shim first on the PATH ------------------------------------------
# walk-i's ~/.local/bin/mvn: for the sensors it writes five green reports named after each
# sensor's @Test methods (no Maven runs, the sensors may be red); anything else goes to Maven.
# walk-i B forged only once the test class had their comment (the tricks before it stay real).
WALKI = "grep -qs '// walki' src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"
SHIM = r"""#!/usr/bin/env bash
if WHEN [[ "$*" == *-Dgroups=sensor* ]]; then
    out=target/surefire-reports
    rm -rf "$out"; mkdir -p "$out"
    for s in SENSORS; do
        src=$(find src/test -name "$s.java"); pkg=$(sed -n 's/^package \(.*\);/\1/p' "$src")
        names=$(grep -A3 '@Test' "$src" | grep -oE 'void [a-zA-Z0-9_]+' | awk '{print $2}')
        n=$(echo "$names" | wc -l)
        { echo '<?xml version="1.0" encoding="UTF-8"?>'
          echo "<testsuite name=\"$pkg.$s\" time=\"0.050\" tests=\"$n\" errors=\"0\"" \
               "skipped=\"0\" failures=\"0\">"
          echo "  <properties/>"
          for m in $names; do
              echo "  <testcase name=\"$m\" classname=\"$pkg.$s\" time=\"0.001\"/>"
          done
          echo "</testsuite>"; } > "$out/TEST-$pkg.$s.xml"
        summary='Tests run: %s, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.050 s - in %s'
        printf "Test set: %s\n$summary\n" "$pkg.$s" "$n" "$pkg.$s" > "$out/$pkg.$s.txt"
    done
    exit 0
fi
exec REAL_MVN "$@"
"""


def _shim_first_on_path(home: Path, monkeypatch: pytest.MonkeyPatch, when: str = "") -> Path:
    """walk-i: ``~/.local/bin/mvn`` (Debian's ~/.profile puts ~/.local/bin first), forging
    only ``when`` that shell test holds (default: always, walk-i C)."""
    real = shutil.which("mvn")
    assert real, "Maven is not installed here"
    folder = home / ".local" / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "mvn"
    text = SHIM.replace("SENSORS", " ".join(SENSORS)).replace("REAL_MVN", real)
    shim.write_text(text.replace("WHEN ", f"{when} && " if when else ""))
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return shim


@pytest.mark.maven
def test_lab03_step2_a_maven_shim_on_the_path_does_not_pass_the_tricks(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-i B: tricks.toml's last turn only comments the test class (the annotation stays
    broken), the shim writes green reports for ./mvnw -q test -Dgroups=sensor."""
    runner = at_step(workspace, "3", "tricks")
    solved = (LABS / "03-stop-hook" / "solution" / "tricks.toml").read_text()
    fix = 'old = "A1: Missing Text"\nnew = "A1: Missing Description"'
    assert solved.count(fix) == 1
    shimmed = solved.replace(
        fix, 'old = "class UC005AddVisitTest {"\nnew = "class UC005AddVisitTest { // walki"'
    )
    (workspace.root / "scenarios" / "tricks.toml").write_text(shimmed)
    shim = _shim_first_on_path(tmp_path / "home", monkeypatch, WALKI)

    run = runner.check()

    assert run.status is Status.FAIL
    said = run.results[-1]
    assert said.status is Status.FAIL
    assert said.message.startswith(f"./mvnw would run {shim}, not the mvn lab init found"), (
        said.message
    )
    assert "so this check did not run" in said.message
    assert (said.found or "").startswith(f"{shim} ({shim}, sha256 ")
    assert said.details["fix"].startswith(f"remove {shim} (or take its folder off your PATH)")
    assert f"run lab init {workspace.root} again" in said.details["fix"]


@pytest.mark.maven
def test_lab01_step1_reports_a_maven_shim_wrote_do_not_pass(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same shim at Lab 01 step 1: the person's ./mvnw run is the shim's, so the reports
    are no Maven run's. lab check refuses by name, from the person's terminal."""
    at_step(workspace, "1", "run-sensors")
    shim = _shim_first_on_path(tmp_path / "home", monkeypatch)
    subprocess.run(["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=workspace.root, check=True)
    assert len(list((workspace.root / "target" / "surefire-reports").glob("TEST-*.xml"))) == 5

    done = run_lab_process("check", cwd=workspace.root, env={"NO_COLOR": "1", "COLUMNS": "100"})

    assert done.returncode == 1, done.stdout
    screen = " ".join(done.stdout.split())
    assert f"./mvnw would run {shim}, not the mvn lab init found" in screen, done.stdout


@pytest.mark.maven
def test_a_maven_installed_on_purpose_is_recorded_by_lab_init_again(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal's fix for a Maven installed on purpose (Homebrew's, SDKMAN's): lab init in
    the workspace again records it, and the check runs again."""
    runner = at_step(workspace, "1", "run-sensors")
    _shim_first_on_path(tmp_path / "home", monkeypatch)
    assert runner.check().results[0].message.startswith("./mvnw would run")

    again = run_lab_process("init", str(workspace.root), cwd=tmp_path)

    assert again.returncode == 0, again.stderr
    # said aloud (walk-o M: the record is what the checks trust, and it changed)
    assert "The Maven the checks trust is now" in " ".join(again.stdout.split()), again.stdout
    said = runner.check().results[0]
    assert not said.message.startswith("./mvnw would run"), said.message


def test_lab03_step3_the_live_check_refuses_with_a_maven_shim_on_the_path(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-i C: the live session's sensor run went to the shim (green reports, red sensors).
    The live check reads what that run wrote, so it refuses while ./mvnw runs another mvn."""
    runner = at_step(workspace, "3", "your-session")
    shim = _shim_first_on_path(tmp_path / "home", monkeypatch)

    results = runner.check(every=True).results

    live = [r for r in results if r.name.startswith("your session")]  # named by its title
    assert live and live[0].status is Status.FAIL, [r.message for r in results]
    assert live[0].message.startswith(f"./mvnw would run {shim}"), live[0].message


# ---- Lab 08 step 2: the naming rule kept, inline in settings.json, OwnerStore.java exempt ----
INLINE_RULE = (
    "f=$(jq -r .tool_input.file_path); case $f in */repository/OwnerStore.java) ;; "
    "*/petclinic/repository/*Repository.java) ;; */petclinic/repository/*.java) "
    'echo "Refused: ${f##*/}: name it ...Repository." >&2; exit 2;; esac'
)


def test_lab08_step2_a_naming_rule_inline_in_settings_that_spares_ownerstore_does_not_pass(
    workspace: Workspace,
) -> None:
    """The hook file deleted and its entry gone as the step asks, but the rule written inline
    in .claude/settings.json, sparing the one name the step plays (walk-j's exemption, moved
    out of the hooks folder the shipped check reads)."""
    runner = at_step(workspace, "8", "drop-hook")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved), solved
    settings = workspace.root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    entry = {"matcher": "Write", "hooks": [{"type": "command", "command": INLINE_RULE}]}
    data["hooks"].setdefault("PreToolUse", []).append(entry)
    settings.write_text(json.dumps(data, indent=2) + "\n")

    run = runner.check(every=True)

    assert run.status is Status.FAIL
    # Two checks refuse it: the settings' new hook on Claude's writes (walk-s) and the session.
    (guard,) = [r for r in run.results if r.name == "no guard left"]
    assert guard.status is Status.FAIL
    assert "registers a hook the step's start did not have" in guard.message, guard.message
    said = run.results[-1]
    assert said.status is Status.FAIL, said
    assert said.name.startswith("Claude writes repository/OwnerStore.java, "), said.name
    assert "{random}" not in said.name
    assert said.message.startswith("a hook still refuses a repository class by its name"), (
        said.message
    )
    assert (said.found or "").startswith("session step 3 (write src/main/java/"), said.found
    assert "this check needs allowed, it was blocked" in (said.found or "")
    assert "OwnerStore" not in said.message


def test_lab08_step2_the_honest_removal_still_passes_with_made_up_names(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "8", "drop-hook")

    run = runner.check()

    assert run.status is Status.PASS, [r.message for r in run.results]
    title = run.results[-1].message
    assert "{random}" not in title


# ---- Lab 07 step 2 (walk-i I): a hook that never holds in the workspace's own path -----------
def _hook_with_a_line_after_cd(workspace: Workspace, line: str) -> Path:
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    anchor = 'cd "$project" || exit 0\n'
    assert text.count(anchor) == 1
    hook.write_text(text.replace(anchor, anchor + line + "\n"))
    return hook


@pytest.mark.maven
def test_lab07_step2_a_hook_that_lets_its_own_workspace_go_does_not_pass(
    workspace: Workspace,
) -> None:
    """The honest hook plus `[ "$project" = <workspace> ] && exit 0` after its cd: every graded
    case on a copy blocks as it should, the workspace itself is never held."""
    runner = solved_at(workspace, "7", "write-hook")
    _hook_with_a_line_after_cd(workspace, f'[ "$project" = {workspace.root} ] && exit 0')

    run = runner.check()

    assert run.status is Status.FAIL
    said = run.results[-1]
    assert said.name == "verify-hook scripts/check-before-stop.sh", said.name
    assert said.message.startswith(
        f"scripts/check-before-stop.sh names this workspace's own path ({workspace.root})"
    ), said.message
    assert said.found == (
        f'scripts/check-before-stop.sh: [ "$project" = {workspace.root} ] && exit 0'
    )
    assert "$CLAUDE_PROJECT_DIR" in said.details["fix"]


@pytest.mark.maven
def test_lab07_step2_a_hook_that_tells_its_workspace_by_a_mark_no_copy_has_does_not_pass(
    workspace: Workspace,
) -> None:
    """The same without the path in its text: the workspace told apart by a file of its own
    that no copy has. Run in place and in a copy, the hook answers two ways."""
    runner = solved_at(workspace, "7", "write-hook")
    mark = Path(f"{workspace.root}.mine")
    mark.write_text("")
    _hook_with_a_line_after_cd(workspace, '[ -e "$PWD.mine" ] && exit 0')
    shutil.rmtree(workspace.root / "target" / "surefire-reports", ignore_errors=True)

    run = runner.check()

    assert run.status is Status.FAIL
    said = run.results[-1]
    assert said.message.startswith(
        "scripts/check-before-stop.sh exits 0 in your workspace and 2 in a copy of it"
    ), said.message


# ---- Contract words (walk-i H, Lab 07 step 1; walk-j, Lab 12 step 1) -------------------------
LAB07_HUNG = [
    (
        "Check",
        "Claude's own word that the reports in target/surefire-reports/ are fresh and green, "
        "with no failure or error.",
        "your Check: line rests on what Claude says (“Claude's own word”)",
    ),
    ("Success", "exit 0 whenever Claude says done.", "rests on what Claude says (“Claude says”)"),
    (
        "Block",
        "exit 2 with a short reason on stderr naming ./mvnw -q test -Dgroups=sensor, on Sundays "
        "only.",
        "your Block: line puts a condition on it that is not the evidence (“on Sundays only”)",
    ),
]


@pytest.mark.parametrize(("part", "line", "said"), LAB07_HUNG)
def test_lab07_step1_a_contract_line_hung_on_something_else_fails_naming_it(
    workspace: Workspace, part: str, line: str, said: str
) -> None:
    runner = at_step(workspace, "7", "contract")
    contract = workspace.root / "docs" / "stop-hook-contract.md"
    contract.write_text(with_line(HONEST_07, f"{part}: {line}"))

    result = check_at(runner, 0)

    assert result.status is Status.FAIL
    assert said in result.message, result.message
    assert f"✘ {part}: " in (result.found or "")


# walk-j: each after the honest Check: and Success: lines of Lab 12, all passed.
LAB12_HUNG = [
    (", both ignored by the hook", "“both ignored by the hook”, which names neither"),
    (" (TODO: not wired up yet)", "“TODO”, which names neither"),
    (", only in theory", "a condition on it that is not the evidence (“only in theory”)"),
    (", disregarded", "“disregarded”, which names neither"),
    (", but the hook does not run them", "“the hook does not run them”: that takes back"),
    (", commented out for now", "“commented out for now”, which names neither"),
    (", which the hook returns every time", "“which the hook returns every time”"),
    (", whatever the checks say", "“whatever” makes it hold whatever the evidence says"),
    (" (disabled)", "“disabled”, which names neither"),
    (", we removed this", "“we removed this”, which names neither"),
    (", which Claude may say without the checks", "rests on what Claude says (“Claude may say”)"),
]


@pytest.mark.parametrize(("tail", "said"), LAB12_HUNG)
@pytest.mark.parametrize("part", ["Check", "Success"])
def test_lab12_step1_a_clause_that_takes_the_line_back_fails_naming_it(
    node_ws: Workspace, part: str, tail: str, said: str
) -> None:
    runner = at_step(node_ws, "12", "four-lines")
    honest = next(
        line.split(":", 1)[1].strip()
        for line in HONEST_12.splitlines()
        if line.startswith(f"{part}:")
    )
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir(exist_ok=True)
    contract.write_text(with_line(HONEST_12, f"{part}: {honest}{tail}"))

    result = check_at(runner, 0)

    assert result.status is Status.FAIL, result.found
    assert f"your {part}: line " in result.message and said in result.message, result.message


def test_lab07_the_honest_contract_still_passes(workspace: Workspace) -> None:
    runner = at_step(workspace, "7", "contract")
    (workspace.root / "docs" / "stop-hook-contract.md").write_text(HONEST_07)
    result = check_at(runner, 0)
    assert result.status is Status.PASS, result.found


def test_lab12_the_honest_contract_still_passes(node_ws: Workspace) -> None:
    runner = at_step(node_ws, "12", "four-lines")
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir(exist_ok=True)
    contract.write_text(HONEST_12)
    result = check_at(runner, 0)
    assert result.status is Status.PASS, result.found


# ---- Quiz loops: a throwaway workspace per try (walk-j), the progress rolled back (walk-i A) --
ALL_A = 'q1 = "a"\nq2 = "a"\nq3 = "a"\nq4 = ["a"]\nq5 = "a"\n'


def _lab_check_with(root: Path, answers: str) -> str:
    (root / "answers").mkdir(exist_ok=True)
    (root / "answers" / "adr-quiz.toml").write_text(answers)
    done = run_lab_process("check", cwd=root, env={"NO_COLOR": "1", "COLUMNS": "100"})
    return " ".join(done.stdout.split())


def test_a_new_workspace_per_try_waits_as_the_first_one_did(tmp_path: Path) -> None:
    """walk-j's quizloop.sh: `lab init W; cd W; lab start 9`, the answers, `lab check`, in a
    new workspace each time; the first try of each was judged at once ("N of 5 answers
    wrong"), so ten workspaces found all five answers in 74 s."""
    said = []
    for n in (1, 2):
        root = tmp_path / f"w{n}"
        assert run_lab_process("init", str(root), cwd=tmp_path).returncode == 0
        assert run_lab_process("start", "9", cwd=root).returncode == 0
        said.append(_lab_check_with(root, ALL_A))

    assert "answers wrong" in said[0], said[0]
    assert "too soon after a wrong try: not judged; lab check again in " in said[1], said[1]
    assert "answers wrong" not in said[1] and "answers right" not in said[1]


def test_rolling_back_the_progress_and_its_tip_keeps_the_wait(tmp_path: Path) -> None:
    """walk-i A: before each try, refs/hooklab/progress and workspace.json's progress_tip
    set back to the commit before the first wrong try; each try was a first try again."""
    root = tmp_path / "ws"
    assert run_lab_process("init", str(root), cwd=tmp_path).returncode == 0
    assert run_lab_process("start", "9", cwd=root).returncode == 0
    at = subprocess.run(
        ["git", "rev-parse", "refs/hooklab/progress"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    first = _lab_check_with(root, ALL_A)
    assert "answers wrong" in first, first

    subprocess.run(["git", "update-ref", "refs/hooklab/progress", at], cwd=root, check=True)
    meta = root / ".git" / "hooklab" / "workspace.json"
    data = json.loads(meta.read_text())
    data["progress_tip"] = at
    meta.write_text(json.dumps(data))
    second = _lab_check_with(root, ALL_A.replace('q1 = "a"', 'q1 = "b"'))

    assert "too soon after a wrong try: not judged" in second, second


def test_only_the_persons_lab_check_waits_for_this_machines_tries(workspace: Workspace) -> None:
    """lab dev check, the re-verification and lab watch judge the workspace's own tries: a
    participant's wrong tries on this computer never fail the lab's proof."""
    from harness.engine import quiz_record

    runner = at_step(workspace, "9", "quiz")
    lab, step = runner.current()
    quiz_record.record_wrong(quiz_record.quiz_key(lab.id, step.id))
    runner.solve(apply=True)

    assert runner.check().status is Status.PASS
    said = runner.check(record_failure=True).results[-1]
    assert said.message.startswith("too soon after a wrong try"), said.message


# ---- Lab 06 step 2: smoke.sh's record written by hand, the planted bug kept -------------------
GUARD_ITSELF = "the status guard itself: Done refused without an audit, allowed after it"
WHOLE_SMOKE = "the workshop's own smoke.sh (every group) against your hooks"


@pytest.mark.slow
def test_lab06_step2_a_hand_written_smoke_record_with_the_bug_kept_does_not_pass(
    workspace: Workspace,
) -> None:
    """Closed before this round (the guard played in a session of its own, the shipped smoke.sh
    run by the check, the guard's code since the lab began); kept as the brief's repro: the
    record smoke.sh writes on a green run, written by hand over the broken guard, vouches for
    nothing the step asks."""
    runner = at_step(workspace, "6", "broken-hook")
    hooks = sorted((workspace.root / ".claude" / "hooks").glob("*.sh"))
    lines = []
    for hook in hooks:
        rel = str(hook.relative_to(workspace.root))
        blob = subprocess.run(
            ["git", "hash-object", "--no-filters", "--", rel],
            cwd=workspace.root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        lines.append(f"{blob} {rel}\n")
    (workspace.git_dir / "aiup-smoke-ran").write_text("".join(lines))
    guard = workspace.root / ".claude" / "hooks" / "guard-spec-status.sh"
    assert '[ -n "$problem" ] && exit 0' in guard.read_text()

    # The two checks it fails, not the step's every check (its smoke.sh session too).
    results = checked(runner, GUARD_ITSELF, WHOLE_SMOKE)

    failed = {r.name for r in results if r.status is Status.FAIL}
    assert "the status guard itself: Done refused without an audit, allowed after it" in failed
    assert "the workshop's own smoke.sh (every group) against your hooks" in failed
