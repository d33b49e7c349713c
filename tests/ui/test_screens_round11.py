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

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.install import find_client
from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.engine.context import CheckContext
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.ui.lab_view import result_renderable
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
from tests.ui.test_screens_round9 import shown
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


# ---- 2. a hook kept in a plugin's hooks/hooks.json is named with its file --------------------

PLUGIN = ".claude/plugins/aiup-vaadin-jooq"


def _into_plugin(root: Path, event: str, entry: dict[str, Any], matcher: str = "") -> None:
    """``entry`` registered in the workspace's plugin's hooks/hooks.json, as walk n did."""
    group: dict[str, Any] = {"hooks": [entry]}
    if matcher:
        group["matcher"] = matcher
    folder = root / PLUGIN / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    data = {"hooks": {event: [group]}}
    (folder / "hooks.json").write_text(json.dumps(data, indent=2) + "\n")


def _failed_hook_session(workspace: Workspace, lab_id: str, step: str) -> CheckResult:
    lab = find_lab(lab_id)
    spec = next(c for c in lab.step(step).checks if c.name == "hook_session")
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.typed)
    assert result.status is Status.FAIL, result
    return result


@pytest.mark.maven
def test_lab10_step3_a_prompt_hook_in_the_plugin_is_named_with_its_file(
    workspace: Workspace,
) -> None:
    """Walk n (and j, l), Lab 10 step 3: the judge moved from .claude/settings.json into the
    plugin's hooks/hooks.json. ``✔ PASS file .claude/settings.json: as expected``, then "take
    the prompt hook out of the Stop group", no file named. Real: the lab's own check, its
    session played with Maven on the emulator, the plugin loaded as Claude Code loads it."""
    reach_step(workspace, "10", "evidence")
    claude = workspace.root / ".claude"
    settings = json.loads((claude / "settings.json").read_text())
    stop = settings["hooks"]["Stop"][0]["hooks"]
    prompt = next(h for h in stop if h.get("type") == "prompt")
    stop.remove(prompt)
    (claude / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    _into_plugin(workspace.root, "Stop", prompt)
    smoke = subprocess.run(
        ["./.claude/hooks/smoke.sh"], cwd=workspace.root, capture_output=True, text=True
    )
    assert smoke.returncode == 0, smoke.stdout[-2000:]
    result = _failed_hook_session(workspace, "10", "evidence")
    hooks_json = f"{PLUGIN}/hooks/hooks.json"
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        said = joined(screen)
        assert f"the hook that held it is in {hooks_json}" in said, screen
        assert (
            f"session step 5 (stop) was held by a prompt hook that {hooks_json} registers "
            "(hooks.Stop[0].hooks[0]), not .claude/settings.json" in said
        ), screen
        assert f"fix: take the hook out of {hooks_json} (hooks.Stop[0].hooks[0])" in said, screen
        assert fits(screen, width), screen


@pytest.mark.maven
def test_lab08_step2_the_naming_hook_moved_into_the_plugin_is_named_with_its_file(
    workspace: Workspace,
) -> None:
    """Walk n, Lab 08 step 2: the whole old naming hook moved into the plugin: "no hook (in
    .claude/hooks/ or written inline in .claude/settings.json) may refuse it; git diff
    .claude/settings.json shows what is left": settings.json had nothing left, and the hook's
    file was named only in the output's tail. Real: the lab's own check, the step solved as
    the lab solves it, the hook then registered in the plugin."""
    runner = reach_step(workspace, "8", "drop-hook")
    root = workspace.root
    names = (root / ".claude/hooks/check-repository-names.sh").read_text()
    runner.solve(apply=True)
    script = root / PLUGIN / "hooks" / "names.sh"
    script.parent.mkdir(parents=True)
    script.write_text(names)
    script.chmod(0o755)
    command = "${CLAUDE_PLUGIN_ROOT}/hooks/names.sh"
    _into_plugin(root, "PreToolUse", {"type": "command", "command": command}, "Write")
    result = _failed_hook_session(workspace, "8", "drop-hook")
    hooks_json = f"{PLUGIN}/hooks/hooks.json"
    for width in WIDTHS:
        screen = shown(result_renderable(result), width)
        said = joined(screen)
        assert f"the hook that held it is in {hooks_json}" in said, screen
        assert (
            f"session step 2 (write) was held by a hook that {hooks_json} registers "
            "(hooks.PreToolUse[0].hooks[0]), not .claude/settings.json" in said
        ), screen
        assert "or written inline in .claude/settings.json) may refuse it" not in said, screen
        assert f"fix: take the hook out of {hooks_json} (hooks.PreToolUse[0].hooks[0])" in said
        assert fits(screen, width), screen
