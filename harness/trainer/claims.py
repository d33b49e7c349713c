"""``lab trainer verify``: "done" is a claim, the evidence decides.

The participant's pushed progress commit is cloned into a fresh workspace. For every step it
claims as passed: the verified state must be there (the snapshot commit, its tree, the commit
checked), every sensor report the claim cites must be there with its sha256, the step's checks
must pass again at that state (sensors run again: reports prove nothing about a later state),
and the reports that re-run relied on must be among the ones the claim cites. Any claim that
does not hold is reported by step.

Incremental: each claim is keyed by what its verdict depends on (``step_key``: the lab's
files, the engine, the claim's record and the trees of its snapshot, commit and evidence).
Given the verdicts already reached (``reuse``, kept by harness/trainer/verified.py), a claim
whose key is among them is not re-run: only new or changed steps go to the sandbox.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dulwich import porcelain
from dulwich.objects import Commit

from harness import __version__
from harness.claude.vocabulary import Engine
from harness.engine.check_names import shown_name
from harness.engine.checks.live_session import TIMELINE_FILE
from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner, StepRun
from harness.engine.manifest import Lab, Step, find_lab
from harness.engine.progress import Progress, digest
from harness.engine.reverify import build_again
from harness.engine.throwaway import sandbox_copy
from harness.errors import HarnessError
from harness.maven.broker import MavenBroker
from harness.maven.warm import clean_target
from harness.paths import scratch_mkdtemp
from harness.results import CheckResult, Status
from harness.trainer import verify_jail
from harness.trainer.publish import DEFAULT_COHORT, participant_ref
from harness.trainer.remote import fetch, list_refs, normalise_url, redact_url
from harness.trainer.verify_report import StepVerdict, VerifyReport
from harness.workspace import Workspace, empty_workspace, progress_document
from harness.workspace.snapshot import read_blob
from harness.workspace.workspace import PROGRESS_REF

FETCH_TIMEOUT = 300.0


def _ignore(_: Any) -> None:
    return None


def _submission(
    url: str, cohort: str, participant: str, on_activity: Callable[[str], None]
) -> tuple[bytes, bytes]:
    """The participant's ref and the commit it holds; a clear error when there is none."""
    ref = participant_ref(cohort, participant)
    on_activity(f"reading {ref.decode()}")
    sha = list_refs(url, ref, timeout=FETCH_TIMEOUT).get(ref)
    if sha is None:
        shown = redact_url(url)
        raise HarnessError(
            f"{shown}: nobody submitted as {participant!r} in cohort {cohort}",
            fix=f"lab trainer status {shown} --cohort {cohort} lists who did",
        )
    return ref, sha


def _claims(
    progress: Progress, labs_root: Path | None
) -> Iterator[tuple[Lab | None, str, str, dict[str, Any]]]:
    """Every claimed step, lab by lab, in each lab's order: (lab, lab id, step id, record)."""
    for lab_id, lp in sorted(progress.labs.items()):
        lab: Lab | None
        try:
            lab = find_lab(lab_id, labs_root)
        except HarnessError:
            lab = None
        order = {s.id: s.index for s in lab.steps} if lab else {}
        claimed = sorted(
            ((sid, sp) for sid, sp in lp.steps.items() if sp.passed),
            key=lambda pair: (order.get(pair[0], len(order)), pair[0]),
        )
        for step_id, sp in claimed:
            assert sp.passed is not None
            yield lab, lab_id, step_id, sp.passed


def verify_participant(
    url: str,
    participant: str,
    *,
    cohort: str = DEFAULT_COHORT,
    engine: str = Engine.EMULATOR,
    backend: str | None = None,
    labs_root: Path | None = None,
    on_activity: Callable[[str], None] = _ignore,
    on_verdict: Callable[[StepVerdict], None] = _ignore,
    on_claims: Callable[[list[tuple[str, str]]], None] = _ignore,
    sandboxed: bool = True,
    apart: bool = False,
    reuse: Mapping[str, dict[str, Any]] | None = None,
    flags: list[dict[str, str]] | None = None,
) -> VerifyReport:
    """Fetch the submission here, then judge it in the sandbox (harness/trainer/verify_jail.py;
    ``sandboxed`` False: as the trainer, for --no-sandbox, in a process of its own when
    ``apart``); the holder is removed after. ``reuse``: verdicts already reached, by
    step_key: those claims are not re-run. ``on_claims``: every claim (lab, step), once known."""
    started = time.monotonic()
    url = normalise_url(url)
    ref, sha = _submission(url, cohort, participant, on_activity)
    holder = scratch_mkdtemp("hooklab-verify-")
    try:
        ws = empty_workspace(
            holder / "ws",
            {"verifying": {"remote": redact_url(url), "ref": ref.decode(), "commit": sha.decode()}},
        )
        on_activity(f"cloning {participant}'s submission {sha.decode()[:12]}")
        fetch(url, ws.repo, [sha], timeout=FETCH_TIMEOUT)
        ws.repo.refs[PROGRESS_REF] = sha
        report = VerifyReport(url, cohort, participant, sha.decode(), engine)
        report.flags = list(flags or [])
        judge = Judging(ref.decode(), engine, backend, labs_root)
        # A verdict reached outside the sandbox is never reused inside it, nor the reverse.
        claims = judge.keyed_claims(ws, report, "sandboxed" if sandboxed else "no-sandbox")
        on_claims(list(claims))
        judge = dataclasses.replace(judge, only=_reuse(report, reuse, on_verdict))
        if judge.only:
            if (sandboxed or apart) and not verify_jail.inside():
                _judge_apart(holder, judge, report, on_activity, on_verdict, sandboxed)
            else:
                judge.run(ws, report, on_activity, on_verdict)
        order = {f"{lab}/{step}": i for i, (lab, step) in enumerate(claims)}
        report.verdicts.sort(key=lambda v: order.get(f"{v.lab}/{v.step}", len(order)))
        report.duration = time.monotonic() - started
        return report
    finally:
        shutil.rmtree(holder, ignore_errors=True)


def _reuse(
    report: VerifyReport,
    reuse: Mapping[str, dict[str, Any]] | None,
    on_verdict: Callable[[StepVerdict], None],
) -> frozenset[str]:
    """The verdicts already reached for these claims' keys, into the report; returns the
    claims ("lab/step") left to judge."""
    left = set()
    for claim, key in report.keys.items():
        if reuse is None or key not in reuse:
            left.add(claim)
            continue
        verdict = StepVerdict.from_json({**reuse[key], "reused": True})
        report.verdicts.append(verdict)
        on_verdict(verdict)
    return frozenset(left)


def _lab_digest(lab: Lab) -> str:
    """Every file of the lab's folder: a changed check or asset judges anew."""
    h = hashlib.sha256()
    for path in sorted(p for p in lab.dir.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(lab.dir)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _tree_of(ws: Workspace, sha: Any) -> str | None:
    try:
        found = ws.repo[str(sha).encode()]
    except (KeyError, ValueError, TypeError):
        return None
    return found.tree.decode() if isinstance(found, Commit) else None


def step_key(
    ws: Workspace, lab: Lab | None, lab_id: str, step_id: str, record: dict[str, Any],
    engine: str, backend: str | None, lab_digest: str | None = None,
) -> str:  # fmt: skip
    """What one claim's verdict depends on, hashed: Hook Lab's version, the lab's files, the
    engine and backend (and whether sandboxed), the claim's record (but when it was made) and
    the trees the submission holds at its snapshot, commit and evidence."""
    about = {
        "hooklab": __version__,
        "lab": lab_id,
        "step": step_id,
        "lab_files": lab_digest or (_lab_digest(lab) if lab else None),
        "engine": engine,
        "backend": backend or "local",
        "record": {k: v for k, v in record.items() if k != "at"},
        "trees": {
            f: _tree_of(ws, record.get(f)) for f in ("snapshot", "commit", "evidence_commit")
        },
    }
    return hashlib.sha256(json.dumps(about, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class Judging:
    """How to judge a fetched submission: the same here and in the sandbox's process."""

    ref: str
    engine: str
    backend: str | None
    labs_root: Path | None
    only: frozenset[str] | None = None  # "lab/step": judge just these claims (None: every one)

    def _progress(self, ws: Workspace) -> Progress:
        head = ws.progress_head() or ""
        return Progress.from_json(
            progress_document(ws.repo, head), source=f"{self.ref}: progress.json"
        )

    def keyed_claims(
        self, ws: Workspace, report: VerifyReport, where: str
    ) -> list[tuple[str, str]]:
        """Every claim (lab, step) in order; each one's step_key into ``report.keys``
        (``where``: how it is judged, sandboxed or not, part of the key)."""
        digests: dict[str, str] = {}
        claims = []
        for lab, lab_id, step_id, record in _claims(self._progress(ws), self.labs_root):
            if lab is not None and lab_id not in digests:
                digests[lab_id] = _lab_digest(lab)
            report.keys[f"{lab_id}/{step_id}"] = step_key(
                ws, lab, lab_id, step_id, record, self.engine,
                f"{self.backend or 'local'}, {where}", digests.get(lab_id),
            )  # fmt: skip
            claims.append((lab_id, step_id))
        return claims

    def run(
        self,
        ws: Workspace,
        report: VerifyReport,
        on_activity: Callable[[str], None],
        on_verdict: Callable[[StepVerdict], None],
    ) -> None:
        progress = self._progress(ws)
        context = CheckContext(
            ws,
            ws.root,
            backend_name=self.backend,
            engine=self.engine,
            engine_forced=True,  # the trainer's choice holds for every lab
            on_activity=on_activity,
        )
        runner = LabRunner(ws, labs_root=self.labs_root, context=context)
        for lab, lab_id, step_id, record in _claims(progress, self.labs_root):
            if self.only is not None and f"{lab_id}/{step_id}" not in self.only:
                continue
            verdict = _verify_step(runner, ws, lab, lab_id, step_id, record, on_activity)
            report.verdicts.append(verdict)
            on_verdict(verdict)

    def argv(self, holder: Path) -> list[str]:
        """The sandbox's process: python -m harness.trainer.judge_inside with these settings."""
        extra = ["--backend", self.backend] if self.backend else []
        labs = ["--labs", str(self.labs_root)] if self.labs_root else []
        only = [a for claim in sorted(self.only or ()) for a in ("--only", claim)]
        return [
            sys.executable, "-m", "harness.trainer.judge_inside", str(holder / "ws"), self.ref,
            "--engine", self.engine, *extra, *labs, *only,
        ]  # fmt: skip


def _judge_apart(
    holder: Path,
    judge: Judging,
    report: VerifyReport,
    on_activity: Callable[[str], None],
    on_verdict: Callable[[StepVerdict], None],
    sandboxed: bool = True,
) -> None:
    """Run the judgement in the sandbox (or, ``sandboxed`` False, in a plain process of its
    own), reading its lines (JSON: activity, verdict, end) as they come; anything else it
    prints is the participant's scripts' and is dropped."""
    if not sandboxed:
        _read_judgement(judge.argv(holder), report, on_activity, on_verdict)
        return
    (holder / "scratch").mkdir()
    with contextlib.ExitStack() as stack:
        broker = None
        if judge.backend == "docker":
            # Maven's container is started out here, on the sandbox's request: the sandbox
            # never reaches the Docker socket.
            broker = stack.enter_context(MavenBroker(holder)).path
        extra = [judge.labs_root] if judge.labs_root else []
        argv = verify_jail.command(holder, judge.argv(holder), broker=broker, extra=extra)
        _read_judgement(argv, report, on_activity, on_verdict)


def _read_judgement(
    argv: list[str],
    report: VerifyReport,
    on_activity: Callable[[str], None],
    on_verdict: Callable[[StepVerdict], None],
) -> None:
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    # Read apart, keeping a tail: a script that floods stderr must not stall the judge.
    errors: collections.deque[str] = collections.deque(maxlen=40)
    drain = threading.Thread(target=errors.extend, args=(child.stderr,), daemon=True)
    drain.start()
    ended = False
    for line in child.stdout:
        try:
            said = json.loads(line)
        except ValueError:
            continue
        if not isinstance(said, dict):
            continue
        if "activity" in said:
            on_activity(str(said["activity"]))
        elif "verdict" in said:
            verdict = StepVerdict.from_json(said["verdict"])
            report.verdicts.append(verdict)
            on_verdict(verdict)
        elif "end" in said:
            ended = True
    code = child.wait()
    drain.join(timeout=10)
    if code != 0 or not ended:
        problem = " ".join("".join(errors).split())[-400:] or f"exit {code}"
        raise HarnessError(
            f"verifying in the sandbox failed: {problem}",
            fix="lab doctor; bwrap must be able to make a user namespace here",
        )


def _new_verdict(
    lab: Lab | None, lab_id: str, step_id: str, record: dict[str, Any]
) -> tuple[StepVerdict, Step | None]:
    step = next((s for s in lab.steps if s.id == step_id), None) if lab is not None else None
    verdict = StepVerdict(
        lab_id,
        step_id,
        step.title if step else step_id,
        step.index + 1 if step else None,
        Status.PASS,
        "",
        engine=record.get("engine") if isinstance(record.get("engine"), str) else None,
        claimed_at=record.get("at") if isinstance(record.get("at"), int | float) else None,
    )
    if lab is None or step is None:
        verdict.status = Status.ERROR
        verdict.message = (
            f"{verdict.label}: this Hook Lab checkout has no such "
            f"{'lab' if lab is None else 'step'}, so the claim cannot be checked "
            "(update the trainer's checkout to the participants' version)"
        )
    return verdict, step


def _rerun(
    runner: LabRunner, ws: Workspace, lab: Lab, step: Step, record: dict[str, Any]
) -> StepRun:
    """The step's checks again, in a copy restored to the claimed state."""
    with sandbox_copy(ws.root) as copy:
        rebuilt = Workspace(copy)
        if record.get("commit"):
            porcelain.reset(rebuilt.repo, "hard", str(record["commit"]).encode())
        snapshot = rebuilt.repo[str(record["snapshot"]).encode()]
        rebuilt.restore_tree(snapshot.tree)
        clean_target(copy)  # compiled from the cache when the sources are the fixture's
        build_again(ws.fixture, copy)  # a fixture without a cache: its build output
        return runner.run_checks(lab, step, copy, rebuild_evidence=True)


def _fail(verdict: StepVerdict, status: Status, message: str) -> StepVerdict:
    verdict.status = status
    verdict.message = f"{verdict.label}: {message}"
    return verdict


def _verify_step(
    runner: LabRunner,
    ws: Workspace,
    lab: Lab | None,
    lab_id: str,
    step_id: str,
    record: dict[str, Any],
    on_activity: Callable[[str], None],
) -> StepVerdict:
    """One claimed step re-verified in order; each early return is a verdict."""
    verdict, step = _new_verdict(lab, lab_id, step_id, record)
    if lab is None or step is None:
        return verdict
    live = bool(record.get("session_id"))
    problem = _state_problem(ws, record) or _evidence_problem(ws, record, skip=_live_files(live))
    if problem:
        verdict.edited = _edited(problem)
        return _fail(verdict, Status.FAIL, problem)
    # A live claim's timeline that does not match its digest is still replayed: the verdict
    # then names the transcript line a forged verdict sits on, not only that bytes differ.
    timeline_problem = _evidence_problem(ws, record, only=_live_files(live)) if live else None
    on_activity(f"re-running {verdict.label} at its verified state")
    run = verdict.run = _rerun(runner, ws, lab, step, record)
    if run.status is not Status.PASS:
        bad = next(r for r in run.results if r.status is not Status.PASS)
        reason = (
            "does not pass at the submitted state"
            if run.status is Status.FAIL
            else ("could not be re-run (not the participant's fault)")
        )
        edited = f"{timeline_problem}; " if timeline_problem else ""
        return _fail(verdict, run.status, f"{edited}{reason}: {_describe(bad)}")
    if timeline_problem:
        verdict.edited = _edited(timeline_problem)
        return _fail(verdict, Status.FAIL, timeline_problem)
    relied_on = {rel for r in run.results for rel in r.evidence}
    cited = set((record.get("evidence") or {}).keys())
    missing = sorted(relied_on - cited)
    if missing:
        return _fail(
            verdict,
            Status.FAIL,
            f"claimed without its evidence: the checks read {', '.join(missing)}, which the "
            "claim does not carry",
        )
    verdict.message = _holds(verdict, run, cited - _live_files(live), live)
    return verdict


def _edited(problem: str) -> bool:
    """The problem is a record (or evidence) edited by hand, not a step that fails."""
    return problem.endswith(("was edited", "were edited", "it was edited"))


def _holds(verdict: StepVerdict, run: StepRun, cited: set[str], live: bool) -> str:
    """What a claim that holds is told: what was re-run, and the reports that matched."""
    reports = (
        ""
        if not cited
        else "; 1 report matches its digest"
        if len(cited) == 1
        else f"; {len(cited)} reports match their digests"
    )
    if live:
        replayed = next(r for r in run.results if r.details.get("evidence_kind"))
        return f"{verdict.label}: {replayed.message}; its timeline matches its digest{reports}"
    return f"{verdict.label}: its checks pass again at the submitted state{reports}"


def _live_files(live: bool) -> frozenset[str]:
    return frozenset({TIMELINE_FILE}) if live else frozenset()


def _describe(result: CheckResult) -> str:
    # long enough for a replay's divergence: the line, the call, both verdicts
    found = f" (found: {result.found.splitlines()[0][:300]})" if result.found else ""
    return f"{shown_name(result.name) or 'check'}: {result.message}{found}"


def _state_problem(ws: Workspace, record: dict[str, Any]) -> str | None:
    """Is the verified state the claim points at really in the submission?"""
    snapshot_id = record.get("snapshot")
    if not isinstance(snapshot_id, str) or not snapshot_id:
        return "claimed as passed without a verified state (no snapshot recorded)"
    try:
        snapshot = ws.repo[snapshot_id.encode()]
    except (KeyError, ValueError):
        return f"claimed without its evidence: snapshot {snapshot_id[:12]} was not submitted"
    if not isinstance(snapshot, Commit):
        return f"the recorded snapshot {snapshot_id[:12]} is not a commit"
    tree = record.get("tree")
    if tree and tree != snapshot.tree.decode():
        return (
            f"the record says tree {str(tree)[:12]} but snapshot {snapshot_id[:12]} holds "
            f"{snapshot.tree.decode()[:12]}: the progress record was edited"
        )
    commit = record.get("commit")
    if commit:
        if snapshot.parents and snapshot.parents[0].decode() != commit:
            return (
                f"the record says commit {str(commit)[:12]} but the snapshot was taken on "
                f"{snapshot.parents[0].decode()[:12]}: the progress record was edited"
            )
        if str(commit).encode() not in ws.repo.object_store:
            return f"claimed without its evidence: commit {str(commit)[:12]} was not submitted"
    return None


def _evidence_problem(
    ws: Workspace,
    record: dict[str, Any],
    *,
    skip: frozenset[str] = frozenset(),
    only: frozenset[str] | None = None,
) -> str | None:
    """Every report the claim cites must be in the submission, byte for byte (``skip``: not
    these files; ``only``: just these)."""
    cited = record.get("evidence") or {}
    if not isinstance(cited, dict):
        return "the record's evidence is not a table of report digests: it was edited"
    cited = {
        rel: want
        for rel, want in cited.items()
        if rel not in skip and (only is None or rel in only)
    }
    if not cited:
        return None
    evidence_id = record.get("evidence_commit")
    evidence = None
    if isinstance(evidence_id, str) and evidence_id:
        try:
            evidence = ws.repo[evidence_id.encode()]
        except (KeyError, ValueError):
            evidence = None
    if not isinstance(evidence, Commit):
        return (
            f"claimed without its evidence: the reports it cites ({', '.join(sorted(cited))}) "
            "were not submitted"
        )
    for rel, expected in sorted(cited.items()):
        data = read_blob(ws.repo, evidence.tree, rel)
        if data is None:
            return f"claimed without its evidence: report {rel} was not submitted"
        if digest(data) != expected:
            return (
                f"report {rel} does not match its recorded sha256 "
                f"({str(expected)[:12]}… recorded, {digest(data)[:12]}… submitted): "
                "the evidence or the record was edited"
            )
    return None
