"""``lab dev check``: refuse a course where a step passes before it is solved or a solve
fails. Per lab, on a fresh workspace: validate the manifest, then for each step
setup → checks must FAIL (not error) → solve → checks must PASS. Every check runs before and
after (a participant's check stops at the first failure), so a check that passes on both
sides, and so proves nothing in its step, is named even when another check fails before.

``lab demo`` walks the same path with a live view, so both share ``walk_lab``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from harness.claude.client.person import can_play_as_person
from harness.claude.vocabulary import DevPhase
from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner, StepRun
from harness.engine.manifest import Lab, Step, lab_dirs, labs_dir, load_lab
from harness.engine.parallel import worker_count
from harness.errors import ConfigError, HarnessError
from harness.maven import get_backend
from harness.maven.warm import warm_workspace
from harness.paths import cache_home, scratch_mkdtemp
from harness.results import CheckResult, Status
from harness.workspace import Workspace, provision
from harness.workspace.fixture import DEFAULT_FIXTURE


@dataclass
class StepWalk:
    step: Step
    setup: list[CheckResult] = field(default_factory=list)
    before: StepRun | None = None
    hollow: StepRun | None = None  # the checks on the hollowed solution: they must fail
    solve: list[CheckResult] = field(default_factory=list)
    after: StepRun | None = None
    problems: list[str] = field(default_factory=list)
    duration: float = 0.0
    maven_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def unchanged(self) -> list[str]:
        """The checks that pass before the solve and after it, and on the hollowed solution
        too: each proves nothing here (a guard that must keep passing, at best). Named when
        some other check fails before; when all pass before, the step's problem says so."""
        if self.before is None or self.after is None or self.before.status is Status.PASS:
            return []
        after = {_where(r): r for r in self.after.results}
        # A check the hollowed solution fails proves its part: it tells the hollow apart.
        caught = {_where(r) for r in (self.hollow.results if self.hollow else []) if not r}
        guards = self.guard_wheres()
        return [
            f"{r.name} ({_where(r)})"
            for r in self.before.results
            if r.status is Status.PASS
            and _where(r) in after
            and after[_where(r)].status is Status.PASS
            and _where(r) not in caught
            and _where(r) not in guards
        ]

    def guard_wheres(self) -> set[str]:
        return {spec.where for spec in self.step.checks if spec.guard}

    @property
    def guards(self) -> list[str]:
        """The checks the manifest declares guards (``guard = true``) that held before the
        solve and after it, as a guard must: named as such, never as proving nothing."""
        if self.before is None or self.after is None:
            return []
        wheres = self.guard_wheres()
        held = {_where(r) for r in self.after.results if r.status is Status.PASS}
        return [
            f"{r.name} ({_where(r)})"
            for r in self.before.results
            if r.status is Status.PASS and _where(r) in wheres and _where(r) in held
        ]

    @property
    def as_person(self) -> bool | None:
        """Whether the step's session was played by a person's plain ``claude`` in a terminal
        (False: with ``-p``); None when its solve played no session."""
        played = [r.details["person"] for r in self.solve if "person" in r.details]
        return all(played) if played else None

    @property
    def engines(self) -> list[str]:
        """The engines the step's sessions played on after the solve (a check on two engines
        passes only when they agree on every step); [] when it played none."""
        results = self.after.results if self.after else []
        return list(dict.fromkeys(e for r in results for e in _engines_of(r)))

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step.id,
            **_timed(self.ok, self.duration, self.maven_seconds),
            "problems": self.problems,
            "setup": [r.to_json() for r in self.setup],
            "before": self.before.to_json() if self.before else None,
            "hollow": self.hollow.to_json() if self.hollow else None,
            "solve": [r.to_json() for r in self.solve],
            "as_person": self.as_person,
            "after": self.after.to_json() if self.after else None,
            "unchanged": self.unchanged,
            "guards": self.guards,
            "engines": self.engines,
        }


def _timed(ok: bool, duration: float, maven_seconds: float) -> dict[str, Any]:
    """What a step, a lab and a whole walk each report of themselves, in the same form."""
    return {"ok": ok, "duration": round(duration, 2), "maven_seconds": round(maven_seconds, 2)}


def _where(result: CheckResult) -> str:
    return str(result.details.get("where", result.name))


def _engines_of(result: CheckResult) -> list[str]:
    sessions = result.details.get("sessions")
    if isinstance(sessions, dict) and len(sessions) > 1:
        return [str(engine) for engine in sessions]
    engine = result.details.get("engine")
    return [str(engine)] if engine else []


@dataclass
class LabWalk:
    lab_id: str
    manifest_error: str | None = None
    steps: list[StepWalk] = field(default_factory=list)
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        return self.manifest_error is None and all(s.ok for s in self.steps)

    @property
    def maven_seconds(self) -> float:
        return sum(s.maven_seconds for s in self.steps)

    def to_json(self) -> dict[str, Any]:
        return {
            "lab": self.lab_id,
            **_timed(self.ok, self.duration, self.maven_seconds),
            "manifest_error": self.manifest_error,
            "steps": [s.to_json() for s in self.steps],
        }


class Observer:
    """What a view wants to hear during a walk. The default hears nothing."""

    def lab_started(self, lab: Lab) -> None: ...
    def phase(self, step: Step, phase: DevPhase) -> None: ...
    def results(self, step: Step, phase: DevPhase, results: Sequence[CheckResult]) -> None: ...
    def step_done(self, walk: StepWalk) -> None: ...


class _Timer:
    """Adds up the time spent in Maven, recognised by the activity messages that announce it."""

    def __init__(self, forward: Callable[[str], None]) -> None:
        self.forward = forward
        self.total = 0.0
        self.since: float | None = None

    def activity(self, text: str) -> None:
        self.stop()
        if "mvnw" in text or "sensor" in text:
            self.since = time.monotonic()
        self.forward(text)

    def stop(self) -> None:
        if self.since is not None:
            self.total += time.monotonic() - self.since
            self.since = None

    def lap(self) -> float:
        """The Maven time since the last lap."""
        self.stop()
        total, self.total = self.total, 0.0
        return total


def walk_lab(
    lab: Lab,
    ws: Workspace,
    *,
    observer: Observer | None = None,
    context: CheckContext | None = None,
    hollow: bool = False,
) -> LabWalk:
    obs = observer or Observer()
    started = time.monotonic()
    base = context or CheckContext(ws, lab.dir)
    timer = _Timer(base.on_activity)
    ctx = replace(base, workspace=ws, lab_dir=lab.dir, on_activity=timer.activity)
    runner = LabRunner(ws, labs_root=lab.dir.parent, context=ctx)
    walk = LabWalk(lab.id)
    obs.lab_started(lab)
    # A step's time and Maven time include its setup, which runs when the walk enters it.
    entered = time.monotonic()
    moved = runner.start(lab.id)
    setup = moved.actions
    for step in lab.steps:
        sw = _walk_step(runner, obs, timer, step, setup, hollow)
        sw.duration = time.monotonic() - entered
        sw.maven_seconds = timer.lap()
        walk.steps.append(sw)
        obs.step_done(sw)
        if not sw.ok:
            break  # later steps build on this one; their verdicts would mislead
        setup = []
        entered = time.monotonic()
        if step.index + 1 < len(lab.steps):
            try:
                setup = runner.next().actions
            except HarnessError as exc:
                sw.problems.append(f"could not move on: {exc}")
                break
    walk.duration = time.monotonic() - started
    return walk


def _walk_step(
    runner: LabRunner,
    obs: Observer,
    timer: _Timer,
    step: Step,
    setup: list[CheckResult],
    hollow: bool = False,
) -> StepWalk:
    """One step walked: its setup's results, its checks before, its solve, its checks after;
    each phase that does not hold is a problem of the step."""
    sw = StepWalk(step, setup=setup)
    obs.results(step, DevPhase.SETUP, setup)
    if any(r.status is not Status.PASS for r in setup):
        sw.problems.append("setup did not complete: " + _first_bad(setup))
    obs.phase(step, DevPhase.BEFORE)
    sw.before = _heard(obs, timer, step, DevPhase.BEFORE, runner.check(every=True))
    if sw.before.status is Status.PASS:
        sw.problems.append(
            "the checks pass before the step is solved: the step proves "
            "nothing (make a check fail on the starting state)"
        )
    else:
        # The first check that does not pass is the one a participant meets: it must fail,
        # not error. A later check may depend on it (a session cannot start while the
        # settings it is to fix are broken): its error shows above but is no problem.
        first = next(r for r in sw.before.results if r.status is not Status.PASS)
        if first.status is Status.ERROR:
            sw.problems.append("a check errored before solving: " + _first_bad([first]))
    guards = sw.guard_wheres()
    broken = [r for r in sw.before.results if _where(r) in guards and r.status is not Status.PASS]
    if broken:
        sw.problems.append(
            "a check declared a guard (guard = true) does not hold on the starting state: "
            + _first_bad(broken)
            + " (a guard passes before and after the solve; drop guard = true if it is to fail)"
        )
    if hollow and step.hollow:
        _walk_hollow(runner, obs, timer, sw)
    obs.phase(step, DevPhase.SOLVE)
    _step, sw.solve, _backup = runner.solve(apply=True)
    timer.stop()
    obs.results(step, DevPhase.SOLVE, sw.solve)
    if any(r.status is not Status.PASS for r in sw.solve):
        sw.problems.append("the solve did not complete: " + _first_bad(sw.solve))
    obs.phase(step, DevPhase.AFTER)
    sw.after = _heard(obs, timer, step, DevPhase.AFTER, runner.check(every=True))
    if sw.after.status is not Status.PASS:
        sw.problems.append(
            f"the checks {sw.after.status.value} after the solve: " + _first_bad(sw.after.results)
        )
    return sw


def _heard(obs: Observer, timer: _Timer, step: Step, phase: DevPhase, run: StepRun) -> StepRun:
    """A phase's checks, just run: Maven's time stops counting and the view hears them."""
    timer.stop()
    obs.results(step, phase, run.results)
    return run


def _walk_hollow(runner: LabRunner, obs: Observer, timer: _Timer, sw: StepWalk) -> None:
    """The step's hollowed solution (``[[step.hollow]]``) played on its starting state: the
    checks must fail, not pass and not error. The files go back as they were after."""
    step, ws = sw.step, runner.ws
    head, tree = ws.head(), ws.snapshot_tree_id()
    obs.phase(step, DevPhase.HOLLOW)
    done = runner.run_actions(runner.lab(), step.hollow)
    if any(r.status is not Status.PASS for r in done):
        sw.problems.append("the hollowed solution did not apply: " + _first_bad(done))
    else:
        checked = runner.run_checks(runner.lab(), step)
        sw.hollow = _heard(obs, timer, step, DevPhase.HOLLOW, checked)
        if sw.hollow.status is Status.PASS:
            sw.problems.append(
                "the checks pass on the hollowed solution: the step can be passed without "
                "doing it (make a check see what the hollow left out)"
            )
        elif sw.hollow.status is Status.ERROR:
            sw.problems.append(
                "a check errored on the hollowed solution: " + _first_bad(sw.hollow.results)
            )
    if ws.head() != head:  # a hollow that committed: HEAD goes back too
        ws.put_back(None, head)
    ws.restore_tree(tree.encode())  # files the hollow left alone keep their mtimes


def _first_bad(results: Sequence[CheckResult]) -> str:
    for r in results:
        if r.status is not Status.PASS:
            extra = f" (found: {r.found.splitlines()[0][:200]})" if r.found else ""
            return f"{r.name}: {r.message}{extra}"
    return "?"


@dataclass(frozen=True)
class Shard:
    """Part ``index`` of ``total`` (both from 1): ``lab dev check --shard 2/3``."""

    index: int
    total: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``K/N`` with 1 <= K <= N; ValueError with the fix otherwise."""
        index, sep, total = text.partition("/")
        if not (sep and index.isdigit() and total.isdigit() and 1 <= int(index) <= int(total)):
            raise ValueError(f"{text!r} is not a shard: write K/N with 1 <= K <= N, e.g. 1/2")
        return cls(int(index), int(total))

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


def select_shard(lab_ids: Sequence[str], shard: Shard | None) -> list[str]:
    """The labs this shard proves: the course's labs in id order, dealt round-robin, so every
    lab lands in exactly one shard and neighbouring (similar) labs spread out."""
    ordered = sorted(lab_ids)
    if shard is None:
        return ordered
    return ordered[shard.index - 1 :: shard.total]


@dataclass
class DevCheckReport:
    labs: list[LabWalk]
    duration: float
    shard: Shard | None = None

    @property
    def ok(self) -> bool:
        return all(lab.ok for lab in self.labs)

    def to_json(self) -> dict[str, Any]:
        maven_seconds = sum(lab.maven_seconds for lab in self.labs)
        return {
            **_timed(self.ok, self.duration, maven_seconds),
            "shard": str(self.shard) if self.shard else None,
            "labs": [lab.to_json() for lab in self.labs],
        }


def lint(root: Path | None = None, only: Sequence[str] = ()) -> tuple[list[Lab], list[LabWalk]]:
    """Load every manifest; the ones that fail become LabWalks carrying the error."""
    labs, broken = [], []
    seen_ids: dict[str, Path] = {}
    dirs = lab_dirs(root)
    if only:
        wanted = [o if not o.isdigit() else f"{int(o):02d}" for o in only]
        dirs = [d for d in dirs if any(d.name == w or d.name.startswith(w) for w in wanted)]
        if not dirs:
            raise HarnessError(
                f"no lab matches {', '.join(only)}", fix="lab list shows the lab ids"
            )
    for d in dirs:
        try:
            lab = load_lab(d)
        except ConfigError as exc:
            broken.append(LabWalk(d.name, manifest_error=str(exc)))
            continue
        if lab.number in seen_ids:
            broken.append(
                LabWalk(
                    d.name,
                    manifest_error=(
                        f"{lab.path}: id: number {lab.number} is also used by "
                        f"{seen_ids[lab.number]}"
                    ),
                )
            )
            continue
        seen_ids[lab.number] = lab.dir
        labs.append(lab)
    return labs, broken


class _Recorder(Observer):
    """Keeps what one lab's walk told its observer, to tell it again later in one piece."""

    def __init__(self) -> None:
        self.calls: list[Callable[[Observer], None]] = []

    def lab_started(self, lab: Lab) -> None:
        self.calls.append(lambda observer: observer.lab_started(lab))

    def phase(self, step: Step, phase: DevPhase) -> None:
        self.calls.append(lambda observer: observer.phase(step, phase))

    def results(self, step: Step, phase: DevPhase, results: Sequence[CheckResult]) -> None:
        kept = list(results)
        self.calls.append(lambda observer: observer.results(step, phase, kept))

    def step_done(self, walk: StepWalk) -> None:
        self.calls.append(lambda observer: observer.step_done(walk))

    def replay(self, observer: Observer) -> None:
        for call in self.calls:
            call(observer)


def prove_lab(
    lab: Lab,
    fresh: Path,
    *,
    observer: Observer | None = None,
    context_factory: Callable[[Workspace, Lab], CheckContext] | None = None,
    as_person: bool | None = None,
) -> LabWalk:
    """Walk one lab on its own copy of the fresh workspace ``fresh``, removed afterwards.
    ``as_person``: live steps are played by a person's plain ``claude`` in a terminal (None:
    where tmux and the pinned client are here)."""
    holder = scratch_mkdtemp(f"hooklab-devcheck-{lab.number}-")
    try:
        shutil.copytree(fresh, holder / "ws", symlinks=True)
        ws = Workspace(holder / "ws")
        ctx = context_factory(ws, lab) if context_factory else CheckContext(ws, lab.dir)
        # A session played on both engines runs each identical Maven call once; a live step's
        # session is played by a person's plain `claude` in a terminal, where one can run.
        if as_person is None:
            as_person = can_play_as_person()
        person = holder / "person" if as_person else None
        ctx = replace(ctx, share_maven=True, person_folder=ctx.person_folder or person)
        return walk_lab(lab, ws, observer=observer, context=ctx, hollow=True)
    finally:
        shutil.rmtree(holder, ignore_errors=True)


def prove_labs(
    labs: Sequence[Lab],
    fresh: Path,
    *,
    jobs: int = 1,
    observer: Observer | None = None,
    context_factory: Callable[[Workspace, Lab], CheckContext] | None = None,
) -> list[LabWalk]:
    """Prove ``labs`` ``jobs`` at a time, each on its own workspace; the walks come back in
    the order of ``labs``, and the observer hears each lab whole, in that order too."""
    # Asked once: whether a person can play here starts the client to read its version.
    prove = partial(
        prove_lab, fresh=fresh, context_factory=context_factory, as_person=can_play_as_person()
    )
    if jobs <= 1 or len(labs) <= 1:
        return [prove(lab, observer=observer) for lab in labs]
    recorders = {lab.id: _Recorder() for lab in labs}
    walks: list[LabWalk] = []
    # Threads suffice: a lab waits on Maven and on hook processes, not on Python.
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="devcheck") as pool:
        futures = {
            lab.id: pool.submit(prove, lab, observer=recorders[lab.id])
            for lab in longest_first(labs)
        }
        for lab in labs:
            walks.append(futures[lab.id].result())  # in order: a later lab waits to be told
            if observer is not None:
                recorders[lab.id].replay(observer)
    remember_durations(walks)
    return walks


DURATIONS_FILE = "devcheck-seconds.json"


def longest_first(labs: Sequence[Lab]) -> list[Lab]:
    """The labs by how long each took last time here, longest first (one never timed first
    of all): a long lab started last would leave the other cores idle at the end."""
    known = _durations()
    return sorted(labs, key=lambda lab: -known.get(lab.id, float("inf")))


def remember_durations(walks: Sequence[LabWalk]) -> None:
    known = _durations()
    known.update({w.lab_id: round(w.duration, 1) for w in walks if w.ok})
    path = cache_home() / DURATIONS_FILE
    with contextlib.suppress(OSError):  # only an ordering hint: never worth failing over
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(known, indent=2, sort_keys=True) + "\n")
        tmp.replace(path)


def _durations() -> dict[str, float]:
    try:
        data = json.loads((cache_home() / DURATIONS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, int | float)}


def dev_check(
    root: Path | None = None,
    only: Sequence[str] = (),
    *,
    observer: Observer | None = None,
    context_factory: Callable[[Workspace, Lab], CheckContext] | None = None,
    fixture: Path | None = None,
    backend: str = "local",
    shard: Shard | None = None,
    jobs: int | None = None,
    fixture_name: str | None = None,
) -> DevCheckReport:
    """Prove the labs (``only`` these; ``fixture_name``: only that fixture's), each on a
    fresh workspace of the fixture it names. ``fixture`` replaces the default fixture's
    folder."""
    started = time.monotonic()
    labs, walks = lint(root or labs_dir(), only)
    if fixture_name is not None:
        labs = [lab for lab in labs if lab.fixture == fixture_name]
    # A broken manifest is a lab too: its shard reports it, so no shard hides it.
    mine = set(select_shard([lab.id for lab in labs] + [w.lab_id for w in walks], shard))
    labs = [lab for lab in labs if lab.id in mine]
    walks = [w for w in walks if w.lab_id in mine]
    for name in dict.fromkeys(lab.fixture for lab in labs):
        walks += _prove_on_fixture(
            [lab for lab in labs if lab.fixture == name],
            name,
            fixture if name == DEFAULT_FIXTURE else None,
            backend,
            jobs=jobs,
            observer=observer,
            context_factory=context_factory,
        )
    walks.sort(key=lambda w: w.lab_id)
    return DevCheckReport(walks, time.monotonic() - started, shard)


def _prove_on_fixture(
    labs: Sequence[Lab],
    name: str,
    folder: Path | None,
    backend: str,
    *,
    jobs: int | None,
    observer: Observer | None,
    context_factory: Callable[[Workspace, Lab], CheckContext] | None,
) -> list[LabWalk]:
    template = scratch_mkdtemp("hooklab-devcheck-template-")
    try:
        # Provisioned once, copied per lab: a copy of a fresh workspace is a fresh workspace,
        # and copying is several times cheaper than committing the fixture again.
        fresh_ws = provision(
            template / "ws", backend=backend, fixture=folder, fixture_name=name
        ).workspace
        if fresh_ws.fixture.compile_cache:
            # As `lab init` leaves it: compiled, no report (the step checks see what a
            # participant sees, and no lab pays for the first compile again).
            warm_workspace(fresh_ws.root, get_backend(backend))
        return prove_labs(
            labs,
            fresh_ws.root,
            jobs=worker_count(jobs),
            observer=observer,
            context_factory=context_factory,
        )
    finally:
        shutil.rmtree(template, ignore_errors=True)
