"""One participant as the trainer sees them: where they are, since when, the help they took,
what passed their live steps, how their claims were verified, and why they need the trainer.

Read from their last submit by harness/trainer/cohort.py; each view (the table, the page,
``status --json``) asks a member, never the progress document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.claude.vocabulary import MemberState, Provenance, VerifyState
from harness.engine.check_names import shown_name
from harness.engine.maven_trust import in_words
from harness.engine.progress import Progress
from harness.results import Status
from harness.trainer.verified import ParticipantVerdict, runner_name

# The flag of a record whose checks trust a Maven or java lab init recorded again (walk-q).
MAVEN_FLAG = "maven"
STUCK_AFTER = 15 * 60.0  # seconds on one step before a trainer should walk over


@dataclass(frozen=True)
class StepColumn:
    lab: str
    step: str
    title: str


@dataclass(frozen=True)
class LabColumn:
    id: str
    title: str
    steps: tuple[StepColumn, ...]


# (kind, the word a mark shows, what it means): the legend of the table and the page.
EVIDENCE_LEGEND = (
    (Provenance.LIVE, "live", "their own Claude Code session on client VERSION, replayed"),
    (
        Provenance.SCRIPTED,
        "scripted",
        "the scripted session: lab check --scripted, no model access",
    ),
    (Provenance.PLAYED, "played", "Hook Lab played it on the pinned client (lab solve)"),
)


@dataclass(frozen=True)
class EvidenceMark:
    """Which evidence passed a live step, with the session's identity when there was one."""

    kind: str
    client_version: str | None = None
    session_id: str | None = None
    # entries the claim's timeline extract left out (its cap, EXTRACT_ENTRY_CAP): a long
    # session's; verify replays the rest and compares the verdicts the step rests on
    left_out: int = 0

    @property
    def word(self) -> str:
        """live, scripted or played (another Hook Lab's kind: as it is recorded)."""
        return next((word for kind, word, _ in EVIDENCE_LEGEND if kind == self.kind), self.kind)

    @property
    def label(self) -> str:
        """live · 2.1.332, scripted, played · 2.1.332."""
        if self.kind == Provenance.SCRIPTED or not self.client_version:
            return self.word
        capped = f" · {self.left_out} entries left out" if self.left_out else ""
        return f"{self.word} · {self.client_version}{capped}"


def evidence_legend() -> list[tuple[str, str, str]]:
    """The legend of the table and the page: (kind, its mark as shown, with VERSION where the
    client's version stands, what it means)."""
    return [
        (kind, EvidenceMark(kind, client_version="VERSION").label, meaning)
        for kind, _word, meaning in EVIDENCE_LEGEND
    ]


# What puts a participant at the top of the trainer's views, by their old names (for
# harness/ui/trainer_view.py until it reads MemberState), most urgent kind first.
PROBLEM, REPLACED, DELETED, COPY, DISPROVED, STUCK, IDLE, ABSENT = tuple(MemberState)
URGENCY = tuple(MemberState)
# The provenance of a live step and the state of a verify at work, by their old names.
LIVE: str = Provenance.LIVE
SCRIPTED: str = Provenance.SCRIPTED
PLAYED: str = Provenance.PLAYED
VERIFYING = VerifyState.VERIFYING


@dataclass(frozen=True)
class Attention:
    """Why a trainer should walk over: what, for how long (None: not a matter of time), and
    a short account of it (where, failed checks, hints)."""

    kind: MemberState
    seconds: float | None
    text: str

    def order(self) -> tuple[int, float]:
        return self.kind.urgency, -(self.seconds or 0.0)


@dataclass(frozen=True)
class StepHelp:
    """The help and the trouble one step has seen: failed checks, hints, lab solve --apply."""

    failed_checks: int = 0
    hints: int = 0
    solved_with_help: bool = False
    quiz_tries: int = 0  # whole sets of quiz answers checked

    def words(self) -> list[str]:
        out = []
        if self.failed_checks:
            out.append(f"{self.failed_checks} failed check{'s' if self.failed_checks > 1 else ''}")
        if self.quiz_tries:
            out.append(f"{self.quiz_tries} quiz tr{'ies' if self.quiz_tries > 1 else 'y'}")
        if self.hints:
            out.append(f"{self.hints} hint{'s' if self.hints > 1 else ''}")
        if self.solved_with_help:
            out.append("lab solve")
        return out


@dataclass
class Member:
    """One participant as their last submit shows them."""

    name: str
    ref: str
    commit: str
    progress: Progress | None
    submitted_at: float  # the tip commit's time
    problem: str | None = None  # the ref could not be read: shown, never fatal for the room
    # Seconds added to this laptop's clock to get the trainer's (see ClockBounds), and when the
    # trainer first saw this submission: a time is never later than that.
    offset: float = 0.0
    seen_at: float | None = None
    # The record was replaced by another history (lab submit --force, or a raw push) or
    # deleted: a sentence saying what the trainer's journal saw.
    replaced: str | None = None
    deleted: str | None = None
    arrived: bool = True  # False: on the roster, never submitted
    # lab trainer verify --all's verdict on this commit (None: not verified, or an older one)
    verdict: ParticipantVerdict | None = None
    verified_commit: str | None = None  # the commit the last verdict judged
    copy_of: str | None = None  # a sentence: whose submission this one is a copy of
    # status --watch verifying this submission now: each claim's state so far (verifying,
    # pass, fail, error); {} waiting its turn (harness/trainer/arrival.py)
    verifying: dict[tuple[str, str], str] | None = None

    @property
    def verification(self) -> VerifyState:
        """verified, failed, not judged, unverified, stale (a later submit since), or
        verifying (status --watch at work on it)."""
        if self.verifying is not None:
            return VerifyState.VERIFYING
        if self.verdict is not None:
            return self.verdict.state
        return VerifyState.STALE if self.verified_commit else VerifyState.UNVERIFIED

    def step_verification(self, lab: str, step: str) -> str | None:
        """One claim's verification: verifying, pass, fail, error; None: not judged (yet)."""
        if self.verifying:
            return self.verifying.get((lab, step))
        return self.verdict.step_status(lab, step) if self.verdict is not None else None

    def first_verify_problem(self) -> str | None:
        """The first claim that does not hold: which, the check, why."""
        steps = self.verdict.steps if self.verdict is not None else []
        first = next((s for s in steps if s.get("status") == Status.FAIL.value), None)
        if first is None:
            return None
        return f"{first['lab']}/{first['step']}: {self.verify_problem(first['lab'], first['step'])}"

    def verify_problem(self, lab: str, step: str) -> str | None:
        """Why a claim does not hold: the check, then why."""
        if self.verdict is None or self.verifying:
            return None
        for s in self.verdict.steps:
            if (
                s.get("lab") == lab
                and s.get("step") == step
                and s.get("status") != Status.PASS.value
            ):
                check = f"{shown_name(str(s['check']))}: " if s.get("check") else ""
                return f"{check}{s.get('why') or s.get('message') or ''}"
        return None

    def flags(self) -> list[dict[str, str]]:
        """What makes this record not plainly the participant's own (kind, text): verify
        names them beside its verdicts."""
        found = [
            (MemberState.PROBLEM, self.problem and f"unreadable: {self.problem}"),
            (MemberState.DELETED, self.deleted),
            (MemberState.REPLACED, self.replaced),
            (MemberState.COPY, self.copy_of),
            *((MAVEN_FLAG, said) for said in self.maven_trusted()),
        ]
        return [{"kind": kind, "text": text} for kind, text in found if text]

    def maven_trusted(self) -> list[str]:
        """Each Maven and java lab init made the checks trust that may not be the machine's
        own (another than before, a java wrapper), in words (harness/engine/maven_trust.py)."""
        notes = self.progress.maven_trusted if self.progress is not None else []
        return [in_words(note) for note in notes]

    def at(self, stamp: float | None) -> float | None:
        """A time the laptop wrote, on the trainer's clock."""
        if not stamp:
            return None
        moment = stamp + self.offset
        return min(moment, self.seen_at) if self.seen_at is not None else moment

    def help_on(self, lab: str, step: str) -> StepHelp:
        if self.progress is None or lab not in self.progress.labs:
            return StepHelp()
        sp = self.progress.labs[lab].steps.get(step)
        if sp is None:
            return StepHelp()
        return StepHelp(sp.failed_checks, sp.hints, sp.solved_with_help, sp.quiz_tries)

    def help_total(self) -> StepHelp:
        """Every step's help added up: hints taken, steps solved with lab solve."""
        steps = [
            sp
            for lp in (self.progress.labs if self.progress else {}).values()
            for sp in lp.steps.values()
        ]
        return StepHelp(
            sum(sp.failed_checks for sp in steps),
            sum(sp.hints for sp in steps),
            any(sp.solved_with_help for sp in steps),
            sum(sp.quiz_tries for sp in steps),
        )

    def solved_with_help(self) -> int:
        steps = [
            sp
            for lp in (self.progress.labs if self.progress else {}).values()
            for sp in lp.steps.values()
        ]
        return sum(1 for sp in steps if sp.solved_with_help and sp.passed)

    def attention(self, now: float, after: float = STUCK_AFTER) -> Attention | None:
        """Why this participant needs the trainer now, or None."""
        if not self.arrived:
            return Attention(MemberState.ABSENT, None, "on the roster, nothing submitted yet")
        if self.problem:
            return Attention(MemberState.PROBLEM, None, f"unreadable: {self.problem}")
        if self.deleted:
            return Attention(MemberState.DELETED, None, self.deleted)
        if self.replaced:
            return Attention(MemberState.REPLACED, None, self.replaced)
        if self.copy_of:
            return Attention(MemberState.COPY, None, self.copy_of)
        if self.verdict is not None and self.verdict.state == VerifyState.FAILED:
            return Attention(
                MemberState.DISPROVED,
                None,
                f"verify: {self.verdict.summary}{_judged_on(self.verdict)}",
            )
        lab, step = self.current
        stuck = self.stuck_for(now)
        if lab and step and stuck is not None:
            if stuck < after:
                return None
            trouble = self.help_on(lab, step).words()
            extra = f" · {' · '.join(trouble)}" if trouble else ""
            return Attention(
                MemberState.STUCK,
                stuck,
                f"{short_step(lab, step)} for {human_duration(stuck)}{extra}",
            )
        idle = self.idle_for(now)
        if lab and idle is not None and idle >= after:
            what = (
                f"finished {lab}"
                if step is None
                else f"passed {short_step(lab, step)}, not moved on"
            )
            return Attention(MemberState.IDLE, idle, f"idle {human_duration(idle)}: {what}")
        return None

    def step_record(self, lab: str, step: str) -> dict[str, Any] | None:
        if self.progress is None or lab not in self.progress.labs:
            return None
        sp = self.progress.labs[lab].steps.get(step)
        return sp.passed if sp else None

    def passed(self, lab: str, step: str) -> bool:
        return self.step_record(lab, step) is not None

    def evidence_kind(self, lab: str, step: str) -> str | None:
        """How a live step passed: live (the participant's own session), scripted, or played
        by Hook Lab; None for the other steps."""
        record = self.step_record(lab, step) or {}
        kind = record.get("evidence_kind")
        return str(kind) if kind else None

    def evidence(self, lab: str, step: str) -> EvidenceMark | None:
        """The mark of a passed live step; None for any other step."""
        kind = self.evidence_kind(lab, step)
        if kind is None:
            return None
        record = self.step_record(lab, step) or {}
        version, session = record.get("client_version"), record.get("session_id")
        left_out = record.get("timeline_left_out")
        return EvidenceMark(
            kind,
            str(version) if version else None,
            str(session) if session else None,
            left_out if isinstance(left_out, int) and not isinstance(left_out, bool) else 0,
        )

    def completed(self, lab: LabColumn) -> int:
        return sum(1 for s in lab.steps if self.passed(lab.id, s.step))

    def lab_complete(self, lab: str) -> bool:
        return bool(
            self.progress and lab in self.progress.labs and self.progress.labs[lab].completed_at
        )

    @property
    def current(self) -> tuple[str | None, str | None]:
        if self.progress is None:
            return None, None
        return self.progress.lab, self.progress.step

    @property
    def last_activity(self) -> float | None:
        """The last submitted save (a check, a hint, a move), on the trainer's clock."""
        if self.progress is None:
            return self.at(self.submitted_at)
        return self.at(self.progress.updated_at or self.submitted_at)

    def last_progress_at(self) -> float | None:
        """When this participant last moved forward in their current lab (trainer's clock)."""
        lab, step = self.current
        if self.progress is None or lab is None or lab not in self.progress.labs:
            return None
        lp = self.progress.labs[lab]
        moments = [lp.started_at] if lp.started_at else []
        for sp in lp.steps.values():
            if sp.passed and isinstance(sp.passed.get("at"), int | float):
                moments.append(float(sp.passed["at"]))
        if step and step in lp.steps and lp.steps[step].entered_at:
            moments.append(float(lp.steps[step].entered_at or 0))
        return self.at(max(moments)) if moments else None

    def idle_for(self, now: float) -> float | None:
        """Seconds since the last submitted activity, between labs or on a passed step."""
        lab, step = self.current
        if lab is None or not (step is None or self.on_passed_step):
            return None
        since = self.last_activity
        return max(0.0, now - since) if since else None

    @property
    def on_passed_step(self) -> bool:
        """The current step has passed and ``lab next`` has not been run yet: done, not stuck.
        On a completed lab walked again, a pass from before the revisit does not count."""
        lab, step = self.current
        if not (lab and step and self.progress and lab in self.progress.labs):
            return False
        return self.progress.labs[lab].passed_this_walk(step) is not None

    def where(self) -> str:
        """Where the participant is, as the trainer reads it."""
        lab, step = self.current
        if lab is None:
            return "not started"
        if step is None:
            return f"{lab} ✓"
        return f"{lab} · {step}" + (" passed, not moved on" if self.on_passed_step else "")

    def stuck_for(self, now: float) -> float | None:
        """Seconds on the same step; None between labs (no lab, or the lab complete) and on a
        step that has passed (the participant has not run lab next yet)."""
        lab, step = self.current
        if lab is None or step is None or self.on_passed_step:
            return None
        since = self.last_progress_at()
        return max(0.0, now - since) if since else None

    def seconds_on(self, lab: LabColumn, column: StepColumn) -> float | None:
        """How long the step took: from reaching it (or the step before) to passing it."""
        record = self.step_record(lab.id, column.step)
        if record is None or not isinstance(record.get("at"), int | float):
            return None
        assert self.progress is not None
        lp = self.progress.labs[lab.id]
        sp = lp.steps[column.step]
        start = sp.entered_at
        if start is None:  # format 1 records: the step before passing, or the lab start
            index = [s.step for s in lab.steps].index(column.step)
            earlier = self.step_record(lab.id, lab.steps[index - 1].step) if index else None
            start = float(earlier["at"]) if earlier and earlier.get("at") else lp.started_at
        if not start:
            return None
        return max(0.0, float(record["at"]) - start)


def short_step(lab: str, step: str) -> str:
    """02·rename-flow: a lab by its number, the step by its id."""
    return f"{lab.split('-', 1)[0]}·{step}"


def human_duration(seconds: float | None) -> str:
    """12 s, 4 min, 1 h 05 min: how a trainer says it across the room."""
    if seconds is None:
        return "–"
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def _judged_on(verdict: ParticipantVerdict) -> str:
    """Where a verdict judged elsewhere (a CI runner) came from; nothing for this machine's."""
    return f" (on {verdict.runner})" if verdict.runner and verdict.runner != runner_name() else ""
