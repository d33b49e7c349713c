"""record-coverage-check.sh fed SubagentStop the way different clients send it: real bash, real
git, real JSON on stdin. Claude Code 2.1.332 sends no stop_reason and an unprefixed agent type
(tests/claude/test_fixture_hooks_on_both_engines.py plays that on the real client); other
clients send a stop_reason with the event, or a namespaced type."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.claude.matchers import matches
from tests.hooks.hookrepo import FIXTURE_CLAUDE, event, git_dir, project_with_hooks, run_hook

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")

AGENT = "aiup-vaadin-jooq:uc-coverage"
NOT_GIVEN = None


def transcript(tmp_path: Path, stop_reason: str | None) -> Path:
    """The agent's transcript: the assignment, then a last assistant entry (with no
    stop_reason at all when ``stop_reason`` is None)."""
    message: dict[str, object] = {
        "role": "assistant",
        "content": [{"type": "text", "text": "# Coverage report: UC-005"}],
    }
    if stop_reason is not None:
        message["stop_reason"] = stop_reason
    path = tmp_path / "agent.jsonl"
    entries = [
        {"type": "user", "message": {"role": "user", "content": "Audit UC-005."}},
        {"type": "assistant", "message": message},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def audit(
    root: Path,
    agent_transcript: Path | None,
    *,
    agent_type: str = AGENT,
    event_stop_reason: str | None = NOT_GIVEN,
) -> bool:
    """Fires the hook; True when it recorded an audit of UC-005."""
    fields: dict[str, object] = {
        "agent_id": "a1",
        "agent_type": agent_type,
        "stop_hook_active": False,
        "last_assistant_message": "# Coverage report: UC-005",
    }
    if agent_transcript is not None:
        fields["agent_transcript_path"] = str(agent_transcript)
    if event_stop_reason is not None:
        fields["stop_reason"] = event_stop_reason
    done = run_hook(root, "record-coverage-check.sh", event("SubagentStop", root, **fields))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    return (git_dir(root) / "aiup-coverage-checked" / "UC-005").is_file()


@pytest.mark.parametrize(
    ("transcript_reason", "event_reason", "recorded"),
    [
        ("end_turn", NOT_GIVEN, True),  # Claude Code 2.1.332: the transcript decides
        ("max_tokens", NOT_GIVEN, False),
        (None, NOT_GIVEN, False),  # no stop_reason anywhere: no evidence of a normal end
        (None, "end_turn", True),  # the event carries one: it decides
        ("max_tokens", "end_turn", True),
        ("end_turn", "max_tokens", False),
    ],
)
def test_the_event_stop_reason_decides_when_there_is_one_else_the_transcript(
    tmp_path: Path, transcript_reason: str | None, event_reason: str | None, recorded: bool
) -> None:
    root = project_with_hooks(tmp_path)
    path = transcript(tmp_path, transcript_reason)
    assert audit(root, path, event_stop_reason=event_reason) is recorded


def test_without_a_transcript_only_an_event_end_turn_records(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    assert not audit(root, tmp_path / "gone.jsonl")
    assert not audit(root, None, event_stop_reason="max_tokens")
    assert audit(root, None, event_stop_reason="end_turn")


AGENT_TYPES = [
    AGENT,
    f"plugin:{AGENT}",
    f"other:{AGENT}",
    f"{AGENT}-x",
    f"{AGENT}:extra",
    "uc-coverage",
    "aiup-vaadin-jooq:uc",
    "general-purpose",
]


def _coverage_matcher() -> str:
    settings = json.loads((FIXTURE_CLAUDE / "settings.json").read_text())
    (group,) = [
        g
        for g in settings["hooks"]["SubagentStop"]
        if any("record-coverage-check.sh" in h["command"] for h in g["hooks"])
    ]
    return str(group["matcher"])


@pytest.mark.parametrize("agent_type", AGENT_TYPES)
def test_the_hook_takes_exactly_the_agent_types_its_matcher_selects(
    tmp_path: Path, agent_type: str
) -> None:
    """The hook is fed directly, matcher or not, so a hook looser or stricter than its settings
    matcher shows here. harness.claude.matchers is the matcher rule the differential suite
    holds to the real client (a regex is searched anywhere in agent_type)."""
    root = project_with_hooks(tmp_path)
    selected = matches(_coverage_matcher(), agent_type)
    assert audit(root, transcript(tmp_path, "end_turn"), agent_type=agent_type) is selected


def test_the_agent_types_tried_hold_both_kinds() -> None:
    selected = [t for t in AGENT_TYPES if matches(_coverage_matcher(), t)]
    assert {AGENT, f"plugin:{AGENT}"} <= set(selected) and len(selected) < len(AGENT_TYPES)


INTERACTIVE = (
    Path(__file__).parents[1] / "claude" / "transcripts" / "claude-code-2.1.332-interactive"
)
AGENT_FILE = "613b36ca-bd2c-4336-a49f-0b0a70ebb45e/subagents/agent-a329321456b7e9335.jsonl"


def test_an_interactive_agent_that_hands_its_report_back_is_recorded(tmp_path: Path) -> None:
    """The interactive client (2.1.332, in tmux) runs the agent in the background and tells it
    to end by calling SubagentHandback with its report: the agent's last entry is that tool
    call (stop_reason tool_use), and SubagentStop carries no last_assistant_message. Both
    files are the real client's (the agent transcript without the requests it sent the model and
    the client's own listings);
    the event is fed as the client sent it, its paths moved to this test's folder."""
    root = project_with_hooks(tmp_path)
    agent = tmp_path / "agent.jsonl"
    shutil.copyfile(INTERACTIVE / AGENT_FILE, agent)
    sent = json.loads((INTERACTIVE / "subagentstop-event.json").read_text())
    assert "last_assistant_message" not in sent and sent["permission_mode"] == "auto"
    sent.update(cwd=str(root), agent_transcript_path=str(agent))
    done = run_hook(root, "record-coverage-check.sh", sent)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    marker = git_dir(root) / "aiup-coverage-checked" / "UC-005"
    assert marker.read_text().startswith(f"coverage audit by {sent['agent_id']} at ")
