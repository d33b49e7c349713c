"""Read a cohort from its remote: who is where, since when, and how each step goes for the room.

Reading is one ref listing and one shallow fetch of the refs that moved since the last read:
a progress commit's tree holds the whole document, so the tips are all a view needs (their
history and snapshots stay on the remote until ``lab trainer verify`` asks for them).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dulwich.objects import Commit
from dulwich.repo import MemoryRepo

from harness.engine.manifest import Lab, load_labs
from harness.engine.progress import Progress
from harness.errors import HarnessError
from harness.trainer.publish import COHORT_REFS, DEFAULT_COHORT, cohort_prefix
from harness.trainer.remote import fetch, list_refs, normalise_url
from harness.workspace import progress_document

READ_TIMEOUT = 120.0
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


@dataclass
class Member:
    """One participant as their last submit shows them."""

    name: str
    ref: str
    commit: str
    progress: Progress | None
    submitted_at: float  # the tip commit's time
    problem: str | None = None  # the ref could not be read: shown, never fatal for the room

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
        if self.progress is None:
            return self.submitted_at or None
        return self.progress.updated_at or self.submitted_at or None

    def last_progress_at(self) -> float | None:
        """When this participant last moved forward in their current lab."""
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
        return max(moments) if moments else None

    @property
    def on_passed_step(self) -> bool:
        """The current step has passed and ``lab next`` has not been run yet: done, not stuck."""
        lab, step = self.current
        return bool(lab and step and self.passed(lab, step))

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

    def live_marks(self) -> list[tuple[Member, LabColumn, int, EvidenceMark]]:
        """Every passed live step of the room: who, which lab and step (0-based), how."""
        return [
            (m, lab, i, mark)
            for m in self.members
            for lab in self.labs
            for i, column in enumerate(lab.steps)
            if (mark := m.evidence(lab.id, column.step)) is not None
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "remote": self.url,
            "cohort": self.name,
            "read_at": self.read_at,
            "labs": [
                {"id": lab.id, "title": lab.title, "steps": [s.step for s in lab.steps]}
                for lab in self.labs
            ],
            "participants": [self._member_json(m) for m in self.members],
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

    def _member_json(self, m: Member) -> dict[str, Any]:
        lab, step = m.current
        stuck = m.stuck_for(self.read_at)
        return {
            "participant": m.name,
            "ref": m.ref,
            "commit": m.commit,
            "problem": m.problem,
            "current_lab": lab,
            "current_step": step,
            "current_step_passed": m.on_passed_step,
            "last_activity": m.last_activity,
            "stuck_for_seconds": None if stuck is None else round(stuck, 1),
            "labs": {
                column.id: {
                    "completed_steps": m.completed(column),
                    "steps": len(column.steps),
                    "complete": m.lab_complete(column.id),
                    "passed": [s.step for s in column.steps if m.passed(column.id, s.step)],
                    # live steps: which evidence passed them
                    "evidence": {
                        s.step: kind
                        for s in column.steps
                        if (kind := m.evidence_kind(column.id, s.step)) is not None
                    },
                    # live steps whose timeline extract left entries out: how many
                    "timeline_left_out": {
                        s.step: mark.left_out
                        for s in column.steps
                        if (mark := m.evidence(column.id, s.step)) is not None and mark.left_out
                    },
                }
                for column in self.labs
            },
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
            "problem",
        ]
        rows = [header]
        for m in self.members:
            lab, step = m.current
            stuck = m.stuck_for(self.read_at)
            rows.append(
                [
                    m.name,
                    *[str(m.completed(column)) for column in self.labs],
                    lab or "",
                    step or "",
                    _iso(m.last_activity),
                    "" if stuck is None else f"{stuck:.0f}",
                    m.problem or "",
                ]
            )
        return rows


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
    """Reads one cohort again and again (``--watch``), fetching only refs that moved."""

    def __init__(
        self,
        url: str,
        cohort: str = DEFAULT_COHORT,
        *,
        labs_root: Path | None = None,
        timeout: float = READ_TIMEOUT,
    ) -> None:
        self.url = normalise_url(url)
        self.cohort = cohort
        self.prefix = cohort_prefix(cohort)
        self.timeout = timeout
        self.store = MemoryRepo()
        self._members: dict[bytes, Member] = {}
        try:
            self.labs: list[Lab] = load_labs(labs_root)
        except HarnessError:
            self.labs = []  # no lab catalogue here: columns come from what participants did

    def read(self) -> Cohort:
        started = time.monotonic()
        refs = list_refs(self.url, self.prefix, timeout=self.timeout)
        moved = [
            sha
            for ref, sha in refs.items()
            if self._members.get(ref, None) is None or self._members[ref].commit != sha.decode()
        ]
        fetch(self.url, self.store, moved, depth=1, timeout=self.timeout)
        members: dict[bytes, Member] = {}
        for ref, sha in sorted(refs.items()):
            known = self._members.get(ref)
            members[ref] = (
                known
                if known is not None and known.commit == sha.decode()
                else self._member(ref, sha)
            )
        self._members = members
        listed = list(members.values())
        return Cohort(
            self.url,
            self.cohort,
            listed,
            lab_columns(listed, self.labs),
            time.time(),
            time.monotonic() - started,
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
        except (HarnessError, ValueError, TypeError, AttributeError) as exc:
            message = exc.message if isinstance(exc, HarnessError) else str(exc)
            return Member(name, ref.decode(), commit_id, None, submitted, message)
        return Member(name, ref.decode(), commit_id, progress, submitted)


def cohorts_on(url: str, *, timeout: float = READ_TIMEOUT) -> list[str]:
    """The cohort names a remote holds (for a helpful error when one is mistyped)."""
    refs = list_refs(normalise_url(url), COHORT_REFS.encode(), timeout=timeout)
    return sorted({r[len(COHORT_REFS) :].split(b"/", 1)[0].decode() for r in refs})
