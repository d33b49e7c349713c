"""Issue 51, "every failure names its cause and the next action" and "whole lines at 100
columns": the wrong-way screens walks m and n left open (/work/helpers/walk-m, walk-n): a live
step's failure that told of an older session than the one just played, a hook named in the
wrong file, a fix line a person copies wider than the terminal, a raw substring as a contract
part, a lab's end that points at a lab already done.

Real: the labs' own lab.toml and checks, provisioned workspaces, the real pinned client (in
tmux, with the scripted model) where a step is live, the renderers a person sees, screens at
80, 100 and 120 columns.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.install import find_client
from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.workspace import Workspace
from tests.builders import reach_step, run_lab
from tests.engine.terminal import fresh_home, kept_terminal
from tests.lines import joined
from tests.recorded_sessions import (
    APPROVED,
    ASK_DONE,
    AUDIT_PROMPT,
    AUDIT_REPORT,
    AUDITOR,
    DONE,
    UC5,
)
from tests.ui.test_screens_round10 import fits

WIDTHS = (80, 100, 120)


def _played(root: Path, config_dir: Path, calls: list[tuple[str, tuple[Any, ...]]]) -> str:
    """A session played on the real client in ``root``, kept in ``config_dir``; its id."""
    from harness.claude.engines import open_session

    with open_session("claude-code", root, transcript_dir=config_dir) as session:
        session.session_start()
        for method, args in calls:
            action: Callable[..., Any] = getattr(session, method)
            action(*args)
        transcript = session.transcript_path
    return transcript.stem


# ---- 1. Lab 11 step 4: the newest session's cause, headline and fix; the older one after ------


@pytest.mark.maven
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_lab11_step4_the_newest_sessions_refusal_heads_the_failure_not_an_older_session(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Walk n, Lab 11 step 4 (c): a session that came as far as the audit (then no Done), and
    after it one whose audit agent auto mode's check refused ("no usable answer"). ``lab
    check``'s headline, its cause and its fix told of the OLDER session; the newest one's cause
    (start claude --permission-mode manual) was not said at all. Real: the older session
    played on the real client, the newer one by a person in tmux (plain ``claude``, a fresh
    HOME, the scripted model whose stand-in for auto mode's check gives no answer)."""
    if find_client() is None:
        pytest.skip("the pinned Claude Code client is not installed (lab doctor)")
    reach_step(workspace, "11", "earn-done")
    root = workspace.root
    home = fresh_home(tmp_path)
    config = home / ".claude"
    older = _played(
        root,
        config,
        [
            ("prompt", (ASK_DONE,)),
            ("edit", (UC5, APPROVED, DONE)),
            ("subagent_stop", (AUDITOR, AUDIT_PROMPT, AUDIT_REPORT)),
            ("stop", ("UC-005 is audited; I leave the status to you.",)),
        ],
    )
    edit = {"file_path": str(root / UC5), "old_string": APPROVED, "new_string": DONE}
    agent = {"description": "audit UC-005", "prompt": AUDIT_PROMPT, "subagent_type": AUDITOR}
    turns = [
        Reply.tool_use("toolu_1", "Edit", edit),
        Reply.tool_use("toolu_2", "Agent", agent),
        Reply.text("The audit could not run here."),
    ]

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    with (
        ScriptedApi(on_request=answer) as api,
        kept_terminal(root, home, tmp_path, api.base_url) as terminal,
    ):
        api.auto_mode_answer = "I cannot tell."  # a safety check without a usable answer
        terminal.claude(ASK_DONE, ready="/aiup-vaadin-jooq:coverage-check")
        terminal.wait_until(
            lambda s: "no usable answer" in s and "could not run here" in s,
            "the refused agent and the last words",
            180,
            AUTO_MODE_NOTICES,
        )
        terminal.quit_claude()
    for width in WIDTHS:
        env = {"COLUMNS": str(width), "CLAUDE_CONFIG_DIR": str(config)}
        proc = run_lab(root, "check", env=env)
        assert proc.returncode == 1, proc
        screen = proc.stdout
        said = joined(screen)
        headline = said[said.index("✘ FAIL") : said.index("expected:")]
        assert "Claude Code's auto mode refused Claude's Agent" in headline, screen
        assert "its safety check had no usable answer" in said, screen
        assert "expected: moment 2 of 5: the end of the agent" in said, screen
        assert f"start claude in {root} as claude --permission-mode manual" in said, screen
        # The older session is named after, as what it is.
        assert (
            f"an older session here ({older}) came further: it did moments 1 to 2 of the 5, "
            "then not moment 3 (an edit mentioning 'UC-005' that is allowed" in said
        ), screen
        assert said.index("auto mode refused") < said.index("an older session here"), screen
        assert "the answer was No" not in said and "matched fewer" not in said, screen
        assert fits(screen, width), screen
