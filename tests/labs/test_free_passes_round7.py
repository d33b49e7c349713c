"""Issue 51, the walks of Labs 01–07 (walk-e) and 08–13 (walk-f) after round 6: each free pass
or "taken back" case they left open, tried as they wrote it, fails its check.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports, real git; each repro as the walker typed it (rm -rf, cp, touch, echo >>).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from harness.claude.engines import open_session
from harness.claude.scenario import run_scenario
from harness.engine.checks.denial_words import denial
from harness.engine.checks.hook_session import parse_inline
from harness.engine.checks.live_session import SOLVED_SESSIONS
from harness.engine.lab_runner import LabRunner
from harness.engine.progress import WALKED_AGAIN, Progress, kept_live
from harness.results import Status
from harness.trainer.member import Member
from harness.workspace import Workspace
from tests.builders import reach_step, run_lab_process
from tests.conftest import require_real_client
from tests.labs.solved import solved_at
from tests.labs.step_edits import HONEST_07, judge_prompt, with_line
from tests.labs.test_free_passes import LABS, at_step, check_at
from tests.labs.test_free_passes_round6 import REGEX_SHOWN
from tests.labs.test_free_passes_walk_f import MVNW, at_lab11_reports, contract_12, reports_dir

# Where the checks kept the report runs they read, before round 7: a file the person owns.
OLD_MEMORY = ".git/hooklab-reports-seen"


def bring_back(ws: Workspace, kept: Path) -> None:
    """The walkers' copy: the kept reports over target/, touched to look new, and the
    checks' memory of what they read deleted (rm -rf .git/hooklab-reports-seen)."""
    shutil.rmtree(reports_dir(ws), ignore_errors=True)
    shutil.copytree(kept, reports_dir(ws))
    for path in reports_dir(ws).iterdir():
        path.touch()
    subprocess.run(["rm", "-rf", OLD_MEMORY], cwd=ws.root, check=True)


# ---- Lab 02 step 1 (walk-e): one real run kept aside, the memory deleted -------------------
RENAMED = ("### A1: Validation Errors", "### A1: Invalid Input")
UC003 = "docs/use_cases/UC-003-register-new-owner.md"


def rename_a1(ws: Workspace) -> None:
    spec = ws.root / UC003
    spec.write_text(spec.read_text().replace(*RENAMED))


@pytest.mark.maven
@pytest.mark.slow
def test_lab02_kept_reports_pass_neither_with_the_memory_file_deleted(
    workspace: Workspace, tmp_path: Path
) -> None:
    """walk-e: after one honest run, lab reset 1; the rename again; the kept red reports
    copied back and touched; rm -rf .git/hooklab-reports-seen; lab check: "Step 1 passed"."""
    runner = at_step(workspace, "2", "rename")
    rename_a1(workspace)
    subprocess.run(MVNW, cwd=workspace.root, check=False)  # red: the honest run of the step
    assert runner.check(record_failure=True).status is Status.PASS
    kept = tmp_path / "red2"
    shutil.copytree(reports_dir(workspace), kept)

    runner.reset("1")
    rename_a1(workspace)
    bring_back(workspace, kept)

    again = LabRunner(workspace)  # a new `lab check`: what it knows is in the progress record
    sensors = again.check().results[-1]
    assert sensors.status is Status.FAIL, sensors.message
    assert sensors.message.startswith(
        "the reports are byte for byte the ones of a run from before this step"
    ), sensors.message

    subprocess.run(MVNW, cwd=workspace.root, check=False)  # a new real run passes
    assert LabRunner(workspace).check().status is Status.PASS


# ---- Lab 11 step 2 (walk-f): one newline appended to each kept report ----------------------
@pytest.mark.maven
@pytest.mark.slow
def test_lab11_kept_reports_with_a_newline_and_no_memory_file_do_not_pass(
    workspace: Workspace, tmp_path: Path
) -> None:
    """walk-f's repro, with the memory file deleted as walk-e did: what a run measured (each
    case's name and time, the suite's time) is the same, so the bytes do not make it new;
    nor does an attribute written in another order."""
    runner = at_lab11_reports(workspace)
    kept = tmp_path / "walkf-sr"
    shutil.copytree(reports_dir(workspace), kept)
    runner.reset()
    bring_back(workspace, kept)
    for xml in reports_dir(workspace).glob("*.xml"):
        text = xml.read_text().replace('errors="0" skipped="0"', 'skipped="0" errors="0"', 1)
        xml.write_text(text + "\n")
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "reports.toml").write_text('q1 = "5"\nq2 = "c"\nq3 = "a"\n')

    sensors = LabRunner(workspace).check().results[0]

    assert sensors.status is Status.FAIL, sensors.message
    assert sensors.message.startswith(
        "the reports are those of a run from before this step, edited"
    ), sensors.message
    subprocess.run(MVNW, cwd=workspace.root, check=True)  # a real run passes
    assert LabRunner(workspace).check().status is Status.PASS


# ---- Walking back (walk-e): a live pass replaced by a scripted one --------------------------
LAB03, LIVE_STEP = "03-stop-hook", "your-session"
SESSION = "0235f1e2-7d4c-4b8e-9a51-3c2f6e8d9b10"
AT_100 = {"NO_COLOR": "1", "COLUMNS": "100"}


def lab(ws: Workspace, *args: str, code: int = 0) -> str:
    done = run_lab_process(*args, cwd=ws.root, env=AT_100)
    assert done.returncode == code, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_live_pass_stays_when_the_lab_is_walked_again_with_scripted(
    workspace: Workspace,
) -> None:
    """walk-e: Lab 03 complete with step 3 passed live; lab start 3; lab goto 3; lab check
    --scripted: lab status said "passed (scripted)", the live record gone. The live pass is
    written into the progress record as a live session's check writes it (a real session
    needs a person at the real client); everything after it runs as the walker typed it."""
    reach_step(workspace, "3", LIVE_STEP)
    lab(workspace, "check", "--scripted", "--engine", "emulator")
    progress = Progress.load(workspace)
    passed = progress.labs[LAB03].steps[LIVE_STEP].passed
    assert passed is not None
    passed |= {"evidence_kind": "live", "session_id": SESSION, "client_version": "2.1.332"}
    progress.save(workspace, f"{LAB03}: step {LIVE_STEP} passed")
    # Steps 1 and 2 passed over with lab goto: complete, and exit 1 to say they were skipped.
    assert "Lab 03-stop-hook complete" in lab(workspace, "next", code=1)

    lab(workspace, "start", "3")
    lab(workspace, "goto", "3")
    lab(workspace, "check", "--scripted", "--engine", "emulator")

    status = lab(workspace, "status")
    row = next(line for line in status.splitlines() if LIVE_STEP in line)
    assert "passed (live" in row and "scripted" not in row, status
    record = json.loads(lab(workspace, "status", "--json"))["labs"][LAB03]["steps"][LIVE_STEP]
    assert record["passed"]["evidence_kind"] == "live", record
    assert record["passed"]["session_id"] == SESSION
    assert record["passed"][WALKED_AGAIN]["evidence_kind"] == "scripted"
    progress = Progress.load(workspace)
    member = Member("ada", "refs/x/ada", "c" * 40, progress, 2.0)  # what the trainer reads
    assert member.evidence_kind(LAB03, LIVE_STEP) == "live"
    # The scripted pass of this walk is what lab next asks of it.
    this_walk = progress.labs[LAB03].passed_this_walk(LIVE_STEP)
    assert this_walk is not None and this_walk["evidence_kind"] == "scripted"


def test_a_later_live_pass_replaces_a_scripted_one() -> None:
    scripted = {"evidence_kind": "scripted", "at": 1.0}
    live = {"evidence_kind": "live", "session_id": SESSION, "at": 2.0}
    assert kept_live(scripted, live) == live
    assert kept_live(live, {**live, "at": 3.0})["at"] == 3.0  # a newer live pass
    assert kept_live(None, scripted) == scripted


# ---- Lab 12 step 1 (walk-f): contract words, judged by the contract check and the denial judge


@pytest.mark.parametrize(
    ("part", "line", "said"),
    [
        ("Claim", "Claude says done", "the claim here is the build"),
        ("Claim", "the tests are green", "the claim here is the build"),
        ("Claim", "the build is ready? who knows", "(“who knows”): it doubts what it says"),
        ("Claim", "the build is ready?", "a claim is asserted, not asked"),
        ("Block", "exit 2 and a short reason on stderr; a long one is fine", "the reason is short"),
        # walk-h: a part made optional
        ("Check", "npm test and test -s dist/app.js, both optional", "(“optional”): it makes"),
        ("Success", "exit 0, though a busy hook may exit early", "(“a busy hook”): it makes"),
        (
            "Block",
            "exit 2 and a short reason on stderr, or let it go quietly when in a hurry",
            "(“in a hurry”): it makes it optional",
        ),
    ],
)
def test_lab12_walk_f_contract_words_do_not_pass_and_read_in_words(
    node_ws: Workspace, part: str, line: str, said: str
) -> None:
    result = contract_12(node_ws, **{part: line})

    assert result.status is Status.FAIL
    shown = f"{result.message}\n{result.found}"
    assert said in shown, shown
    assert not any(bit in shown for bit in REGEX_SHOWN), shown


def test_a_doubted_claim_fails_lab07_too(workspace: Workspace) -> None:
    """The doubt words are the shared judge's: Lab 07's contract reads them as Lab 12's does."""
    runner = at_step(workspace, "7", "contract")
    contract = workspace.root / "docs" / "stop-hook-contract.md"
    contract.write_text(
        with_line(HONEST_07, "Claim: the sensors ran green after the last change, who knows.")
    )
    said = check_at(runner, 0)
    assert said.status is Status.FAIL
    assert "your Claim: line takes itself back (“who knows”)" in said.message, said.message


# ---- Lab 10 step 1 (walk-f, walk-h): a prompt that waves the evidence aside or answers first -
WAVED = "Did the tests run and pass? Whatever the transcript shows, they did. $ARGUMENTS"
ASKED = "Did the tests run and pass after the last change?"


@pytest.mark.parametrize(
    ("prompt", "words"),
    [
        (WAVED, "“Whatever the transcript shows” waves the evidence aside"),
        (
            f"{ASKED} Assume they did. $ARGUMENTS",
            "“Assume they did” gives the answer before the evidence is read",
        ),
        (
            f"{ASKED} Treat missing evidence as a yes. $ARGUMENTS",
            "“as a yes” gives the answer before the evidence is read",
        ),
    ],
)
def test_lab10_a_prompt_that_waves_the_evidence_aside_does_not_pass(
    workspace: Workspace, prompt: str, words: str
) -> None:
    runner = at_step(workspace, "10", "the-judge")
    judge_prompt(workspace, prompt)

    results = runner.check(every=True).results

    told = [r for r in results if r.message.startswith("the prompt hook's words should ask")]
    assert told and told[0].status is Status.FAIL, [r.message for r in results]
    assert told[0].message.endswith(f"{words}: the judge must answer from the evidence"), told[
        0
    ].message
    assert "$ARGUMENTS" not in told[0].message  # it already ends so: the words are wrong
    assert not any(bit in told[0].message for bit in REGEX_SHOWN)


@pytest.mark.parametrize(
    "words",
    [
        "Whatever Claude says, check the transcript for a test run.",
        "We are not unsure: the reports decide.",
        "Look at the transcript, whatever Claude claims.",
    ],
)
def test_honest_words_with_whatever_or_not_unsure_are_no_denial(words: str) -> None:
    assert denial(words) is None


# ---- Lab 07 step 3 (walk-e): the hook registered with "timeout": 600 -----------------------
REGISTERED = '"\\"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh\\"", "timeout": 10 }'


@pytest.mark.parametrize(
    "entry",
    [
        REGISTERED.replace('"timeout": 10', '"timeout": 600'),  # walk-e's
        REGISTERED.replace(', "timeout": 10', ""),  # none given: Claude Code waits 600 s
    ],
)
def test_lab07_step3_a_hook_registered_with_a_long_timeout_does_not_pass(
    workspace: Workspace, entry: str
) -> None:
    runner = solved_at(workspace, "7", "register")  # registered as the step shows, "timeout": 10
    settings = workspace.root / ".claude" / "settings.json"
    assert REGISTERED in settings.read_text()
    settings.write_text(settings.read_text().replace(REGISTERED, entry))

    results = runner.check().results

    said = results[-1]
    assert said.name == "settings" and said.status is Status.FAIL, [r.message for r in results]
    assert said.message == (
        "the Stop hook that runs scripts/check-before-stop.sh may wait 600 s: give its entry "
        '"timeout": 10'
    )
    assert (said.found or "").startswith(".claude/settings.json: hooks.Stop[0].hooks[1]: 600 s")
    assert 'what Claude Code waits when the entry gives no "timeout"' in (said.found or "")
    settings.write_text(settings.read_text().replace(entry, REGISTERED))
    assert check_at(runner, 1).status is Status.PASS


def test_lab10_step1_require_sensors_only_named_in_the_prompt_fails_the_settings_check(
    workspace: Workspace,
) -> None:
    """The settings check's registers failed falsy (a failed CheckResult is falsy) and the
    next part's None passed it: require-sensors.sh dropped, its name only in the prompt."""
    runner = at_step(workspace, "10", "the-judge")
    judge_prompt(workspace, "Did .claude/hooks/require-sensors.sh run and pass? $ARGUMENTS")
    settings = workspace.root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"][0]["hooks"] = [
        h
        for h in data["hooks"]["Stop"][0]["hooks"]
        if "require-sensors" not in h.get("command", "")
    ]
    settings.write_text(json.dumps(data, indent=2))
    _lab, step = runner.current()
    n = next(i for i, c in enumerate(step.checks) if c.params.get("registers"))

    said = check_at(runner, n)

    assert said.status is Status.FAIL, said.message
    assert said.message.startswith(
        "no command hook on Stop runs .claude/hooks/require-sensors.sh"
    ), said.message


# ---- Lab 04 step 2 (walk-e): the marker of UC-005 from an audit of UC-002 -------------------
AUDIT_SOLVED = (LABS / "04-status-guard" / "solution" / "status-guard-2.toml").read_text()
AUDIT_PROMPT = 'prompt = "Check the coverage of UC-005 (add visit)."'


@pytest.mark.parametrize(
    ("prompt", "named"),
    [("audit UC-002 and not UC-005", "UC-002, UC-005"), ("audit UC-002", "UC-002")],
)
def test_lab04_step2_an_audit_of_another_use_case_does_not_earn_done(
    workspace: Workspace, prompt: str, named: str
) -> None:
    runner = at_step(workspace, "4", "audit")
    scenario = workspace.root / "scenarios" / "status-guard.toml"
    assert AUDIT_PROMPT in AUDIT_SOLVED
    scenario.write_text(AUDIT_SOLVED.replace(AUDIT_PROMPT, f'prompt = "{prompt}"'))

    results = runner.check(every=True).results

    said = next(r for r in results if r.name.startswith("scenario "))
    assert said.status is Status.FAIL, [r.message for r in results]
    assert said.message.startswith("the audit in scenarios/status-guard.toml ("), said.message
    assert f"is not of UC-005 alone: its prompt names {named}; " in said.message, said.message
    scenario.write_text(AUDIT_SOLVED)
    assert runner.check().status is Status.PASS


# ---- Lab 08 step 1 (walk-f): the reports of a run before the last edit, touched --------------
ARCH_TEST = "src/test/java/ai/unifiedprocess/petclinic/ArchitectureTest.java"


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_reports_touched_after_the_test_was_edited_do_not_pass(
    workspace: Workspace,
) -> None:
    """walk-f: a sensor run, lab check, then the test edited and the reports touched: newer
    files, but the run a check read before the edit."""
    runner = solved_at(workspace, "8", "rule-as-test")
    subprocess.run(MVNW, cwd=workspace.root, check=True)
    assert runner.check().status is Status.PASS
    test = workspace.root / ARCH_TEST
    test.write_text(test.read_text() + "// the rule stays\n")
    # The edit a second before the touch, as typed by hand (the clock's tick may be coarser
    # than the two commands here); after the check, which read the run half a minute ago.
    edited = time.time() - 1
    os.utime(test, (edited, edited))
    subprocess.run("touch target/surefire-reports/*", shell=True, cwd=workspace.root, check=True)

    sensors = LabRunner(workspace).check().results[0]

    assert sensors.status is Status.FAIL, sensors.message
    assert sensors.message.startswith(
        "the reports are of a run from before your latest change, made to look newer (touched)"
    ), sensors.message
    subprocess.run(MVNW, cwd=workspace.root, check=True)  # a new real run passes
    assert LabRunner(workspace).check().status is Status.PASS


# ---- Lab 13 step 3 (walk-f): "hi", "Hello." twice: no change at all ---------------------------
@pytest.mark.slow
def test_lab13_step3_a_session_of_hi_and_hello_does_not_pass(node_ws: Workspace) -> None:
    """walk-f's session as typed: prompt "hi", Claude answers "Hello." (held by the hook),
    "Hello." again (let go); no change. Played on the real client 2.1.332 with the scripted
    model, as lab solve plays a live step's session."""
    require_real_client()
    subprocess.run(["npm", "run", "build"], cwd=node_ws.root, check=True, capture_output=True)
    runner = LabRunner(node_ws)
    runner.start("13")
    runner.goto("held-live")
    hello = [
        {"do": "session_start"},
        {"do": "prompt", "text": "hi"},
        {"do": "stop", "last_message": "Hello.", "expect": "blocked"},
        {"do": "stop", "last_message": "Hello."},
    ]
    scenario, _ = parse_inline(hello, "test", "steps")
    with open_session(
        "claude-code",
        node_ws.root,
        transcript_dir=node_ws.git_dir / SOLVED_SESSIONS,
        auto_approve=True,
    ) as session:
        outcomes = [str(r.outcome.outcome) for r in run_scenario(scenario, session)]
    assert "blocked" in outcomes  # the stop was held, as walk-f saw

    (said,) = runner.check().results

    assert said.status is Status.FAIL
    shown = f"{said.message}\n{said.expected}\n{said.found}\n{said.details.get('fix')}"
    assert "your session made no change" in shown, shown


# ---- Lab 07 step 1 (walk-g): evidence ignored, conditions swapped ----------------------------
def test_lab07_walk_g_inverted_contract_does_not_pass(workspace: Workspace) -> None:
    """Evidence ignored, and Success and Block swapped by a condition (walk-g)."""
    runner = at_step(workspace, "7", "contract")
    (workspace.root / "docs" / "stop-hook-contract.md").write_text(
        "Claim: the sensors ran green after the last change.\n"
        "Check: ignore the Surefire reports in target/surefire-reports/; fresh and green do not "
        "matter.\n"
        "Success: exit 0, but only when the reports are missing.\n"
        "Block: exit 2 and a short reason on stderr (./mvnw -q test -Dgroups=sensor) when the "
        "reports are fresh and green.\n"
    )

    said = check_at(runner, 0)

    assert said.status is Status.FAIL
    shown = f"{said.message}\n{said.found}"
    for words in (
        "your Check: line takes itself back (“ignore the Surefire”)",
        "Success is when the claim holds (fresh, green reports)",
        "Block is when the claim does not hold",
    ):
        assert words in shown, shown
    assert not any(bit in shown for bit in REGEX_SHOWN), shown


@pytest.mark.parametrize(
    "words",
    [
        "Do not assume they passed: look for the run in the transcript.",
        "Never pretend: read the reports.",
        "exit 2 and a short reason on stderr when the reports are missing, stale or red.",
    ],
)
def test_honest_lines_that_name_assume_or_conditions_are_no_denial(words: str) -> None:
    assert denial(words) is None


AUDIT_REPORT = 'last_message = "UC-005: every step, flow and rule is covered. No gaps."'


@pytest.mark.parametrize(
    ("report", "gap"),
    [
        ("UC-005 is fully covered by tests, except A2: no test exercises it.", "except"),
        ("UC-005 is covered, but A2 has no test.", "has no test"),
    ],
)
def test_lab04_step2_a_covered_report_that_names_a_gap_does_not_earn_done(
    workspace: Workspace, report: str, gap: str
) -> None:
    """walk-g: a gap named after the word "covered" earned Done."""
    runner = at_step(workspace, "4", "audit")
    scenario = workspace.root / "scenarios" / "status-guard.toml"
    assert AUDIT_REPORT in AUDIT_SOLVED
    scenario.write_text(AUDIT_SOLVED.replace(AUDIT_REPORT, f'last_message = "{report}"'))

    said = next(r for r in runner.check(every=True).results if r.name.startswith("scenario "))

    assert said.status is Status.FAIL
    assert f"reports a gap (“{gap}”)" in said.message, said.message


# ---- Lab 07 step 4 (walk-g): the own hook's entry ignored by the client ----------------------
@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            '"type": "command", "command": "\\"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh',
            '"type": "commands", "command": "\\"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh',
            'Unknown hook type "commands"',
        ),
    ],
)
def test_lab07_step4_an_entry_the_client_ignores_fails_before_the_session(
    workspace: Workspace, old: str, new: str, said: str
) -> None:
    runner = at_step(workspace, "7", "your-session")
    settings = workspace.root / ".claude" / "settings.json"
    text = settings.read_text()
    assert old in text
    settings.write_text(text.replace(old, new))

    results = runner.check(every=True).results

    registered = next(r for r in results if r.name == "settings")
    assert registered.status is Status.FAIL
    assert said in registered.message, registered.message


# ---- Lab 01 step 1 (walk-g): the reports lab goto's own solve wrote, copied back -----------
@pytest.mark.maven
@pytest.mark.slow
def test_lab01_reports_a_goto_wrote_copied_back_do_not_pass(
    workspace: Workspace, tmp_path: Path
) -> None:
    """walk-g: lab goto 3 (its solve of step 1 runs the sensors); the reports kept; lab goto 1
    (they go); copied back unchanged; lab check: "Step 1 passed" without a run of the person."""
    runner = LabRunner(workspace)
    runner.start("1")
    runner.goto("3")
    kept = tmp_path / "from-goto"
    shutil.copytree(reports_dir(workspace), kept)
    runner.goto("1")
    assert not reports_dir(workspace).exists()
    shutil.copytree(kept, reports_dir(workspace), copy_function=shutil.copy)  # cp -r: new times

    sensors = LabRunner(workspace).check().results[-1]

    assert sensors.status is Status.FAIL, sensors.message
    assert "a run from before this step" in sensors.message, sensors.message
    subprocess.run(MVNW, cwd=workspace.root, check=False)  # the person's own run passes
    assert LabRunner(workspace).check().status is Status.PASS
