"""Live steps a second newcomer walk passed with sessions they made themselves (issue 51):
- Lab 13 step 3: a six-line transcript written by hand (no claude ran) passed as live;
- Lab 11 step 4: a real 2.1.332 transcript copied in and rewritten, with the audit's marker
  made by hand (``touch .git/aiup-coverage-checked/UC-005``), passed as live;
- the hand-made marker survived ``lab start``, ``lab goto`` and ``lab reset``.

Real: the provisioned workspaces, the Node fixture's build, the bash hooks, the transcripts
the pinned client wrote (tests/claude/transcripts/). The hand-written transcript is built
the way the walker built it (/work/helpers/walkb/walkb_handforge.py of the walk).
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.claude.recorded import read_session
from harness.claude.recorded.shape import not_the_clients
from harness.engine.checks import live_evidence, live_session
from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab
from harness.engine.moment import moments_of
from harness.results import CheckResult, Status
from harness.ui.lab_view import result_renderable
from harness.ui.prose import print_prose
from harness.workspace import Workspace, provision

TRANSCRIPTS = Path(__file__).parents[1] / "claude" / "transcripts"
REFUSALS = TRANSCRIPTS / "claude-code-2.1.332-refusals"
PROMPT = 'Add a line "Run npm start to see the total." to README.md, then finish.'
HOOK = "./scripts/check-before-stop.sh"


def _stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def hand_written(root: Path, config: Path) -> Path:
    """Six lines as the walker wrote them: a prompt, "Done.", a Stop refused with feedback,
    a second answer, a Stop let through; sessionId, cwd, version and the uuid chain right."""
    sid, now = str(uuid.uuid4()), datetime.now(UTC)
    base = {"isSidechain": False, "userType": "external", "entrypoint": "cli"}
    base |= {"cwd": str(root), "sessionId": sid, "version": "2.1.332", "gitBranch": "main"}
    said = "Stop check blocked: rebuild dist/app.js (npm run build)"
    summary = {"type": "system", "subtype": "stop_hook_summary", "hookCount": 1}
    summary |= {"hookInfos": [{"command": HOOK, "durationMs": 300}], "hasOutput": True}
    summary |= {"preventedContinuation": False, "stopReason": "", "level": "suggestion"}
    bodies: list[dict[str, Any]] = [
        {"type": "user", "message": {"role": "user", "content": PROMPT}, "promptSource": "typed"},
        _answer("m1", "Done."),
        {**summary, "hookErrors": [said]},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": ""}},
        _answer("m2", "I cannot build that file."),
        {**summary, "hookErrors": []},
    ]
    bodies[3]["message"]["content"] = f"Stop hook feedback:\n[{HOOK}]: {said}"
    lines, parent = [], None
    for n, body in enumerate(bodies):
        me = str(uuid.uuid4())
        lines.append({**base, **body, "uuid": me, "parentUuid": parent})
        lines[-1]["timestamp"] = _stamp(now + timedelta(seconds=n))
        parent = me
    folder = config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _answer(message_id: str, text: str) -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    message = {"id": message_id, "type": "message", "role": "assistant", "content": content}
    return {"type": "assistant", "message": message | {"stop_reason": "end_turn"}}


@pytest.fixture
def node_root(tmp_path: Path) -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    root = provision(tmp_path / "ws", fixture_name="node").workspace.root
    subprocess.run(["npm", "run", "build"], cwd=root, check=True, capture_output=True)
    return root


def test_lab13_a_hand_written_transcript_is_not_a_live_session(
    node_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = LabRunner(Workspace(node_root))
    runner.start("13")
    runner.goto("held-live")
    time.sleep(0.01)
    config = tmp_path / "claude-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    hand_written(node_root, config)
    lab = find_lab("13")
    spec = lab.step("held-live").checks[0]
    ctx = CheckContext(Workspace(node_root), lab.dir)
    result = spec.kind.run(ctx, spec.params)
    assert result.status is Status.FAIL
    assert result.message.startswith("this session was not written by Claude Code: ")
    assert "has no message id from the model's API" in result.message
    assert "promptId" in (result.found or "")
    assert "(your own session" not in result.message


def test_every_real_transcript_is_shaped_as_the_client_writes_it() -> None:
    sessions = [p for p in TRANSCRIPTS.rglob("*.jsonl") if "subagents" not in p.parts]
    sessions = [p for p in sessions if not p.name.startswith("agent-")]
    assert len(sessions) >= 12
    for path in sessions:
        timeline = read_session(path)
        assert not_the_clients(path, timeline.client_version) == [], path


def _transplanted(root: Path, config: Path) -> Path:
    """The walker's forgery: a real 2.1.332 transcript copied into this workspace's project
    folder, its workspace path, session id and times rewritten to now."""
    source = REFUSALS / "edit-after-agent-end.jsonl"
    text = source.read_text()
    first = json.loads(text.splitlines()[0])
    old_id = first["sessionId"]
    old_cwd = next(json.loads(x)["cwd"] for x in text.splitlines() if '"cwd"' in x)
    new_id = str(uuid.uuid4())
    text = text.replace(old_cwd, str(root)).replace(old_id, new_id)
    stamps = re.findall(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z)"', text)
    t0 = min(datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ") for s in stamps)
    now = datetime.now(UTC).replace(tzinfo=None)

    def shift(m: re.Match[str]) -> str:
        at = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ")
        return f'"{_stamp(now + (at - t0))}"'

    text = re.sub(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z)"', shift, text)
    folder = config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{new_id}.jsonl"
    path.write_text(text)
    return path


def test_lab11_a_hand_made_marker_under_a_copied_transcript_is_no_evidence(
    workspace: Workspace, tmp_path: Path
) -> None:
    """The session's own hooks never started here: the marker touched by hand does not count,
    and the check says the SessionStart hook did not see the session begin."""
    lab = find_lab("11")
    runner = LabRunner(workspace)
    runner.start("11")
    runner.goto("earn-done")
    path = _transplanted(workspace.root, tmp_path / "claude-home")
    marker = workspace.git_dir / "aiup-coverage-checked" / "UC-005"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    spec = next(c for c in lab.step("earn-done").checks if c.kind.name == "live_session")
    params = live_session.KIND.build(spec.params)
    ctx = CheckContext(workspace, lab.dir)
    timeline = read_session(path)
    wanted = list(params.expect)
    problems = live_evidence.evidence(ctx, wanted, params, timeline, {})
    assert any("SessionStart hook did not run" in p for p in problems), problems
    assert not any("no marker" in p for p in problems)


def test_lab_start_goto_and_reset_clear_the_hooks_markers(workspace: Workspace) -> None:
    """A marker made by hand survived lab start, lab goto and lab reset: none does now."""
    marker = workspace.git_dir / "aiup-coverage-checked" / "UC-005"
    base = workspace.git_dir / "aiup-session-base"
    runner = LabRunner(workspace)

    def leave() -> None:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        base.write_text("")

    leave()
    runner.start("4")
    assert not marker.exists() and not base.exists()
    leave()
    runner.goto("1")
    assert not marker.exists() and not base.exists()
    leave()
    runner.reset()
    assert not marker.exists() and not base.exists()
    assert (workspace.git_dir / "hooklab").exists()  # Hook Lab's own state stays


def test_a_refused_agent_and_slash_commands_read_in_words(tmp_path: Path) -> None:
    """The auto-mode refusal's screen showed ``subagent_stop … (denied)`` for an agent that
    never ran, and the client's tags cut mid-tag: ``<command-name>/exit</command-name>
    <command-message>exit</command-mess``, then ``<local-command-stdout>Bye!…``."""
    source = REFUSALS / "auto-mode-no-verdict.jsonl"
    lines = source.read_text().splitlines()
    last = json.loads(next(x for x in reversed(lines) if '"uuid"' in x))
    exit_typed = "<command-name>/exit</command-name>\n            <command-message>exit"
    exit_typed += "</command-message>\n            <command-args></command-args>"
    extra = []
    for n, content in enumerate((exit_typed, "<local-command-stdout>Bye!</local-command-stdout>")):
        entry = {k: last[k] for k in ("sessionId", "cwd", "version", "gitBranch", "userType")}
        entry |= {"type": "user", "message": {"role": "user", "content": content}}
        entry |= {"uuid": str(uuid.uuid4()), "parentUuid": last["uuid"], "isSidechain": False}
        entry |= {"timestamp": last["timestamp"], "promptId": f"p{n}", "promptSource": "typed"}
        extra.append(json.dumps(entry))
    path = tmp_path / source.name
    path.write_text("\n".join([*lines, *extra]) + "\n")
    shown = [m.shown() for m in moments_of(read_session(path))]
    said = "\n".join(shown)
    assert "the agent " in said and "refused before it ran (by auto mode's check)" in said
    assert "(denied)" not in said
    assert shown[-1].endswith(": you typed /exit")  # the person's command, not a prompt
    assert "<" not in said


def test_the_manual_mode_fix_is_one_row_at_every_width(tmp_path: Path) -> None:
    from harness.engine.checks.live_causes import MANUAL_FIX

    for pad, width in ((n, w) for n in range(0, 60, 2) for w in (80, 100, 120)):
        root = tmp_path / ("w" * pad) / "ws"  # the fix's words fall on every column
        result = CheckResult.failed("refused", details={"fix": MANUAL_FIX.format(root=root)})
        out = io.StringIO()
        console = Console(file=out, width=width, no_color=True, color_system=None)
        print_prose(console, result_renderable(result))
        rows = out.getvalue().splitlines()
        assert any("claude --permission-mode manual" in row for row in rows), rows
        assert "`" not in out.getvalue()
