"""The permission ladder as a table: each rung, and which rung wins when several apply.

Pure: no hooks run here. The order itself is Claude Code's, observed by the differential
suite (tests/differential/cases); these rows pin it down for the emulator's ladder."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.claude.ladder import (
    DENIED_PATH,
    HOOK_STOPPED,
    UNANSWERED_PROMPT,
    CallFacts,
    Decision,
    HookSay,
    decide,
)
from harness.claude.vocabulary import Outcome, Permission

GIT = Path("/p/.git/config")
QUIET = HookSay()


def call(
    tool: str = "Bash",
    rule: str = "none",
    *,
    sensitive: Path | None = None,
    auto_approve: bool = False,
) -> CallFacts:
    return CallFacts(
        tool, "the detail", "rm -rf x", rule, sensitive=sensitive, auto_approve=auto_approve
    )


@pytest.mark.parametrize(
    ("tool", "rule", "expected"),
    [
        ("Edit", "deny", Decision(False, Permission.DENY_RULE, Outcome.BLOCKED, DENIED_PATH)),
        ("Write", "deny", Decision(False, Permission.DENY_RULE, Outcome.BLOCKED, DENIED_PATH)),
        ("Bash", "deny", None),  # a command rule waits for the hooks
        ("Edit", "ask", None),
        ("Edit", "allow", None),
        ("Edit", "none", None),
    ],
)
def test_before_the_hooks_only_a_denied_path_refuses(
    tool: str, rule: str, expected: Decision | None
) -> None:
    assert decide(call(tool, rule), None) == expected


DENIED = "Permission to use Bash with command rm -rf x has been denied."


@pytest.mark.parametrize(
    ("name", "the_call", "hooks", "runs", "outcome", "permission", "feedback"),
    [
        ("stop wins over deny", call(), HookSay(stopped=True, decision="deny"), False,
         Outcome.STOPPED, Permission.HOOK_STOP, HOOK_STOPPED),
        ("hook deny wins over a deny rule", call(rule="deny"),
         HookSay(decision="deny", message="no"), False, Outcome.BLOCKED, Permission.HOOK_DENY,
         "no"),
        ("a command deny rule after quiet hooks", call(rule="deny"), QUIET, False,
         Outcome.BLOCKED, Permission.DENY_RULE, DENIED),
        ("a deny rule wins over a hook's allow", call(rule="deny"), HookSay(decision="allow"),
         False, Outcome.BLOCKED, Permission.DENY_RULE, DENIED),
        ("a rewrite that fails the schema", call(),
         HookSay(decision="allow", input_problems=("bad",)), False, Outcome.BLOCKED,
         Permission.HOOK_INPUT, None),
        ("a rewrite the tool rejects", call(), HookSay(input_error="old_string not found"),
         False, Outcome.ERROR, None, "<tool_use_error>old_string not found</tool_use_error>"),
        ("a hook asks", call(), HookSay(decision="ask", reason="sure?"), False, Outcome.ASKED,
         Permission.ASK, UNANSWERED_PROMPT),
        ("a hook defers", call(), HookSay(decision="defer"), False, Outcome.ASKED,
         Permission.DEFER, UNANSWERED_PROMPT),
        ("a hook's ask wins over an ask rule", call(rule="ask"), HookSay(decision="ask"),
         False, Outcome.ASKED, Permission.ASK, UNANSWERED_PROMPT),
        ("an ask rule still asks after a hook's allow", call(rule="ask"),
         HookSay(decision="allow"), False, Outcome.ASKED, Permission.ASK_RULE,
         UNANSWERED_PROMPT),
        ("a sensitive write asks whatever the rules say", call(rule="allow", sensitive=GIT),
         HookSay(decision="allow"), False, Outcome.ASKED, Permission.ASK_SENSITIVE,
         UNANSWERED_PROMPT),
        ("auto-approved: runs, still asked", call(rule="ask", auto_approve=True), QUIET, True,
         Outcome.ASKED, Permission.ASK_RULE, ""),
        ("a hook allows", call(), HookSay(decision="allow"), True, Outcome.ALLOWED,
         Permission.HOOK_ALLOW, ""),
        ("a hook's allow names itself over an allow rule", call(rule="allow"),
         HookSay(decision="allow"), True, Outcome.ALLOWED, Permission.HOOK_ALLOW, ""),
        ("an allow rule", call(rule="allow"), QUIET, True, Outcome.ALLOWED,
         Permission.ALLOW_RULE, ""),
        ("no rule: the usual prompt, approved", call(), QUIET, True, Outcome.ALLOWED,
         Permission.PROMPTED, ""),
    ],
)  # fmt: skip
def test_the_ladder(
    name: str,
    the_call: CallFacts,
    hooks: HookSay,
    runs: bool,
    outcome: Outcome,
    permission: Permission | None,
    feedback: str | None,
) -> None:
    decision = decide(the_call, hooks)
    assert decision is not None, name
    assert (decision.runs, decision.outcome, decision.permission) == (runs, outcome, permission)
    if feedback is not None:
        assert decision.feedback == feedback, name


def test_a_rewrite_refused_is_worded_as_the_client_words_it() -> None:
    decision = decide(call("Edit"), HookSay(input_problems=("one", "two")))
    assert decision is not None
    assert decision.feedback.startswith(
        "PreToolUse hook for Edit returned updatedInput that failed schema validation: "
        "Edit failed due to the following issues:\none\ntwo\n"
    )


def test_an_ask_shows_the_user_who_asks_and_why() -> None:
    by_rule = decide(call(rule="ask"), QUIET)
    by_hook = decide(call(), HookSay(decision="ask", reason="a reason"))
    by_path = decide(call(sensitive=GIT), QUIET)
    assert by_rule is not None and by_hook is not None and by_path is not None
    assert by_rule.prompt == "Claude wants to use Bash: the detail"
    assert by_hook.prompt == "a reason"
    assert ".git" in by_path.prompt
    assert (by_rule.turn_ended, by_rule.auto_approved, by_rule.asked) == (False, False, True)


def test_only_a_stop_ends_the_turn() -> None:
    stopped = decide(call(), HookSay(stopped=True))
    denied = decide(call(), HookSay(decision="deny"))
    assert stopped is not None and stopped.turn_ended
    assert denied is not None and not denied.turn_ended
