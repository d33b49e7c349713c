"""walk-p's free passes, second set (issue 51): each played as the walker did it, each failing
with a message that names its cause."""

from __future__ import annotations

import subprocess

import pytest

from harness.results import Status
from harness.workspace import Workspace
from tests.labs.test_free_passes_walk_kl import CONTRACT, _contract_said

HOOK = "scripts/check-before-stop.sh"


def _hook_text(node_ws: Workspace, command: str) -> str:
    """What ``command`` (walk-p's shell line, run in the workspace) prints from the hook."""
    done = subprocess.run(
        ["sh", "-c", command], cwd=node_ws.root, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_lab12_step1_the_hook_without_its_shebang_is_no_contract(node_ws: Workspace) -> None:
    """`tail -n +2 scripts/check-before-stop.sh > docs/stop-hook-contract.md` passed: the
    hook's header comment has the four labels, and #! was the only sign of a script."""
    status, message = _contract_said(node_ws, _hook_text(node_ws, f"tail -n +2 {HOOK}"))
    assert status is Status.FAIL
    assert message.startswith(f"docs/stop-hook-contract.md is the text of {HOOK} ("), message
    assert "your own words" in message, message


@pytest.mark.parametrize("uncopied", [False, True], ids=["grepped", "typed-as-comments"])
def test_lab12_step1_the_hooks_comment_lines_are_no_contract(
    node_ws: Workspace, uncopied: bool
) -> None:
    """`grep -E '^#   (Claim|Check|Success|Block):' scripts/check-before-stop.sh` passed: a
    line `#   Claim: …` counted as starting with its label."""
    lines = _hook_text(node_ws, f"grep -E '^#   (Claim|Check|Success|Block):' {HOOK}")
    assert len(lines.splitlines()) == 4, lines
    if uncopied:  # the solution's own lines, each made a comment: no copy, no contract line
        lines = "".join(f"#   {line}\n" for line in CONTRACT.read_text().splitlines()[2:])
    status, message = _contract_said(node_ws, lines)
    assert status is Status.FAIL
    if uncopied:
        assert "your Claim: line is a script's comment (“#   Claim: the build is ready" in (
            message
        ), message
    else:
        assert message.startswith(f"docs/stop-hook-contract.md is the text of {HOOK}"), message
