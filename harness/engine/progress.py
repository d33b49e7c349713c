"""A participant's progress, kept in the workspace's git repository (refs/hooklab/progress).

The document is small and rewritten whole. A passed step records the commit and the snapshot
of the worktree it was verified at, so a lab is called complete only after those snapshots
pass their checks again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from harness.workspace import Workspace

FORMAT = 1


@dataclass
class StepProgress:
    hints: int = 0
    solved_with_help: bool = False
    passed: dict[str, Any] | None = None  # {"commit", "tree", "snapshot", "at"}

    def to_json(self) -> dict[str, Any]:
        return {
            "hints": self.hints,
            "solved_with_help": self.solved_with_help,
            "passed": self.passed,
        }


@dataclass
class LabProgress:
    started_at: float = 0.0
    start_commit: str = ""  # HEAD when the lab started
    start_snapshot: str = ""  # snapshot commit of the worktree before the first setup
    steps: dict[str, StepProgress] = field(default_factory=dict)
    completed_at: float | None = None

    def step(self, step_id: str) -> StepProgress:
        return self.steps.setdefault(step_id, StepProgress())

    def to_json(self) -> dict[str, Any]:
        return {
            "started_at": self.started_at,
            "start_commit": self.start_commit,
            "start_snapshot": self.start_snapshot,
            "completed_at": self.completed_at,
            "steps": {k: v.to_json() for k, v in self.steps.items()},
        }


@dataclass
class Progress:
    lab: str | None = None
    step: str | None = None
    labs: dict[str, LabProgress] = field(default_factory=dict)

    @classmethod
    def load(cls, ws: Workspace) -> Progress:
        data = ws.read_progress()
        if not data:
            return cls()
        labs = {}
        for lab_id, raw in (data.get("labs") or {}).items():
            steps = {
                sid: StepProgress(
                    int(s.get("hints", 0)), bool(s.get("solved_with_help")), s.get("passed")
                )
                for sid, s in raw.get("steps", {}).items()
            }
            labs[lab_id] = LabProgress(
                float(raw.get("started_at", 0)),
                str(raw.get("start_commit", "")),
                str(raw.get("start_snapshot", "")),
                steps,
                raw.get("completed_at"),
            )
        return cls(data.get("lab"), data.get("step"), labs)

    def save(self, ws: Workspace, message: str) -> None:
        ws.write_progress(self.to_json(), message)

    def lab_progress(self, lab_id: str) -> LabProgress:
        return self.labs.setdefault(lab_id, LabProgress(started_at=time.time()))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "lab": self.lab,
            "step": self.step,
            "labs": {k: v.to_json() for k, v in self.labs.items()},
        }
