"""Labs 03, 07 and 11 walked as a person walks them: a shell in tmux, 100 columns
(tests/engine/terminal.py), ``lab start N``, each step's work done by hand as its text says,
``lab check`` and ``lab next`` typed at the prompt, never ``lab goto``. At the live step, plain
``claude`` in the workspace root (no flags, a fresh HOME holding only what a first run leaves,
the folder's trust and the key accepted on screen, auto mode as the client sets it); the
model is Hook Lab's scripted one on 127.0.0.1 (``ANTHROPIC_BASE_URL``). Then ``lab check``
passes the step as live.

Seen on 2.1.332 here: through a base URL of one's own, auto mode says its classifier requests
go through that address and asks that model to check each action (the scripted server
allows them, harness/claude/client/api.py); Lab 11's audit agent runs in the background and
ends by handing its report back (SubagentHandback).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.workspace import Workspace
from tests.builders import run_cli
from tests.engine.live_steps import ReachStep
from tests.engine.terminal import Terminal, fresh_home, kept_terminal, play_session
from tests.recorded_sessions import (
    APPROVED,
    ASK_DONE,
    ASK_NOTE,
    AUDIT_PROMPT,
    AUDIT_REPORT,
    AUDITOR,
    DONE,
    SENSORS,
    UC5,
    copy_workspace_into,
)

pytestmark = [
    pytest.mark.maven,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]


class _Model:
    """The scripted model: the main loop's turns in order; the audit agent hands back its
    report (what the interactive client tells an agent to do); a request past the script
    (the report's message after the last turn) gets "Done."."""

    def __init__(self, root: Path) -> None:
        self.marker = root / ".git" / "aiup-coverage-checked" / "UC-005"
        spec = str(root / UC5)
        edit = {"file_path": spec, "old_string": APPROVED, "new_string": DONE}
        agent = {"description": "audit UC-005", "prompt": AUDIT_PROMPT, "subagent_type": AUDITOR}
        bash = {"command": SENSORS, "description": "run the sensors", "timeout": 300000}
        self.edit_again = Reply.tool_use("toolu_3", "Edit", edit)  # after the audit's report
        self.turns: list[Reply] = [
            Reply.tool_use("toolu_1", "Edit", edit),
            Reply.tool_use("toolu_2", "Agent", agent),
            self.edit_again,
            Reply.tool_use("toolu_4", "Bash", bash),
            Reply.text("UC-005 is Done: audited, and all five sensors are green."),
        ]

    def answer(self, request: ApiRequest) -> None:
        if AUDIT_PROMPT in json.dumps(request.messages[:1]):
            handback = {"message": AUDIT_REPORT}
            ScriptedApi.answer(request, Reply.tool_use("toolu_h", "SubagentHandback", handback))
        else:
            turn = self.turns.pop(0) if self.turns else Reply.text("Done.")
            if turn is self.edit_again:
                self._think()
            ScriptedApi.answer(request, turn)

    def _think(self) -> None:
        """The Agent call returns at once (the audit runs in the background) and the model
        goes on in the same turn: a model that ended its turn there met a report that came
        during that request, and the client then waited for the person (seen on 2.1.332 under
        load). A real model takes seconds before the edit; the client runs the agent's
        SubagentStop hook (which writes the audit marker) meanwhile. Answered at once, the
        Edit met the guard 0.1 s before the marker (seen in a full run): wait for it, at most
        15 s."""
        deadline = time.monotonic() + 15
        while not self.marker.is_file() and time.monotonic() < deadline:
            time.sleep(0.05)


def _passes_live(root: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    done = run_cli("check", "--json", cwd=root)
    assert done.code == 0, done
    checks = json.loads(done.out)["checks"]  # Lab 07 checks its settings and its hook too
    assert all(c["status"] == "pass" for c in checks), checks
    live = [
        c
        for c in checks
        if c["message"].endswith("(your own session, Claude Code 2.1.332, replayed)")
    ]
    assert len(live) == 1, checks


def _passed(terminal: Terminal, command: str = "lab check", timeout: float = 600) -> str:
    code, shown = terminal.run(command, timeout)
    assert code == 0, terminal.transcript()
    return shown


def _live_step(
    terminal: Terminal, prompt: str, until: str, *, ready: str | None = None, wait: float = 300
) -> None:
    """The session played (``play_session``); then ``lab check`` typed in the shell passes
    the step on that session."""
    play_session(terminal, prompt, until, ready=ready, wait=wait)
    shown = _passed(terminal)
    assert "(your own session, Claude Code 2.1.332, replayed)" in " ".join(shown.split())


def _write(root: Path, name: str, text: str) -> None:
    """What the person writes in their editor."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_person_walks_lab_11_from_step_1_and_passes_step_4_live(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lab 11 from ``lab start 11``: each step's work done by hand as its text says (answers
    written, the sensors run, a flow renamed), ``lab check`` and ``lab next`` typed in the
    shell; at step 4 plain ``claude``, the session, then ``lab check`` passes it live."""
    root = workspace.root
    home = fresh_home(tmp_path)
    model = _Model(root)
    with (
        ScriptedApi(on_request=model.answer) as api,
        kept_terminal(root, home, tmp_path, api.base_url) as terminal,
    ):
        _passed(terminal, "lab start 11")
        _write(root, "answers/petclinic.toml", 'q1 = "b"\nq2 = "a"\nq3 = "c"\nq4 = "c"\n')
        _passed(terminal)
        _passed(terminal, "lab next")
        terminal.run("./mvnw test -Dgroups=sensor")
        _write(root, "answers/reports.toml", 'q1 = "5"\nq2 = "c"\nq3 = "a"\n')
        _passed(terminal)
        _passed(terminal, "lab next")
        spec = root / UC5
        spec.write_text(
            spec.read_text().replace(
                "### A2: Visit Before Birth Date", "### A2: Visit Date Before Birth"
            )
        )
        code, _ = terminal.run("./mvnw test -Dgroups=sensor")
        assert code != 0  # UseCaseTraceabilityTest names the dangling annotation
        _passed(terminal)
        shown = _passed(terminal, "lab next")
        assert "Ask Claude Code to set UC-005 to Done" in shown
        _live_step(
            terminal,
            ASK_DONE,
            "all five sensors are green",
            ready="/aiup-vaadin-jooq:coverage-check",
        )
    assert (root / ".git" / "aiup-coverage-checked" / "UC-005").is_file()
    _passes_live(root, home, monkeypatch)


LABS = Path(__file__).resolve().parents[2] / "labs"
SETTINGS_BEFORE = (
    """"\\"$CLAUDE_PROJECT_DIR/.claude/hooks/require-sensors.sh\\"", "timeout": 15 }"""
)
SECOND_STOP_HOOK = (
    """{ "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh\\"", """
    """"timeout": 10 }"""
)


def _scripted(turns: list[Reply]) -> Callable[[ApiRequest], None]:
    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    return answer


def test_a_person_walks_lab_07_and_their_own_hook_holds_claude_live(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lab 07 from ``lab start 7``: the contract and the hook written by hand (the lab's own
    solution texts stand for what the person writes), the hook registered in settings.json,
    each step checked; at step 4 plain ``claude``: the person's own Stop hook (scripts/,
    uncommitted) holds the first stop with its reason and lets the second go."""
    root = workspace.root
    home = fresh_home(tmp_path)
    turns = [
        Reply.tool_use(
            "toolu_1",
            "Write",
            {"file_path": str(root / "NOTES.md"), "content": "Tried in lab 07.\n"},
        ),
        Reply.text("Done: NOTES.md has the line."),
        Reply.text("Done: NOTES.md has the line."),
    ]
    solution = LABS / "07-own-stop-hook" / "solution"
    with (
        ScriptedApi(on_request=_scripted(turns)) as api,
        kept_terminal(root, home, tmp_path, api.base_url) as terminal,
    ):
        _passed(terminal, "lab start 7")
        _write(root, "docs/stop-hook-contract.md", (solution / "stop-hook-contract.md").read_text())
        _passed(terminal)
        _passed(terminal, "lab next")
        _write(
            root,
            "scripts/check-before-stop.sh",
            (solution / "check-before-stop.sh").read_text(),
        )
        _passed(terminal)
        _passed(terminal, "lab next")
        settings = root / ".claude" / "settings.json"
        text = settings.read_text()
        assert SETTINGS_BEFORE in text
        settings.write_text(
            text.replace(SETTINGS_BEFORE, f"{SETTINGS_BEFORE},\n{SECOND_STOP_HOOK}")
        )
        _passed(terminal)
        shown = _passed(terminal, "lab next")
        assert "held by your own hook" in shown
        _live_step(terminal, ASK_NOTE, "Stop says:", wait=120)
    _passes_live(root, home, monkeypatch)


ASK_DOCS_NOTE = "Add a one-line note to docs/notes.md, then tell me you are done."


def test_a_person_walks_lab_03_and_the_stop_hook_holds_claude_until_the_sensors_ran(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lab 03 from ``lab start 3``: a sentence added to a spec, ``scenarios/tricks.toml``
    written by hand (the lab's own solution stands for what the person writes), each step
    checked; at step 3 plain ``claude``: the note, the stop held by require-sensors.sh, the
    sensors in the foreground, the stop let go; ``lab check`` passes it live."""
    root = workspace.root
    home = fresh_home(tmp_path)
    bash = {"command": SENSORS, "description": "run the sensors", "timeout": 300000}
    turns = [
        Reply.tool_use(
            "toolu_1",
            "Write",
            {"file_path": str(root / "docs" / "notes.md"), "content": "A note from the session.\n"},
        ),
        Reply.text("Done."),
        Reply.tool_use("toolu_2", "Bash", bash),
        Reply.text("Done: the note is in and the sensors are green."),
    ]
    with (
        ScriptedApi(on_request=_scripted(turns)) as api,
        kept_terminal(root, home, tmp_path, api.base_url) as terminal,
    ):
        _passed(terminal, "lab start 3")
        spec = root / "docs" / "use_cases" / "UC-002-edit-owner.md"
        spec.write_text(spec.read_text() + "\nA note added in lab 03.\n")
        _passed(terminal)
        _passed(terminal, "lab next")
        tricks = (LABS / "03-stop-hook" / "solution" / "tricks.toml").read_text()
        _write(root, "scenarios/tricks.toml", tricks)
        _passed(terminal)
        shown = _passed(terminal, "lab next")
        assert "held until a real sensor run" in shown
        _live_step(terminal, ASK_DOCS_NOTE, "the note is in and the sensors are green")
    _passes_live(root, home, monkeypatch)


@pytest.fixture(scope="module")
def lab_07_at_step_four(workspace_at_step: ReachStep) -> Path:
    return workspace_at_step("07-own-stop-hook", "your-session")


def test_plain_claude_started_in_docs_is_named_with_the_folder_to_start_in(
    lab_07_at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cd docs && claude``: the interactive client runs none of the workspace's hooks there
    (the stop is not held); ``lab check`` names the folder and says where to start."""
    root = copy_workspace_into(lab_07_at_step_four, tmp_path)
    home = fresh_home(tmp_path)
    note = {"file_path": str(root / "NOTES.md"), "content": "Tried in lab 07.\n"}
    turns = [Reply.tool_use("toolu_1", "Write", note), Reply.text("Done: NOTES.md has the line.")]
    with ScriptedApi(on_request=_scripted(turns)) as api:
        terminal = Terminal(root / "docs", home, tmp_path, api.base_url)
        try:
            terminal.claude(ASK_NOTE)
            # writing outside the folder it started in is an action auto mode checks
            terminal.wait("NOTES.md has the line", timeout=120, enter_on=AUTO_MODE_NOTICES)
            terminal.quit_claude()
            code, shown = terminal.run("lab check")
        finally:
            terminal.close()
    assert code == 1
    said = " ".join(shown.split())
    assert "your session ran in docs, not in the workspace root" in said
    assert f"fix: start claude in the workspace root: cd {root} && claude" in said
