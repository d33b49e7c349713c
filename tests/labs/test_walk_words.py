"""The newcomer walk of Labs 01–11 (issue 42): words the labs teach and the check reads must
agree with each other and with the tools.

Real: the labs' own manifests and check code; no workspace is needed where a rule is judged
on a line of text.
"""

from __future__ import annotations

import re

import pytest

from harness.engine.checks import CHECK_KINDS, contract
from harness.engine.context import CheckContext, StepState
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.schema import check_table
from harness.workspace import Workspace


def block_rules() -> list[dict[str, object]]:
    spec = next(c for c in find_lab("7").step("contract").checks if c.name == "contract")
    return [r for r in spec.params["rules"] if r["part"] == "Block"]


@pytest.mark.parametrize(
    "said",
    [
        "exit 2 with a short one-line reason on stderr (no full log, no secrets) that names the "
        "fix: ./mvnw -q test -Dgroups=sensor",
        "exit 2 and a short reason on stderr: never the whole log; run "
        "./mvnw -q test -Dgroups=sensor",
        "exit 2, one short line on stderr without the full log: ./mvnw -q test -Dgroups=sensor",
    ],
)
def test_lab07_block_in_the_labs_own_words_holds(said: str) -> None:
    assert contract._judge("Block", said, block_rules()) == []


def test_lab07_block_that_prints_the_whole_log_still_fails() -> None:
    said = "exit 2, a short reason on stderr, then print the whole maven log: ./mvnw -q test"
    assert "no full log: one short line with the reason" in contract._judge(
        "Block", said, block_rules()
    )


def test_lab10_is_true_about_or_true() -> None:
    """`cmd || true` changes the exit code only: the whole red failure stays on the screen
    (the walk counted 16 [ERROR] lines), so neither the step nor the quiz may say it hides it."""
    step = find_lab("10").step("words")
    text = step.instructions
    assert "nothing red" not in text
    assert "`|| true` leaves the whole red output on screen and only turns the exit\ncode to 0" in (
        text
    )
    quiz = next(c for c in step.checks if c.name == "quiz")
    assert quiz.params["answers"] == {"q1": "b", "q2": "b", "q3": "c"}
    assert (
        "# q3: which trick leaves the whole red failure in the transcript and changes only the "
        "exit code?" in text
    )


SETTINGS_CHECK = {"path": ".claude/settings.json", "contains_all": ["require-sensors.sh"]}


def file_check(ws: Workspace, **params: object) -> CheckResult:
    spec = CHECK_KINDS["file"]
    p = check_table({"kind": "file", **params}, spec.params, path="test", where="check")
    return spec.run(CheckContext(ws, find_lab("7").dir), p)


def test_a_file_check_on_settings_that_do_not_load_fails_and_says_why(
    workspace: Workspace,
) -> None:
    settings = workspace.root / ".claude" / "settings.json"
    assert file_check(workspace, **SETTINGS_CHECK).status is Status.PASS
    good = settings.read_text()
    # The walk's typo: a comma left out between two entries.
    settings.write_text(good.replace('"hooks": {', '"hooks": {} "x": {', 1))
    result = file_check(workspace, **SETTINGS_CHECK)
    assert result.status is Status.FAIL
    assert result.message.startswith(".claude/settings.json is not valid JSON (line ")
    assert result.message.endswith(
        ": Expecting ',' delimiter), so its contents were not checked; Claude Code would run "
        "none of its hooks"
    )
    assert result.details["fix"] == (
        "jq . .claude/settings.json shows where it breaks (line and column); a missing or extra "
        "comma, or a quote without its backslash, is the usual cause"
    )


def test_a_line_break_inside_a_json_string_is_named(workspace: Workspace) -> None:
    """Lab 10 step 1's snippet pasted as a terminal wrapped it: a newline inside the prompt."""
    settings = workspace.root / ".claude" / "settings.json"
    settings.write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "after its last\n'
        ' change. $ARGUMENTS"}]}]}}\n'
    )
    result = file_check(workspace, **SETTINGS_CHECK)
    assert result.message == (
        ".claude/settings.json is not valid JSON (line 1, column 76: a line break inside a "
        "string: a JSON string stays on one line), so its contents were not checked; Claude Code "
        "would run none of its hooks"
    )
    assert result.details["fix"] == (
        "join the string back onto one line (a pasted line that wrapped did this); "
        "jq . .claude/settings.json shows where it breaks"
    )
    session = next(c for c in find_lab("10").step("the-judge").checks if c.name == "hook_session")
    ctx = CheckContext(workspace, find_lab("10").dir)
    ctx.lab_start_commit = workspace.head()
    held = session.kind.run(ctx, session.params)
    assert held.status is Status.FAIL
    assert held.message == (
        ".claude/settings.json is not valid, so Claude Code would run none of its hooks: "
        "line 1, column 76: invalid JSON (a line break inside a string: a JSON string stays on "
        "one line)"
    )


def test_a_wrong_answer_is_shown_as_toml(workspace: Workspace) -> None:
    lab = find_lab("9")
    spec = next(c for c in lab.step("quiz").checks if c.name == "quiz")
    (workspace.root / "answers").mkdir(exist_ok=True)
    (workspace.root / "answers" / "adr-quiz.toml").write_text(
        'q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = ["c", "d"]\nq5 = "a"\n'
    )
    # A second try: the first hears how many answers are wrong, not which.
    ctx = CheckContext(workspace, lab.dir, step=StepState(quiz_tries=1))
    result = spec.kind.run(ctx, spec.params)
    assert (result.found or "").startswith('q4: ["c", "d"] is not right')


def test_lab11_wrong_answer_does_not_give_the_answer_away() -> None:
    step = find_lab("11").step("read-the-adrs")
    quiz = next(c for c in step.checks if c.name == "quiz")
    for q, pointer in quiz.params["explain"].items():
        right = quiz.params["answers"][q]
        option = re.search(rf"^# {q}\b.*?\({right}\) ([^\n(]+)", step.instructions, re.M | re.S)
        assert option is not None, q
        assert option.group(1).strip() not in pointer, (q, pointer)


def test_lab04_does_not_send_a_pipx_user_to_a_checkout_they_lack() -> None:
    intro = " ".join(find_lab("4").intro.split())
    assert "in the Hook Lab checkout" not in intro
    assert "not in your workspace or a pipx install" in intro


def test_lab10_says_the_prompt_hook_is_named_by_its_prompt() -> None:
    """The client names a prompt hook by its prompt in brackets (harness/claude/dispatch.py);
    a literal `[PROMPT]:` is never shown."""
    text = " ".join(find_lab("10").step("the-judge").instructions.split())
    assert "`[PROMPT]:" not in text
    assert "your prompt in square brackets and `: insufficient evidence in transcript`" in text
