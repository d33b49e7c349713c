"""What the live Lab 03 and Lab 10 tests share: the UC-005 annotation broken so the sensor run
is red, and a session played on the pinned client (tests/engine/terminal.py) whose ``lab
check`` must then fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from tests.builders import run_cli
from tests.engine.terminal import kept_terminal, play_session

ASK_NOTE = "Add a one-line note to docs/notes.md, then tell me you are done."

UC005_TEST = Path("src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java")


def break_annotation(root: Path) -> Path:
    """UC-005's test asks for another text than the page shows: the sensor run goes red."""
    broken = root / UC005_TEST
    broken.write_text(broken.read_text().replace("A1: Missing Description", "A1: Missing Text"))
    return broken


def played_check(
    root: Path,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    turns: list[Reply],
    prompt: str,
    until: str,
) -> dict[str, Any]:
    """Plain ``claude`` with the step's prompt, the turns played, /exit; then ``lab check``,
    which must fail: its last check's result."""

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    with (
        ScriptedApi(on_request=answer) as api,
        kept_terminal(root, home, tmp_path, api.base_url) as terminal,
    ):
        play_session(terminal, prompt, until)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    done = run_cli("check", "--json", cwd=root)
    assert done.code == 1, done
    said: dict[str, Any] = json.loads(done.out)["checks"][-1]
    return said
