"""What `--engine both` calls a disagreement, when a background command is still running.

A stop after a background Maven run reads the reports while that run may be deleting or
writing them: on the client as on the emulator, the feedback is a race (seen in Lab 10's
dev check under load: the emulator's hook read a red report, the client's none yet). The
outcome is still compared; the feedback of every other step too.
"""

from __future__ import annotations

from pathlib import Path

from harness.claude.engines import CLAUDE_CODE, EMULATOR
from harness.claude.scenario import ScenarioStep
from harness.claude.scripted import StepOutcome
from harness.claude.vocabulary import Outcome, StepKind
from harness.engine.checks.session_judge import disagreements
from harness.engine.checks.session_play import Play
from harness.engine.stepview import StepView

WORKSPACE = Path("/x")


def view(number: int, do: str, outcome: Outcome, feedback: str, **args: object) -> StepView:
    step = ScenarioStep(number=number, do=do, args=dict(args))
    result = StepOutcome(step=number, do=do, detail="", outcome=outcome, feedback=feedback)
    return StepView.of(step, result, label=f"step {number}", events=[], problems=[], root="/x")


def plays(real_stop: tuple[Outcome, str], background: bool) -> dict[str, Play]:
    def steps(stop: tuple[Outcome, str]) -> list[StepView]:
        return [
            view(1, StepKind.PROMPT, Outcome.ALLOWED, ""),
            view(2, StepKind.BASH, Outcome.ALLOWED, "", background=background),
            view(3, StepKind.STOP, *stop),
            view(4, StepKind.PROMPT, Outcome.ALLOWED, ""),
            view(5, StepKind.STOP, Outcome.BLOCKED, "red: UC005AddVisitTest"),
        ]

    emulated = steps((Outcome.BLOCKED, "red: UC005AddVisitTest"))
    return {CLAUDE_CODE: Play(steps(real_stop), []), EMULATOR: Play(emulated, [])}


def test_the_stop_after_a_background_run_is_compared_on_its_outcome_not_its_words() -> None:
    racing = plays((Outcome.BLOCKED, "no sensor reports yet"), background=True)
    assert disagreements(racing, WORKSPACE) == []
    held_apart = plays((Outcome.ALLOWED, "no sensor reports yet"), background=True)
    assert [d.split(": the")[1] for d in disagreements(held_apart, WORKSPACE)] == [
        " emulator says outcome 'blocked', real Claude Code 'allowed'"
    ]


def test_without_a_background_run_the_words_must_agree() -> None:
    words = plays((Outcome.BLOCKED, "no sensor reports yet"), background=False)
    assert [d.split(":")[0] for d in disagreements(words, WORKSPACE)] == ["step 3 (stop)"]
