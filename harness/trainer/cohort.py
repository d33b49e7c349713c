"""Read a cohort from its remote: who is where, since when, and how each step goes for the room.

Reading is one ref listing and one shallow fetch of the refs that moved since the last read:
a progress commit's tree holds the whole document, so the tips are all a view needs (their
history and snapshots stay on the remote until ``lab trainer verify`` asks for them).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dulwich.objects import Commit
from dulwich.repo import MemoryRepo

from harness.engine.manifest import Lab, load_labs
from harness.engine.progress import Progress
from harness.errors import HarnessError
from harness.trainer.journal import Journal, journal_path
from harness.trainer.publish import (
    COHORT_REFS,
    DEFAULT_COHORT,
    REPLACED_REFS,
    cohort_prefix,
    normalise_name,
)
from harness.trainer.remote import fetch, list_refs, normalise_url, redact_url
from harness.trainer.shards import room_verdicts
from harness.trainer.verified import (
    FAILED,
    STALE,
    UNVERIFIED,
    Verdict,
    load_verdicts,
    runner_name,
)
from harness.workspace import progress_document

READ_TIMEOUT = 120.0
HOOKLAB_REFS = b"refs/hooklab/"
STUCK_AFTER = 15 * 60.0  # seconds on one step before a trainer should walk over
VERIFYING = "verifying"  # status --watch at work on the submission (harness/trainer/arrival.py)


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


# How a live step passed, as progress records it (harness/engine/checks/live_session.py).
LIVE, SCRIPTED, PLAYED = "live", "scripted", "played by Hook Lab"
# (kind, the word a mark shows, what it means): the legend of the table and the page.
EVIDENCE_LEGEND = (
    (LIVE, "live", "their own Claude Code session on client VERSION, replayed"),
    (SCRIPTED, "scripted", "the scripted session: lab check --scripted, no model access"),
    (PLAYED, "played", "Hook Lab played it on the pinned client (lab solve)"),
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
        if self.kind == SCRIPTED or not self.client_version:
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


# What puts a participant at the top of the trainer's views, most urgent kind first.
PROBLEM, REPLACED, DELETED, COPY, DISPROVED, STUCK, IDLE, ABSENT = (
    "unreadable",
    "replaced",
    "deleted",
    "copy",
    "verify failed",
    "stuck",
    "idle",
    "not arrived",
)
URGENCY = (PROBLEM, REPLACED, DELETED, COPY, DISPROVED, STUCK, IDLE, ABSENT)


@dataclass(frozen=True)
class Attention:
    """Why a trainer should walk over: what, for how long (None: not a matter of time), and
    a short account of it (where, failed checks, hints)."""

    kind: str
    seconds: float | None
    text: str

    def order(self) -> tuple[int, float]:
        return URGENCY.index(self.kind), -(self.seconds or 0.0)


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
    verdict: Verdict | None = None
    verified_commit: str | None = None  # the commit the last verdict judged
    copy_of: str | None = None  # a sentence: whose submission this one is a copy of
    # status --watch verifying this submission now: each claim's state so far (verifying,
    # pass, fail, error); {} waiting its turn (harness/trainer/arrival.py)
    verifying: dict[tuple[str, str], str] | None = None

    @property
    def verification(self) -> str:
        """verified, failed, not judged, unverified, stale (a later submit since), or
        verifying (status --watch at work on it)."""
        if self.verifying is not None:
            return VERIFYING
        if self.verdict is not None:
            return self.verdict.state
        return STALE if self.verified_commit else UNVERIFIED

    def step_verification(self, lab: str, step: str) -> str | None:
        """One claim's verification: verifying, pass, fail, error; None: not judged (yet)."""
        if self.verifying:
            return self.verifying.get((lab, step))
        return self.verdict.step_status(lab, step) if self.verdict is not None else None

    def first_verify_problem(self) -> str | None:
        """The first claim that does not hold: which, the check, why."""
        steps = self.verdict.steps if self.verdict is not None else []
        first = next((s for s in steps if s.get("status") == "fail"), None)
        if first is None:
            return None
        return f"{first['lab']}/{first['step']}: {self.verify_problem(first['lab'], first['step'])}"

    def verify_problem(self, lab: str, step: str) -> str | None:
        """Why a claim does not hold: the check, then why."""
        if self.verdict is None or self.verifying:
            return None
        for s in self.verdict.steps:
            if s.get("lab") == lab and s.get("step") == step and s.get("status") != "pass":
                check = f"{s['check']}: " if s.get("check") else ""
                return f"{check}{s.get('why') or s.get('message') or ''}"
        return None

    def flags(self) -> list[dict[str, str]]:
        """What makes this record not plainly the participant's own (kind, text): verify
        names them beside its verdicts."""
        found = [
            (PROBLEM, self.problem and f"unreadable: {self.problem}"),
            (DELETED, self.deleted),
            (REPLACED, self.replaced),
            (COPY, self.copy_of),
        ]
        return [{"kind": kind, "text": text} for kind, text in found if text]

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
            return Attention(ABSENT, None, "on the roster, nothing submitted yet")
        if self.problem:
            return Attention(PROBLEM, None, f"unreadable: {self.problem}")
        if self.deleted:
            return Attention(DELETED, None, self.deleted)
        if self.replaced:
            return Attention(REPLACED, None, self.replaced)
        if self.copy_of:
            return Attention(COPY, None, self.copy_of)
        if self.verdict is not None and self.verdict.state == FAILED:
            return Attention(
                DISPROVED, None, f"verify: {self.verdict.summary}{_judged_on(self.verdict)}"
            )
        lab, step = self.current
        stuck = self.stuck_for(now)
        if lab and step and stuck is not None:
            if stuck < after:
                return None
            trouble = self.help_on(lab, step).words()
            extra = f" · {' · '.join(trouble)}" if trouble else ""
            return Attention(
                STUCK, stuck, f"{short_step(lab, step)} for {human_duration(stuck)}{extra}"
            )
        idle = self.idle_for(now)
        if lab and idle is not None and idle >= after:
            what = (
                f"finished {lab}"
                if step is None
                else f"passed {short_step(lab, step)}, not moved on"
            )
            return Attention(IDLE, idle, f"idle {human_duration(idle)}: {what}")
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


@dataclass(frozen=True)
class StepStats:
    column: StepColumn
    passed: int
    of: int
    median_seconds: float | None

    @property
    def rate(self) -> float:
        return self.passed / self.of if self.of else 0.0


@dataclass
class Cohort:
    url: str
    name: str
    members: list[Member]
    labs: list[LabColumn]
    read_at: float = field(default_factory=time.time)
    seconds: float = 0.0  # how long reading the remote took

    def step_stats(self) -> list[StepStats]:
        readable = [m for m in self.members if m.progress is not None]
        stats = []
        for lab in self.labs:
            for column in lab.steps:
                times = [t for m in readable if (t := m.seconds_on(lab, column)) is not None]
                stats.append(
                    StepStats(
                        column,
                        sum(1 for m in readable if m.passed(lab.id, column.step)),
                        len(readable),
                        statistics.median(times) if times else None,
                    )
                )
        return stats

    def stuck(self, after: float = STUCK_AFTER) -> list[tuple[Member, float]]:
        """Who has been on one step longer than ``after`` seconds, longest first."""
        found = [
            (m, s)
            for m in self.members
            if (s := m.stuck_for(self.read_at)) is not None and s >= after
        ]
        return sorted(found, key=lambda pair: -pair[1])

    def needs_help(self, after: float = STUCK_AFTER) -> list[tuple[Member, Attention]]:
        """Everyone the trainer should see first, most urgent first: unreadable, replaced or
        deleted records, then stuck on a step, then idle after finishing, then absent."""
        found = [
            (m, a) for m in self.members if (a := m.attention(self.read_at, after)) is not None
        ]
        return sorted(found, key=lambda pair: (pair[1].order(), pair[0].name))

    def by_urgency(self, after: float = STUCK_AFTER) -> list[Member]:
        """The members, those who need help first (most urgent first), then by name."""
        first = [m for m, _ in self.needs_help(after)]
        chosen = {id(m) for m in first}
        return first + [m for m in self.members if id(m) not in chosen]

    def live_marks(self) -> list[tuple[Member, LabColumn, int, EvidenceMark]]:
        """Every passed live step of the room: who, which lab and step (0-based), how."""
        return [
            (m, lab, i, mark)
            for m in self.members
            for lab in self.labs
            for i, column in enumerate(lab.steps)
            if (mark := m.evidence(lab.id, column.step)) is not None
        ]

    def to_json(self, after: float = STUCK_AFTER) -> dict[str, Any]:
        return {
            "remote": redact_url(self.url),
            "cohort": self.name,
            "read_at": self.read_at,
            "labs": [
                {"id": lab.id, "title": lab.title, "steps": [s.step for s in lab.steps]}
                for lab in self.labs
            ],
            "stuck_after_seconds": after,
            # by name, as read: a machine sorts by needs_help itself
            "participants": [self._member_json(m, after) for m in self.members],
            "steps": [
                {
                    "lab": s.column.lab,
                    "step": s.column.step,
                    "passed": s.passed,
                    "of": s.of,
                    "pass_rate": round(s.rate, 3),
                    "median_seconds": None
                    if s.median_seconds is None
                    else round(s.median_seconds, 1),
                }
                for s in self.step_stats()
            ],
        }

    def _member_json(self, m: Member, after: float) -> dict[str, Any]:
        lab, step = m.current
        stuck = m.stuck_for(self.read_at)
        attention = m.attention(self.read_at, after)
        total = m.help_total()
        return {
            "participant": m.name,
            "ref": m.ref,
            "commit": m.commit,
            "arrived": m.arrived,
            "problem": m.problem,
            "replaced": m.replaced,
            "deleted": m.deleted,
            "needs_help": None if attention is None else _attention_json(attention),
            "clock_offset_seconds": round(m.offset, 1),
            "verification": m.verification,
            "verified": None if m.verdict is None else m.verdict.to_json(),
            "copy_of": m.copy_of,
            "failed_checks": total.failed_checks,
            "quiz_tries": total.quiz_tries,
            "hints": total.hints,
            "solved_with_help": m.solved_with_help(),
            "current_lab": lab,
            "current_step": step,
            "current_step_passed": m.on_passed_step,
            "last_activity": m.last_activity,
            "stuck_for_seconds": None if stuck is None else round(stuck, 1),
            "labs": {column.id: _lab_json(m, column) for column in self.labs},
        }

    def csv_rows(self) -> list[list[str]]:
        """One row per participant: a spreadsheet's view of the room."""
        header = [
            "participant",
            *[f"{lab.id} (of {len(lab.steps)})" for lab in self.labs],
            "current_lab",
            "current_step",
            "last_activity",
            "stuck_for_seconds",
            "hints",
            "solved_with_help",
            "needs_help",
            "problem",
        ]
        rows = [header]
        for m in self.members:
            lab, step = m.current
            stuck = m.stuck_for(self.read_at)
            attention = m.attention(self.read_at)
            rows.append(
                [
                    m.name,
                    *[str(m.completed(column)) for column in self.labs],
                    lab or "",
                    step or "",
                    _iso(m.last_activity),
                    "" if stuck is None else f"{stuck:.0f}",
                    str(m.help_total().hints),
                    str(m.solved_with_help()),
                    attention.text if attention else "",
                    m.problem or "",
                ]
            )
        return rows


def _lab_json(m: Member, column: LabColumn) -> dict[str, Any]:
    """One participant's lab in status --json."""
    return {
        "completed_steps": m.completed(column),
        "steps": len(column.steps),
        "complete": m.lab_complete(column.id),
        "passed": [s.step for s in column.steps if m.passed(column.id, s.step)],
        "solved_with_help": [
            s.step for s in column.steps if m.help_on(column.id, s.step).solved_with_help
        ],
        "hints": {s.step: h for s in column.steps if (h := m.help_on(column.id, s.step).hints)},
        # live steps: which evidence passed them
        "evidence": {
            s.step: kind
            for s in column.steps
            if (kind := m.evidence_kind(column.id, s.step)) is not None
        },
        # each claim's verification: verifying, pass, fail, error
        "verification": {
            s.step: state
            for s in column.steps
            if (state := m.step_verification(column.id, s.step)) is not None
        },
        # live steps whose timeline extract left entries out: how many
        "timeline_left_out": {
            s.step: mark.left_out
            for s in column.steps
            if (mark := m.evidence(column.id, s.step)) is not None and mark.left_out
        },
    }


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


def _iso(stamp: float | None) -> str:
    if not stamp:
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def lab_columns(members: Sequence[Member], labs: Sequence[Lab] | None = None) -> list[LabColumn]:
    """The labs as the trainer's checkout defines them, plus any lab only a participant has
    (a different Hook Lab version), so nothing they did disappears from the view."""
    columns = [
        LabColumn(lab.id, lab.title, tuple(StepColumn(lab.id, s.id, s.title) for s in lab.steps))
        for lab in labs or ()
    ]
    known = {c.id: c for c in columns}
    for m in members:
        if m.progress is None:
            continue
        for lab_id, lp in sorted(m.progress.labs.items()):
            column = known.get(lab_id)
            have = {s.step for s in column.steps} if column else set()
            extra = [StepColumn(lab_id, sid, sid) for sid in lp.steps if sid not in have]
            if column is None:
                column = LabColumn(lab_id, lab_id, tuple(extra))
                columns.append(column)
            elif extra:
                column = LabColumn(column.id, column.title, column.steps + tuple(extra))
                columns[columns.index(known[lab_id])] = column
            known[lab_id] = column
    return sorted(columns, key=lambda c: c.id)


class CohortReader:
    """Reads one cohort again and again (``--watch``), fetching only refs that moved.

    ``clock`` is the trainer's clock (tests inject one); ``journal`` False keeps what was
    seen in memory only (see harness/trainer/journal.py); ``roster`` lists who is expected.
    """

    def __init__(
        self,
        url: str,
        cohort: str = DEFAULT_COHORT,
        *,
        labs_root: Path | None = None,
        timeout: float = READ_TIMEOUT,
        clock: Callable[[], float] = time.time,
        journal: bool = True,
        roster: Sequence[str] = (),
    ) -> None:
        self.url = normalise_url(url)
        self.cohort = normalise_name(cohort)
        self.prefix = cohort_prefix(self.cohort)
        self.replaced_prefix = f"{REPLACED_REFS}{self.cohort}/".encode()
        self.timeout = timeout
        self.clock = clock
        self.roster = list(dict.fromkeys(roster))
        self.journal = Journal.load(journal_path(self.url, self.cohort) if journal else None)
        self.store = MemoryRepo()
        self._members: dict[bytes, Member] = {}
        try:
            self.labs: list[Lab] = load_labs(labs_root)
        except HarnessError:
            self.labs = []  # no lab catalogue here: columns come from what participants did

    @property
    def shown_url(self) -> str:
        return redact_url(self.url)

    def read(self) -> Cohort:
        started = time.monotonic()
        listed_refs = list_refs(self.url, HOOKLAB_REFS, timeout=self.timeout)
        now = self.clock()
        refs = {
            ref: sha
            for ref, sha in listed_refs.items()
            if ref.startswith(self.prefix) and b"/" not in ref[len(self.prefix) :]
        }
        moved = [
            sha
            for ref, sha in refs.items()
            if self._members.get(ref, None) is None or self._members[ref].commit != sha.decode()
        ]
        fetch(self.url, self.store, moved, depth=1, timeout=self.timeout)
        members: dict[bytes, Member] = {}
        for ref, sha in sorted(refs.items()):
            known = self._members.get(ref)
            member = (
                known
                if known is not None and known.commit == sha.decode()
                else self._member(ref, sha)
            )
            self._observe(member, now)
            members[ref] = member
        self._members = members
        listed = list(members.values())
        listed += self._gone(refs, now) + self._absent(listed)
        self._mark_forced(listed, listed_refs)
        # the trainer's own verdicts and those CI runners kept in the room (verify --push)
        room = room_verdicts(self.url, self.cohort, listed_refs, self.store, self.timeout)
        _mark_verdicts(listed, load_verdicts(self.url, self.cohort), room)
        _mark_copies(listed)
        self.journal.last_read = now
        self.journal.save()
        return Cohort(
            self.url,
            self.cohort,
            listed,
            lab_columns(listed, self.labs),
            now,
            time.monotonic() - started,
        )

    def _observe(self, m: Member, now: float) -> None:
        """What the journal says of this submission: when it was first seen, the laptop's
        clock, whether the record was replaced by another history."""
        stamp = m.progress.updated_at if m.progress is not None else m.submitted_at
        labs = (
            {lab: lp.started_at for lab, lp in m.progress.labs.items() if lp.started_at}
            if m.progress is not None
            else {}
        )
        whose = m.progress.workspace_id if m.progress is not None else None
        entry = self.journal.observe(m.ref, m.commit, stamp, labs, now, whose)
        m.seen_at = entry.seen
        m.offset = entry.bounds.offset_given(
            m.progress.clock_offset if m.progress is not None else None
        )
        m.replaced = entry.replaced or _pushed_under_another_name(m)

    def _gone(self, refs: dict[bytes, bytes], now: float) -> list[Member]:
        when = time.strftime("%H:%M", time.localtime(self.journal.last_read or now))
        present = {ref.decode() for ref in refs}
        gone = []
        for ref, entry in self.journal.vanished(present, now, when):
            if not ref.startswith(self.prefix.decode()):
                continue
            name = ref[len(self.prefix) :]
            gone.append(Member(name, ref, entry.commit, None, 0.0, deleted=entry.deleted))
        return gone

    def _absent(self, present: Sequence[Member]) -> list[Member]:
        names = {m.name for m in present}
        return [
            Member(name, "", "", None, 0.0, arrived=False)
            for name in self.roster
            if name not in names
        ]

    def _mark_forced(self, members: Sequence[Member], refs: dict[bytes, bytes]) -> None:
        """A record replaced with lab submit --force keeps the earlier one beside it."""
        kept: dict[str, list[str]] = {}
        for ref in refs:
            if ref.startswith(self.replaced_prefix):
                name, _, _when = ref[len(self.replaced_prefix) :].decode().partition("/")
                kept.setdefault(name, []).append(ref.decode())
        for m in members:
            if m.name in kept:
                latest = sorted(kept[m.name])[-1]
                m.replaced = (
                    f"record replaced from another workspace (lab submit --force); the "
                    f"earlier one is kept as {latest}"
                )

    def _member(self, ref: bytes, sha: bytes) -> Member:
        name = ref[len(self.prefix) :].decode(errors="replace")
        commit_id = sha.decode()
        try:
            commit = self.store[sha]
            assert isinstance(commit, Commit)
            submitted = float(commit.commit_time)
            document = progress_document(self.store, commit_id)
            progress = Progress.from_json(document, source=f"{ref.decode()}: progress.json")
        except KeyError:
            return Member(name, ref.decode(), commit_id, None, 0.0, "the commit did not arrive")
        except HarnessError as exc:
            return Member(name, ref.decode(), commit_id, None, submitted, exc.message)
        except (ValueError, TypeError, AttributeError):
            # A hand-made or foreign document: say so, not which Python attribute failed.
            return Member(
                name,
                ref.decode(),
                commit_id,
                None,
                submitted,
                f"commit {commit_id[:12]} holds no progress document Hook Lab can read "
                "(edited by hand, or not pushed by lab submit)",
            )
        return Member(name, ref.decode(), commit_id, progress, submitted)


def _pushed_under_another_name(m: Member) -> str | None:
    """A record whose document names another participant was pushed under this name from
    that participant's workspace (lab submit writes the name it pushes as): seen from the
    first read on, with no journal needed."""
    named = m.progress.submits_as if m.progress is not None else None
    if not named or normalise_name(named) == m.name:
        return None
    return (
        f"record replaced from another workspace: it was made in the workspace that submits "
        f"as {named!r} and pushed under this name"
    )


def mark_verdicts(members: Sequence[Member], *sources: dict[str, Verdict]) -> None:
    """The verdicts kept on this machine (and in the room) onto the members they judged."""
    _mark_verdicts(members, *sources)


def _judged_on(verdict: Verdict) -> str:
    """Where a verdict judged elsewhere (a CI runner) came from; nothing for this machine's."""
    return f" (on {verdict.runner})" if verdict.runner and verdict.runner != runner_name() else ""


def _mark_verdicts(members: Sequence[Member], *sources: dict[str, Verdict]) -> None:
    """Each member's verdict on the commit shown, the newest where several machines judged
    it; else the commit the newest verdict judged (a later submit makes it stale)."""
    for m in members:
        found = sorted((s[m.name] for s in sources if m.name in s), key=lambda v: v.at)
        current = [v for v in found if v.commit == m.commit]
        m.verified_commit = found[-1].commit if found else None
        m.verdict = current[-1] if current else None


def _mark_copies(members: Sequence[Member]) -> None:
    """The same submission under two names, documents of one workspace under two names (a
    copied folder: every document carries its workspace's id), or passed steps resting on
    another participant's snapshots: a snapshot commit holds its workspace's history, its id
    and the second it was taken, so two workspaces make the same one only by copying (two
    shared steps are asked all the same), or a live step passed on another's Claude Code
    session (its id is random). Files copied and committed again in the copier's own
    workspace make snapshots of their own: unless a live session came along, that copy is not
    seen here."""
    by_commit: dict[str, list[str]] = {}
    by_workspace: dict[str, list[str]] = {}
    by_snapshot: dict[str, list[str]] = {}
    by_session: dict[str, list[str]] = {}
    for m in members:
        if m.progress is None or not m.commit:
            continue
        by_commit.setdefault(m.commit, []).append(m.name)
        if m.progress.workspace_id:
            by_workspace.setdefault(m.progress.workspace_id, []).append(m.name)
        for lp in m.progress.labs.values():
            for sp in lp.steps.values():
                snapshot = str((sp.passed or {}).get("snapshot") or "")
                if snapshot and set(snapshot) != {"0"}:
                    by_snapshot.setdefault(snapshot, []).append(m.name)
                # A Claude Code session's id is random: one session is one person's.
                session = str((sp.passed or {}).get("session_id") or "")
                if session and m.name not in by_session.get(session, []):
                    by_session.setdefault(session, []).append(m.name)
    sessions: dict[str, list[str]] = {}
    for names in by_session.values():
        for a in names:
            sessions.setdefault(a, []).extend(n for n in names if n != a)
    shared: dict[tuple[str, str], int] = {}
    for names in by_snapshot.values():
        for a in names:
            for b in names:
                if a != b:
                    shared[a, b] = shared.get((a, b), 0) + 1
    for m in members:
        same = [n for n in by_commit.get(m.commit, []) if n != m.name]
        whose = m.progress.workspace_id if m.progress is not None else None
        twin = [n for n in by_workspace.get(whose or "", []) if n != m.name]
        steps = sorted(b for (a, b), count in shared.items() if a == m.name and count >= 2)
        shared_session = sorted(set(sessions.get(m.name, [])))
        m.copy_of = (
            f"copy: the same submission as {', '.join(same[:3])}"
            if same
            else f"copy: made in the same workspace as {', '.join(twin[:3])} (a copied folder)"
            if twin
            else f"copy: a live step passed on {', '.join(shared_session[:3])}'s Claude Code "
            "session"
            if shared_session
            else f"copy: passed steps on the same snapshots as {', '.join(steps[:3])}"
            if steps
            else None
        )


def cohorts_on(url: str, *, timeout: float = READ_TIMEOUT) -> list[str]:
    """The cohort names a remote holds (for a helpful error when one is mistyped)."""
    refs = list_refs(normalise_url(url), COHORT_REFS.encode(), timeout=timeout)
    return sorted({r[len(COHORT_REFS) :].split(b"/", 1)[0].decode() for r in refs})


def _attention_json(attention: Attention) -> dict[str, Any]:
    seconds = None if attention.seconds is None else round(attention.seconds, 1)
    return {"kind": attention.kind, "seconds": seconds, "text": attention.text}
