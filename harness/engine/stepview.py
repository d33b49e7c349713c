"""One step of a lab's hook session as the check judged it and the views show it: what was
done, what came of it, the event JSON the hooks read, each hook's run and what went wrong.

Built by the ``hook_session`` check, handed to the live view (``CheckContext.on_hook_event``)
and kept in the result's details as JSON (``to_json``, the same keys for every engine).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.claude.runner import HookRun
from harness.claude.scenario import ScenarioStep
from harness.claude.scripted import StepOutcome
from harness.claude.settings import AGENT_TYPE, PROMPT_TYPE
from harness.claude.vocabulary import Outcome, StepKind
from harness.engine.moment import Moment
from harness.schema import pick

FEEDBACK_CAP = 3000  # characters of feedback kept per step; the transcript has it whole
MESSAGE_CAP = 2000
HOOK_OUTPUT_CAP = 2000


@dataclass(frozen=True)
class HookView:
    """One hook's run in a step."""

    event: str
    command: str
    exit_code: int | None
    timed_out: bool
    stdout: str
    stderr: str
    kind: str = "command"  # the hook's type: a prompt or agent hook's command is its prompt

    @classmethod
    def of(cls, run: HookRun) -> HookView:
        return cls(
            run.event,
            run.command,
            run.exit_code,
            run.timed_out,
            run.stdout[:HOOK_OUTPUT_CAP],
            run.stderr[:HOOK_OUTPUT_CAP],
            run.kind,
        )

    @property
    def name(self) -> str:
        """The hook script's file name (its command without quotes and folders); a prompt
        or agent hook by its type, since its command is the whole prompt."""
        if self.kind in (PROMPT_TYPE, AGENT_TYPE):
            return f"the {self.kind} hook"
        return self.command.strip('"').rsplit("/", 1)[-1]

    @property
    def result_words(self) -> str:
        """How the hook ended, in its own terms: a model hook answers, it has no exit code."""
        if self.timed_out:
            return "timed out"
        if self.kind in (PROMPT_TYPE, AGENT_TYPE):
            return {0: "the model said ok", 2: "the model said not ok"}.get(
                self.exit_code or 0, "no valid answer from the model"
            )
        return f"exit {self.exit_code}"

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# What a step shares with its moment under the same name.
_AS_MOMENT = ("do", "label", "detail", "outcome", "feedback", "expect")
# The fields a step's JSON keeps as they are, in the order of its keys.
_AS_JSON = """step name do detail label expect outcome stop_hook_active tool_ran turn_ended
feedback system_message user_message"""


@dataclass(frozen=True)
class StepView:
    step: int
    name: str
    do: str
    detail: str
    label: str  # "session step 3" or "tricks.toml step 3": the file's steps carry its name
    expect: Outcome | None
    outcome: Outcome
    stop_hook_active: bool
    tool_ran: bool | None
    turn_ended: bool
    feedback: str
    system_message: str
    user_message: str
    events: tuple[dict[str, Any], ...]  # each event's JSON, as the hooks read it
    hooks: tuple[HookView, ...]
    problems: tuple[str, ...]  # what the check found wrong with this step
    root: str  # the directory the session played in (a sandbox copy, usually)
    look_for: str = ""  # what the step looks for in the feedback: a view keeps it in sight
    session: str = ""  # the session's title, when the step plays several (a heading each)
    background: bool = False  # a bash step that left its command running in the background
    note: str = ""  # what the command did that explains its outcome ("changed no file: …")

    @classmethod
    def of(
        cls,
        step: ScenarioStep,
        outcome: StepOutcome,
        *,
        label: str,
        events: Sequence[dict[str, Any]],
        problems: Sequence[str],
        root: str,
        look_for: str = "",
        session: str = "",
        note: str = "",
    ) -> StepView:
        return cls(
            step=step.number,
            name=step.name,
            do=step.do,
            detail=outcome.detail,
            label=label,
            expect=step.expect,
            outcome=outcome.outcome,
            stop_hook_active=bool(outcome.stop_hook_active),
            tool_ran=outcome.tool_ran,
            turn_ended=outcome.turn_ended,
            feedback=outcome.feedback[:FEEDBACK_CAP],
            system_message=outcome.system_message,
            user_message=outcome.user_message[:MESSAGE_CAP],
            # A payload may hold values JSON has no word for; they are shown as text.
            events=tuple(json.loads(json.dumps(e, default=str)) for e in events),
            hooks=tuple(HookView.of(run) for run in outcome.hooks),
            problems=tuple(problems),
            root=root,
            look_for=look_for,
            session=session,
            background=bool(step.args.get("background")),
            note=note,
        )

    @property
    def said(self) -> str:
        """Everything said in the step: to Claude, as a system message, to the user."""
        return self.moment.said

    @property
    def moment(self) -> Moment:
        """The step as the moment an expectation matches."""
        said = "\n".join(t for t in (self.system_message, self.user_message) if t)
        return Moment(message=said, let_go=self.let_go, **{k: getattr(self, k) for k in _AS_MOMENT})

    @property
    def let_go(self) -> bool:
        """A stop that went through on ``stop_hook_active: true``: the hook let the turn end."""
        return (
            self.do == StepKind.STOP and self.stop_hook_active and self.outcome is Outcome.ALLOWED
        )

    def to_json(self) -> dict[str, Any]:
        return {
            **pick(self, _AS_JSON),
            "events": list(self.events),
            "hooks": [hook.to_json() for hook in self.hooks],
            "problems": list(self.problems),
            **pick(self, "root note"),
        }
