"""A step whose check a person's own instrument fails names the instrument: Lab 06 step 2 with
smoke.sh replaced by a stub that prints green and exits 0 (the second walk, issue 51). The stub
records no green run, so the Stop hook holds the turn and names smoke.sh among the hooks
changed; the failure says so, and how to put smoke.sh back. Real: the lab's own check, the
workspace's bash hooks on the emulator."""

from __future__ import annotations

from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.results import Status
from harness.workspace import Workspace

SMOKE = ".claude/hooks/smoke.sh"


def test_lab06_a_stub_smoke_sh_is_named_with_the_way_back(workspace: Workspace) -> None:
    runner = LabRunner(workspace)
    runner.start("06")
    runner.goto("broken-hook")
    (workspace.root / SMOKE).write_text("#!/usr/bin/env bash\necho 'smoke: 54 passed'\nexit 0\n")
    lab = find_lab("06")
    spec = lab.step("broken-hook").checks[0]
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.params)
    assert result.status is Status.FAIL
    assert result.message.endswith(f"it was changed and records no run: git checkout {SMOKE})")
    # The Stop hook's own reason, shown with the session's steps, names smoke.sh as changed.
    assert SMOKE in result.details["session"][2]["feedback"].split("last green smoke.sh:")[1]
