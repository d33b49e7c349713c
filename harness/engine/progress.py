"""A participant's progress, kept in the workspace's git repository (refs/hooklab/progress).

The document is small and rewritten whole. A passed step records the commit and the snapshot
of the worktree it was verified at, so a lab is called complete only after those snapshots
pass their checks again.

Format 2 adds what a trainer needs to trust a claim without the participant's laptop: each
passed step's result, when and on which Claude Code engine it ran, and the sha256 of every
sensor report it relied on. The reports themselves are kept in an evidence commit (the reports
at their workspace paths, its parent the verified snapshot), and that commit is a parent of the
progress commit that records the pass: pushing the chain carries everything a re-verification
needs, while each progress commit's own tree stays the one document. Format 1 documents still
load; their passed steps simply carry no evidence.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.claude.vocabulary import Provenance
from harness.errors import HarnessError
from harness.schema import pick
from harness.workspace import Workspace
from harness.workspace.workspace import PROGRESS_REF

FORMAT = 2
# The last progress commit lab wrote (in .git/hooklab/workspace.json): the chain only grows,
# so a ref found behind it was moved back by hand (git update-ref) and is put back.
TIP_KEY = "progress_tip"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# A live step's pass on the participant's own session is kept when a later pass of the step
# is scripted or played by Hook Lab: that one is recorded beside it, under this key.
WALKED_AGAIN = "walked_again"


def kept_live(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """The pass record to keep when ``new`` passes a step that ``old`` passed before: a later
    pass may add to a live pass, never take its place (lab status, the trainer and re-
    verification go by the live session); any other pass is replaced by the newer one."""
    if (
        old is None
        or old.get("evidence_kind") != Provenance.LIVE
        or new.get("evidence_kind") == Provenance.LIVE
    ):
        return new
    return {**old, WALKED_AGAIN: new}


@dataclass
class StepProgress:
    hints: int = 0
    solved_with_help: bool = False
    # {"commit", "tree", "snapshot", "at", "engine", "duration", "result", "evidence",
    # "evidence_commit"}; format 1 records carry only commit, snapshot and at.
    passed: dict[str, Any] | None = None
    entered_at: float | None = None  # when the participant reached this step
    # checks that failed on this step, and when the last one did: a trainer's "who struggles"
    failed_checks: int = 0
    failed_at: float | None = None
    skipped_by_goto: bool = False  # lab goto passed over it: never asked of the participant
    # every question of the step's quiz answered and checked with lab check: a wrong try names
    # no question until one try was counted, and the trainer sees how many it took
    quiz_tries: int = 0
    quiz_tried_at: float | None = None  # the last counted try: the next waits (checks/quiz.py)

    def to_json(self) -> dict[str, Any]:
        data = pick(self, "hints solved_with_help passed entered_at failed_checks failed_at")
        if self.skipped_by_goto:
            data["skipped_by_goto"] = True
        if self.quiz_tries:
            data["quiz_tries"] = self.quiz_tries
            data["quiz_tried_at"] = self.quiz_tried_at
        return data


@dataclass
class LabProgress:
    started_at: float = 0.0
    start_commit: str = ""  # HEAD when the lab started
    start_snapshot: str = ""  # snapshot commit of the worktree before the first setup
    steps: dict[str, StepProgress] = field(default_factory=dict)
    completed_at: float | None = None
    # The step the participant is at in this lab: lab start comes back to it after another lab
    # (None: complete, or a progress written before it was kept).
    at: str | None = None
    # A completed lab walked again (lab start, goto or reset on it): it stays complete and
    # keeps its passes (lab list and the trainer go by them); going on asks for a pass made
    # since this moment.
    revisited_at: float | None = None

    def step(self, step_id: str) -> StepProgress:
        return self.steps.setdefault(step_id, StepProgress())

    def passed_this_walk(self, step_id: str) -> dict[str, Any] | None:
        """The step's pass if it counts for lab next: on a revisit, only one made since (an
        earlier live pass kept, the pass of this walk beside it: see kept_live)."""
        sp = self.steps.get(step_id)
        passed = sp.passed if sp else None
        if passed and self.revisited_at is not None:
            for record in (passed, passed.get(WALKED_AGAIN)):
                at = _number(record.get("at"), None) if isinstance(record, dict) else None
                if at is not None and at >= self.revisited_at:
                    return record
            return None
        return passed

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            **pick(self, "started_at start_commit start_snapshot completed_at"),
            "steps": {k: v.to_json() for k, v in self.steps.items()},
        }
        if self.at is not None:
            data["at"] = self.at
        if self.revisited_at is not None:
            data["revisited_at"] = self.revisited_at
        return data


@dataclass
class ReportsSeen:
    """Every sensor run a check read reports of: the run's key (what it measured, see
    checks/sensors.py) -> when a check first read it, and the digest of the report's bytes.
    Kept in the progress record, not in a file of its own: deleting it costs the person their
    progress, a rewind is put back (put_back_if_rewound), and lab submit carries it."""

    runs: dict[str, tuple[float, str]] = field(default_factory=dict)
    grew: bool = False  # a run added since the record was last saved

    def first(self, key: str) -> tuple[float, str] | None:
        return self.runs.get(key)

    def note(self, key: str, at: float, data_digest: str) -> None:
        if key not in self.runs:
            self.runs[key] = (at, data_digest)
            self.grew = True

    def to_json(self) -> dict[str, list[Any]]:
        return {key: [round(at, 3), sha] for key, (at, sha) in sorted(self.runs.items())}

    @classmethod
    def from_json(cls, raw: Any) -> ReportsSeen:
        runs: dict[str, tuple[float, str]] = {}
        for key, value in (raw if isinstance(raw, dict) else {}).items():
            if isinstance(value, list) and len(value) == 2 and isinstance(value[1], str):
                at = _number(value[0], None)
                if at is not None:
                    runs[str(key)] = (at, value[1])
        return cls(runs)


def _notes(raw: Any) -> list[dict[str, Any]]:
    return [n for n in raw if isinstance(n, dict)] if isinstance(raw, list) else []


def _number(raw: Any, default: float | None) -> float | None:
    return float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else default


@dataclass
class Progress:
    lab: str | None = None
    step: str | None = None
    labs: dict[str, LabProgress] = field(default_factory=dict)
    updated_at: float | None = None  # the last save: a trainer's "last activity"
    format: int = FORMAT  # the format the document was read in
    # Written by the workspace (Workspace.write_progress): its id, and the name it submits as.
    workspace_id: str | None = None
    submits_as: str | None = None
    # The remote's clock minus the laptop's, as lab submit last read it (an HTTP remote's
    # Date): what the trainer goes by before it has seen this laptop's submits arrive.
    clock_offset: float | None = None
    reports_seen: ReportsSeen = field(default_factory=ReportsSeen)
    # Each Maven record lab init made that the trainer should see (engine/maven_trust.py):
    # {"at", "mvn", "java", "was", "why"}; a check trusts what lab init records.
    maven_trusted: list[dict[str, Any]] = field(default_factory=list)
    # The participant's sessions a live step passed on: session id -> its first time and the
    # fingerprints of its entries (checks/live_copies.py). Never cleared: a copy of a session
    # that passed once is no new session, after a reset too.
    sessions_used: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, source: str = "progress.json") -> Progress:
        """Read a document of any known format; a newer one is refused, not misread."""
        if not data:
            return cls()
        found = data.get("format", 1)
        if not isinstance(found, int) or found > FORMAT:
            raise HarnessError(
                f"{source}: format: {found!r} is newer than this Hook Lab understands "
                f"(format {FORMAT})",
                fix="upgrade Hook Lab (git pull, then scripts/bootstrap.sh)",
            )
        labs = {}
        for lab_id, raw in (data.get("labs") or {}).items():
            steps = {
                sid: StepProgress(
                    int(s.get("hints", 0)),
                    bool(s.get("solved_with_help")),
                    s.get("passed") if isinstance(s.get("passed"), dict) else None,
                    _number(s.get("entered_at"), None),
                    int(_number(s.get("failed_checks"), 0) or 0),
                    _number(s.get("failed_at"), None),
                    s.get("skipped_by_goto") is True,
                    int(_number(s.get("quiz_tries"), 0) or 0),
                    _number(s.get("quiz_tried_at"), None),
                )
                for sid, s in (raw.get("steps") or {}).items()
                if isinstance(s, dict)
            }
            labs[lab_id] = LabProgress(
                _number(raw.get("started_at"), 0.0) or 0.0,
                str(raw.get("start_commit") or ""),
                str(raw.get("start_snapshot") or ""),
                steps,
                _number(raw.get("completed_at"), None),
                raw["at"] if isinstance(raw.get("at"), str) else None,
                _number(raw.get("revisited_at"), None),
            )
        raw_whose = data.get("workspace")
        whose: Mapping[str, Any] = raw_whose if isinstance(raw_whose, dict) else {}
        return cls(
            data.get("lab"),
            data.get("step"),
            labs,
            _number(data.get("updated_at"), None),
            found,
            whose.get("id") if isinstance(whose.get("id"), str) else None,
            whose.get("submits_as") if isinstance(whose.get("submits_as"), str) else None,
            _number(whose.get("clock_offset"), None),
            ReportsSeen.from_json(data.get("reports_seen")),
            _notes(data.get("maven_trusted")),
            {str(k): v for k, v in (data.get("sessions_used") or {}).items() if isinstance(v, dict)}
            if isinstance(data.get("sessions_used"), dict)
            else {},
        )

    @classmethod
    def load(cls, ws: Workspace) -> Progress:
        put_back_if_rewound(ws)
        return cls.from_json(ws.read_progress(), source=f"{ws.root}: refs/hooklab/progress")

    def save(self, ws: Workspace, message: str, *, anchors: Sequence[str] = ()) -> str:
        self.updated_at = time.time()
        written = ws.write_progress(self.to_json(), message, anchors=anchors)
        ws.update_meta({TIP_KEY: written})
        self.reports_seen.grew = False
        return written

    def lab_progress(self, lab_id: str) -> LabProgress:
        return self.labs.setdefault(lab_id, LabProgress(started_at=time.time()))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "lab": self.lab,
            "step": self.step,
            "updated_at": self.updated_at,
            "labs": {k: v.to_json() for k, v in self.labs.items()},
            **({"reports_seen": self.reports_seen.to_json()} if self.reports_seen.runs else {}),
            **({"maven_trusted": self.maven_trusted} if self.maven_trusted else {}),
            **({"sessions_used": self.sessions_used} if self.sessions_used else {}),
        }


def _first_parents(ws: Workspace, start: str) -> Iterator[str]:
    """The progress chain from ``start`` back to its first commit (anchors are second parents)."""
    at: bytes | None = start.encode()
    while at is not None:
        commit = ws.repo[at]
        yield at.decode()
        parents = getattr(commit, "parents", None) or []
        at = parents[0] if parents else None


def put_back_if_rewound(ws: Workspace) -> str | None:
    """The progress ref moved back to an older commit of its own chain (or deleted) puts back
    the commit lab last wrote: a wrong quiz try, a failed check or a "with lab solve" is the
    trainer's record and does not vanish by a rewind. Nothing is lost by it: the newer commit
    holds all the older one did. A ref ahead of it (lab submit moves it) or on another chain
    is left as it is. Returns the commit put back, if any.

    The remembered commit is a local file too: someone who edits it as well rewinds the record
    on this laptop; the remote still holds what was submitted, and takes fast-forwards only."""
    try:
        tip = ws.meta.get(TIP_KEY)
    except (OSError, ValueError):
        return None
    head = ws.progress_head()
    if not isinstance(tip, str) or head == tip or tip.encode() not in ws.repo.object_store:
        return None
    if head is not None and (
        head.encode() not in ws.repo.object_store or tip in _first_parents(ws, head)
    ):
        return None  # moved on (a submit), or not this chain at all
    if head is not None and head not in _first_parents(ws, tip):
        return None
    ws.repo.refs[PROGRESS_REF] = tip.encode()
    return tip
