"""A step solved once per worker, and the one check a test asks about.

Many free-pass tests walk a lab to a step, apply its solve, break one thing and check. Walking
and solving take seconds (Maven, npm run build), and ``check(every=True)`` plays every check of
the step (sessions, copies built again) when the test reads one. The walk and solve are the
labs session's to prove; a test here needs the solved state and the check its defect shows in.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import Spec
from harness.results import CheckResult
from harness.workspace import Workspace
from tests.builders import _head_of, reach_step

# Solved steps, once per worker: (lab, step, the fresh workspace's HEAD) -> root.
_SOLVED: dict[tuple[str, str, str], Path] = {}


def solved_at(ws: Workspace, lab: str, step: str) -> LabRunner:
    """``ws``, fresh from its fixture, at ``lab``'s ``step`` with the step's solve applied
    (``lab start``, ``lab goto``, ``lab solve --apply``); its runner. The first test to ask
    solves the step for real, and every later one gets a copy of that (times kept)."""
    from harness.maven.warm import relocate_compiler_inputs

    key = (lab, step, _head_of(ws.root))
    kept = _SOLVED.get(key)
    if kept is None:
        runner = reach_step(ws, lab, step)
        runner.solve(apply=True)
        scratch = os.environ.get("HOOKLAB_SCRATCH") or None
        kept = Path(tempfile.mkdtemp(prefix="solved-", dir=scratch)) / "ws"
        shutil.copytree(ws.root, kept, symlinks=True)
        relocate_compiler_inputs(kept, str(ws.root), str(kept))
        _SOLVED[key] = kept
        return runner
    shutil.rmtree(ws.root)
    shutil.copytree(kept, ws.root, symlinks=True)
    relocate_compiler_inputs(ws.root, str(kept), str(ws.root))
    return LabRunner(ws)


def checked(runner: LabRunner, *which: str) -> list[CheckResult]:
    """The current step's checks named by ``which`` (each a check's title, the start of the
    message it fails with, or its kind), run as ``lab check`` runs the step (its state, its
    sessions' count), the others left out; their results in the step's order."""
    lab, step = runner.current()

    def named(spec: Spec, words: str) -> bool:
        said = str(spec.params.get("message") or "")
        return words in (spec.params.get("title"), spec.name) or said.startswith(words)

    missing = [words for words in which if not any(named(spec, words) for spec in step.checks)]
    assert not missing, f"{lab.id} {step.id} has no check titled or failing with {missing}"
    chosen = tuple(spec for spec in step.checks if any(named(spec, words) for words in which))
    return list(runner.run_checks(lab, replace(step, checks=chosen), every=True).results)
