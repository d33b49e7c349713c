"""Test builders for cohorts: cheap participants, clearly not the real fixture.

Two levels, both importable by tests and by benchmarks/bench_trainer.py:

* ``SyntheticLabs`` + ``participant``: a tiny workspace (a handful of files, not the PetClinic)
  walked through two small labs by the real ``LabRunner``, so its progress chain, snapshots and
  evidence are exactly what a participant's laptop writes. The one "sensor" step judges a
  Surefire report that the lab's solve writes: a stand-in for Maven, which would cost seconds
  per participant here (the end-to-end test runs real Maven instead).
* ``seed_cohort``: progress commits for N participants written straight into a bare remote,
  with chosen times, for views and benchmarks where pushing N workspaces would only add setup.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dulwich.objects import Blob
from dulwich.repo import Repo

from harness.engine.lab_runner import LabRunner
from harness.engine.progress import LabProgress, Progress, StepProgress
from harness.workspace import Workspace, empty_workspace
from harness.workspace.snapshot import build_tree, make_commit

REPORT_PATH = "target/surefire-reports/TEST-ai.unifiedprocess.petclinic.ArchitectureTest.xml"
GREEN_REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="ai.unifiedprocess.petclinic.ArchitectureTest" time="0.1" tests="3" errors="0"
 skipped="0" failures="0">
  <testcase name="layers" classname="ai.unifiedprocess.petclinic.ArchitectureTest" time="0.01"/>
  <testcase name="names" classname="ai.unifiedprocess.petclinic.ArchitectureTest" time="0.01"/>
  <testcase name="cycles" classname="ai.unifiedprocess.petclinic.ArchitectureTest" time="0.01"/>
</testsuite>
"""

WARMUP = """format = 1
id = "01-warmup"
title = "Warm up"
intro = "A synthetic lab for the trainer tests."

[[step]]
id = "notes"
title = "Write your notes"
instructions = "Write answers/notes.md saying hello."
hints = ["echo hello > answers/notes.md"]
[[step.check]]
kind = "file"
path = "answers/notes.md"
contains = "hello"
[[step.solve]]
do = "write"
path = "answers/notes.md"
content = "hello from the warm-up\\n"

[[step]]
id = "report"
title = "Have a green report"
instructions = "A green ArchitectureTest report must be there."
hints = ["run the sensors"]
[[step.check]]
kind = "sensors"
run = false
# The trainer tests' reports stand in for a run; Hook Lab's own run of the sources is
# proved by the labs' free-pass tests (tests/labs/test_free_passes_walk_o.py).
agree = false
expect = { ArchitectureTest = "green" }
[[step.solve]]
do = "sensors"
"""

PRACTICE_STEPS = ("one", "two", "three")


def _practice() -> str:
    parts = ['format = 1\nid = "02-practice"\ntitle = "Practice"\nintro = "Three small steps."\n']
    for step in PRACTICE_STEPS:
        parts.append(
            f"""
[[step]]
id = "{step}"
title = "Step {step}"
instructions = "Write practice/{step}.txt."
hints = ["write the file"]
[[step.check]]
kind = "file"
path = "practice/{step}.txt"
contains = "{step}"
[[step.solve]]
do = "write"
path = "practice/{step}.txt"
content = "{step}\\n"
"""
        )
    return "".join(parts)


# (lab, step) in the order a participant meets them.
STEPS: tuple[tuple[str, str], ...] = (
    ("01-warmup", "notes"),
    ("01-warmup", "report"),
    *(("02-practice", s) for s in PRACTICE_STEPS),
)


@dataclass(frozen=True)
class SyntheticLabs:
    root: Path

    @classmethod
    def write(cls, root: Path) -> SyntheticLabs:
        (root / "01-warmup").mkdir(parents=True, exist_ok=True)
        (root / "01-warmup" / "lab.toml").write_text(WARMUP)
        (root / "02-practice").mkdir(parents=True, exist_ok=True)
        (root / "02-practice" / "lab.toml").write_text(_practice())
        return cls(root)


# Stand-in for Maven in the tiny workspaces: real Maven costs seconds per participant (the
# end-to-end test runs it). The local backend runs ./mvnw like the fixture's; this one writes
# the green report a sensor run would, unless src/ holds a file named BROKEN.
MVNW = f"""#!/usr/bin/env bash
set -eu
rm -rf target/surefire-reports
mkdir -p target/surefire-reports
if [ -e src/BROKEN ]; then echo "[ERROR] COMPILATION ERROR"; exit 1; fi
cat > {REPORT_PATH} <<'XML'
{GREEN_REPORT}XML
"""


def tiny_workspace(root: Path) -> Workspace:
    """A few files in a real git repository with the meta of a workspace: not the fixture."""
    ws = empty_workspace(root, {"backend": "local", "synthetic": True})
    (root / "README.md").write_text("# a stand-in for the PetClinic fixture\n")
    (root / ".gitignore").write_text("target/\n")
    (root / "src").mkdir()
    (root / "src" / "App.java").write_text("class App {}\n")
    (root / "mvnw").write_text(MVNW)
    (root / "mvnw").chmod(0o755)
    initial = ws.commit_all("Provision a tiny workspace")
    ws.update_meta({"initial_commit": initial})
    return ws


def walk(ws: Workspace, labs: SyntheticLabs, passes: int) -> LabRunner:
    """Pass the first ``passes`` steps of STEPS with the real runner (solve, check, next)."""
    __tracebackhide__ = True  # a failure points at the test that called it
    runner = LabRunner(ws, labs_root=labs.root)
    current_lab = None
    for lab_id, _step in STEPS[:passes]:
        if lab_id != current_lab:
            runner.start(lab_id)
            current_lab = lab_id
        runner.solve(apply=True)
        run = runner.check()
        assert run.status.value == "pass", run.to_json()
        moved = runner.next()
        assert not moved.note.startswith("step"), moved.to_json()  # re-verification held
    if passes < len(STEPS) and STEPS[passes][0] != current_lab:
        runner.start(STEPS[passes][0])  # standing at the start of the next lab
    return runner


def participant(root: Path, labs: SyntheticLabs, passes: int) -> Workspace:
    ws = tiny_workspace(root)
    walk(ws, labs, passes)
    return ws


def clone_participant(template: Workspace, root: Path) -> Workspace:
    """A copy of a built participant (history included): 50 of them cost a copytree each."""
    shutil.copytree(template.root, root, symlinks=True)
    return Workspace(root)


# ---- progress written straight into a remote ---------------------------------------------
@dataclass(frozen=True)
class Seeded:
    name: str
    passed: int  # how many of STEPS
    started: float  # when the first lab started
    step_seconds: float  # how long each step took
    stuck_seconds: float  # time on the current step when the cohort is read
    # step id -> what a live step's passed record adds (evidence_kind, session_id, …)
    live: dict[str, dict[str, Any]] = field(default_factory=dict)


def seeded_progress(
    member: Seeded, now: float, steps: Sequence[tuple[str, str]] = STEPS
) -> Progress:
    """The document a participant with ``member.passed`` of ``steps`` would have, with chosen
    times (any lab catalogue: the benchmark seeds the real labs' steps)."""
    progress = Progress(updated_at=now - member.stuck_seconds)
    at = member.started
    for i, (lab_id, step_id) in enumerate(steps):
        if i > member.passed:
            break
        lp = progress.labs.setdefault(lab_id, LabProgress(started_at=at))
        sp = lp.steps.setdefault(step_id, StepProgress(entered_at=at))
        progress.lab, progress.step = lab_id, step_id
        if i == member.passed:
            # The current step: reached ``stuck_seconds`` before the read.
            sp.entered_at = now - member.stuck_seconds
            break
        at += member.step_seconds
        sp.passed = {
            "commit": "0" * 40,
            "tree": "0" * 40,
            "snapshot": "0" * 40,
            "at": at,
            "engine": "emulator",
            "duration": 0.2,
            "result": {"status": "pass", "checks": []},
            "evidence": {},
            **member.live.get(step_id, {}),
        }
        if i == len(steps) - 1:
            lp.completed_at = at
            progress.step = None
        elif steps[i + 1][0] != lab_id:
            lp.completed_at = at
    return progress


def seed_cohort(
    remote: Path,
    cohort: str,
    members: Sequence[Seeded],
    *,
    now: float | None = None,
    steps: Sequence[tuple[str, str]] = STEPS,
) -> dict[str, str]:
    """Write one progress commit per member under refs/hooklab/cohorts/COHORT/NAME of the bare
    repository ``remote``; returns name -> commit id."""
    now = time.time() if now is None else now
    repo = Repo(str(remote))
    written: dict[str, str] = {}
    for member in members:
        progress = seeded_progress(member, now, steps)
        doc = Blob.from_string(json.dumps(progress.to_json(), indent=2).encode())
        repo.object_store.add_object(doc)
        tree = build_tree(repo, {"progress.json": (0o100644, doc.id)})
        commit = make_commit(repo, tree, [], f"{member.name}: seeded")
        repo.refs[f"refs/hooklab/cohorts/{cohort}/{member.name}".encode()] = commit
        written[member.name] = commit.decode()
    return written
