"""One moment type for what a step did: a recorded transcript's entries, a scenario file's
planned steps and a played step all meet an expectation through ``Moment.matches`` and are
said through ``describe``. The transcripts are the real client's (2.1.332, recorded)."""

from __future__ import annotations

from pathlib import Path

from harness.claude.recorded import read_session
from harness.claude.scenario import ScenarioStep
from harness.claude.vocabulary import Outcome, Verdict
from harness.engine.moment import (
    OUTCOME_OF,
    Moment,
    describe,
    match_in_order,
    moments_of,
    planned,
)

REFUSALS = Path(__file__).parents[1] / "claude" / "transcripts" / "claude-code-2.1.332-refusals"


def test_a_transcripts_moments_carry_its_verdicts_and_the_outcomes_they_mean() -> None:
    moments = moments_of(read_session(REFUSALS / "edit-after-agent-end.jsonl"))
    assert [(m.do, m.outcome, m.verdict) for m in moments] == [
        ("prompt", "", ""),
        ("edit", "blocked", "refused by guard-spec-status.sh"),
        ("subagent_stop", "allowed", "ran"),
        ("edit", "allowed", "ran"),
        ("bash", "allowed", "ran"),
        ("stop", "allowed", "allowed"),
    ]
    assert moments[2].ended == "normally"
    assert moments[1].shown() == (
        "transcript line 22: edit docs/use_cases/UC-005-add-visit.md "
        "(refused by guard-spec-status.sh)"
    )


def test_a_person_refusing_a_call_is_a_blocked_moment() -> None:
    moments = moments_of(read_session(REFUSALS / "user-rejected.jsonl"))
    assert [(m.do, m.outcome, m.verdict) for m in moments][1] == ("bash", "blocked", "denied")


def test_every_verdict_the_transcript_says_has_one_outcome() -> None:
    assert set(OUTCOME_OF) == set(Verdict)
    assert OUTCOME_OF[Verdict.SENT] == ""  # a prompt that reached Claude: nothing to say


def test_expectations_are_met_in_order_with_other_moments_between() -> None:
    moments = moments_of(read_session(REFUSALS / "edit-after-agent-end.jsonl"))
    wanted = [
        {"do": "edit", "outcome": "blocked", "ask": "what to tell Claude"},
        {"do": "subagent_stop", "detail_contains": "uc-coverage", "ended": "normally"},
        {"do": "bash", "input_contains": "-Dgroups=sensor", "foreground": True},
        {"do": "stop", "outcome": "blocked"},
    ]
    assert match_in_order(wanted, moments) == (3, [1, 2, 4])
    # in order: the edit that ran comes after the refused one, not before it
    assert match_in_order([{"outcome": "allowed", "do": "edit"}, wanted[0]], moments)[0] == 1


def test_a_played_moment_is_matched_on_all_it_said() -> None:
    held = Moment(
        do="stop",
        outcome=Outcome.BLOCKED,
        feedback="run the sensors first",
        message="Stop hook: sensors stale",
        expect="blocked",
    )
    assert held.matches({"do": "stop", "message_contains": "sensors stale"})
    assert held.matches({"feedback_contains": "sensors first", "predicted": True})
    assert not held.matches({"feedback_contains": "sensors stale"})  # said, not told Claude
    assert not Moment(do="stop").matches({"predicted": True})
    assert Moment(do="stop").matches({"predicted": False, "marker_exists": "x", "ended": None})


def test_a_planned_step_is_matched_on_its_own_fields() -> None:
    step = planned(ScenarioStep(3, "bash", {"command": "./mvnw -q test | tail -5"}))
    assert step.matches({"do": "bash", "command_contains": "| tail"})
    assert step.matches({"background": False})  # a field the step leaves out is false
    assert not step.matches({"background": True})
    assert not step.matches({"do": "stop"})
    assert not step.matches({"command": "./mvnw -q test"})  # equal, not contained


def test_an_expectation_is_said_in_a_persons_words() -> None:
    assert (
        describe({"do": "edit", "detail_contains": "UC-005", "outcome": "blocked"})
        == "an edit mentioning 'UC-005' that is blocked"
    )
    assert describe({"do": "stop", "feedback_contains": "", "predicted": True}) == (
        "a stop that tells Claude '' and has your prediction (an expect line)"
    )
    assert describe(
        {"do": "bash", "input_contains": "-Dgroups=sensor", "foreground": True, "ask": "x"}
    ) == ("a bash command; its input contains '-Dgroups=sensor', it runs in the foreground")
    assert describe({"do": "grep"}) == "a grep step"
    assert describe({"do": "bash", "command_contains": "| tail"}, in_file=True) == (
        "bash step whose command contains '| tail'"
    )
    assert describe({"background": True}, in_file=True) == "any step with background = true"
