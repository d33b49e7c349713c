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
from harness.trainer.member import (
    STUCK_AFTER,
    Attention,
    EvidenceMark,
    LabColumn,
    Member,
    StepColumn,
)
from harness.trainer.publish import (
    COHORT_REFS,
    DEFAULT_COHORT,
    REPLACED_REFS,
    cohort_prefix,
    normalise_name,
)
from harness.trainer.remote import fetch, list_refs, normalise_url, redact_url
from harness.trainer.room_shards import room_verdicts
from harness.trainer.verified import ParticipantVerdict, load_verdicts
from harness.workspace import progress_document

READ_TIMEOUT = 120.0
HOOKLAB_REFS = b"refs/hooklab/"


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
            "maven_trusted": m.maven_trusted(),
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


def mark_verdicts(members: Sequence[Member], *sources: dict[str, ParticipantVerdict]) -> None:
    """The verdicts kept on this machine (and in the room) onto the members they judged."""
    _mark_verdicts(members, *sources)


def _mark_verdicts(members: Sequence[Member], *sources: dict[str, ParticipantVerdict]) -> None:
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
