"""What the client's permission mode refused, and what Claude did while a background agent
still ran: read from transcripts the pinned client (2.1.332) wrote, and replayed in order.

The files in tests/claude/transcripts/claude-code-2.1.332-refusals/ were written by plain
``claude`` in tmux with Hook Lab's scripted model (the tests below play the same sessions);
only the requests sent to the model and the environment listings were left out of them:
- auto-mode-no-verdict: auto mode's check answered "I cannot tell." (a stand-in whose safety
  check gives no usable answer); the client asked it ten times, then refused the Agent call
  (the screen: ``Not run · auto mode's check had no usable answer``), recording
  ``permissionDecision {decision: reject, source: config, reasonType: classifier, reasonCode:
  classifier:auto-mode:no-verdict}`` and ``toolDenialKind: automode-parsing-error``.
- user-rejected: ``claude --permission-mode manual``, a Bash call answered No at "Do you want
  to proceed?": ``toolDenialKind: user-rejected`` and no permission decision; then a user line
  ``[Request interrupted by user for tool use]``.
- edit-before-agent-end: an Edit retried after the Agent call returned ("Async agent
  launched") but before the agent ended; the guard refused it again, since the agent's
  SubagentStop hook had not run. The client noted the end as a task notification (a
  ``queue-operation`` enqueue with ``<tool-use-id>``, later a ``queued_command`` attachment).
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.person import AUTO_MODE_NOTICES, client_env
from harness.claude.client.terminal import Terminal, fresh_home
from harness.claude.engines import EMULATOR
from harness.claude.recorded import (
    AUTO_MODE_CHECK,
    USER,
    Prompt,
    ToolCall,
    config_root,
    find_sessions,
    from_extract,
    read_session,
)
from harness.engine.checks.live_causes import diagnose
from harness.engine.session_replay import replay
from tests.claude.hookproject import HookProject
from tests.conftest import require_real_client

FIXTURES = Path(__file__).parent / "transcripts" / "claude-code-2.1.332-refusals"
RECORDED_CWD = "/tmp/i51x/b1/project"  # where edit-before-agent-end was recorded
AGENT_PROMPT = "Audit NOTES.md and report."
ASK = "Mark the notes done."


def _calls(path: Path) -> list[ToolCall]:
    return read_session(path).tool_calls


def test_auto_modes_check_without_an_answer_is_read_as_its_refusal() -> None:
    timeline = read_session(FIXTURES / "auto-mode-no-verdict.jsonl")
    (agent,) = timeline.tool_calls
    assert (agent.name, agent.verdict, agent.denied) == ("Agent", "denied", AUTO_MODE_CHECK)
    assert agent.denial == "classifier:auto-mode:no-verdict"
    cause = diagnose(timeline, Path(timeline.cwd), matched=0)
    assert cause is not None
    assert cause.headline.startswith(
        "Claude Code's auto mode refused Claude's Agent (general-purpose) call (transcript "
        "line 11) before it ran: its safety check had no usable answer"
    )
    assert "claude --permission-mode manual" in cause.fix and "Yes" in cause.fix


def test_a_no_to_the_permission_prompt_is_the_persons_and_no_prompt_follows() -> None:
    timeline = read_session(FIXTURES / "user-rejected.jsonl")
    (bash,) = timeline.tool_calls
    assert (bash.verdict, bash.denied, bash.denial) == ("denied", USER, "user-rejected")
    # the client's "[Request interrupted by user for tool use]" is not something typed
    typed = [e.text for e in timeline.entries if isinstance(e, Prompt)]
    assert typed == ["Please audit the notes."]
    cause = diagnose(timeline, Path(timeline.cwd), matched=0)
    assert cause is not None and "the answer was No" in cause.headline
    assert "answer Yes to 'Do you want to proceed?'" in cause.fix


def test_a_background_agents_end_is_where_the_client_noted_it() -> None:
    calls = _calls(FIXTURES / "edit-before-agent-end.jsonl")
    assert [(c.name, c.verdict) for c in calls] == [
        ("Edit", "refused by guard.sh"),
        ("Agent", "ran"),
        ("Edit", "refused by guard.sh"),
        ("Edit", "ran"),
    ]
    agent = calls[1].subagent
    assert agent is not None and agent.ended == "normally"
    # after the call and the Edit the guard refused again, before the Edit that ran
    assert calls[2].line < (agent.ended_line or 0) < calls[3].line


def test_a_claims_extract_keeps_who_refused_and_where_an_agent_ended() -> None:
    """A passed claim keeps the timeline's extract, not the transcript: its re-verification
    replays the same order and skips the same calls."""
    for name in ("auto-mode-no-verdict", "edit-before-agent-end"):
        timeline = read_session(FIXTURES / f"{name}.jsonl")
        back = from_extract(timeline.to_json(), Path("extract.json"))
        assert [(c.denied, c.denial) for c in back.tool_calls] == [
            (c.denied, c.denial) for c in timeline.tool_calls
        ]
        assert [c.subagent.ended_line for c in back.tool_calls if c.subagent] == [
            c.subagent.ended_line for c in timeline.tool_calls if c.subagent
        ]


def test_a_refusal_before_the_agents_end_not_made_again_is_named_with_the_fix() -> None:
    timeline = read_session(FIXTURES / "edit-before-agent-end.jsonl")
    assert diagnose(timeline, Path(RECORDED_CWD), matched=5) is None  # made again: it counts
    timeline.entries = [e for e in timeline.entries if e.line != 29]  # not made again
    cause = diagnose(timeline, Path(RECORDED_CWD), matched=2)
    assert cause is not None
    assert cause.headline.startswith(
        "Claude's Edit (NOTES.md) at transcript line 24 came while the agent auditor was still "
        "running, so guard.sh refused it again"
    )
    assert cause.fix.startswith(
        "in that session, once Claude Code shows 'Agent \"audit notes\" finished', tell Claude "
        "to make the edit again"
    )


def project_audited_by_agent(root: Path) -> None:
    """A git project whose Edit guard refuses until its ``auditor`` agent has ended: the
    agent's SubagentStop hook writes .git/audited, a session's start removes it."""
    project = HookProject(root)
    project.file(
        ".claude/agents/auditor.md",
        "---\nname: auditor\ndescription: Audits NOTES.md.\n---\n"
        "Audit the file you are given and report.\n",
    )
    marker = '"$CLAUDE_PROJECT_DIR/.git/audited"'
    guard = f'[ -f {marker} ] && exit 0\necho "not audited yet" >&2\nexit 2'
    project.hook("SessionStart", f"cat >/dev/null\nrm -f {marker}", name="start.sh")
    project.hook("PreToolUse", "cat >/dev/null\n" + guard, matcher="Edit", name="guard.sh")
    project.hook(
        "SubagentStop",
        f"cat >/dev/null\ntouch {marker}",
        matcher="auditor",
        name="audited.sh",
    )
    project.file("NOTES.md", "Status: draft\n")
    project.commit("start")


def _replayed_rows(path: Path, root: Path) -> list[tuple[str, str, str]]:
    report = replay(read_session(path), root, engines=[EMULATOR])
    assert report.agrees, report.describe_divergence()
    return [(row.what.split()[0], row.recorded, row.replayed[EMULATOR]) for row in report.rows]


def test_the_replay_plays_a_background_agents_end_where_it_was_recorded(tmp_path: Path) -> None:
    """The edit in between replays refused, as recorded: the agent's SubagentStop (the
    marker) comes after it, not at the Agent call."""
    root = tmp_path / "project"
    project_audited_by_agent(root)
    recorded = (FIXTURES / "edit-before-agent-end.jsonl").read_text()
    session = tmp_path / "edit-before-agent-end.jsonl"
    session.write_text(recorded.replace(RECORDED_CWD, str(root)))
    shutil.copytree(FIXTURES / "edit-before-agent-end", tmp_path / "edit-before-agent-end")
    assert _replayed_rows(session, root) == [
        ("Edit", "refused by guard.sh", "refused by guard.sh"),
        ("Agent", "ran", "ran"),
        ("Edit", "refused by guard.sh", "refused by guard.sh"),
        ("Edit", "ran", "ran"),
        ("stop", "allowed", "allowed"),
    ]


class _EditsWhileTheAgentRuns:
    """The scripted model: Edit (refused), the Agent, the Edit again while the agent's own
    request is held (refused again), then the agent hands back its report and ends, and once
    its SubagentStop hook has written the marker, the Edit a third time (accepted)."""

    def __init__(self, root: Path) -> None:
        self.marker = root / ".git" / "audited"
        edit = {"file_path": str(root / "NOTES.md"), "old_string": "draft", "new_string": "done"}
        agent = {"description": "audit notes", "prompt": AGENT_PROMPT, "subagent_type": "auditor"}
        self.turns = [
            Reply.tool_use("toolu_e1", "Edit", edit),
            Reply.tool_use("toolu_a1", "Agent", agent),
            Reply.tool_use("toolu_e2", "Edit", edit),
            Reply.tool_use("toolu_e3", "Edit", edit),
            Reply.text("Notes are done."),
        ]
        self.answered = 0
        self.gap_edit_refused = threading.Event()

    def answer(self, request: ApiRequest) -> None:
        if AGENT_PROMPT in json.dumps(request.messages[:1]):
            if any(b.get("type") == "tool_result" for b in request.last_user_blocks()):
                ScriptedApi.answer(request, Reply.text("Reported."))
                return
            threading.Thread(target=self._hand_back, args=(request,), daemon=True).start()
            return
        self.answered += 1
        if self.answered == 4:  # the request after the Edit refused in the gap
            self.gap_edit_refused.set()
            deadline = time.monotonic() + 30
            while not self.marker.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        ScriptedApi.answer(request, self.turns.pop(0) if self.turns else Reply.text("Done."))

    def _hand_back(self, request: ApiRequest) -> None:
        self.gap_edit_refused.wait(120)
        report = {"message": "# Audit\nNo gaps."}
        ScriptedApi.answer(request, Reply.tool_use("toolu_h", "SubagentHandback", report))


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_on_the_real_client_an_edit_before_the_agents_end_replays_refused(
    tmp_path: Path,
) -> None:
    """Plain ``claude``: the Edit Claude retries while the agent runs is refused again, the
    screen then shows the agent finished; the transcript replays on the emulator in the
    client's order (before: the Edit in between replayed 'ran')."""
    require_real_client()
    root = tmp_path / "project"
    project_audited_by_agent(root)
    model = _EditsWhileTheAgentRuns(root)
    home = fresh_home(tmp_path)
    with ScriptedApi(on_request=model.answer) as api:
        terminal = Terminal(root, client_env(home, api.base_url), tmp_path / "terminal")
        try:
            terminal.claude(ASK)
            shown = terminal.wait_until(
                lambda s: "Notes are done." in s and 'Agent "audit notes" finished' in s,
                "the agent's end and the last words",
                180,
                AUTO_MODE_NOTICES,
            )
            terminal.quit_claude()
        finally:
            terminal.close()
    assert shown.count("hook error") == 2, shown  # the first Edit and the one in between
    (found,) = find_sessions(root, root=config_root({"HOME": str(home)}))
    rows = _replayed_rows(found.path, root)
    assert [r[2] for r in rows] == [
        "refused by guard.sh",
        "ran",
        "refused by guard.sh",
        "ran",
        "allowed",
    ], rows


def test_an_edit_after_the_agents_end_but_before_its_notification_comes_after_the_end() -> None:
    """Recorded on 2.1.332 by a person-played Lab 11 (the model retried the Edit once the
    agent's SubagentStop hook had written its marker): the client queued the agent's task
    notification only after that Edit, so the end is read from the agent's own transcript,
    whose last line is earlier than the Edit (a replay that played the end at the
    notification refused the Edit that ran)."""
    calls = _calls(FIXTURES / "edit-after-agent-end.jsonl")
    assert [(c.name, c.verdict) for c in calls] == [
        ("Edit", "refused by guard-spec-status.sh"),
        ("Agent", "ran"),
        ("Edit", "ran"),
        ("Bash", "ran"),
    ]
    agent = calls[1].subagent
    assert agent is not None and agent.ended == "normally"
    assert calls[1].line < (agent.ended_line or 0) < calls[2].line
