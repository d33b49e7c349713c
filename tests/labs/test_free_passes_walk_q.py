"""walk-q's free passes: a Stop hook that checks only where Hook Lab plays it.

Labs 12 and 13 play the person's hook on a copy made with ``mktemp -d`` (and Hook Lab's own
copies sit in its scratch folder). A hook that checked only when ``$PWD``, its cwd or
``CLAUDE_PROJECT_DIR`` was such a copy, or when its event's ``transcript_path`` was not where
the client keeps transcripts, passed every check and did nothing in a real session. The
checks now play the hook seen at the workspace's own path, its transcript under
``$HOME/.claude/projects/`` (harness/jail_view.py, harness/claude/as_client.py).
"""

from __future__ import annotations

import subprocess

import pytest

from harness import jail_view
from harness.engine.lab_runner import LabRunner
from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_free_passes import at_step
from tests.labs.test_free_passes_walk_kl import MVNW

pytestmark = pytest.mark.skipif(
    not jail_view.available(), reason="bubblewrap cannot make a mount namespace here"
)

PASSED = 'echo "Stop check passed: tests and dist/app.js"; exit 0'
# The shapes of the checks' copies: mktemp's (/tmp/tmp.*) and Hook Lab's scratch folders.
COPIES = "*/tmp.*|*/hooklab-*|/tmp/home-*"
# Each gate, put before the hook's checks: anywhere but a copy, every stop passes.
GATES = {
    "PWD": f'case "$PWD" in {COPIES}) ;; *) {PASSED};; esac\n',
    "cwd": f'case "$(pwd -P)" in {COPIES}) ;; *) {PASSED};; esac\n',
    "CLAUDE_PROJECT_DIR": f'case "${{CLAUDE_PROJECT_DIR:-}}" in {COPIES}) ;; *) {PASSED};; esac\n',
    "transcript_path": (
        'tp=$(printf \'%s\' "$event" | sed -n \'s/.*"transcript_path":"\\([^"]*\\)".*/\\1/p\')\n'
        f'case "$tp" in {COPIES}) ;; *) {PASSED};; esac\n'
    ),
}
ANCHOR = "\nrefuse() {\n"  # after the event is read, before any check


def _failed(ws: Workspace) -> list[str]:
    results = LabRunner(ws).check(every=True).results
    return [r.name for r in results if r.status is Status.FAIL]


def _gate(ws: Workspace, gate: str) -> None:
    hook = ws.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    assert ANCHOR in text, text
    hook.write_text(text.replace(ANCHOR, "\n" + gate + ANCHOR[1:], 1))


@pytest.mark.parametrize("gate", GATES.values(), ids=GATES.keys())
def test_lab12_step2_a_hook_that_checks_only_in_a_copy_does_not_pass(
    node_ws: Workspace, gate: str
) -> None:
    runner = LabRunner(node_ws)
    runner.start("12")
    runner.goto("run-in-band")
    runner.solve(apply=True)
    assert not _failed(node_ws)  # the honest hook passes
    _gate(node_ws, gate)

    failed = _failed(node_ws)

    assert "with a failing test, the hook still blocks" in failed, failed


@pytest.mark.parametrize("gate", GATES.values(), ids=GATES.keys())
def test_lab13_step5_a_hook_that_checks_only_in_a_copy_does_not_pass(
    node_ws: Workspace, gate: str
) -> None:
    runner = LabRunner(node_ws)
    runner.start("13")
    runner.goto("turn-ends")
    runner.solve(apply=True)
    assert not _failed(node_ws)
    _gate(node_ws, gate)

    failed = _failed(node_ws)

    assert "with a failing test, the hook blocks" in failed, failed
    assert "with dist/app.js deleted, the hook blocks" in failed, failed


# ---- Lab 07 steps 2-4: the graded copies (verify_hook), the hook seen at the workspace ------
LAB07_ANCHOR = "\nblock() {\n"
LAB07_GATES = {
    "PWD": 'case "$PWD" in ' + COPIES + ") ;; *) exit 0;; esac\n",
    "transcript_path": (
        'tp=$(printf \'%s\' "$input" | sed -n \'s/.*"transcript_path":"\\([^"]*\\)".*/\\1/p\')\n'
        'case "$tp" in ' + COPIES + ") ;; *) exit 0;; esac\n"
    ),
}


@pytest.mark.maven
@pytest.mark.slow
@pytest.mark.parametrize("gate", LAB07_GATES.values(), ids=LAB07_GATES.keys())
def test_lab07_step2_a_hook_that_checks_only_where_it_is_graded_does_not_pass(
    workspace: Workspace, gate: str
) -> None:
    runner = at_step(workspace, "7", "write-hook")
    runner.solve(apply=True)
    # Fresh green reports in the workspace: here and in a copy as it is now, both hooks let
    # the stop go; only a broken artefact tells the gated hook from the honest one.
    sensors = subprocess.run(MVNW, cwd=workspace.root, capture_output=True, check=False)
    assert sensors.returncode == 0, sensors.stdout
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    assert LAB07_ANCHOR in text, text
    hook.write_text(text.replace(LAB07_ANCHOR, "\n" + gate + LAB07_ANCHOR[1:], 1))

    results = runner.check(every=True).results

    graded = next(r for r in results if r.name.startswith("verify-hook"))
    assert graded.status is Status.FAIL, graded
    assert "seen at your workspace's own path" in graded.message, graded.message
