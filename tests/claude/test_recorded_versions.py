"""Transcripts of other client versions, read as each wrote them.

The fixtures in tests/claude/transcripts/VERSION/ were written by Claude Code 2.0.64 to 2.1.100
playing tests/version_probe.py (installed from the npm registry, offline, against the scripted
model); the pinned version plays the same probe live here. Each family of versions records the
same turns differently (see ``harness.claude.recorded.FORMATS``), and each must read as what
happened: a Stop hook that failed without blocking let the turn end, a prompt a
UserPromptSubmit hook refused is no prompt Claude saw, a call a PreToolUse hook denied with
JSON was refused, however the client worded its result.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.claude.client.install import PINNED_VERSION, find_client
from harness.claude.recorded import (
    FORMATS,
    Prompt,
    StopAttempt,
    Timeline,
    ToolCall,
    find_sessions,
    from_extract,
    read_session,
    transcript_format,
)
from harness.engine.moment import moments_of
from harness.workspace import Workspace
from tests.builders import run_cli
from tests.conftest import require_real_client
from tests.version_probe import NEUTRAL_PROJECT, fixture, make_project, play

FAMILIES = {
    "2.0.x": ("2.0.64", "2.0.76"),
    "2.1.1x–4x": ("2.1.14", "2.1.29", "2.1.38", "2.1.39", "2.1.42"),
    "2.1.100": ("2.1.100",),
}
RECORDED = [(family, v) for family, versions in FAMILIES.items() for v in versions]


def _expected(
    refused_rm: str, refused_mv: str, report: str, agent: str = "Task"
) -> list[tuple[str, str, str]]:
    """The probe's turns as entries: (kind, prompt text or tool, verdict)."""
    return [
        ("prompt", "Say hi.", "sent"),
        ("stop", "Hi.", "allowed"),  # stop.sh failed with exit 1: the turn ended all the same
        ("prompt", "Tell me the secret.", "refused by prompt.sh"),
        ("prompt", "Halt here.", "stopped"),
        ("prompt", "Write locked.txt.", "sent"),
        ("tool", "Write", "refused by guard.sh"),
        ("stop", "The hook refused the write.", "allowed"),
        ("prompt", "Show locked.txt.", "sent"),
        ("tool", "Bash", "refused by bash-guard.sh"),
        ("stop", "The hook refused the command.", "allowed"),
        ("prompt", "Remove junk.txt.", "sent"),
        ("tool", "Bash", refused_rm),
        ("stop", "The hook denied rm.", "allowed"),
        ("prompt", "Move junk.txt.", "sent"),
        ("tool", "Bash", refused_mv),
        ("stop", "The hook denied mv.", "allowed"),
        ("prompt", "Run false.", "sent"),
        ("tool", "Bash", "ran"),  # its own failure (Exit code 1), not a hook's refusal
        ("stop", "false failed, as it does.", "allowed"),
        ("prompt", "Edit missing.txt.", "sent"),
        ("tool", "Edit", "error"),
        ("stop", "There is no missing.txt.", "allowed"),
        ("prompt", "Write report.txt.", "sent"),
        ("tool", "Write", report),
        ("stop", "Wrote report.txt; the hook asks to check it.", "allowed"),
        ("prompt", "Write notes.txt.", "sent"),
        ("tool", "Write", "ran"),
        ("stop", "Wrote notes.txt.", "blocked by stop.sh"),
        ("stop", "Wrote notes.txt; the tests were not run.", "allowed"),
        ("prompt", "Ask a helper.", "sent"),
        ("tool", agent, "ran"),
        ("stop", "The helper said done.", "allowed"),
        ("prompt", "Say done.", "sent"),
        ("stop", "Done.", "stopped"),
        ("prompt", "Bye.", "sent"),
        ("stop", "Bye.", "allowed"),
    ]


# The 2.0.x client records no hook progress: a JSON deny's reason names no hook. The 2.1.1x–4x
# client's progress lines name the one PreToolUse hook that ran. Neither records what a
# PostToolUse hook reported; 2.1.100 and the pinned one do, and name no hook for a JSON deny.
EXPECTED = {
    "2.0.x": _expected("refused by a PreToolUse hook", "refused by a PreToolUse hook", "ran"),
    "2.1.1x–4x": _expected("refused by bash-guard.sh", "refused by bash-guard.sh", "ran"),
    "2.1.100": _expected(
        "refused by a PreToolUse hook",
        "refused by a PreToolUse hook",
        "ran, reported by report.sh",
        agent="Agent",
    ),
    PINNED_VERSION: _expected(
        "refused by a PreToolUse hook",
        "refused by a PreToolUse hook",
        "ran, reported by report.sh",
        agent="Agent",
    ),
}


def _entries(t: Timeline) -> list[tuple[str, str, str]]:
    shown = []
    for e in t.entries:
        if isinstance(e, Prompt):
            shown.append(("prompt", e.text, e.verdict))
        elif isinstance(e, ToolCall):
            shown.append(("tool", e.name, e.verdict))
        else:
            shown.append(("stop", e.last_message, e.verdict))
    return shown


def _assert_the_three_misreads_are_read(t: Timeline) -> None:
    # 1. a Stop hook that failed with a non-blocking status: named, and not a blocked stop
    first = t.stops[0]
    assert not first.blocked and first.failed == ["stop.sh"]
    assert first.failure.startswith("Failed with non-blocking status code: the stop check")
    assert ("Stop", "stop.sh", "failed") in {(d.event, d.hook, d.decision) for d in t.decisions}
    # 2. a UserPromptSubmit refusal is no prompt Claude saw; its words are no prompt at all
    refused, stopped = t.prompts[1], t.prompts[2]
    assert (refused.refused_by, refused.feedback) == (
        "prompt.sh",
        "prompts about the secret are refused",
    )
    assert stopped.stopped and stopped.feedback == "halted by the prompt hook"
    assert not any(p.text.startswith("Operation stopped by hook") for p in t.prompts)
    # 3. the calls the PreToolUse hook denied with JSON were refused, not run
    rm, mv = (c for c in t.tool_calls if c.input.get("command", "").startswith(("rm", "mv")))
    assert rm.refused_by and mv.refused_by and not rm.ran and not mv.ran
    assert "no rm in this project" in rm.feedback
    # and the subagent's own transcript is found (2.0.x keep it beside the session); 2.1.1x–4x
    # record no stop reason there either, so how it ended is not known
    (run,) = t.subagents
    ended = "unknown" if transcript_format(t.client_version) is FORMATS[1] else "normally"
    assert (run.agent_type, run.ended, run.last_message) == (
        "general-purpose",
        ended,
        "Helper done.",
    )
    assert run.transcript is not None and run.transcript.is_file()


@pytest.mark.parametrize(("family", "version"), RECORDED)
def test_a_transcript_of_each_older_version_reads_as_the_client_wrote_it(
    family: str, version: str
) -> None:
    t = read_session(fixture(version))
    assert t.client_version == version and t.cwd == NEUTRAL_PROJECT
    assert t.scripted_model
    assert _entries(t) == EXPECTED[family]
    _assert_the_three_misreads_are_read(t)
    known = transcript_format(version)
    assert known is not None and known.name == family
    assert t.read_as == f"Claude Code {version}, read as a {family} transcript"
    assert t.warnings == [
        f"written by Claude Code {version}: read as a {family} transcript, as Claude Code "
        f"{', '.join(FAMILIES[family])} wrote them; these do not record {known.unrecorded}"
    ]


def test_the_pinned_version_reads_the_same_session_the_same_way(tmp_path: Path) -> None:
    require_real_client()
    probe = play(PINNED_VERSION, tmp_path)
    t = read_session(probe.transcript)
    assert t.client_version == PINNED_VERSION and t.warnings == []
    assert t.read_as == f"Claude Code {PINNED_VERSION}"
    assert _entries(t) == EXPECTED[PINNED_VERSION]
    _assert_the_three_misreads_are_read(t)


@pytest.mark.parametrize("version", [versions[-1] for versions in FAMILIES.values()])
def test_the_fixture_is_what_that_client_writes_today(version: str, tmp_path: Path) -> None:
    """With that version installed (HOOKLAB_CLAUDE_CODE_VERSION=V lab doctor --fix), the
    probe played again reads as its fixture does."""
    if find_client(version) is None:
        pytest.skip(f"Claude Code {version} is not installed; its fixture stands")
    probe = play(version, tmp_path)
    assert _entries(read_session(probe.transcript)) == _entries(read_session(fixture(version)))


def test_turn_ends_without_a_stop_reason_are_read_from_the_answers_shape() -> None:
    # 2.1.1x–4x write every answer with stop_reason null: a text answer ends the turn, unless
    # a tool call of the same message follows it ("Running it." then the call of false).
    path = fixture("2.1.39")
    assert '"stop_reason":"end_turn"' not in path.read_text()
    t = read_session(path)
    running = [s for s in t.stops if s.last_message == "Running it."]
    assert running == []
    # the blocked stop's summary comes late, after the next answer: it goes to the first
    blocked, after = (s for s in t.stops if s.last_message.startswith("Wrote notes"))
    assert blocked.decided_line is not None and after.decided_line is not None
    assert blocked.decided_line < after.decided_line


def test_refused_prompts_survive_the_extract_and_show_in_a_live_steps_view() -> None:
    t = read_session(fixture("2.1.29"))
    back = from_extract(t.to_json(), Path("x"))
    assert [(p.text, p.verdict) for p in back.prompts][1:3] == [
        ("Tell me the secret.", "refused by prompt.sh"),
        ("Halt here.", "stopped"),
    ]
    prompts = [v for v in moments_of(t) if v.do == "prompt"]
    assert [v.outcome for v in prompts][:4] == ["", "blocked", "stopped", ""]
    # a plain prompt's extract is as it was before prompts had verdicts
    assert t.to_json()["entries"][0] == {"kind": "prompt", "line": 2, "text": "Say hi."}


def test_a_2_0_clients_subagent_files_are_no_sessions(tmp_path: Path) -> None:
    # 2.0.x writes its subagents' turns (warm-ups too) as agent-ID.jsonl beside the sessions,
    # with the session's cwd: lab replay --latest must not take one for the newest session.
    folder = tmp_path / "projects" / "-home-dev-probe"
    shutil.copytree(fixture("2.0.76").parent, folder)
    agents = sorted(folder.glob("agent-*.jsonl"))
    assert any('"content":"Warmup"' in a.read_text() for a in agents)
    found = find_sessions(Path(NEUTRAL_PROJECT), root=tmp_path)
    assert [s.path.name for s in found] == ["session.jsonl"]


def test_a_stop_holds_its_failed_hooks_in_the_extract() -> None:
    stop = next(e for e in read_session(fixture("2.0.64")).entries if isinstance(e, StopAttempt))
    assert stop.to_json()["failed_hooks"] == {
        "hooks": ["stop.sh"],
        "said": "Failed with non-blocking status code: the stop check crashed",
    }


@pytest.mark.parametrize(("family", "version"), [("2.0.x", "2.0.76"), ("2.1.1x–4x", "2.1.39")])
def test_lab_replay_of_an_older_clients_session_names_what_it_read(
    workspace: Workspace, tmp_path: Path, family: str, version: str
) -> None:
    # A participant whose settings are the probe's replays a session their older client wrote
    # in this workspace: the replay names the version and the format it read it as, and the
    # three misreads agree with what the hooks do now; what differs is what the format does
    # not record (a PostToolUse report) and the probe's stop modes, set per turn in a file.
    root = workspace.root
    shutil.rmtree(root / ".claude")
    shutil.copytree(make_project(tmp_path / "probe") / ".claude", root / ".claude")
    session = tmp_path / "session.jsonl"
    session.write_text(fixture(version).read_text().replace(NEUTRAL_PROJECT, str(root)))

    shown = run_cli("replay", str(session), cwd=root)
    said = " ".join(shown.out.split())  # as the terminal wraps it
    assert f"Claude Code {version}, read as a {family} transcript, from commit" in said, shown
    assert f"note: written by Claude Code {version}: read as a {family} transcript" in said
    assert shown.code == 1  # the rows below differ, and the replay says so

    done = run_cli("replay", str(session), "--json", cwd=root)
    rows = json.loads(done.out)["rows"]
    differing = [
        (r["what"], r["recorded"], r["replayed"]["emulator"])
        for r in rows
        if r["agrees"]["emulator"] is False
    ]
    assert differing == [
        ("Write report.txt", "ran", "ran, reported by report.sh"),
        ("stop", "blocked by stop.sh", "allowed"),
        ("stop", "stopped", "allowed"),
    ]
    refused = [r for r in rows if r["what"].startswith(("Bash rm", "Bash mv"))]
    assert [r["agrees"]["emulator"] for r in refused] == [True, True]
