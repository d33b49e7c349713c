"""Issue 51, the walk of Labs 08–13 by walk-f: each free pass a newcomer found, tried as they
wrote it, fails its check; each confusing line reads in words.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports, the workspace's bash hooks (jq, grep) on the emulator, real git.
"""

from __future__ import annotations

import pytest

from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_free_passes import at_step, check_at

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
