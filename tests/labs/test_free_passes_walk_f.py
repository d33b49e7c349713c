"""Issue 51, the walk of Labs 08–13 by walk-f: each free pass a newcomer found, tried as they
wrote it, fails its check; each confusing line reads in words.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports, the workspace's bash hooks (jq, grep) on the emulator, real git.
"""

from __future__ import annotations

import pytest

from harness.engine.progress import Progress
from harness.results import Status
from harness.workspace import Workspace
from tests.builders import git, run_cli
from tests.labs.test_free_passes import at_step, check_at

PROGRESS = "refs/hooklab/progress"

# ---- Lab 10 step 2: a require-sensors.sh that judges the words, not the reports -----------
# walk-f's line 2 of the hook: the transcript's Bash commands grepped for the five tricks,
# everything else let go; no report read.
WORD_JUDGE = (
    'in=$(cat); t=$(jq -r .transcript_path <<<"$in"); cmds=$(jq -r '
    '"select(.type==\\"assistant\\") | .message.content[]? | select(.type==\\"tool_use\\") | '
    '(.input.command // \\"\\") + (if .input.run_in_background then \\" BG\\" else \\"\\" end)" '
    '"$t" 2>/dev/null); if grep -qE "tail -3|/dev/null|\\|\\| true|-Dtest=| BG" <<<"$cmds"; '
    'then echo "held: a trick" >&2; exit 2; fi; exit 0\n'
)


@pytest.mark.maven
@pytest.mark.slow
def test_lab10_a_require_sensors_that_greps_the_commands_does_not_pass_the_words_step(
    workspace: Workspace,
) -> None:
    """walk-f: the hook held every trick by its command and let the check's clean, green run
    go, so "all 5 tricks ... held by the reports" and "require-sensors.sh lets a real, green
    run end the turn" both passed, though it read no report."""
    runner = at_step(workspace, "10", "words")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved), solved
    honest_red = check_at(runner, 2)
    assert honest_red.status is Status.PASS, honest_red.found  # the seed's hook reads them
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    lines = hook.read_text().splitlines(keepends=True)
    hook.write_text("".join([lines[0], WORD_JUDGE, *lines[1:]]))

    green, red = check_at(runner, 1), check_at(runner, 2)

    assert green.status is Status.PASS, green.found  # the walk's pass, as it was
    assert red.status is Status.FAIL
    assert red.message.startswith("a plain sensor run that is red"), red.message


# ---- Lab 09: the quiz's record, rewound or reset ------------------------------------------
WRONG_09 = 'q1 = "b"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n'
RIGHT_09 = 'q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = ["c"]\nq5 = "a"\n'


def test_lab09_rewinding_the_progress_ref_does_not_erase_a_wrong_try(
    workspace: Workspace,
) -> None:
    """walk-f: `git update-ref refs/hooklab/progress <at step quiz>` after a wrong try; the
    next lab check judged at once: a loop of rewinds guessed without a wait."""
    root = workspace.root
    at_step(workspace, "9", "quiz")
    at = git(root, "log", "--format=%H", "--grep=09-read-the-adrs: at step quiz", PROGRESS)
    at = at.splitlines()[0]
    (root / "answers").mkdir(exist_ok=True)
    (root / "answers" / "adr-quiz.toml").write_text(WRONG_09)
    first = run_cli("check", cwd=root)
    assert first.code == 1 and "1 of 5 answers wrong" in first.out, first.out
    tip = git(root, "rev-parse", PROGRESS).strip()

    git(root, "update-ref", PROGRESS, at)
    again = run_cli("check", cwd=root)

    assert again.code == 1
    assert "too soon after a wrong try: not judged" in " ".join(again.out.split()), again.out
    # The record the rewind dropped is back under the chain: the wrong try, counted once.
    chain = git(root, "rev-list", "--first-parent", PROGRESS).split()
    assert tip in chain
    quiz = Progress.load(Workspace(root)).labs["09-read-the-adrs"].steps["quiz"]
    assert quiz.quiz_tries == 1


def test_lab09_a_reset_keeps_the_with_lab_solve_mark(workspace: Workspace) -> None:
    """walk-f: lab solve --apply, lab reset, the same five answers typed by hand, lab check:
    lab status said "passed" with no "(with lab solve)" any more, and so did the trainer's."""
    root = workspace.root
    at_step(workspace, "9", "quiz")
    assert run_cli("solve", "--apply", cwd=root).code == 0
    typed = (root / "answers" / "adr-quiz.toml").read_text()
    assert run_cli("reset", cwd=root).code == 0
    (root / "answers").mkdir(exist_ok=True)
    (root / "answers" / "adr-quiz.toml").write_text(typed)

    assert run_cli("check", cwd=root).code == 0

    quiz = Progress.load(Workspace(root)).labs["09-read-the-adrs"].steps["quiz"]
    assert quiz.passed and quiz.solved_with_help
    status = run_cli("status", cwd=root)
    assert "with lab solve" in status.out, status.out
