"""Issue 51 items 2 and 4, the screens walks g and h found: ``found:`` dumping a one-line
settings.json of 1,600 characters, a command in a FAIL headline broken over three lines, long
waits without a progress line, step numbers counted from 0 and a missing ``[[step]]`` said in a
parser's words.

Real: the labs' own lab.toml and checks, provisioned workspaces, screens at 80, 100 and 120
columns.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.engine.context import CheckContext
from harness.engine.excerpt import excerpt
from harness.engine.manifest import find_lab
from harness.grading import grade_stop_hook
from harness.grading.stop_grade import BLOCKS, OTHER_BREAKS
from harness.results import CheckResult, Status
from harness.ui.activity_view import ProgressLines
from harness.ui.lab_view import result_renderable
from harness.workspace import Workspace
from tests.builders import PLAIN_SCREEN, run_cli
from tests.lines import shell_joined
from tests.ui.screens import WIDTHS, shown


def row(screen: str, label: str) -> str:
    """The text of an ``expected:``/``found:`` row, its wrapped lines joined."""
    lines = screen.splitlines()
    first = next(n for n, ln in enumerate(lines) if ln.lstrip().startswith(label))
    taken = [lines[first].split(label, 1)[1].strip()]
    for line in lines[first + 1 :]:
        if not line.startswith(" " * 4) or line.lstrip().endswith(":") or ":  " in line[:12]:
            break
        taken.append(line.strip())
    return " ".join(taken)


# ---- 1. found: shows the matching entry, never a whole long line ----------------------------

PROMPT_HOOK = {
    "type": "prompt",
    "prompt": "Did the tests run and pass after the last change? $ARGUMENTS",
    "timeout": 30,
}


@pytest.mark.parametrize("width", WIDTHS)
def test_lab10_step3_found_is_the_prompt_entry_of_a_one_line_settings(
    workspace: Workspace, width: int
) -> None:
    """Walk h's worst screen: settings.json compacted to one line (``"type":"prompt"``), the
    file check of Lab 10 step 3 said ``found:`` and the whole 1,600-character line."""
    path = workspace.root / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    settings["hooks"]["Stop"][0]["hooks"].append(PROMPT_HOOK)
    path.write_text(json.dumps(settings, separators=(",", ":")))
    assert len(path.read_text()) > 1000
    lab = find_lab("10")
    spec = next(c for c in lab.step("evidence").checks if c.name == "file")
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.typed)
    assert result.status is Status.FAIL, result
    assert result.found == json.dumps(PROMPT_HOOK, separators=(",", ":")), result.found
    screen = shown(result_renderable(result), width)
    assert "extraKnownMarketplaces" not in screen and "permissions" not in screen, screen
    entry = result.found
    assert any(entry in line for line in screen.splitlines()), screen  # whole, to copy
    assert all(len(line) <= width for line in screen.splitlines() if entry not in line), screen


def test_a_long_line_without_an_entry_that_fits_is_a_window_marked_cut() -> None:
    """No object around the match fits: a window around it, cut at a space or a comma (no
    word split), ``…`` on each side cut; a short line is whole; no match: no whole line."""
    words = " ".join(f"word{n}" for n in range(400))
    shown_ = excerpt(words, "word200")
    assert shown_.startswith("…") and shown_.endswith("…") and len(shown_) <= 100, shown_
    assert "word200" in shown_
    assert all(piece.startswith("word") for piece in shown_.strip("…").split()), shown_
    assert excerpt("a short line", "short") == "a short line"
    assert len(excerpt(words, "absent")) <= 100
    entry = '{"a":"' + "x" * 200 + '","type":"prompt"}'
    compact = '{"hooks":{"Stop":[' + entry + '],"other":"' + "y " * 100 + '"}}'
    cut = excerpt(compact, '"prompt"')
    assert '"type":"prompt"' in cut and len(cut) <= 100 and cut.startswith("…"), cut
    assert excerpt(compact.replace("x" * 200, "x"), '"prompt"') == entry.replace("x" * 200, "x")


# ---- 2. a command quoted in a FAIL headline stays whole ------------------------------------

SED = (
    'sed -i \'s/failures="0"/failures="1"/\' '
    "target/surefire-reports/TEST-ai.unifiedprocess.petclinic.ArchitectureTest.xml"
)


@pytest.mark.parametrize("width", WIDTHS)
def test_lab07_step2_a_command_in_the_headline_is_one_line(width: int) -> None:
    """Walk g, Lab 07 step 2: the headline broke the sed a person copies over three lines
    (``sed -i`` / ``'s/…/'`` / ``target/…xml``); the box below kept it whole."""
    result = CheckResult.failed(
        "check-before-stop.sh: 3 of 10 checks fail (2 not judged): never blocks; the session "
        f"is not held; lets the turn end after `{SED}`",
        name="verify-hook scripts/check-before-stop.sh",
        expected="exit 2",
    )
    screen = shown(result_renderable(result), width)
    lines = screen.splitlines()
    # Whole to the shell: on one line, or over lines ending in " \\" where it is wider.
    assert f"`{SED}`" in shell_joined(screen), lines
    assert all(len(line) <= width for line in lines), lines


# ---- 4. words: steps counted from 1 in plain words, an empty scenario said as such ----------


@pytest.mark.parametrize("width", WIDTHS)
def test_lab03_step2_an_empty_tricks_file_says_no_step_yet_with_an_example(
    workspace: Workspace, width: int
) -> None:
    """Walk g, Lab 03 step 2 with an empty tricks.toml: ``step: missing required field`` /
    ``fix: add step (an array of tables, required)``, a parser's words."""
    lab = find_lab("3")
    tricks = workspace.root / "scenarios" / "tricks.toml"
    tricks.parent.mkdir(exist_ok=True)
    tricks.write_text("# my tricks, to come\n")
    spec = next(c for c in lab.step("tricks").checks if c.name == "hook_session")
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.typed)
    assert result.status is Status.FAIL, result
    screen = shown(result_renderable(result), width)
    assert "missing required field" not in screen and "array of tables" not in screen, screen
    assert "has no [[step]] yet" in screen, screen
    lines = [line.strip() for line in screen.splitlines()]
    at = lines.index("[[step]]")
    assert lines[at + 1] == 'do = "session_start"', screen
    assert all(len(line) <= width for line in screen.splitlines() if "/" not in line), screen


def test_lab04_step2_an_audit_with_a_gap_names_its_step_in_words(workspace: Workspace) -> None:
    """Walk g, Lab 04 step 2: ``the audit in scenarios/status-guard.toml (step[3]) reports a
    gap``; the run shows ``3 subagent_stop``: the step is said as a run says it, ``step 3``."""
    lab = find_lab("4")
    step = next(s for s in lab.steps if any(c.name == "scenario" for c in s.checks))
    spec = next(c for c in step.checks if c.name == "scenario")
    rel = str(spec.typed.path)  # type: ignore[attr-defined]
    scenario = workspace.root / rel
    scenario.parent.mkdir(exist_ok=True)
    solved = (lab.dir / "solution" / "status-guard-2.toml").read_text()
    gap = "UC-005 is not fully covered by tests: A2 has no test."
    covered = "UC-005: every step, flow and rule is covered. No gaps."
    scenario.write_text(solved.replace(covered, gap))
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.typed)
    assert result.status is Status.FAIL, result
    said = f"{result.message}\n{result.found}"
    assert "step[" not in said and "(step 3)" in said, said


# ---- 5. Lab 11 step 4's hints name auto mode's refusal of the audit agent -------------------


def test_lab11_step4_hints_name_the_refusal_of_auto_mode() -> None:
    """Walk h: after ``Not run · auto mode's check had no usable answer`` on the audit agent,
    hint 1 said to run claude in the workspace folder and hint 2 to type the audit, which meets
    the same refusal. The check's own fix: ``claude --permission-mode manual``, answer Yes."""
    step = next(s for s in find_lab("11").steps if s.index == 3)
    for hint in step.hints[:2]:
        assert "Not run" in hint and "`claude --permission-mode manual`" in hint, hint
        assert "answer Yes" in hint, hint


# ---- 3. a long wait shows progress where no spinner can be drawn ----------------------------


def test_lab_check_in_a_pipe_says_what_it_is_doing_and_keeps_saying_it(
    workspace: Workspace,
) -> None:
    """Walk h: `lab next` re-verified for 55 s and Lab 10 step 2's check ran 90 s with no
    line between the rows and the verdict: no terminal, so no spinner. Lab 06 step 2's check
    (the hooks' smoke tests, 10-20 s in one session step) in a pipe: each activity a line on
    stderr, a line every 10 s of a long one; stdout keeps the results, no colour codes."""
    for args in (["start", "6"], ["goto", "2"], ["solve", "--apply"]):
        assert run_cli(*args, cwd=workspace.root).code == 0
    env = {**os.environ, **PLAIN_SCREEN}
    results = workspace.root.parent / "stdout.txt"
    with results.open("w") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness", "check"],
            cwd=workspace.root,
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stderr is not None
        stamped = [(time.monotonic(), line.rstrip("\n")) for line in proc.stderr]
        ended = time.monotonic()  # stderr closes as the process ends
        assert proc.wait(timeout=60) in (0, 1)
    out = results.read_text()
    said = [line for _, line in stamped]
    assert said and all(line.startswith("… ") for line in said), said
    assert any("session step" in line for line in said), said
    assert "\x1b[" not in "".join(said) + out and "… session" not in out
    times = [at for at, _ in stamped] + [ended]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # The rows on stdout come between; stderr alone never stands still past a beat.
    assert max(gaps, default=0) < ProgressLines.EVERY + 3, stamped
    assert all(len(line) <= 100 for line in said), said


# ---- 6. a hook whose own build repairs the break is told so ---------------------------------

BUILD = (
    'mkdir -p target/surefire-reports && printf \'%s\\n\' \'<testsuite tests="1" failures="0">'
    "</testsuite>' > target/surefire-reports/TEST-Sensor.xml"
)
REBUILDS = f"""#!/usr/bin/env bash
# Runs the build itself, then blocks only when the build fails.
cat >/dev/null
cd "$CLAUDE_PROJECT_DIR" || exit 1
{BUILD}
if grep -q 'failures="0"' target/surefire-reports/TEST-Sensor.xml; then exit 0; fi
echo "the sensors fail: run ./mvnw test" >&2
exit 2
"""


def test_lab07_step2_a_hook_that_rebuilds_is_told_its_build_repaired_the_break(
    tmp_path: Path,
) -> None:
    """Walk g, Lab 07 step 2: a hook that runs ./mvnw itself and blocks only when it fails got
    "never blocks" with no word that its own build wrote the broken reports again. Real: the
    grader, a bash hook, the emulator's session (the build is a one-line stand-in for Maven)."""
    root = tmp_path / "ws"
    (root / "scripts").mkdir(parents=True)
    hook = root / "scripts" / "check-before-stop.sh"
    hook.write_text(REBUILDS)
    hook.chmod(0o755)
    subprocess.run(["bash", "-c", BUILD], cwd=root, check=True)  # a green run before
    red = 'sed -i \'s/failures="0"/failures="1"/\' target/surefire-reports/TEST-Sensor.xml'
    grade = grade_stop_hook(
        root,
        hook,
        break_cmd="rm -rf target/surefire-reports",
        fix_cmd=BUILD,
        other_breaks=(red,),
    )
    blocks = grade.check(BLOCKS)
    assert blocks.failed, blocks
    said = f"{blocks.problem} {blocks.detail}"
    assert "its own build repaired the break" in said, said
    assert "target/surefire-reports/TEST-Sensor.xml" in said, said
    assert "instead of running the build" in blocks.fix, blocks.fix
    other = grade.check(OTHER_BREAKS)
    assert other.failed and other.problem == f"its own build repaired `{red}`", other
    assert "TEST-Sensor.xml again itself" in other.detail, other
