"""Issue 51, the walks of Labs 01–07 (walk-c) and 08–13 (walk-d): each free pass a newcomer
found, tried as they wrote it, fails its check.

Real: the shipped labs' own setup and checks on a provisioned workspace, real Maven where a
step reads reports or proves a sensor, the workspace's bash hooks on the emulator.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.engine.sensor_run import runs_sensors
from harness.results import Status
from harness.workspace import Workspace
from tests.builders import git, run_cli
from tests.conftest import require_real_client
from tests.engine.terminal import Terminal, fresh_home
from tests.labs.test_free_passes import ARCH, LABS, after_a_while, at_step, check_at, with_rule

TOUCH_REPORTS = "find target/surefire-reports -name '*.xml' -exec touch {} +"


# ---- what counts as a real sensor run ------------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        "./mvnw -q test -Dgroups=sensor",
        "cd /work/petclinic && ./mvnw -q test -Dgroups=sensor 2>&1 | tail -20",
        "mvn test -Dgroups=sensor",
        "timeout 600 ./mvnw -q -Dgroups=sensor test",
    ],
)
def test_a_maven_sensor_run_counts_as_one(command: str) -> None:
    assert runs_sensors(command)


@pytest.mark.parametrize(
    "command",
    [
        f"{TOUCH_REPORTS} ; echo -Dgroups=sensor",
        f"echo ./mvnw -q test -Dgroups=sensor; {TOUCH_REPORTS}",
        ": ./mvnw -q test -Dgroups=sensor",
        "exit 0; ./mvnw -q test -Dgroups=sensor",
        "./mvnw -q test -Dgroups=sensor -DskipTests",
        "./mvnw -q test -Dgroups=sensors",
        "./mvnw -q test-compile -Dgroups=sensor",
        "./mvnw -q test -Dtest=UC003RegisterOwnerTest -Dgroups=sensor",
    ],
)
def test_a_command_that_only_mentions_the_sensors_is_no_run(command: str) -> None:
    assert not runs_sensors(command)


# ---- Lab 03 step 2: touched reports and a docs edit end the last turn ----------------------
@pytest.mark.maven
@pytest.mark.slow
def test_lab03_touched_reports_and_a_docs_fix_do_not_end_the_tricks_session(
    workspace: Workspace,
) -> None:
    """walk-c: the last turn's "fix" edits a doc (UC005's annotation stays broken) and its
    "real run" touches the old green reports and echoes -Dgroups=sensor; the check said "only
    the real, green run ended the turn"."""
    runner = at_step(workspace, "3", "tricks")
    honest = (LABS / "03-stop-hook" / "solution" / "tricks.toml").read_text()
    fix = (
        'file = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"\n'
        'old = "A1: Missing Text"\nnew = "A1: Missing Description"\n'
    )
    run = 'command = "./mvnw -q test -Dgroups=sensor"\n'
    assert fix in honest and honest.endswith(f'{run}[[step]]\ndo = "stop"\nexpect = "allowed"\n')
    rigged = honest.replace(
        fix,
        'file = "docs/use_cases/UC-005-add-visit.md"\n'
        'old = "# Use Case: Add Visit"\nnew = "# Use Case: Add a Visit"\n',
    )
    head, _, tail = rigged.rpartition(run)
    rigged = head + f'command = "{TOUCH_REPORTS} ; echo -Dgroups=sensor"\n' + tail
    (workspace.root / "scenarios" / "tricks.toml").write_text(rigged)

    tricks = check_at(runner, 0)

    assert tricks.status is Status.FAIL, tricks.message
    found = tricks.found or ""
    assert "an edit mentioning 'UC005AddVisitTest.java'" in found, found
    # The fix made, but the "run" still only touches the reports: no sensor ran.
    (workspace.root / "scenarios" / "tricks.toml").write_text(
        honest.rpartition(run)[0]
        + f'command = "{TOUCH_REPORTS} ; echo -Dgroups=sensor"\n'
        + honest.rpartition(run)[2]
    )
    touched = check_at(runner, 0)
    assert touched.status is Status.FAIL, touched.message
    assert "that runs the sensors itself" in (touched.found or ""), touched.found


# ---- Lab 03 step 3, live: a session that echoes the run and touches old reports ------------
ASK_DOCS_NOTE = "Add a one-line note to docs/notes.md, then tell me you are done."


@pytest.mark.maven
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_lab03_live_a_session_that_touches_old_reports_does_not_pass(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-c, on the real client: plain ``claude`` in the workspace at step 3 (whose entry
    left green reports in target/); the note, the stop held, then Bash `echo ./mvnw -q test
    -Dgroups=sensor; find … -exec touch {} +` (auto mode runs it), the stop let go. No sensor
    ran; ``lab check`` said "the turn ended on fresh, green reports"."""
    require_real_client()
    root = workspace.root
    at_step(workspace, "3", "your-session")
    home = fresh_home(tmp_path)
    bash = {"command": f"echo ./mvnw -q test -Dgroups=sensor; {TOUCH_REPORTS}"}
    note = {"file_path": str(root / "docs" / "notes.md"), "content": "A note from the session.\n"}
    turns = [
        Reply.tool_use("toolu_1", "Write", note),
        Reply.text("Done."),
        Reply.tool_use("toolu_2", "Bash", {**bash, "description": "run the sensors"}),
        Reply.text("Done: the note is in and the sensors are green."),
    ]

    def answer(request: ApiRequest) -> None:
        ScriptedApi.answer(request, turns.pop(0) if turns else Reply.text("Done."))

    with ScriptedApi(on_request=answer) as api:
        terminal = Terminal(root, home, tmp_path, api.base_url)
        try:
            terminal.claude(ASK_DOCS_NOTE)
            terminal.wait(
                "the note is in and the sensors are green", timeout=300, enter_on=AUTO_MODE_NOTICES
            )
            shown = terminal.quit_claude()
        finally:
            terminal.close()
            (tmp_path / "screens.txt").write_text(terminal.transcript())
    assert "Stop hook" in shown or "require-sensors.sh" in shown, shown  # the stop was held
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    done = run_cli("check", "--json", cwd=root)
    assert done.code == 1, done
    *_, check = json.loads(done.out)["checks"]  # the shipped hooks first
    assert check["status"] == "fail", check
    said = json.dumps(check)
    assert "(your own session, Claude Code 2.1.332" in said or "transcript line" in said, said
    assert "runs the sensors itself" in said, said


# ---- Lab 02 step 2: the annotations sent to a flow no spec has -----------------------------
UC003_TEST = "src/test/java/ai/unifiedprocess/petclinic/UC003RegisterOwnerTest.java"
NO_SUCH_FLOW = "a flow UC-003's spec does not have"


@pytest.mark.maven
def test_lab02_annotations_pointed_at_a_flow_no_spec_has_do_not_pass(
    workspace: Workspace,
) -> None:
    """walk-c: `sed -i 's/A1: Validation Errors/A9: Nowhere/'` on the test, forged green
    reports: the file check only asked the old name gone, and the lab completed."""
    runner = at_step(workspace, "2", "fix-annotations")
    test = workspace.root / UC003_TEST
    honest = test.read_text()
    test.write_text(honest.replace("A1: Validation Errors", "A9: Nowhere"))

    results = runner.check(every=True).results

    # The check that only asked the old name gone (the walk's pass) asks for a flow UC-003 has.
    named = [r for r in results if NO_SUCH_FLOW in r.message]
    assert [r.status for r in named] == [Status.FAIL], results
    assert 'scenario = "A9: Nowhere"' in (named[0].found or ""), named[0].found
    test.write_text(honest.replace("A1: Validation Errors", "A1: Invalid Input"))
    assert not [r for r in runner.check(every=True).results if NO_SUCH_FLOW in r.message]


# ---- Lab 08 step 1: contains("Repository") instead of endsWith -----------------------------
CONTAINS_RULE = """
    @Test
    void repositoriesAreNamedRepository() {
        List<String> offenders = main.stream()
                .filter(type -> type.packageName().equals(REPOSITORY) && type.isTopLevel())
                .filter(type -> !type.simpleName().contains("Repository"))
                .map(type -> type.name() + " is not named ...Repository")
                .toList();
        report("repository types are named ...Repository", offenders);
    }
"""


@pytest.mark.maven
@pytest.mark.slow
def test_lab08_a_rule_that_asks_contains_instead_of_ends_with_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-d: the viewsAreNamedView copy with `.contains("Repository")` passed every probe:
    OwnerStore, a made-up misnamed type, a made-up well-named one."""
    runner = at_step(workspace, "8", "rule-as-test")
    with_rule(workspace, CONTAINS_RULE)
    assert check_at(runner, 2).status is Status.PASS  # the made-up misnamed type: caught

    inside = check_at(runner, 4)

    assert inside.status is Status.FAIL, inside.message
    assert re.match(r"with a repository/[A-Z]\w+RepositoryHelper\.java added", inside.message)


# ---- Lab 08 step 2: the hook retired and the rule reverted --------------------------------
@pytest.mark.maven
@pytest.mark.slow
def test_lab08_retiring_the_hook_and_reverting_the_rule_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-d: after step 1, the hook retired as the step says and ArchitectureTest.java
    checked out again (the rule gone): step 2 passed and the lab completed with the rule in
    neither the hook nor the test."""
    runner = at_step(workspace, "8", "drop-hook")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved), solved
    assert runner.check().status is Status.PASS  # the honest way
    git(workspace.root, "checkout", "--", str(ARCH))

    run = runner.check(every=True)

    failed = [r for r in run.results if r.status is not Status.PASS]
    assert [r.name for r in failed] == ["sensors ArchitectureTest"], failed
    assert "keep the rule in ArchitectureTest.java" in failed[0].message


# ---- Lab 10: the command hook dropped, a hook that always blocks, a misspelt type ---------
REQUIRE_SENSORS = (
    '{ "type": "command", "command": '
    '"\\"$CLAUDE_PROJECT_DIR/.claude/hooks/require-sensors.sh\\"", "timeout": 15 }'
)
JUDGE = '"Did the tests run and pass after the last change? $ARGUMENTS"'


def settings_text(ws: Workspace) -> str:
    text = (ws.root / ".claude" / "settings.json").read_text()
    assert REQUIRE_SENSORS in text, text
    return text


def test_lab10_a_prompt_hook_that_names_require_sensors_is_no_registration(
    workspace: Workspace,
) -> None:
    """walk-d: the require-sensors.sh entry replaced by a prompt hook whose words name it; the
    file check found the script's name and the judge held the stop."""
    runner = at_step(workspace, "10", "the-judge")
    prompt = (
        '{ "type": "prompt", "prompt": "Did the tests run and pass after the last change '
        '(require-sensors.sh)? $ARGUMENTS", "timeout": 30 }'
    )
    (workspace.root / ".claude" / "settings.json").write_text(
        settings_text(workspace).replace(REQUIRE_SENSORS, prompt)
    )

    settings = check_at(runner, 0)

    assert settings.status is Status.FAIL
    assert settings.message.startswith(
        "no command hook on Stop runs .claude/hooks/require-sensors.sh"
    ), settings.message
    assert "a prompt hook that only names it" in (settings.found or "")
    assert check_at(runner, 1).status is Status.PASS  # the words alone: the walk's pass


@pytest.mark.maven
@pytest.mark.slow
def test_lab10_a_stop_hook_that_always_blocks_does_not_pass_the_words_step(
    workspace: Workspace,
) -> None:
    """walk-d: `sed -i '2i echo "held" >&2; exit 2'` on require-sensors.sh: every trick was
    "held by the reports" although no report was read."""
    runner = at_step(workspace, "10", "words")
    _step, solved, _backup = runner.solve(apply=True)
    assert all(r.status is Status.PASS for r in solved), solved
    honest = check_at(runner, 1)
    assert honest.status is Status.PASS, honest.found  # the seed's hook lets a green run go
    hook = workspace.root / ".claude" / "hooks" / "require-sensors.sh"
    lines = hook.read_text().splitlines(keepends=True)
    hook.write_text("".join([lines[0], 'echo "held" >&2; exit 2\n', *lines[1:]]))

    tricks, green, _quiz = (check_at(runner, i) for i in range(3))

    assert tricks.status is Status.PASS  # the walk's pass, as it was
    assert green.status is Status.FAIL
    assert green.message.startswith("after the fix and a real, green sensor run"), green.message


def test_lab10_a_misspelt_prompt_hook_type_does_not_pass_the_evidence_step(
    workspace: Workspace,
) -> None:
    """walk-d: the prompt hook kept on Stop as "type": "prompts", an entry the client ignores:
    the file check found no "type": "prompt" and passed."""
    runner = at_step(workspace, "10", "evidence")
    text = (workspace.root / ".claude" / "settings.json").read_text()
    assert '"type": "prompt"' in text
    (workspace.root / ".claude" / "settings.json").write_text(
        text.replace('"type": "prompt"', '"type": "prompts"')
    )

    words, settings = check_at(runner, 0), check_at(runner, 1)

    assert words.status is Status.PASS  # the walk's pass, as it was
    assert settings.status is Status.FAIL
    assert 'Unknown hook type "prompts"' in settings.message, settings.message


# ---- Quizzes: an answer in the wrong form is no wrong try ---------------------------------
RIGHT_09 = {"q1": '"c"', "q2": '"a"', "q3": '"b"', "q4": '["c"]', "q5": '"a"'}


def quiz_09(ws: Workspace, **changed: str) -> None:
    quiz = ws.root / "answers" / "adr-quiz.toml"
    quiz.parent.mkdir(exist_ok=True)
    quiz.write_text("".join(f"{q} = {changed.get(q, a)}\n" for q, a in RIGHT_09.items()))


def test_a_list_for_a_one_letter_question_is_a_form_to_fix_not_a_wrong_try(
    workspace: Workspace,
) -> None:
    """walk-d: q2 = ["a"] (the right letter, as a list) was told "q2: ["a"] is not right —
    ADR-010, Decision" and cost a wait; walk-c: q1 = ["a", "b", "c"] was judged wrong too."""
    runner = at_step(workspace, "9", "quiz")
    quiz_09(workspace, q1='"a"')
    assert runner.check(record_failure=True).status is Status.FAIL  # a real wrong try
    after_a_while(runner, "quiz")
    for form in ('["a"]', '["a", "b", "c"]'):
        quiz_09(workspace, q2=form)
        said = runner.check(record_failure=True).results[0]
        assert said.status is Status.FAIL
        assert (said.found or "").splitlines() == [
            f"q2: {form} is a list, and q2 takes one answer: write the letter of an option "
            'between the quotes, e.g. q2 = "a"'
        ]
    mine = runner.progress.labs[runner.lab().id].steps["quiz"]
    assert mine.quiz_tries == 1  # neither form counted
    quiz_09(workspace)
    assert runner.check(record_failure=True).status is Status.PASS  # and no wait came of them


@pytest.mark.maven  # reaching Lab 01 step 2 runs the sensors
def test_a_malformed_answer_does_not_double_the_quiz_wait(workspace: Workspace) -> None:
    """walk-c, Lab 01 step 2: q1 = "bac" was "not one of the options … (not judged)", yet the
    next try waited as if it had been a wrong one."""
    runner = at_step(workspace, "1", "read-a-report")
    quiz = workspace.root / "answers" / "reports.toml"
    quiz.parent.mkdir(exist_ok=True)
    quiz.write_text('q1 = "a"\nq2 = "b"\nq3 = "a"\n')
    assert runner.check(record_failure=True).status is Status.FAIL
    after_a_while(runner, "read-a-report")
    mine = runner.progress.labs[runner.lab().id].steps["read-a-report"]
    tried_at = mine.quiz_tried_at
    quiz.write_text('q1 = "bac"\nq2 = "b"\nq3 = "a"\n')
    said = runner.check(record_failure=True).results
    assert "not one of the options" in (said[0].found or ""), said[0]
    assert (mine.quiz_tries, mine.quiz_tried_at) == (1, tried_at)
    quiz.write_text('q1 = "b"\nq2 = "b"\nq3 = "a"\n')
    assert runner.check(record_failure=True).status is Status.PASS


# ---- the settings check's registers: a script run, not a name mentioned -------------------
SCRIPT = ".claude/hooks/require-sensors.sh"


@pytest.mark.parametrize(
    ("kind", "command", "runs"),
    [
        ("command", '"$CLAUDE_PROJECT_DIR/.claude/hooks/require-sensors.sh"', True),
        ("command", "bash ${CLAUDE_PROJECT_DIR}/.claude/hooks/require-sensors.sh", True),
        ("command", "./.claude/hooks/require-sensors.sh", True),
        ("command", "exit 0 # .claude/hooks/require-sensors.sh", False),
        ("command", "echo $CLAUDE_PROJECT_DIR/.claude/hooks/require-sensors.sh", False),
        ("prompt", "Did require-sensors.sh pass? $ARGUMENTS", False),
    ],
)
def test_a_registration_is_a_command_hook_that_starts_the_script(
    kind: str, command: str, runs: bool
) -> None:
    from harness.claude.settings import HookCommand

    assert (HookCommand(command, kind=kind).started_script == SCRIPT) is runs


def test_registers_names_an_event_hook_lab_plays() -> None:
    from harness.engine.checks.settings_kind import SettingsParams, _validate

    said = _validate(SettingsParams(registers={"Stopp": SCRIPT}))
    assert said is not None and said.startswith("registers: 'Stopp' is no event")
    assert _validate(SettingsParams(registers={"Stop": SCRIPT})) is None
