"""Lab 11 step 4 played as a person plays it (plain ``claude`` in tmux, a fresh HOME, the
scripted model on 127.0.0.1), in the two ways a newcomer's session went wrong on 2.1.332, and
``lab check`` typed in the shell: it names what happened and what to do, not a replay that
disagrees (issue 51).

- Auto mode's check without a usable answer (a gateway that does not pass the check through;
  here the stand-in answers it "I cannot tell."): the client refuses the audit agent, ``Not
  run · auto mode's check had no usable answer``.
- The audit's report before the audit's end: the agent runs in the background; Claude edits
  again after its call returned but before it ended, and the guard refuses again, since the
  agent's SubagentStop hook (the audit marker) runs only at its end; its SubagentStart hook
  noted that the audit runs, and the guard says so.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.claude.recorded import config_root, find_sessions, read_session
from tests.engine.live_steps import ReachStep
from tests.engine.terminal import Terminal, fresh_home, kept_terminal
from tests.recorded_sessions import (
    ASK_DONE,
    AUDIT_PROMPT,
    AUDIT_REPORT,
    audit_turns,
    copy_workspace_into,
)
from tests.ui.screens import PLUGIN_READY

pytestmark = [
    pytest.mark.maven,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]


@pytest.fixture(scope="module")
def at_step_four(workspace_at_step: ReachStep) -> Path:
    return workspace_at_step("11-try-it-yourself", "earn-done")


def _person(root: Path, tmp_path: Path, api: ScriptedApi) -> AbstractContextManager[Terminal]:
    """The person's terminal, with a fresh HOME; every screen kept in ``screens.txt``."""
    return kept_terminal(root, fresh_home(tmp_path), tmp_path, api.base_url)


def _checked(terminal: Terminal) -> str:
    """``lab check`` after the session: it fails; the screen, its lines joined."""
    code, shown = terminal.run("lab check", 600)
    assert code == 1, shown
    return shown


def test_auto_modes_check_without_an_answer_is_named_with_the_fix(
    at_step_four: Path, tmp_path: Path
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    edit, agent = audit_turns(root)
    turns = [edit, agent, Reply.text("The audit could not run here.")]

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    with ScriptedApi(on_request=answer) as api, _person(root, tmp_path, api) as terminal:
        api.auto_mode_answer = "I cannot tell."  # a safety check without a usable answer
        terminal.claude(ASK_DONE, ready=PLUGIN_READY)
        session = terminal.wait_until(
            lambda s: "no usable answer" in s and "could not run here" in s,
            "the refused agent and the last words",
            180,
            AUTO_MODE_NOTICES,
        )
        terminal.quit_claude()
        shown = _checked(terminal)
    assert "Not run · auto mode's check had no usable answer" in session
    said = " ".join(shown.split())
    refused = "Claude Code's auto mode refused Claude's Agent (aiup-vaadin-jooq:uc-coverage) call"
    assert refused in said
    assert "its safety check had no usable answer" in said
    assert f"start claude in {root} as claude --permission-mode manual" in said
    assert "does not replay" not in said
    print(session, shown, sep="\n")  # the screens, for a note (pytest -s)


class _EditBeforeTheAuditEnds:
    """Edit (refused), the audit agent, the Edit again while the agent's own request is held
    (refused again: no marker yet); then the agent hands back its report and ends, and once its
    SubagentStop hook has written the marker, Claude only says it waits for the person."""

    def __init__(self, root: Path) -> None:
        self.marker = root / ".git" / "aiup-coverage-checked" / "UC-005"
        edit, agent = audit_turns(root)
        self.turns = [edit, agent, edit, Reply.text("UC-005 stays Approved for now.")]
        self.main = 0
        self.edited_in_the_gap = threading.Event()

    def answer(self, request: ApiRequest) -> None:
        if AUDIT_PROMPT in json.dumps(request.messages[:1]):
            if any(b.get("type") == "tool_result" for b in request.last_user_blocks()):
                ScriptedApi.answer(request, Reply.text("Reported."))
                return
            threading.Thread(target=self._hand_back, args=(request,), daemon=True).start()
            return
        self.main += 1
        if self.main == 4:  # the Edit in the gap has been refused
            self.edited_in_the_gap.set()
            deadline = time.monotonic() + 30
            while not self.marker.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        ScriptedApi.answer(request, self.turns.pop(0) if self.turns else Reply.text("Done."))

    def _hand_back(self, request: ApiRequest) -> None:
        self.edited_in_the_gap.wait(120)
        handback = {"message": AUDIT_REPORT}
        ScriptedApi.answer(request, Reply.tool_use("toolu_h", "SubagentHandback", handback))


def test_an_edit_before_the_audit_ended_is_named_not_a_replay_that_disagrees(
    at_step_four: Path, tmp_path: Path
) -> None:
    """Before: 'the recorded session does not replay … recorded 'refused by
    guard-spec-status.sh', replayed on the emulator 'ran'' (the replay ended the agent at its
    call). Now the replay keeps the client's order and the check names the early edit."""
    root = copy_workspace_into(at_step_four, tmp_path)
    model = _EditBeforeTheAuditEnds(root)
    with ScriptedApi(on_request=model.answer) as api, _person(root, tmp_path, api) as terminal:
        terminal.claude(ASK_DONE, ready=PLUGIN_READY)
        session = terminal.wait_until(
            lambda s: 'Agent "audit UC-005" finished' in s and "stays Approved" in s,
            "the audit's end and the last words",
            180,
            AUTO_MODE_NOTICES,
        )
        terminal.quit_claude()
        shown = _checked(terminal)
    assert "Backgrounded agent" in session
    # the guard's second refusal, which the screen folds away, says why (SubagentStart ran)
    (found,) = find_sessions(root, root=config_root({"HOME": str(tmp_path / "home")}))
    first, again = [c for c in read_session(found.path).tool_calls if c.name == "Edit"]
    assert "First run the coverage audit" in first.result_text
    assert "The coverage audit is still running (its report" in again.result_text
    said = " ".join(shown.split())
    assert "does not replay" not in said, said
    assert "came while the agent aiup-vaadin-jooq:uc-coverage was still running" in said
    assert """once Claude Code shows 'Agent "audit UC-005" finished', tell Claude""" in said
    print(session, shown, sep="\n")  # the screens, for a note (pytest -s)
