"""Re-verification: every step of a lab judged again at the state it passed at (lab next at a
lab's end, the trainer's verify), in a throwaway copy with the build output cleared.

A step that graded a hook the person keeps using (a ``verify_hook`` check) is graded again on
the hook as it is now when that file changed since the pass: the pass at its own state stands,
but the lab's end does not bless a hook swapped for a stub after its step. A lab's last step
is graded again as things are now when a file its solve writes changed since its pass: no
later step may change it, so a change there undoes what the step taught."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import proc
from harness.engine.manifest import Lab, Spec, Step
from harness.engine.progress import LabProgress, digest
from harness.engine.step_results import StepRun
from harness.engine.throwaway import sandbox_copy
from harness.maven.warm import restore_cached
from harness.results import CheckResult, Status
from harness.workspace import Workspace
from harness.workspace.fixture import Fixture
from harness.workspace.snapshot import tree_files

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


def build_again(fixture: Fixture, copy: Path) -> None:
    """The build output of a fixture without a compile cache (the Node one's dist/), built
    again from the copy's sources: a check that compares it with them (Lab 13's "dist/app.js
    is built from src/ as it is now") judges the state the step passed at, not a cleared one
    (walk-l: the lab's end sent an honest person back to step 2 for ever). The PetClinic's
    classes come from its cache, and its sensors run in their checks. The fixture's manifest
    says what rebuilds it (``rebuild``); nothing when it names nothing."""
    if not fixture.rebuild:
        return
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(copy)}
    proc.run(list(fixture.rebuild), cwd=copy, env=env, timeout=300)


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
            build_again(runner.ws.fixture, copy)
            _put_back_proofs(runner.ws, copy, record)
            run = runner.run_checks(lab, step, copy, rebuild_evidence=True)
        runs.append(_with_hooks_now(runner, lab, run, record))
    return runs


def _changed(ws: Workspace, record: dict[str, Any], rel: str) -> bool:
    """``rel`` is not, now, the file (content and executable bit) the pass saw."""
    then = tree_files(ws.repo, ws.repo[str(record["snapshot"]).encode()].tree)
    path = ws.root / rel
    mode_sha = then.get(rel)
    if mode_sha is None or not path.is_file():
        return True
    blob = ws.repo.object_store[mode_sha[1]].as_raw_string()
    was_exec = bool(mode_sha[0] & 0o111)
    return blob != path.read_bytes() or was_exec != os.access(path, os.X_OK)


# Checks that grade what a step made (a hook, a scenario) on the workspace as it is: the ones
# run again, as things are now, when that thing changed since the pass.
_REGRADED = ("hook_session", "shell", "verify_hook")


def _changed_hooks(
    ws: Workspace, lab: Lab, step: Step, record: dict[str, Any]
) -> tuple[tuple[Spec, ...], list[str]]:
    """The step's checks to grade again as things are now, and the files that changed: a
    ``verify_hook`` check whose script changed since the pass; and on a lab's last step (no
    later step may change what it made), its hook checks when a file its solve writes changed
    (Lab 05: the strict lines put back after the pass)."""
    specs = [s for s in step.checks if s.name == "verify_hook" and _changed(ws, record, _script(s))]
    files = [_script(s) for s in specs]
    if step.id == lab.steps[-1].id:
        made = [_made(action) for action in step.solve]
        undone = [rel for rel in dict.fromkeys(made) if rel and _changed(ws, record, rel)]
        if undone:
            specs = [s for s in step.checks if s.name in _REGRADED]
            files = list(dict.fromkeys([*files, *undone]))
    return tuple(specs), files


def _script(spec: Spec) -> str:
    return str(spec.typed.script)


# Each solve action that writes a workspace file, and the parameter naming it.
_WRITES_TO = {"replace": "path", "write": "path", "append": "path", "copy": "to"}


def _made(action: Spec) -> str | None:
    """The workspace file a solve action writes (replace, write: path; copy: to)."""
    key = _WRITES_TO.get(action.name)
    rel = action.params.get(key) if key else None
    return str(rel) if rel else None


def _with_hooks_now(runner: LabRunner, lab: Lab, run: StepRun, record: dict[str, Any]) -> StepRun:
    """``run`` (the step at the state it passed at), and, when it passed, its hook graded as
    it is now if the person changed that file since."""
    if run.status is not Status.PASS:
        return run
    specs, files = _changed_hooks(runner.ws, lab, run.step, record)
    if not specs:
        return run
    now = runner.run_checks(lab, dataclasses.replace(run.step, checks=specs))
    results = list(run.results)
    for result in now.results:
        if result.status is Status.PASS:
            result.message = f"as it is now (changed since this step passed): {result.message}"
        else:
            script = " and ".join(files) or "the hook"
            result.message = (
                f"{script} changed since this step passed, and as it is now it does not pass: "
                f"{result.message}"
            )
            result.details.setdefault(
                "fix", f"make {script} pass this step's check again (git diff {' '.join(files)})"
            )
        results.append(result)
    return StepRun(lab, run.step, results, run.skipped, run.duration + now.duration)
