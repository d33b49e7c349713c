"""What a lab command did: a step's checks run once (StepRun), a move to another step or
back to a step's start (Moved), and the one status of many results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.engine.manifest import Lab, Step
from harness.results import CheckResult, Status
from harness.workspace import Backup


def overall(results: Sequence[CheckResult]) -> Status:
    """error wins (the harness could not judge), then fail, else pass."""
    if any(r.status is Status.ERROR for r in results):
        return Status.ERROR
    if any(r.status is Status.FAIL for r in results):
        return Status.FAIL
    return Status.PASS


@dataclass
class StepRun:
    """The checks of one step, run once."""

    lab: Lab
    step: Step
    results: list[CheckResult]
    skipped: int = 0  # checks not run because an earlier one did not pass
    duration: float = 0.0
    unchanged: bool = False  # not run again: it passed on this very state (see reverify)

    @property
    def status(self) -> Status:
        return overall(self.results)

    def to_json(self) -> dict[str, Any]:
        return {
            "lab": self.lab.id,
            "step": self.step.id,
            "title": self.step.title,
            "status": self.status.value,
            "duration": round(self.duration, 2),
            "skipped": self.skipped,
            "unchanged": self.unchanged,
            "checks": [r.to_json() for r in self.results],
        }


@dataclass
class Moved:
    """What start/next/goto/reset did: where the participant is now and what ran to get there."""

    lab: Lab
    step: Step | None  # None: the lab is complete
    actions: list[CheckResult] = field(default_factory=list)
    backup: Backup | None = None
    reverified: list[StepRun] = field(default_factory=list)
    note: str = ""
    next_lab: str | None = None  # set once the lab is complete; None after the last lab
    # After the last lab of this workspace's fixture: the fixtures whose labs come later.
    fixtures_after: tuple[str, ...] = ()
    # Files of the participant's that the step's setup changed (their own version is in
    # ``backup``): named on screen, so nobody wonders where their work went.
    replaced: tuple[str, ...] = ()

    @property
    def next_command(self) -> str | None:
        """What to run next when the lab is complete: the next lab's start command."""
        if self.step is not None or self.next_lab is None:
            return None
        return f"lab start {int(self.next_lab.split('-', 1)[0])}"

    def to_json(self) -> dict[str, Any]:
        return {
            "lab": self.lab.id,
            "step": self.step.id if self.step else None,
            "next_lab": self.next_lab,
            "next_command": self.next_command,
            "fixtures_after": list(self.fixtures_after),
            "actions": [a.to_json() for a in self.actions],
            "backup": None
            if self.backup is None
            else {"name": self.backup.name, "restore": self.backup.restore_hint},
            "replaced": list(self.replaced),
            "reverified": [r.to_json() for r in self.reverified],
            "note": self.note,
        }


def live_record(results: Sequence[CheckResult]) -> dict[str, Any]:
    """What a live step passed on: the participant's session (live), a session Hook Lab
    played, or the scripted one (lab check --scripted), with the session's identity."""
    for result in results:
        kind = result.details.get("evidence_kind")
        if kind is None:
            continue
        record: dict[str, Any] = {"evidence_kind": kind}
        for key in ("session_id", "client_version", "timeline_digest", "scripted_model"):
            if result.details.get(key) is not None:
                record[key] = result.details[key]
        if result.details.get("timeline_left_out"):  # a long session's extract was capped
            record["timeline_left_out"] = result.details["timeline_left_out"]
        return record
    return {}


def kept_note(lab: Lab, target: Step, own: Sequence[Step]) -> str:
    """What a reset did with the steps before ``target``, in words: the participant's own files
    of the steps they passed, the lab's solution for the rest (named, with where theirs are)."""
    earlier = lab.steps[: target.index]
    if not earlier:
        return ""

    def numbers(steps: Sequence[Step]) -> str:
        said = [str(s.index + 1) for s in steps]
        head = "step " if len(said) == 1 else "steps "
        return head + (said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1])

    theirs = [s for s in earlier if s not in own]
    parts = [f"{numbers(own)} as you passed {'it' if len(own) == 1 else 'them'}"] if own else []
    if theirs:
        parts.append(
            f"{numbers(theirs)} from the lab's solution (not passed by you in this walk; "
            "your files are in the backup above)"
        )
    return f"step {target.index + 1} is back as it began: " + "; ".join(parts)


def sent_back_note(lab: Lab, first: Step) -> str:
    """Where a failed re-verification leaves the person, and the way on. The files are as the
    lab's last step left them: back at an earlier step, its check meets a later step's work
    (walk-i, Lab 03: the annotation step 3 put back made step 2's edit fail), and only a reset
    brings back the start the step is done from."""
    n, last = first.index + 1, len(lab.steps)
    if n == last:
        return f"back at step {n}: fix what is named above, then `lab check`"
    return (
        f"back at step {n}, but your files are still as step {last} left them, not as step {n} "
        f"began: `lab reset` puts back step {n}'s start (your files are backed up first); then "
        f"do step {n} again and `lab check`"
    )
