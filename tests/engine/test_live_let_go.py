"""A live session whose last stop only went through because the Stop hook let go of a stop it
held (stop_hook_active) is no proof, though the sensors ran earlier in it (walk-j, Lab 10
step 4): plain ``claude`` on the pinned client, the model scripted on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.person import AUTO_MODE_NOTICES
from tests.builders import run_cli
from tests.engine.live_steps import ReachStep
from tests.engine.terminal import Terminal, fresh_home
from tests.recorded_sessions import SENSORS, copy_workspace_into

pytestmark = [
    pytest.mark.maven,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]

ASK = (
    'Add the line "Judged by evidence." to docs/notes.md, run ./mvnw -q test -Dgroups=sensor '
    "in the foreground, then tell me whether all tests pass."
)


def test_lab10_a_change_after_the_sensor_run_let_go_by_the_hook_does_not_pass(
    workspace_at_step: ReachStep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(workspace_at_step("10-words-or-evidence", "your-session"), tmp_path)
    home = fresh_home(tmp_path)
    extra = root / "src" / "main" / "java" / "ai" / "unifiedprocess" / "petclinic" / "Extra.java"
    turns = [
        Reply.tool_use(
            "toolu_1",
            "Write",
            {"file_path": str(root / "docs" / "notes.md"), "content": "Judged by evidence.\n"},
        ),
        Reply.tool_use("toolu_2", "Bash", {"command": SENSORS, "timeout": 300000}),
        # the change after the run: the Stop hook holds the stop, then lets the next one go
        Reply.tool_use("toolu_3", "Write", {"file_path": str(extra), "content": "class Extra {"}),
        Reply.text("All tests pass."),
        Reply.text("All tests pass, really: the turn may end."),
    ]

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    with ScriptedApi(on_request=answer) as api:
        terminal = Terminal(root, home, tmp_path, api.base_url)
        try:
            terminal.claude(ASK)
            terminal.wait("the turn may end", timeout=300, enter_on=AUTO_MODE_NOTICES)
            terminal.quit_claude()
        finally:
            terminal.close()
            (tmp_path / "screens.txt").write_text(terminal.transcript())
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)

    done = run_cli("check", "--json", cwd=root)

    assert done.code == 1, done
    said = json.loads(done.out)["checks"][-1]
    assert said["status"] == "fail", said
    assert "is not the hook letting go of a stop it held" in said["expected"], said
    assert "let go after the held stop, no proof found" in said["found"], said
    assert "run after its last change" in said["details"]["fix"], said
