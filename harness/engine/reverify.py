"""Re-verification: every step of a lab judged again at the state it passed at (lab next at a
lab's end, the trainer's verify), in a throwaway copy with the build output cleared."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.engine.manifest import Lab
from harness.engine.progress import LabProgress, digest
from harness.engine.step_results import StepRun
from harness.engine.throwaway import sandbox_copy
from harness.maven.warm import restore_cached
from harness.results import CheckResult
from harness.workspace import Workspace
from harness.workspace.fixture import Fixture

if TYPE_CHECKING:
    from harness.engine.lab_runner import LabRunner


def clear_build_output(fixture: Fixture, project: Path) -> None:
    """What a build left in ``project`` removed; a fixture with a compile cache (the
    PetClinic) gets its classes back from it when it holds these sources. The hooks' state in
    the git dir goes too: a marker of an earlier attempt would pass a live step for free."""
    fixture.clear_build_output(project)
    fixture.clear_hook_state(project)
    if fixture.compile_cache:
        restore_cached(project)


def _unchanged_since(ws: Workspace, record: dict[str, Any]) -> bool:
    """The worktree is exactly the state a step was verified at."""
    snapshot = ws.repo[str(record["snapshot"]).encode()]
    return bool(snapshot.tree.decode() == ws.snapshot_tree_id())


def _evidence_unchanged(ws: Workspace, record: dict[str, Any]) -> bool:
    """Every report the pass read is still in the workspace, with the same bytes."""
    evidence = record.get("evidence")
    if not isinstance(evidence, dict) or not evidence:
        return False
    for rel, sha in evidence.items():
        path = ws.root / rel
        if not path.is_file() or digest(path.read_bytes()) != sha:
            return False
    return True


def proofs_now(ws: Workspace) -> dict[str, str]:
    """What the hooks have proved across sessions (the hooks a green smoke.sh vouched for), as
    a step passes: kept with the pass, since the hooks keep only the last run's."""
    proofs = {}
    for name in ws.fixture.proof_state:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            proofs[name] = (ws.git_dir / name).read_text()
    return proofs


def _put_back_proofs(ws: Workspace, copy: Path, record: dict[str, Any]) -> None:
    """The copy's proofs as they were when the step passed: a smoke.sh run since (Lab 06 step
    2 asks for one) proves a later state, and would let go the stop step 1 must see held. A
    pass recorded before proofs were kept: a proof written since goes, an older one stays."""
    kept = record.get("proofs")
    for name in ws.fixture.proof_state:
        path = copy / ".git" / name
        if isinstance(kept, dict):
            if isinstance(kept.get(name), str):
                path.write_text(kept[name])
            else:
                path.unlink(missing_ok=True)
            continue
        with contextlib.suppress(OSError):
            if (ws.git_dir / name).stat().st_mtime > float(record.get("at") or 0):
                path.unlink()


def reverify(runner: LabRunner, lab: Lab, lp: LabProgress) -> list[StepRun]:
    runs = []
    for step in lab.steps:
        record = lp.step(step.id).passed
        if (
            record
            and record.get("snapshot")
            and _unchanged_since(runner.ws, record)
            and (
                not any(spec.name == "sensors" for spec in step.checks)
                or _evidence_unchanged(runner.ws, record)
            )
        ):
            # It passed on this very state (usually just now): running it again would only
            # replay the same session. A step that read sensor reports is re-run unless the
            # reports in target/ are still byte for byte the ones its pass recorded.
            runs.append(
                StepRun(
                    lab,
                    step,
                    [CheckResult.passed("passed on this very state", name="progress")],
                    unchanged=True,
                )
            )
            continue
        if not record or not record.get("snapshot"):
            skipped = lp.step(step.id).skipped_by_goto
            said = "skipped with lab goto: never checked" if skipped else "not verified"
            runs.append(
                StepRun(
                    lab,
                    step,
                    [
                        CheckResult.failed(
                            f"this step has no verified state ({said})",
                            name="progress",
                            details={"skipped": skipped},
                        )
                    ],
                )
            )
            continue
        with sandbox_copy(runner.ws.root) as copy:
            Workspace(copy).restore_commit(record["snapshot"])
            # A snapshot holds sources, not build output: today's reports belong to a later
            # state, so the sensors must run again at the state the step passed at. Its
            # classes come from the cache when its sources are the fixture's (most steps
            # change docs or hooks only).
            clear_build_output(runner.ws.fixture, copy)
            _put_back_proofs(runner.ws, copy, record)
            runs.append(runner.run_checks(lab, step, copy, rebuild_evidence=True))
    return runs
