"""Each check kind: pass, fail and error, against a real provisioned workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.engine.checks import CHECK_KINDS
from harness.engine.context import CheckContext, StepState
from harness.engine.throwaway import path_without
from harness.results import CheckResult, Status
from harness.schema import check_table
from harness.workspace import Workspace

LAB_DIR = Path(__file__).resolve().parents[2] / "labs" / "04-status-guard"


def check(
    ws: Workspace,
    kind: str,
    start: str | None = None,
    *,
    engine: str | None = None,
    tries: int = 0,
    **params: Any,
) -> CheckResult:
    """``tries``: whole quiz answers checked on the step before (lab check counts them)."""
    spec = CHECK_KINDS[kind]
    p = check_table({"kind": kind, **params}, spec.params, path="test", where="check")
    assert spec.validate(p) is None
    ctx = CheckContext(ws, LAB_DIR)
    if engine is not None:
        ctx = CheckContext(ws, LAB_DIR, engine=engine, engine_forced=True)
    ctx.lab_start_commit = start or ws.head()
    ctx.step = StepState(quiz_tries=tries)
    return spec.run(ctx, p)


def test_file(ws: Workspace) -> None:
    uc = "docs/use_cases/UC-005-add-visit.md"
    assert check(ws, "file", path=uc, contains="**Status:** Approved").status is Status.PASS
    r = check(ws, "file", path=uc, contains="**Status:** Done")
    assert r.status is Status.FAIL and r.expected == "contains '**Status:** Done'"
    assert check(ws, "file", path="nope.txt", exists=True).found == "no such file"
    assert check(ws, "file", path="nope.txt", absent=True)
    assert not check(ws, "file", path=uc, not_contains="Approved")
    assert check(ws, "file", path=uc, matches=r"^\*\*Use Case ID:\*\* UC-005$", means="its id line")
    # A pattern is said in words, and found: is the line it is about, not the file's head.
    r = check(
        ws,
        "file",
        path=uc,
        matches=r"^\*\*Use Case ID:\*\* UC-009$",
        means="the id line names UC-009",
        line_with="**Use Case ID:",
    )
    assert r.status is Status.FAIL and r.expected == "the id line names UC-009"
    assert r.found == "**Use Case ID:** UC-005"


def test_git(ws: Workspace) -> None:
    assert check(ws, "git", clean=True)
    assert not check(ws, "git", changed=["docs/*"])
    (ws.root / "docs" / "x.md").write_text("x")
    assert check(ws, "git", changed=["docs/*"])
    r = check(ws, "git", clean=True)
    assert r.status is Status.FAIL and "docs/x.md" in (r.found or "")
    start = ws.head()
    assert not check(ws, "git", start=start, committed=["docs/x.md"])
    ws.commit_all("x")
    assert check(ws, "git", start=start, committed=["docs/x.md"])


def test_shell(ws: Workspace) -> None:
    assert check(ws, "shell", command="echo hi", stdout_contains="hi")
    r = check(ws, "shell", command="echo boom >&2; exit 3")
    assert r.status is Status.FAIL and r.found == "exit 3" and "boom" in r.output
    r = check(ws, "shell", command="sleep 5", timeout=0.5)
    assert r.status is Status.ERROR


def test_quiz(ws: Workspace) -> None:
    answers = {"q1": "b", "q2": ["a", "c"]}
    r = check(ws, "quiz", file="answers/q.toml", answers=answers)
    assert r.status is Status.FAIL and "does not exist" in r.message
    (ws.root / "answers").mkdir()
    (ws.root / "answers" / "q.toml").write_text('q1 = "B"\nq2 = ["c"]\n')
    r = check(ws, "quiz", file="answers/q.toml", answers=answers, explain={"q2": "read ADR-7"})
    # A first try hears how many answers are wrong, not which.
    assert r.status is Status.FAIL and r.message == "1 of 2 answers wrong"
    assert "q2" not in (r.found or "") and "ADR-7" not in (r.found or "")
    assert r.details["quiz_try"] is True
    r = check(
        ws, "quiz", tries=1, file="answers/q.toml", answers=answers, explain={"q2": "read ADR-7"}
    )
    assert r.status is Status.FAIL and r.message == "1 of 2 answers wrong"
    assert "read ADR-7" in (r.found or "") and "'a'" not in (r.found or "")
    (ws.root / "answers" / "q.toml").write_text('q1 = "b"\nq2 = ["c", "a"]\n')
    assert check(ws, "quiz", file="answers/q.toml", answers=answers)
    (ws.root / "answers" / "q.toml").write_text("q1 = \n")
    assert "invalid TOML" in check(ws, "quiz", file="answers/q.toml", answers=answers).message


def test_hook_session_pass_fail_with_event_json(ws: Workspace, engine: str) -> None:
    """On either engine a step carries the event JSON the hooks read, and a failing step
    shows it."""
    uc = "docs/use_cases/UC-005-add-visit.md"
    steps = [
        {"do": "session_start"},
        {
            "do": "edit",
            "file": uc,
            "old": "**Status:** Approved",
            "new": "**Status:** Done",
            "expect": "blocked",
            "feedback_contains": "coverage-check UC-005",
            "file_unchanged": uc,
        },
    ]
    r = check(ws, "hook_session", engine=engine, steps=steps)
    assert r.status is Status.PASS, r.found
    assert r.details["engine"] == engine
    session = r.details["session"]
    assert [e["hook_event_name"] for e in session[0]["events"]] == ["SessionStart"]
    # The real client opens a turn for an edit without a prompt (UserPromptSubmit first).
    pre = [e for e in session[1]["events"] if e["hook_event_name"] == "PreToolUse"]
    assert len(pre) == 1 and pre[0]["tool_input"]["old_string"] == "**Status:** Approved"
    assert session[1]["hooks"][0]["exit_code"] == 2
    # Only the project's hooks are listed: the real client's payload recorder is not one.
    assert not any("payload-recorder" in h["stderr"] for h in session[1]["hooks"])
    # The lab's own step wants the other outcome: fail, with what was expected and the hook's
    # side shown; an inline step is the lab's, so nobody "predicted" anything.
    steps[1]["expect"] = "allowed"
    r = check(ws, "hook_session", engine=engine, steps=steps)
    assert r.status is Status.FAIL
    assert r.message == "the hooks did not behave as this step expects"
    assert (r.found or "") == (
        "session step 2 (edit docs/use_cases/UC-005-add-visit.md): "
        "this check needs allowed, it was blocked"
    )
    assert '"tool_name": "Edit"' in r.output and "exit 2" in r.output
    # The hook's message is shown once: in the step's row (its feedback), not again as stderr.
    assert "coverage-check UC-005" in r.details["session"][1]["feedback"]
    assert "stderr:" not in r.output and "coverage-check UC-005" not in r.output
    # The session ran on a copy: the participant's file is untouched.
    assert "**Status:** Approved" in (ws.root / uc).read_text()


def test_hook_session_fail_open_without_jq(ws: Workspace) -> None:
    steps = [
        {"do": "session_start", "quiet": True},
        {"do": "write", "file": "docs/n.md", "content": "x", "quiet": True},
        {"do": "stop", "expect": "allowed", "quiet": True},
    ]
    assert check(ws, "hook_session", steps=steps, hide_programs=["jq"])
    # With jq the same change holds the turn: the check can fail.
    assert not check(ws, "hook_session", steps=steps)


def test_hook_session_fails_on_the_participants_broken_settings(ws: Workspace) -> None:
    # The participant edits .claude/settings.json (Lab 07, 08): a typo there is theirs to fix,
    # with where it breaks, not an error of the harness.
    (ws.root / ".claude" / "settings.json").write_text("{ not json")
    r = check(ws, "hook_session", steps=[{"do": "session_start"}])
    assert r.status is Status.FAIL
    assert r.message.startswith(".claude/settings.json is not valid")
    assert "line 1, column 3" in r.message
    assert str(r.details["fix"]).startswith("jq . .claude/settings.json shows where it breaks")


def test_verify_hook(ws: Workspace) -> None:
    params = {
        "script": "scripts/check-before-stop.sh",
        "break_cmd": "rm -f ok",
        "fix_cmd": "touch ok",
    }
    r = check(ws, "verify_hook", **params)
    assert r.status is Status.FAIL and "does not exist" in r.message
    hook = ws.root / "scripts" / "check-before-stop.sh"
    hook.parent.mkdir()
    hook.write_text(
        "#!/bin/sh\ncat >/dev/null\n[ -f ok ] && exit 0\necho 'Stop check blocked:"
        " no ok' >&2\nexit 1\n"
    )
    hook.chmod(0o755)
    r = check(ws, "verify_hook", **params)
    assert r.status is Status.FAIL  # exit 1 never blocks
    r = check(ws, "verify_hook", **{**params, "fix_cmd": "exit 7"})
    assert r.status is Status.ERROR


def test_sensors_error_when_maven_is_missing(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    with path_without(["mvn", "java"]) as path:
        monkeypatch.setenv("PATH", path)
        r = check(ws, "sensors", expect={"ArchitectureTest": "green"})
    assert r.status is Status.ERROR, r


def test_sensors_without_run_read_reports(ws: Workspace) -> None:
    r = check(ws, "sensors", run=False, expect={"ArchitectureTest": "green"})
    assert r.status is Status.FAIL and "absent" in (r.found or "")


@pytest.mark.maven
def test_sensors_real_run_green_and_red(ws: Workspace) -> None:
    both = {"ArchitectureTest": "green", "UseCaseTraceabilityTest": "green"}
    assert check(ws, "sensors", expect=both)
    assert check(ws, "sensors", run=False, fresh=True, expect=both)
    # Answers written after the run are nothing the sensors read: the reports stay fresh.
    (ws.root / "answers").mkdir()
    (ws.root / "answers" / "reports.toml").write_text('q1 = "5"\n')
    assert check(ws, "sensors", run=False, fresh=True, expect=both)
    uc = ws.root / "docs/use_cases/UC-003-register-new-owner.md"
    uc.write_text(uc.read_text().replace("A1: Validation Errors", "A1: Invalid Input"))
    stale = check(ws, "sensors", run=False, fresh=True, expect=both)
    assert stale.status is Status.FAIL and "older" in stale.message
    r = check(ws, "sensors", expect=both)
    assert r.status is Status.FAIL and "UseCaseTraceabilityTest: red" in (r.found or "")
    assert check(
        ws,
        "sensors",
        failure_contains={"UseCaseTraceabilityTest": "A1: Validation Errors"},
        run=False,
    )


def test_quiz_lists_questions_in_their_own_order(ws: Workspace) -> None:
    answers = {"q1": "b", "q2": "a", "q3": "c"}
    (ws.root / "answers").mkdir()
    (ws.root / "answers" / "q.toml").write_text('q1 = "a"\nq2 = "a"\nq3 = "a"\n')
    r = check(ws, "quiz", tries=1, file="answers/q.toml", answers=answers)
    assert (r.found or "").splitlines() == ['q1: "a" is not right', 'q3: "a" is not right']


def test_a_quiz_with_a_question_unanswered_judges_no_answer(ws: Workspace) -> None:
    """q1 wrong and q3 missing: only q3 is named, or answering one question at a time would
    tell each answer's fate; the try does not count."""
    answers = {"q1": "b", "q2": "a", "q3": "c"}
    (ws.root / "answers").mkdir()
    (ws.root / "answers" / "q.toml").write_text('q1 = "a"\nq2 = "a"\n')
    r = check(ws, "quiz", tries=1, file="answers/q.toml", answers=answers)
    assert r.message == "1 of 3 questions still to answer"
    assert (r.found or "").splitlines() == [
        'q3: not answered yet: write the letter of an option between the quotes, e.g. q3 = "a"',
    ]
    assert "quiz_try" not in r.details


def test_file_pass_message_does_not_repeat_the_path(ws: Workspace) -> None:
    uc = "docs/use_cases/UC-005-add-visit.md"
    for params in ({"contains": "**Status:** Approved"}, {"exists": True}):
        r = check(ws, "file", path=uc, **params)
        assert r.status is Status.PASS and r.name == f"file {uc}"
        assert uc not in r.message, r.message
    gone = check(ws, "file", path="nope.txt", absent=True)
    assert gone.status is Status.PASS and "nope.txt" not in gone.message


def test_hook_session_failure_names_file_steps_and_sequence_items_apart(ws: Workspace) -> None:
    """A trick without its own prompt: the stop after it has stop_hook_active: true, so the
    Stop hook lets the turn end. The result says so in words and never says a bare "step 5"."""
    (ws.root / "scenarios").mkdir()
    (ws.root / "scenarios" / "s.toml").write_text(
        '[[step]]\ndo = "session_start"\n'
        '[[step]]\ndo = "write"\nfile = "docs/notes.md"\ncontent = "a change"\n'
        '[[step]]\ndo = "stop"\nexpect = "blocked"\n'
        '[[step]]\ndo = "bash"\ncommand = "true"\n'
        '[[step]]\ndo = "stop"\nexpect = "blocked"\n'
    )
    r = check(
        ws,
        "hook_session",
        scenario="scenarios/s.toml",
        scenario_in="workspace",
        expect_sequence=[
            {"do": "stop", "outcome": "blocked"},
            {"do": "bash"},
            {"do": "stop", "outcome": "blocked"},
        ],
    )
    assert r.status is Status.FAIL
    found = (r.found or "").splitlines()
    assert found[0].startswith("s.toml step 5 (stop): you predicted blocked, it was allowed"), found
    assert "stop_hook_active: true" in found[0] and "let the turn end" in found[0]
    assert "a prompt" in found[0]  # what to do about it
    # In the participant's words: what the session lacks and after which step of their file.
    assert found[1].startswith("your session lacks a stop that is blocked after s.toml step 4")
    assert "expected sequence" not in r.found and "item" not in found[1]
    assert "s.toml step 5 went through on stop_hook_active: true" in found[1]
    assert not any(line.startswith("step ") for line in found)
    # expected: is the check's own wants, never the person's step (issue 51, Lab 04 step 3)
    assert "a stop that is blocked" in (r.expected or "") and "s.toml" not in (r.expected or "")
    session = r.details["session"]
    assert [e["stop_hook_active"] for e in session if e["do"] == "stop"] == [False, True]


def test_hook_session_on_both_engines_plays_them_side_by_side_and_tells_them_in_turn(
    ws: Workspace,
) -> None:
    """--engine both: each engine on its own sandbox at once; the live view still hears the
    emulator's steps, then the real client's, and the two must agree."""
    from tests.conftest import require_real_client

    require_real_client()
    uc = "docs/use_cases/UC-005-add-visit.md"
    steps = [
        {"do": "session_start"},
        {"do": "edit", "file": uc, "old": "**Status:** Approved", "new": "**Status:** Done"},
        {"do": "stop"},
    ]
    spec = CHECK_KINDS["hook_session"]
    p = check_table({"kind": "hook_session", "steps": steps}, spec.params, path="t", where="c")
    heard: list[str] = []
    ctx = CheckContext(
        ws,
        LAB_DIR,
        engine="both",
        engine_forced=True,
        on_hook_event=lambda entry: heard.append(f"{entry.root}:{entry.do}"),
    )

    r = spec.run(ctx, p)

    assert r.status is Status.PASS, r.found
    sessions = r.details["sessions"]
    assert set(sessions) == {"emulator", "claude-code"}
    emulator_root, client_root = sessions["emulator"][0]["root"], sessions["claude-code"][0]["root"]
    assert emulator_root != client_root  # two sandboxes
    assert heard == [f"{emulator_root}:{s['do']}" for s in steps] + [
        f"{client_root}:{s['do']}" for s in steps
    ]
    assert sessions["emulator"][1]["outcome"] == sessions["claude-code"][1]["outcome"] == "blocked"
