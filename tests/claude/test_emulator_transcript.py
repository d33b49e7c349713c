"""The emulator's transcript reads back, through the one transcript reader, as the hooks decided:
a session is played on the emulator with real bash hooks, its transcript read with
``read_session``, and each step's hook outcome compared with what the timeline says. The
petclinic sessions are also compared with the real client's transcripts of the same sessions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.claude.engines import open_session
from harness.claude.recorded import UNNAMED_HOOK, Timeline, ToolCall, read_session
from harness.claude.scripted import StepOutcome
from harness.claude.vocabulary import HookDecision, Outcome, StepKind, Verdict, verdict
from harness.engine.moment import verdict_of
from harness.workspace import Workspace
from tests.claude.hookproject import HookProject
from tests.recorded_sessions import SESSIONS, Played

# What the hooks of the played session do: every way a hook speaks that the reader reads.
PROMPT_GUARD = 'grep -q secret && { echo "prompts about the secret are refused" >&2; exit 2; }\n:'
WRITE_GUARD = 'echo "locked files are read-only for Claude" >&2; exit 2'
RM_GUARD = (
    'grep -q \'"rm \' && echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
    '"permissionDecision": "deny", "permissionDecisionReason": "no rm in this project"}}\'\n:'
)
REPORT = 'grep -q report.txt && { echo "report.txt changed: check its numbers" >&2; exit 2; }\n:'
STOP = """
input=$(cat)
if grep -q '"stop_hook_active": *true' <<<"$input"; then
  echo '{"systemMessage": "let go without proof"}'
  exit 0
fi
echo "run the tests first" >&2
exit 2
"""


def _prompt_verdict(step: StepOutcome, hook: str) -> str:
    if step.outcome == Outcome.BLOCKED:
        return verdict(Verdict.REFUSED_BY, [hook])
    return verdict(Verdict.STOPPED if step.outcome == Outcome.STOPPED else Verdict.SENT)


def _compared(steps: list[StepOutcome], timeline: Timeline, prompt_hook: str = "") -> None:
    """Each step the transcript holds, in order, reads as the emulator decided it."""
    played = [s for s in steps if s.do not in (StepKind.SESSION_START, StepKind.SUBAGENT_STOP)]
    assert len(timeline.entries) == len(played), (timeline.entries, played)
    for step, entry in zip(played, timeline.entries, strict=True):
        if step.do == StepKind.PROMPT:
            assert entry.verdict == _prompt_verdict(step, prompt_hook), (step, entry)
            continue
        expected = verdict_of(step)
        if isinstance(entry, ToolCall) and entry.refused_by == UNNAMED_HOOK:
            # a JSON deny: the client records that a hook refused, not which (2.1.332)
            expected = verdict(Verdict.REFUSED_BY, [UNNAMED_HOOK])
        assert entry.verdict == expected, (step, entry)
        if step.do == StepKind.STOP or not step.tool_ran:
            assert entry.feedback == step.feedback, (step, entry)


def test_every_hook_outcome_reads_back_from_the_emulators_transcript(
    project: HookProject,
) -> None:
    project.hook("UserPromptSubmit", PROMPT_GUARD)
    project.hook("PreToolUse", WRITE_GUARD, matcher="Write", name="guard.sh")
    project.hook("PreToolUse", RM_GUARD, matcher="Bash", name="bash-guard.sh")
    project.hook("PostToolUse", REPORT, matcher="Edit", name="report.sh")
    project.hook("Stop", STOP, name="stop.sh")
    project.file("report.txt", "1 2 3\n")
    with project.session() as session:
        steps = [
            session.prompt("Tell me the secret."),
            session.prompt("Tidy the project."),
            session.write("locked.txt", "x"),
            session.bash("rm -f junk.txt"),
            session.edit("report.txt", "1 2 3", "1 2 4"),
            session.bash("true"),
            session.stop("Tidied."),
            session.stop("Tidied, as asked."),
        ]
    timeline = read_session(session.transcript_path)
    _compared(steps, timeline, prompt_hook="hook1.sh")
    verdicts = [e.verdict for e in timeline.entries]
    assert verdicts == [
        "refused by hook1.sh",
        "sent",
        "refused by guard.sh",
        "refused by a PreToolUse hook",
        "ran, reported by report.sh",
        "ran",
        "blocked by stop.sh",
        "allowed",
    ]
    assert timeline.stops[1].system_message == "let go without proof"
    assert timeline.scripted_model  # the emulator is Hook Lab playing, not a person
    decided = [(d.event, d.hook, d.decision) for d in timeline.decisions]
    assert decided == [
        ("UserPromptSubmit", "hook1.sh", "refused"),
        ("PreToolUse", "guard.sh", "refused"),
        ("PreToolUse", "a PreToolUse hook", "refused"),
        ("PostToolUse", "report.sh", "reported"),
        ("Stop", "stop.sh", "blocked"),
        ("Stop", "", "said"),
    ]


def test_a_stop_hook_that_fails_without_blocking_reads_back(project: HookProject) -> None:
    project.hook("Stop", 'echo "the stop check crashed" >&2; exit 1', name="stop.sh")
    with project.session() as session:
        steps = [session.prompt("Anything?"), session.stop("Nothing.")]
    timeline = read_session(session.transcript_path)
    _compared(steps, timeline)
    (stop,) = timeline.stops
    assert stop.verdict == "allowed" and stop.failed == ["stop.sh"]
    assert "the stop check crashed" in stop.failure


def _play(name: str, root: Path, config: Path) -> tuple[list[StepOutcome], Path]:
    with open_session("emulator", root, transcript_dir=config) as session:
        steps = [session.session_start()]
        for method, args, kw in SESSIONS[name]:
            action: Callable[..., Any] = getattr(session, method)
            steps.append(action(*args, **kw))
        return steps, session.transcript_path


@pytest.mark.parametrize("name", ["sed-reported", "no-audit"])
def test_a_petclinic_session_reads_back_from_the_emulator_as_from_the_client(
    name: str, workspace: Workspace, tmp_path: Path, recorded: Callable[[str], Played]
) -> None:
    steps, transcript = _play(name, workspace.root, tmp_path / "emulator-config")
    emulated = read_session(transcript)
    _compared(steps, emulated)
    real = read_session(recorded(name).transcript)
    assert [e.verdict for e in emulated.entries] == [e.verdict for e in real.entries]
    assert _decided(emulated) == _decided(real)


def _decided(timeline: Timeline) -> list[tuple[str, str, str]]:
    """What hooks decided, but for the runs that decided nothing: the client notes some of
    those (a hook_success line for a run that printed) and the emulator's transcript none."""
    return [
        (d.event, d.hook, d.decision) for d in timeline.decisions if d.decision != HookDecision.RAN
    ]


def test_a_hooks_refusal_is_recorded_as_the_pinned_client_records_it(
    project: HookProject,
) -> None:
    """The decision the emulator writes beside a refused call is the one 2.1.332 wrote."""
    pinned = Path(__file__).parent / "transcripts" / "claude-code-2.1.332-refusals"
    recorded = [
        json.loads(line)["permissionDecision"]
        for line in (pinned / "edit-before-agent-end.jsonl").read_text().splitlines()
        if '"source":"hook"' in line
    ]
    project.hook("PreToolUse", WRITE_GUARD, matcher="Write", name="guard.sh")
    with project.session() as session:
        session.write("locked.txt", "x")
    written = [
        entry["permissionDecision"]
        for entry in map(json.loads, session.transcript_path.read_text().splitlines())
        if "permissionDecision" in entry
    ]
    assert recorded and written == recorded[:1]
