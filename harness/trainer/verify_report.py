"""What ``lab trainer verify`` says of one participant: a verdict for each claimed step, and
the report that gathers them with the record's flags (harness/trainer/claims.py reaches them;
the sandbox's judge sends them back as JSON lines; verified.py keeps them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.engine.lab_runner import StepRun
from harness.results import Status
from harness.schema import pick
from harness.trainer.remote import redact_url

FORGED = "forged"  # a record's flag: a claim rests on a progress record edited by hand


@dataclass
class StepVerdict:
    lab: str
    step: str
    title: str
    number: int | None  # 1-based within the lab; None for a step this checkout does not know
    status: Status  # pass: the claim holds; fail: it does not; error: could not judge
    message: str
    engine: str | None = None  # the engine the claim was made on
    claimed_at: float | None = None
    run: StepRun | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)  # a sandboxed run's, as JSON
    reused: bool = False  # judged before at the same state (step_key): not re-run
    edited: bool = False  # does not hold because the progress record was edited by hand

    @property
    def label(self) -> str:
        where = f"step {self.number} ({self.step})" if self.number else f"step {self.step}"
        return f"{self.lab} {where}"

    def to_json(self) -> dict[str, Any]:
        return {
            **pick(self, "lab step title number"),
            "status": self.status.value,
            "holds": self.status is Status.PASS,
            **pick(self, "message engine claimed_at"),
            "checks": [r.to_json() for r in self.run.results] if self.run else self.checks,
            **pick(self, "reused edited"),
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> StepVerdict:
        number = raw.get("number")
        return cls(
            str(raw["lab"]),
            str(raw["step"]),
            str(raw.get("title") or raw["step"]),
            number if isinstance(number, int) else None,
            Status(raw["status"]),
            str(raw.get("message") or ""),
            raw.get("engine"),
            raw.get("claimed_at"),
            checks=list(raw.get("checks") or []),
            reused=bool(raw.get("reused")),
            edited=bool(raw.get("edited")),
        )


@dataclass
class VerifyReport:
    url: str
    cohort: str
    participant: str
    commit: str
    engine: str
    verdicts: list[StepVerdict] = field(default_factory=list)
    duration: float = 0.0
    keys: dict[str, str] = field(default_factory=dict)  # "lab/step" -> step_key
    # the record's own flags (replaced, copy, …; harness/trainer/cohort.py Member.flags) and
    # "forged" when a claim's record was edited: {"kind", "text"} each
    flags: list[dict[str, str]] = field(default_factory=list)

    @property
    def all_flags(self) -> list[dict[str, str]]:
        edited = [v.label for v in self.verdicts if v.edited]
        if not edited:
            return list(self.flags)
        many = len(edited) > 1
        return [
            *self.flags,
            {
                "kind": FORGED,
                "text": f"forged: the progress file was edited by hand ({len(edited)} claim"
                f"{'s rest' if many else ' rests'} on a record Hook Lab did not write: "
                f"{', '.join(edited[:3])}{' …' if len(edited) > 3 else ''})",
            },
        ]

    def fresh_verdicts(self) -> dict[str, dict[str, Any]]:
        """The verdicts reached now (not reused), by their step_key: what a later verify
        reuses."""
        return {
            key: {**v.to_json(), "reused": False}
            for v in self.verdicts
            if not v.reused and (key := self.keys.get(f"{v.lab}/{v.step}"))
        }

    @property
    def ok(self) -> bool:
        return all(v.status is Status.PASS for v in self.verdicts)

    def to_json(self) -> dict[str, Any]:
        return {
            "remote": redact_url(self.url),
            "cohort": self.cohort,
            "participant": self.participant,
            "commit": self.commit,
            "engine": self.engine,
            "ok": self.ok,
            "claimed": len(self.verdicts),
            "hold": sum(1 for v in self.verdicts if v.status is Status.PASS),
            "reused": sum(1 for v in self.verdicts if v.reused),
            "duration": round(self.duration, 2),
            "flags": self.all_flags,
            "steps": [v.to_json() for v in self.verdicts],
        }
