"""One moment of a session: what one step, tool call, prompt or stop did.

Three places ask what a session did and whether it did what a step wants: a scripted
session's played steps (``hook_session``: ``StepView.moment``), a recorded transcript's
entries (``live_session``: ``moments_of``) and a scenario file's planned steps (the
``scenario`` check and the tricks: ``planned``). Each becomes a ``Moment``; an expectation
(a table such as ``{ do = "edit", outcome = "blocked", detail_contains = "UC-005" }``) is
matched by ``Moment.matches`` and said in a person's words by ``describe``.

The words come from two sides: an engine says the outcome it gave a step (``Outcome``),
the client's transcript says the verdict it recorded (``Verdict``). ``verdict_of`` says a
played step's outcome in the transcript's words, for the replay to compare; a transcript's
verdict is read back as an outcome by the one table ``OUTCOME_OF``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.client_words import prompt_hook_label
from harness.claude.events import Event
from harness.claude.recorded import (
    AUTO_MODE_CHECK,
    UNNAMED_HOOK,
    USER,
    Prompt,
    StopAttempt,
    Timeline,
    ToolCall,
    hook_name,
    hooks_in_feedback,
)
from harness.claude.scenario import ScenarioStep
from harness.claude.scripted import StepOutcome
from harness.claude.settings import PROMPT_TYPE
from harness.claude.vocabulary import (
    Outcome,
    Permission,
    StepKind,
    Verdict,
    read_verdict,
    verdict,
)
from harness.engine.sensor_run import runs_sensors as _runs_sensors

CONTAINS = "_contains"
# An expectation's key: the moment is (true) or is not (false) a real sensor run.
SENSOR_RUN = "sensor_run"
# Keys of an expectation that say what to do about a moment, not which moment it is.
NOT_MATCHED = ("ask", "marker_exists")

# A transcript's verdict as the outcome an engine gives the same step. A prompt that reached
# Claude has no outcome (""): no hook said anything of it.
OUTCOME_OF: dict[Verdict, str] = {
    Verdict.RAN: Outcome.ALLOWED,
    Verdict.REPORTED_BY: Outcome.BLOCKED,
    Verdict.REFUSED_BY: Outcome.BLOCKED,
    Verdict.DENIED: Outcome.BLOCKED,
    Verdict.NO_RESULT: Outcome.BLOCKED,
    Verdict.ERROR: Outcome.ERROR,
    Verdict.ASKED: Outcome.ASKED,
    Verdict.BLOCKED_BY: Outcome.BLOCKED,
    Verdict.ALLOWED: Outcome.ALLOWED,
    Verdict.STOPPED: Outcome.STOPPED,
    Verdict.SENT: "",
}


@dataclass(frozen=True)
class Moment:
    """What one step did, in the words every expectation uses. ``args``: a planned step's
    own fields (command, file, background, …), matched by name; empty for a played one."""

    do: str
    label: str = ""
    detail: str = ""
    outcome: str = ""  # an Outcome; "" where none was given (a planned step, a sent prompt)
    verdict: str = ""  # the transcript's words, where a transcript says them
    feedback: str = ""  # what Claude was shown
    message: str = ""  # anything else said: a system or user message, a result
    input: str = ""  # a tool call's input, as JSON
    ended: str | None = None  # how a subagent ended
    foreground: bool | None = None
    expect: str | None = None  # the step's own prediction
    refused: str = ""  # who refused a call before it ran (auto mode's check, the user)
    # A stop that went through on stop_hook_active: true: the turn ended, but the hook only let
    # go; it did not find the proof (an expectation of a real allowed stop says let_go = false).
    let_go: bool = False
    # A call whose result the client recorded as an error (a command that exited non-zero): a
    # red sensor run is no sensor run that ends a turn (walk-i: red, then green copied in).
    failed: bool = False
    # The settings file a prompt hook that held this stop is in (found in the session's
    # folder): "the prompt hook on Stop in .claude/settings.json".
    hook_file: str = ""
    args: Mapping[str, Any] = field(default_factory=dict)

    @property
    def runs_sensors(self) -> bool:
        """A Bash call whose command runs every sensor itself (not one that only mentions
        ``-Dgroups=sensor``: ``echo ./mvnw …; touch reports``)."""
        command = self.args.get("command", self.detail)
        return self.do == StepKind.BASH and _runs_sensors(str(command or ""))

    @property
    def said(self) -> str:
        """Everything said in the moment: to Claude, and anything else."""
        return "\n".join(t for t in (self.feedback, self.message) if t)

    def _field(self, key: str, want: object) -> Any:
        if key in self.args:
            return self.args[key]
        if key in _ATTRIBUTES:
            return getattr(self, key)
        return False if isinstance(want, bool) else None

    def matches(self, want: Mapping[str, Any]) -> bool:
        """Every key of ``want`` holds: ``do`` and any field equal, ``FIELD_contains`` inside
        the field's text, ``message_contains`` inside anything said, ``predicted`` a step with
        its own ``expect``. An unset key (None) and what to do about a moment match any."""
        for key, value in want.items():
            if value is None or key in NOT_MATCHED:
                continue
            if key == "predicted":
                ok = not value or self.expect is not None
            elif key == "message_contains":
                ok = value in self.said
            elif key == SENSOR_RUN:
                ok = self.runs_sensors == bool(value) and not (value and self.failed)
            elif key.endswith(CONTAINS):
                ok = value in str(self._field(key.removesuffix(CONTAINS), "") or "")
            else:
                ok = self._field(key, value) == value
            if not ok:
                return False
        return True

    def shown(self) -> str:
        """One row of a session's moments: "transcript line 7: bash ./mvnw test (ran)"."""
        detail = " ".join(self.detail.split())[:70]
        if self.do == StepKind.SUBAGENT_STOP and self.refused:
            # the agent never ran, so it never stopped: no "subagent_stop … (denied)"
            by = (
                refusal_words(self.refused)
                if self.refused == USER
                else f"refused before it ran (by {self.refused})"
            )
            return f"{self.label}: the agent {detail}: {by}"
        if self.do == StepKind.PROMPT and detail.startswith("/"):
            return f"{self.label}: you typed {detail}"  # a command to the client (/exit)
        said = self.verdict or self.outcome
        if self.refused and said == Verdict.DENIED:
            said = refusal_words(self.refused)  # who refused it: a No is not a deny rule
        elif PROMPT_HOOK in said:
            if self.hook_file:
                said = re.sub(r"(the prompt hook on \w+)", rf"\1 in {self.hook_file}", said)
            reason = _prompt_reason(self.feedback, said)
            said += f', which said "{reason}"' if reason else ""
        if self.let_go:
            said = f"{said}: let go after the held stop, no proof found"
        if self.failed:
            said = f"{said}: it failed (a red run or an error)"
        return (
            f"{self.label}: {self.do}"
            + (f" {detail}" if detail else "")
            + (f" ({said})" if said else "")
        )


_ATTRIBUTES = frozenset(Moment.__dataclass_fields__) - {"args"}
PROMPT_HOOK = prompt_hook_label("")  # "the prompt hook on ": any event's
_BRACKETED = re.compile(r"\[([^\]\n]+)\]: (.+)")


def refusal_words(who: str) -> str:
    """Who kept a call from running, as the transcript tells them apart (2.1.332: a No to the
    permission prompt records toolDenialKind user-rejected; a deny rule a rejection from the
    settings, reasonCode rule:…; a hook's deny is "refused by HOOK", not this)."""
    if who == USER:
        return "you answered No to the permission prompt, so it never ran"
    if who == AUTO_MODE_CHECK:
        return f"{AUTO_MODE_CHECK} refused it before it ran"
    return "a deny rule of the settings refused it before it ran"


def prompt_hook_file(cwd: str, feedback: str) -> str:
    """The project settings file that holds a prompt hook whose prompt the client showed in
    ``feedback`` (``[PROMPT]: reason``); "" when none does (any more)."""
    shown = {found.group(1).strip() for found in _BRACKETED.finditer(feedback)}
    for rel in (".claude/settings.local.json", ".claude/settings.json"):
        try:
            data = json.loads((Path(cwd) / rel).read_text())
        except (OSError, ValueError):
            continue
        events = data.get("hooks") if isinstance(data, dict) else None
        groups = [g for gs in (events or {}).values() if isinstance(gs, list) for g in gs]
        hooks = [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or []]
        if any(
            isinstance(h, dict)
            and h.get("type") == PROMPT_TYPE
            and str(h.get("prompt")).strip() in shown
            for h in hooks
        ):
            return rel
    return ""


def _prompt_reason(feedback: str, verdict_said: str) -> str:
    """The reason a prompt hook gave, from what Claude was shown: the bracketed line whose
    hook the verdict does not name by script (the prompt hook's bracket holds its prompt)."""
    named = set(read_verdict(verdict_said)[1])
    for found in _BRACKETED.finditer(feedback):
        if hook_name(found.group(1)) not in named:
            return found.group(2).strip()
    return ""


def match_in_order(
    wanted: Sequence[Mapping[str, Any]], moments: Sequence[Moment]
) -> tuple[int, list[int]]:
    """How many expectations the moments meet in order (others may come between), and the
    index of the moment each met."""
    at: list[int] = []
    i = 0
    for want in wanted:
        while i < len(moments) and not moments[i].matches(want):
            i += 1
        if i == len(moments):
            break
        at.append(i)
        i += 1
    return len(at), at


# -- an expectation in a person's words ------------------------------------------------------

_NOUNS: dict[str, str] = {
    StepKind.EDIT: "an edit",
    StepKind.WRITE: "a write",
    StepKind.BASH: "a bash command",
    StepKind.STOP: "a stop",
    StepKind.PROMPT: "a prompt",
    # What the person saw, not the scenario's words (walk-j, Lab 11 step 4, a live step: "a
    # subagent_stop mentioning 'aiup-vaadin-jooq:uc-coverage'"): the client shows an agent end.
    StepKind.SESSION_START: "a session start",
    StepKind.SUBAGENT_STOP: "an agent's end",
}


def describe(want: Mapping[str, Any], *, in_file: bool = False) -> str:
    """An expected moment as a person says it: ``{do = "edit", detail_contains = "UC-005",
    outcome = "blocked"}`` → "an edit mentioning 'UC-005' that is blocked". ``in_file``: a
    step of a scenario file, by its fields: "bash step whose command contains '| tail'"."""
    if in_file:
        return _describe_fields(want)
    do = want.get("do")
    head = _NOUNS.get(str(do), f"a {do} step") if do else "a step"
    if do == StepKind.SUBAGENT_STOP and want.get("detail_contains") is not None:
        head = f"the end of the agent {want['detail_contains']!r}"  # its detail: the agent
    elif want.get("detail_contains") is not None:
        head += f" mentioning {want['detail_contains']!r}"
    clauses = [said(want[key]) for key, said, given in _CLAUSES if given(want.get(key))]
    more = [said(want[key]) for key, said, given in _MORE if given(want.get(key))]
    return (
        head
        + (" that " + " and ".join(clauses) if clauses else "")
        + ("; " + ", ".join(more) if more else "")
    )


def _set(value: object) -> bool:
    return value is not None


def _tells(fragment: str) -> str:
    """What a moment tells Claude, in words: a matcher cut from the client's "[HOOK]: reason"
    line reads as the hook's reason (walk-s: "'check-before-stop.sh]: Stop check blocked:
    rebuild'", a stray bracket, cut mid-sentence, read as the words Claude is shown)."""
    hook, bracket, reason = fragment.partition("]: ")
    if not bracket or not hook.strip() or " " in hook.strip():
        return f"tells Claude {fragment!r}"
    name = hook.strip().lstrip("[").rsplit("/", 1)[-1]
    return f"tells Claude {name}'s reason, “{reason.strip()} …”"


# What an expectation's key asks of its moment, and whether a value asks it (an empty text
# still does: "tells Claude ''"; an empty outcome or marker, or false, does not).
_Clause = tuple[str, Callable[[Any], str], Callable[[object], bool]]
_CLAUSES: tuple[_Clause, ...] = (
    ("outcome", lambda v: f"is {v}", bool),
    ("feedback_contains", lambda v: _tells(str(v)), _set),
    ("message_contains", lambda v: f"says {v!r}", _set),
    ("marker_exists", lambda v: f"leaves the marker .git/{v}", bool),
    ("predicted", lambda v: "has your prediction (an expect line)", bool),
    (
        SENSOR_RUN,
        lambda v: (
            "runs the sensors itself (./mvnw -q test -Dgroups=sensor, no other command after "
            "it) and they pass"
            if v
            else "runs no sensors"
        ),
        _set,
    ),
    (
        "let_go",
        lambda v: (
            "went through on stop_hook_active"
            if v
            else "is not the hook letting go of a stop it held (stop_hook_active)"
        ),
        _set,
    ),
)
_MORE: tuple[_Clause, ...] = (
    ("input_contains", lambda v: f"its input contains {v!r}", _set),
    ("ended", lambda v: f"it ends {v}", bool),
    ("foreground", lambda v: "it runs in the foreground", bool),
)


def _describe_fields(want: Mapping[str, Any]) -> str:
    bits = []
    for key, value in want.items():
        if key == "do":
            continue
        if key.endswith(CONTAINS):
            bits.append(f"whose {key.removesuffix(CONTAINS)} contains {value!r}")
        else:
            shown = str(value).lower() if isinstance(value, bool) else repr(value)
            bits.append(f"with {key} = {shown}")
    return " ".join([f"{want.get('do', 'any')} step", *bits])


# -- where moments come from -----------------------------------------------------------------


def planned(step: ScenarioStep) -> Moment:
    """A scenario file's step before it is played: its kind and its own fields."""
    return Moment(do=step.do, args=step.args)


def _relative(path: str, cwd: str) -> str:
    try:
        return str(Path(path).relative_to(cwd)) if cwd else path
    except ValueError:
        return path


# The client records a slash command the person typed in its own tags, and what a local one
# printed as a user line of its own.
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_ARGS = re.compile(r"<command-args>\s*(.*?)\s*</command-args>", re.S)
_LOCAL_OUTPUT = "<local-command-stdout>"


def _typed(text: str) -> str:
    """A prompt as the person typed it: a slash command as ``/exit`` or ``/name ARGS``."""
    command = _COMMAND.search(text)
    if command is None:
        return text
    args = _ARGS.search(text)
    return " ".join(t for t in (command.group(1), args.group(1) if args else "") if t)


def moments_of(timeline: Timeline) -> list[Moment]:
    """Each prompt, tool call and stop of a recorded session."""
    moments: list[Moment] = []
    # A stop the hooks held, and since then no new prompt and no green sensor run: the next
    # stop comes with stop_hook_active: true, and if it goes through the hook only let go; it
    # found no proof (walk-j: a change after the sensor run, held, then let go).
    held = False
    for entry in timeline.entries:
        label = f"transcript line {entry.line}"
        if isinstance(entry, Prompt) and entry.text.startswith(_LOCAL_OUTPUT):
            continue  # what a local slash command (/exit) printed: nobody typed it
        if isinstance(entry, Prompt):
            held = False
            # a prompt a UserPromptSubmit hook refused or stopped says so; a sent one has none
            moments.append(
                Moment(
                    do=StepKind.PROMPT,
                    label=label,
                    detail=_typed(entry.text),
                    outcome=OUTCOME_OF[read_verdict(entry.verdict)[0] or Verdict.SENT],
                    feedback=entry.feedback,
                )
            )
        elif isinstance(entry, StopAttempt):
            moments.append(
                Moment(
                    do=StepKind.STOP,
                    label=label,
                    # a stop a hook ended the session at (continue: false) still let it end
                    outcome=Outcome.BLOCKED if entry.blocked else Outcome.ALLOWED,
                    verdict=entry.verdict,
                    feedback=entry.feedback,
                    message=entry.system_message,
                    let_go=held and not entry.blocked,
                    hook_file=prompt_hook_file(timeline.cwd, entry.feedback)
                    if PROMPT_HOOK in entry.verdict
                    else "",
                )
            )
            held = entry.blocked
        else:
            call = _call_moment(entry, timeline.cwd, label)
            held = held and not (call.runs_sensors and not call.failed)
            moments.append(call)
    return moments


def _call_moment(call: ToolCall, cwd: str, label: str) -> Moment:
    i = call.input
    word = read_verdict(call.verdict)[0]
    outcome = OUTCOME_OF[word] if word is not None else Outcome.ALLOWED
    seen: dict[str, Any] = {
        "refused": call.denied or "",  # the user, auto mode's check or a rule; not a hook
        "label": label,
        "feedback": call.feedback,
        "message": call.result_text,
        "input": json.dumps(i, ensure_ascii=False),
        "verdict": call.verdict,
        "foreground": i.get("run_in_background") is not True,
        "outcome": outcome,
        "failed": call.is_error and call.name == "Bash" and not (call.denied or call.refused_by),
    }
    if call.subagent is not None:
        seen.update(do=StepKind.SUBAGENT_STOP, detail=call.subagent.agent_type)
        seen.update(ended=call.subagent.ended, message=call.subagent.last_message)
        if call.is_error:  # the client did not run the agent (not found, refused)
            seen.update(message=call.result_text, ended=None)
            if not call.denied and call.result_line is not None:
                seen["outcome"] = Outcome.ERROR
    elif call.name in ("Edit", "Write", "MultiEdit"):
        seen.update(do=call.name.lower(), detail=_relative(str(i.get("file_path", "")), cwd))
    elif call.name == "Bash":
        seen.update(do=StepKind.BASH, detail=str(i.get("command", "")))
    else:
        seen.update(do=call.name.lower(), detail="")
    return Moment(**seen)


def verdict_of(outcome: StepOutcome) -> str:
    """A played step's outcome in the words the transcript uses for the same step."""
    hooks = hooks_in_feedback(outcome.feedback)
    # A prompt hook is named as one, as the transcript's reader names it (not "Did").
    prompts = {hook_name(r.command): r.event for r in outcome.hooks if r.kind == PROMPT_TYPE}
    hooks = [prompt_hook_label(prompts[h]) if h in prompts else h for h in hooks]
    if not hooks and outcome.permission is Permission.HOOK_DENY:
        # a JSON deny: Claude is shown its reason, not the hook; the hook that ran says which
        ran = {hook_name(r.command) for r in outcome.hooks if r.event == Event.PRE_TOOL_USE}
        hooks = sorted(ran) if len(ran) == 1 else [UNNAMED_HOOK]
    if outcome.do == StepKind.STOP:
        if outcome.outcome == Outcome.BLOCKED:
            return verdict(Verdict.BLOCKED_BY, hooks)
        return verdict(Verdict.STOPPED if outcome.outcome == Outcome.STOPPED else Verdict.ALLOWED)
    if outcome.do == StepKind.SUBAGENT_STOP:
        return verdict(Verdict.RAN)
    if outcome.outcome == Outcome.BLOCKED and not outcome.tool_ran:
        return verdict(Verdict.REFUSED_BY, hooks) if hooks else verdict(Verdict.DENIED)
    if outcome.outcome == Outcome.BLOCKED:
        return verdict(Verdict.REPORTED_BY, hooks)
    if outcome.outcome == Outcome.ERROR:
        return verdict(Verdict.ERROR)
    if outcome.outcome == Outcome.ASKED:
        return verdict(Verdict.ASKED)
    return verdict(Verdict.RAN)


def same_verdict(recorded: str, replayed: str) -> bool:
    """The replayed verdict says what the recorded one does: the same words, or a refusal by
    any hook where the transcript names none (``UNNAMED_HOOK``)."""
    if recorded == replayed:
        return True
    word, hooks = read_verdict(recorded)
    return (
        word is Verdict.REFUSED_BY
        and hooks == [UNNAMED_HOOK]
        and read_verdict(replayed)[0] is Verdict.REFUSED_BY
    )


__all__ = [
    "OUTCOME_OF",
    "Moment",
    "describe",
    "match_in_order",
    "moments_of",
    "planned",
    "same_verdict",
    "verdict_of",
]
