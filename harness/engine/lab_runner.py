"""The step runner: start a lab, check the current step, hint tiers, solve, next, goto, reset.

Everything that changes the participant's files backs them up first (Workspace.backup) and
says how to get them back. Results are CheckResults; the CLI and views only render them.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from dulwich.objects import Commit

from harness.engine import quiz_record
from harness.engine.check_names import check_name
from harness.engine.checks.live_copies import note_used
from harness.engine.context import CheckContext, StepState
from harness.engine.course import Course
from harness.engine.instruments import maven_guard
from harness.engine.manifest import Lab, Spec, Step, find_lab
from harness.engine.progress import LabProgress, Progress, kept_live
from harness.engine.reverify import clear_build_output, reverify
from harness.engine.step_records import LAB_REFS, check_state, history_of, pass_record
from harness.engine.step_results import (
    Moved,
    StepRun,
    kept_note,
    overall,
    sent_back_note,
)
from harness.errors import HarnessError
from harness.results import CheckResult, Status
from harness.workspace import Backup, Workspace
from harness.workspace.interrupted import undone_if_interrupted
from harness.workspace.snapshot import commit_snapshot

__all__ = ["LAB_REFS", "LabRunner", "Moved", "StepRun", "clear_build_output", "overall"]


def _left_at(lab: Lab, lp: LabProgress) -> Step:
    """The step a lab was left at. A progress written before that was kept: the first step
    neither passed nor passed over by lab goto (never asked of the participant, so never the
    step they were at), else the last step (passed: lab next completes the lab)."""
    if lp.at is not None:
        with contextlib.suppress(HarnessError):
            return lab.step(lp.at)
    for step in lab.steps:
        sp = lp.steps.get(step.id)
        if sp is None or not (sp.passed or sp.skipped_by_goto):
            return step
    return lab.steps[-1]


def _run_spec(ctx: CheckContext, spec: Spec, *, setup: bool = False) -> CheckResult:
    """One check's or setup action's result, with where it is written; an exception is an
    error, never the participant's failure."""
    name = check_name(spec.name, spec.params, action=setup)  # words, never the kind's id
    try:
        result = spec.kind.run(ctx, spec.typed)
    except (OSError, HarnessError) as exc:
        cause = f"{name} failed" if setup else "the check could not run"
        result = CheckResult.errored(f"{cause}: {exc}", name=name)
    except Exception as exc:  # a bug in the harness must never read as "you are wrong"
        result = CheckResult.errored(
            f"the check crashed ({type(exc).__name__}: {exc}); this is a Hook Lab bug, "
            "not your mistake",
            name=name,
        )
    result.details.setdefault("where", spec.where)
    return result


class LabRunner:
    """One workspace's lab commands; what a lab leads to next is its ``course``'s."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        labs_root: Path | None = None,
        context: CheckContext | None = None,
    ) -> None:
        self.ws = workspace
        self.labs_root = labs_root
        self.template = context or CheckContext(workspace, workspace.root)
        self.progress = Progress.load(workspace)
        self.course = Course(labs_root)

    # ---- where are we ------------------------------------------------------------------
    def lab(self, ref: str | None = None) -> Lab:
        ref = ref or self.progress.lab
        if not ref:
            raise HarnessError("no lab started in this workspace", fix="lab list, then lab start 1")
        return find_lab(ref, self.labs_root)

    def current(self) -> tuple[Lab, Step]:
        lab = self.lab()
        if self.progress.step is None:
            raise HarnessError(
                f"lab {lab.id} is complete",
                fix="lab list to pick the next lab, or lab goto STEP to revisit",
            )
        return lab, lab.step(self.progress.step)

    def context(
        self, lab: Lab, root: Path | None = None, step: StepState | None = None
    ) -> CheckContext:
        # Everything the caller chose (backend, engine, live-view callbacks) carries over; only
        # the lab, the root and where the lab and the step stand are this run's own.
        lp = self.progress.labs.get(lab.id)
        return replace(
            self.template,
            lab_dir=lab.dir,
            root_override=root,
            lab_start_commit=lp.start_commit if lp else self.ws.head(),
            step=step or StepState(),
        )

    # ---- running specs -----------------------------------------------------------------
    def run_actions(
        self, lab: Lab, specs: Sequence[Spec], root: Path | None = None
    ) -> list[CheckResult]:
        # A solve's sensor run in the workspace (lab solve, goto, reset) is a run the person
        # did not make: remembered, so a copy of its reports brought back later is no run of
        # theirs (walk-g: goto 3's reports copied back at step 1).
        seen = StepState(reports_seen=self.progress.reports_seen) if root is None else None
        ctx = self.context(lab, root, seen)
        done: list[CheckResult] = []
        for spec in specs:
            result = _run_spec(ctx, spec, setup=True)
            done.append(result)
            if result.status is not Status.PASS:
                break
        return done

    def run_checks(
        self,
        lab: Lab,
        step: Step,
        root: Path | None = None,
        *,
        rebuild_evidence: bool = False,
        every: bool = False,
        person: bool = False,
    ) -> StepRun:
        """The step's checks in order, up to the first that does not pass (a participant
        needs that one); ``every``: all of them (lab dev check judges each check);
        ``person``: the participant's own lab check (a quiz's wait counts this machine's
        tries too)."""
        ctx = self.context(lab, root)
        ctx.step, passed_scripted = check_state(
            self.ws, self.progress, lab, step, rebuild_evidence=rebuild_evidence, person=person
        )
        ctx.scripted = self.template.scripted or passed_scripted
        if rebuild_evidence:
            # Re-verification: the participant saw these sessions when the step passed; a
            # progress line is enough, not every hook event again.
            ctx.on_activity(f"re-verifying step {step.index + 1} ({step.id})")
            ctx.on_hook_event = lambda _entry: None
        started = time.monotonic()
        results: list[CheckResult] = []
        # A check that runs Maven never runs an edited ./mvnw, nor one that relies on a Maven
        # run another mvn than lab init found: either could write any report.
        refused = maven_guard(self.ws, ctx.root, ctx.lab_start_commit, step.checks)
        for spec in step.checks:
            refusal = refused(spec)
            result = _run_spec(ctx, spec) if refusal is None else refusal
            results.append(result)
            if result.status is not Status.PASS and not every:
                break
        return StepRun(
            lab, step, results, len(step.checks) - len(results), time.monotonic() - started
        )

    # ---- commands ----------------------------------------------------------------------
    def _save(self, message: str) -> None:
        self.progress.save(self.ws, message)

    def _enter(self, lab: Lab, step: Step) -> list[CheckResult]:
        self.progress.lab, self.progress.step = lab.id, step.id
        lp = self.progress.lab_progress(lab.id)
        lp.at = step.id
        lp.step(step.id).entered_at = time.time()
        actions = self.run_actions(lab, step.setup)
        if any(spec.kind.name == "live_session" for spec in step.checks):
            # A live step's session is replayed from the state it began in.
            self._snapshot(lab, f"live/{step.id}")
        self._save(f"{lab.id}: at step {step.id}")
        return actions

    def start(self, ref: str) -> Moved:
        lab = find_lab(ref, self.labs_root)
        fixture = self.ws.fixture
        if lab.fixture != fixture.name:
            raise HarnessError(
                f"lab {lab.id} works on the {lab.fixture} fixture; this workspace holds "
                f"the {fixture.name} fixture",
                fix=f"provision one for it: lab init DIR --fixture {lab.fixture} "
                "(lab list here shows this workspace's labs)",
            )
        lp = self.progress.labs.get(lab.id)
        if lp is not None and lp.start_snapshot and lp.completed_at and lp.revisited_at is None:
            # A completed lab is walked again from step 1, as lab reset does: its files back to
            # its start (a later lab's files stayed otherwise), the participant's backed up
            # first. It stays complete, its passes kept: nothing earned is taken back.
            left, head = self.progress.lab, self.ws.head()
            self.progress.lab = lab.id
            moved = self.goto("1", lab_ref=lab.id, action="restart")
            if left != lab.id:
                self._leave(left, moved.backup, head)
            return moved
        if lp is not None and lp.start_snapshot and self.progress.lab == lab.id:
            step = lab.step(self.progress.step) if self.progress.step else None
            return Moved(lab, step, note="already started; carrying on where you were")
        backup = None
        if lp is not None and lp.start_snapshot:
            return self._resume(lab, lp)
        # Every lab starts from the provisioned fixture, as `lab dev check` proves it: leftovers
        # of an earlier lab (an edit, a commit, old reports) would pass its checks for free.
        head = self.ws.head()
        backup = self.ws.rewind(
            self.ws.meta["initial_commit"], f"before starting {lab.id}", action="start"
        )
        self._leave(self.progress.lab, backup, head)
        # Old build output (reports, classes, dist/) goes; the PetClinic's classes come back
        # from the cache `lab init` filled, or the first sensor run would compile them again.
        clear_build_output(fixture, self.ws.root)
        lp = self.progress.lab_progress(lab.id)
        lp.started_at = time.time()
        lp.start_commit = self.ws.head() or ""
        lp.start_snapshot = self._snapshot(lab, "start")
        actions = self._enter(lab, lab.steps[0])
        return Moved(lab, lab.steps[0], actions, backup)

    def _leave(self, lab_id: str | None, backup: Backup | None, head: str | None) -> None:
        """Remember the files a lab is left with (the backup made on leaving it, or HEAD when
        there was nothing to back up), so coming back to it brings them back."""
        if lab_id and (backup is not None or head):
            left = backup.commit if backup is not None else str(head)
            self.ws.repo.refs[f"{LAB_REFS}{lab_id}/left".encode()] = left.encode()

    def _resume(self, lab: Lab, lp: LabProgress) -> Moved:
        """Come back to a lab started before: its files as they were left (the other lab's
        files backed up first), at the step it was left at."""
        step = _left_at(lab, lp)
        left_ref = f"{LAB_REFS}{lab.id}/left".encode()
        backup = None
        note = "resumed where you left this lab"
        if left_ref in self.ws.repo.refs:
            left = self.ws.repo[self.ws.repo.refs[left_ref]]
            assert isinstance(left, Commit)
            parent = left.parents[0].decode() if left.parents else lp.start_commit
            head = self.ws.head()
            backup = self.ws.rewind(parent, f"before resuming {lab.id}", action="resume")
            self._leave(self.progress.lab, backup, head)
            self.ws.restore_commit(left.id.decode())
            clear_build_output(
                self.ws.fixture, self.ws.root
            )  # the other lab's output is no evidence
            note = "resumed where you left this lab, with its files as you left them"
        self.progress.lab = lab.id
        self.progress.step = lp.at = step.id
        self._save(f"{lab.id}: resumed")
        return Moved(lab, step, backup=backup, note=note)

    def _snapshot(self, lab: Lab, label: str) -> str:
        head = self.ws.head()
        # The workspace's id in the message: twins that do the same in the same second (a
        # commit's time is whole seconds) still make snapshots of their own.
        message = f"hooklab {lab.id}: {label}\n\nHook-Lab-Workspace: {self.ws.identity}\n"
        commit = commit_snapshot(self.ws.repo, message, [head.encode()] if head else []).decode()
        self.ws.repo.refs[f"{LAB_REFS}{lab.id}/{label}".encode()] = commit.encode()
        return commit

    def check(self, *, every: bool = False, record_failure: bool = False) -> StepRun:
        """Check the current step; ``record_failure``: a failure counts too (lab check, when
        the participant asks; not lab watch's check of every saved file, nor lab dev check)."""
        lab, step = self.current()
        run = self.run_checks(lab, step, every=every, person=record_failure)
        if record_failure and any(r.details.get("quiz_try") for r in run.results):
            # A whole set of answers checked: the next wrong one may be named; the trainer
            # sees the tries (saved below, with the pass or the failure).
            tried = self.progress.lab_progress(lab.id).step(step.id)
            tried.quiz_tries += 1
            # Only a wrong try makes the next one wait (checks/quiz.py); a right one never.
            wrong = any(r.details.get("quiz_try") and not r for r in run.results)
            tried.quiz_tried_at = time.time() if wrong else None
            if wrong:
                quiz_record.record_wrong(quiz_record.quiz_key(lab.id, step.id))
        if run.status is Status.PASS:
            self._record_pass(lab, step, run)
        elif run.status is Status.FAIL and record_failure:
            # Recorded (and submitted) so the trainer sees who is trying and failing.
            sp = self.progress.lab_progress(lab.id).step(step.id)
            sp.failed_checks += 1
            sp.failed_at = time.time()
            self._save(f"{lab.id}: check {sp.failed_checks} of {step.id} failed")
        elif self.progress.reports_seen.grew:
            # The sensor runs a check read are remembered in the progress record (a copy of
            # them brought back in a later step is no new run), whatever the verdict.
            self._save(f"{lab.id}: sensor reports read at {step.id}")
        return run

    def _record_pass(self, lab: Lab, step: Step, run: StepRun) -> None:
        """Keep the claim with its evidence: the state checked, the result, the reports read."""
        snapshot = self._snapshot(lab, f"verified/{step.id}")
        record = pass_record(self.ws, lab, step, run, snapshot, self.template.engine)
        sp = self.progress.lab_progress(lab.id).step(step.id)
        sp.passed = kept_live(sp.passed, record)
        note_used(self.progress, run.results)  # a copy of this session passes no later step
        # The evidence commit's parent is the snapshot: anchoring it carries both.
        self.progress.save(
            self.ws,
            f"{lab.id}: step {step.id} passed",
            anchors=[record["evidence_commit"] or snapshot],
        )

    def hint(self) -> tuple[Step, int, str]:
        """The next hint tier (1-based); stays on the last one once all were shown."""
        lab, step = self.current()
        sp = self.progress.lab_progress(lab.id).step(step.id)
        sp.hints = min(sp.hints + 1, len(step.hints))
        self._save(f"{lab.id}: hint {sp.hints} for {step.id}")
        return step, sp.hints, step.hints[sp.hints - 1]

    def _complete(self, lab: Lab, **kw: Any) -> Moved:
        """A Moved for a lab that is complete: what comes next on this fixture, or after it.
        After the fixture's last lab the course here is done only when every lab of it is:
        else the note names those left (the labs after this one are for later)."""
        left = self.course.labs_left(lab, self.progress.labs)
        # The next lab not done yet: one done already is no way on (walk-n: Lab 12 finished
        # after Lab 13 said "Next: lab start 13").
        nxt = next(
            (
                x.id
                for x in self.course.later_labs(lab)
                if x.fixture == lab.fixture and x.id.split("-", 1)[0] in left
            ),
            None,
        )
        left = [] if nxt else left
        if left:
            named = ", ".join(left[:-1]) + f" and {left[-1]}" if len(left) > 1 else left[0]
            # In place of "lab complete" (the line below says so): what is left, first, and the
            # command that starts the first of them.
            said = kw.get("note", "").removeprefix("lab complete").lstrip("; ")
            what = f"lab{'s' if len(left) > 1 else ''} {named} {'are' if len(left) > 1 else 'is'}"
            way = f"lab start {int(left[0])}" + (" (lab list shows them)" if len(left) > 1 else "")
            kw["note"] = "; ".join(x for x in (f"{what} not done yet: {way}", said) if x)
        after = () if nxt or left else self.course.fixtures_after(lab)
        return Moved(lab, None, next_lab=nxt, fixtures_after=after, **kw)

    def next(self) -> Moved:
        lab = self.lab()
        if self.progress.step is None:
            # Already complete: say what comes next instead of refusing.
            return self._complete(lab, note="lab complete")
        lab, step = self.current()
        if not self.progress.lab_progress(lab.id).passed_this_walk(step.id):
            raise HarnessError(
                f"step {step.index + 1} ({step.id}) has not passed its check yet",
                fix="lab check (lab hint if you are stuck)",
            )
        if step.index + 1 < len(lab.steps):
            following = lab.steps[step.index + 1]
            backup = self._backup_before_setup(lab, following)
            before = self._changed_contents() if backup is not None else {}
            actions = self._enter(lab, following)
            now = {rel: _read_or_none(self.ws.root / rel) for rel in before}
            replaced = tuple(rel for rel, content in before.items() if now[rel] != content)
            return Moved(lab, following, actions, backup, replaced=replaced)
        return self.complete(lab)

    def _changed_contents(self) -> dict[str, bytes | None]:
        """The participant's uncommitted changes as they are now (None: deleted)."""
        return {rel: _read_or_none(self.ws.root / rel) for rel in self.ws.changed_files()}

    def _backup_before_setup(self, lab: Lab, step: Step) -> Backup | None:
        """A step's setup may write, copy over or check out the participant's files: any
        uncommitted change is backed up first (listed by lab backups, named on screen)."""
        if not step.setup or not self.ws.changed_files():
            return None
        return self.ws.backup(
            f"before the setup of {lab.id} step {step.index + 1} ({step.id})", action="setup"
        )

    def complete(self, lab: Lab) -> Moved:
        """Re-verify every step at the snapshot it passed at, then call the lab complete."""
        lp = self.progress.lab_progress(lab.id)
        reverified = reverify(self, lab, lp)
        # A step lab goto passed over was never asked of the participant: it has no verified
        # state, and is named, not sent back to.
        skipped = [r.step for r in reverified if r.results and r.results[0].details.get("skipped")]
        bad = [r for r in reverified if r.status is not Status.PASS and r.step not in skipped]
        if bad:
            for r in bad:
                lp.step(r.step.id).passed = None
            first = bad[0].step
            self.progress.step = lp.at = first.id
            self._save(f"{lab.id}: re-verification failed at {first.id}")
            return Moved(lab, first, reverified=reverified, note=sent_back_note(lab, first))
        lp.completed_at = time.time()
        lp.revisited_at = None
        self.progress.step = lp.at = None
        self._save(f"{lab.id}: complete")
        note = "lab complete"
        if skipped:
            numbers = ", ".join(str(s.index + 1) for s in skipped)
            note += (
                f"; step{'s' if len(skipped) > 1 else ''} {numbers} you skipped with lab goto "
                f"{'were' if len(skipped) > 1 else 'was'} not checked (lab goto "
                f"{skipped[0].index + 1} to do {'them' if len(skipped) > 1 else 'it'})"
            )
        return self._complete(lab, reverified=reverified, note=note)

    def solve(self, apply: bool) -> tuple[Step, list[CheckResult], Backup | None]:
        lab, step = self.current()
        if not apply:
            mine = self.progress.lab_progress(lab.id).step(step.id)
            if not mine.passed and not mine.solved_with_help:
                # Seen is used: typed in by hand, the solution is still lab solve's (walk-i).
                mine.solved_with_help = True
                self._save(f"{lab.id}: showed the solution of {step.id}")
            return step, [], None
        backup = self.ws.backup(f"before solving {lab.id} {step.id}", action="solve")
        results = self.run_actions(lab, step.solve)
        mine = self.progress.lab_progress(lab.id).step(step.id)
        mine.solved_with_help = True
        mine.quiz_tried_at = None  # the answers are shown: no quiz wait guards them any more
        self._save(f"{lab.id}: solved {step.id} with lab solve")
        return step, results, backup

    def goto(self, ref: str, *, lab_ref: str | None = None, action: str = "goto") -> Moved:
        """Rewind to the lab's start, replay every earlier step's setup and solve, then enter
        the target step. The participant's current files are backed up first, once."""
        lab = self.lab(lab_ref)
        target = lab.step(ref)
        lp = self.progress.labs.get(lab.id)
        if lp is None or not lp.start_snapshot:
            raise HarnessError(f"lab {lab.id} has not been started here", fix=f"lab start {lab.id}")
        with undone_if_interrupted(self.ws):
            reason = f"before {action} of {lab.id} to step {target.index + 1} ({target.id})"
            backup: Backup | None
            if lp.start_commit:
                # Commits made since the lab started (a setup's, a solve's, the participant's) go
                # into the one backup; replaying the steps must not stack them up again on HEAD.
                backup = self.ws.rewind(lp.start_commit, reason, action=action)
            else:
                backup = self.ws.backup(reason, action=action)
            self.ws.restore_commit(lp.start_snapshot)
            # Reports of the earlier attempt go, as on `lab start`: a `touch` would make them
            # look fresh. The steps replayed below write their own.
            clear_build_output(self.ws.fixture, self.ws.root)
            self.progress.lab = lab.id
            actions, own = self._replay_earlier(lab, target, backup, keep_own=action == "reset")
            note = kept_note(lab, target, own) if action == "reset" else ""
            if lp.completed_at:
                # A revisit: the passes stay (lab list, the trainer); lab next asks for new ones.
                lp.revisited_at = time.time()
                note = "; ".join(
                    filter(
                        None,
                        (
                            "this lab stays complete, your passes kept; you walk it again from "
                            f"step {target.index + 1}",
                            note,
                        ),
                    )
                )
            else:
                for step in lab.steps[target.index :]:
                    old = lp.steps.pop(step.id, None)
                    if old is not None:
                        lp.steps[step.id] = history_of(old)
            actions.extend(self._enter(lab, target))
        return Moved(lab, target, actions, backup, note=note)

    def _replay_earlier(
        self, lab: Lab, target: Step, backup: Backup | None, *, keep_own: bool
    ) -> tuple[list[CheckResult], list[Step]]:
        """Every step before ``target``: its setup and solve again. ``keep_own`` (a reset): a
        step the participant passed in this walk then gets their files as it passed, not the
        solution's, so a reset of step 4 keeps their own step-2 hook (walk g, Lab 07). Returns
        the actions and the steps whose own files were kept."""
        lp = self.progress.lab_progress(lab.id)
        actions: list[CheckResult] = []
        own: list[Step] = []
        for step in lab.steps[: target.index]:
            mine = lp.step(step.id)
            if not mine.passed:
                # Its solution is written here now (and kept in the backup): done later, the
                # step counts as done with lab solve (walk-i: goto 3, goto 2, the answers back).
                mine.skipped_by_goto = True
                mine.solved_with_help = mine.solved_with_help or bool(step.solve)
            for specs in (step.setup, step.solve):
                done = self.run_actions(lab, specs)
                actions.extend(done)
                if done and done[-1].status is not Status.PASS:
                    self._save(f"{lab.id}: goto {target.id} stopped at {step.id}")
                    kept = f"your files are backed up: {backup.restore_hint}" if backup else ""
                    raise HarnessError(
                        f"fast-forward stopped at step {step.id}: {done[-1].message}",
                        fix=kept or f"lab reset {target.index + 1}",
                    )
            passed = lp.passed_this_walk(step.id) if keep_own else None
            snapshot = str((passed or {}).get("snapshot") or "")
            if snapshot and snapshot.encode() in self.ws.repo:
                # Only the files: the solve's build output (reports) stays, as a goto has it.
                self.ws.restore_commit(snapshot)
                own.append(step)
        return actions, own

    def reset(self, ref: str | None = None) -> Moved:
        """Put a step (default: the current one) back to its start; a completed lab starts
        over at its first step."""
        if ref is None:
            self.lab()  # no lab started: say how to start one
            ref = self.progress.step or "1"
        return self.goto(ref, action="reset")


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
