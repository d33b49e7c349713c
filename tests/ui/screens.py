"""What the screen tests share (tests/ui/test_screens_round*.py and the labs' tests that look
at a screen): a renderable or a step's run drawn at a width as a person's terminal shows it,
whether a screen fits, and the lab states and sessions those tests set up again and again.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, RenderableType

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner, StepRun
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.ui.lab_view import print_step_run
from harness.ui.prose import print_prose
from harness.workspace import Workspace, provision
from tests.engine.terminal import kept_terminal
from tests.recorded_sessions import ASK_DONE, audit_turns

WIDTHS = (80, 100, 120)
# Ready once the workspace's plugin is loaded: its command is offered.
PLUGIN_READY = "/aiup-vaadin-jooq:coverage-check"


def console_at(width: int) -> tuple[Console, io.StringIO]:
    """A console as a terminal of ``width`` columns without colour, and what it printed."""
    out = io.StringIO()
    return Console(file=out, width=width, no_color=True, color_system=None), out


def shown(renderable: RenderableType, width: int) -> str:
    """``renderable`` as the CLI prints it (prose rules: whole lines to copy) at ``width``."""
    console, out = console_at(width)
    print_prose(console, renderable)
    return out.getvalue()


def runs_shown(width: int, *runs: StepRun) -> str:
    """The step runs one after the other, as ``lab check`` prints them at ``width``."""
    console, out = console_at(width)
    for run in runs:
        print_step_run(console, run)
    return out.getvalue()


def fits(screen: str, width: int) -> bool:
    """Every line fits ``width``, but one unit wider than the terminal (a temporary folder's
    path): left whole to the terminal's own soft wrap, so copying keeps it one line."""
    return all(
        len(line.rstrip()) <= width or " " not in line.strip() for line in screen.splitlines()
    )


def node_at(tmp_path: Path, lab: str, step: str) -> tuple[Workspace, LabRunner]:
    """A Node workspace at ``lab``'s ``step``, as lab start and lab goto leave it."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    ws = provision(tmp_path / "ws", fixture_name="node").workspace
    runner = LabRunner(ws)
    runner.start(lab)
    runner.goto(step)
    return ws, runner


def failed_hook_session(workspace: Workspace, lab_id: str, step: str) -> CheckResult:
    """The step's hook_session check run on the workspace as it is: it must fail."""
    lab = find_lab(lab_id)
    spec = next(c for c in lab.step(step).checks if c.name == "hook_session")
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.typed)
    assert result.status is Status.FAIL, result
    return result


def stop_prompt_hook_taken_out(root: Path) -> dict[str, Any]:
    """The prompt hook of .claude/settings.json's first Stop group, taken out of the file (a
    walker then put it elsewhere); the hook's entry."""
    path = root / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    stop = settings["hooks"]["Stop"][0]["hooks"]
    prompt: dict[str, Any] = next(h for h in stop if h.get("type") == "prompt")
    stop.remove(prompt)
    path.write_text(json.dumps(settings, indent=2) + "\n")
    return prompt


def smoke_passes(root: Path) -> None:
    """``smoke.sh`` run by hand after a hook file changed, as the walkers did: it passes."""
    smoke = subprocess.run(["./.claude/hooks/smoke.sh"], cwd=root, capture_output=True, text=True)
    assert smoke.returncode == 0, smoke.stdout[-2000:]


def asked_done_past_auto_mode(
    root: Path, home: Path, folder: Path, *, auto_mode: str, last_words: str, refused: str
) -> str:
    """Lab 11 step 4 as a person played it: plain ``claude`` in tmux (``home`` a fresh HOME),
    asked to set UC-005 to Done; Claude edits it and calls the audit agent, which auto mode's
    check refuses (its stand-in on the scripted model answers ``auto_mode``), then says
    ``last_words``. Waits until the screen shows ``refused`` and them; the session's screen."""
    turns = [*audit_turns(root), Reply.text(last_words)]

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    with (
        ScriptedApi(on_request=answer) as api,
        kept_terminal(root, home, folder, api.base_url) as terminal,
    ):
        api.auto_mode_answer = auto_mode
        terminal.claude(ASK_DONE, ready=PLUGIN_READY)
        session = terminal.wait_until(
            lambda s: refused in s and last_words in s,
            "the refused agent and the last words",
            180,
            AUTO_MODE_NOTICES,
        )
        terminal.quit_claude()
    return session
