"""Every lab's starting and solved ``.claude/settings.json`` loads in the pinned Claude Code
client: a session started there runs the file's SessionStart hook, its status guard refuses
Done, and, where the file registers the lab's repository-name hook, that hook refuses a Write.
A file the client cannot parse runs no hook at all (Lab 08 once started with one: its
colleague's hook, and every other, could never run).

Real: the pinned client with the scripted model, the workspace's bash hooks, the labs' files as
their own setup and solve actions leave them (applied with the harness's own actions).
"""

from __future__ import annotations

import json

import pytest

from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab, load_labs
from harness.results import Status
from harness.workspace import Workspace
from tests.conftest import require_real_client
from tests.engine.test_checks import check

SETTINGS = ".claude/settings.json"


def _touches_settings(spec: object) -> bool:
    params = getattr(spec, "params", {})
    return SETTINGS in (params.get("path"), params.get("to"))


def settings_states() -> list[tuple[str, list[tuple[str, int, str]]]]:
    """Per lab whose steps change the settings: its states as (label, step index, phase)."""
    states = []
    for lab in load_labs():
        moves = [
            (f"{lab.id} step {step.index + 1} {phase}", step.index, phase)
            for step in lab.steps
            for phase, specs in (("start", step.setup), ("solved", step.solve))
            if any(_touches_settings(s) for s in specs)
        ]
        if moves:
            states.append((lab.id, moves))
    return states


STATES = settings_states()


def test_the_labs_that_change_the_settings_are_known() -> None:
    # A new lab that edits the settings joins the proof below by itself; this names today's.
    assert {"07-own-stop-hook", "08-hook-or-test"} <= {lab for lab, _ in STATES}


# Actions that build or play, not write files: the settings and the hooks do not need them.
SKIPPED = {"sensors", "compile", "play_session", "run"}


def _apply(ws: Workspace, lab_id: str, upto: tuple[int, str]) -> None:
    """The workspace as the lab leaves it at ``upto`` (its files: hooks, settings, scripts)."""
    runner = LabRunner(ws)
    lab = find_lab(lab_id)
    for step in lab.steps:
        for phase, specs in (("start", step.setup), ("solved", step.solve)):
            mine = [s for s in specs if s.name not in SKIPPED]
            done = runner.run_actions(lab, mine)
            assert all(r.status is Status.PASS for r in done), [r.message for r in done]
            if (step.index, phase) == upto:
                return


@pytest.mark.parametrize(
    ("lab_id", "upto"),
    [
        pytest.param(STATES[0][0], (-1, "start"), id="the provisioned fixture"),
        *(
            pytest.param(lab, (index, phase), id=label)
            for lab, moves in STATES
            for label, index, phase in moves
        ),
    ],
)
def test_each_settings_state_loads_in_the_pinned_client(
    workspace: Workspace, lab_id: str, upto: tuple[int, str]
) -> None:
    require_real_client()
    if upto[0] >= 0:
        _apply(workspace, lab_id, upto)
    text = (workspace.root / SETTINGS).read_text()
    json.loads(text)  # what the client parses first; a failure here names the line
    # A file the client cannot parse runs no hook: no SessionStart run, the Done edit allowed.
    steps: list[dict[str, object]] = [
        {"do": "session_start"},
        {
            "do": "edit",
            "file": "docs/use_cases/UC-005-add-visit.md",
            "old": "**Status:** Approved",
            "new": "**Status:** Done",
            "expect": "blocked",
            "feedback_contains": "coverage-check UC-005",
        },
    ]
    repository_hook = "check-repository-names.sh" in text
    if repository_hook:
        steps.append(
            {
                "do": "write",
                "file": "src/main/java/ai/unifiedprocess/petclinic/repository/OwnerStore.java",
                "content": "package ai.unifiedprocess.petclinic.repository;\n",
                "expect": "blocked",
            }
        )
    r = check(workspace, "hook_session", engine="claude-code", steps=steps)
    assert r.status is Status.PASS, r.found
    session = r.details["session"]
    # The client names a SessionStart run by its event, not its command: one run, exit 0.
    assert [(h["event"], h["exit_code"]) for h in session[0]["hooks"]] == [("SessionStart", 0)]
