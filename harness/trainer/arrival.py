"""Verified as it arrives: ``lab trainer status --watch`` verifies each new submission it reads.

A bounded pool of worker threads takes the submissions waiting, the newest first (a
participant who just passed sees ✓ soon, not after the room's backlog). Each worker judges one
participant at a time, its steps one after the other, in the sandbox (harness/trainer/
claims.py): with at most one worker a core, at most one Maven process a core. Each verify is
incremental (only the claims whose state is new: verify.step_key) and recorded like one of
``verify --all`` (harness/trainer/verified.py), with the record's flags. While it runs, its
claims read "verifying" and turn ✓ or ✗ as their verdicts come.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.claude.vocabulary import VerifyState
from harness.errors import HarnessError
from harness.trainer.claims import verify_participant
from harness.trainer.cohort import Cohort, mark_verdicts
from harness.trainer.member import Member
from harness.trainer.verified import (
    ParticipantVerdict,
    from_report,
    load_step_cache,
    load_verdicts,
    save_step_cache,
    save_verdicts,
)
from harness.trainer.verify_report import StepVerdict


@dataclass
class Live:
    """One participant's verify under way: each claim's state (verifying, pass, fail, error)."""

    commit: str
    steps: dict[tuple[str, str], str] = field(default_factory=dict)


@dataclass(frozen=True)
class WatchSettings:
    engine: str
    backend: str | None = None
    sandboxed: bool = True
    labs_root: Path | None = None


Settings = WatchSettings  # the old name, for branches in flight (claude.settings.Settings)


class RoomVerifier:
    """Verifies what ``offer`` is given, ``workers`` at once; ``on_change`` is called (from a
    worker thread) whenever a claim's state changes."""

    def __init__(
        self,
        url: str,
        cohort: str,
        settings: WatchSettings,
        *,
        jobs: int | None = None,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        cores = os.cpu_count() or 1
        self.url, self.cohort, self.settings = url, cohort, settings
        self.workers = max(1, min(jobs or cores, cores))
        self.on_change = on_change
        self._lock = threading.Condition()
        # name -> ((submitted, first seen), commit): the newest submission goes first
        self._waiting: dict[str, tuple[tuple[float, float], str]] = {}
        self._live: dict[str, Live] = {}  # running now
        self._flags: dict[str, list[dict[str, str]]] = {}
        self._stopped = False
        self._threads: list[threading.Thread] = []

    def start(self) -> RoomVerifier:
        for i in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"verify-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._lock.notify_all()

    def offer(self, cohort: Cohort) -> int:
        """Queue every submission not verified yet (a newer one replaces an older waiting);
        returns how many wait."""
        with self._lock:
            for m in cohort.members:
                self._flags[m.name] = m.flags()
                if not _judgeable(m) or m.verdict is not None:
                    continue
                live = self._live.get(m.name)
                if live is not None and live.commit == m.commit:
                    continue
                self._waiting[m.name] = ((m.submitted_at, m.seen_at or 0.0), m.commit)
            self._lock.notify_all()
            return len(self._waiting)

    def mark(self, cohort: Cohort) -> None:
        """The verdicts recorded since the read, and the verifies under way, onto the members."""
        mark_verdicts(cohort.members, load_verdicts(self.url, self.cohort))
        with self._lock:
            for m in cohort.members:
                live = self._live.get(m.name)
                m.verifying = dict(live.steps) if live and live.commit == m.commit else None
                if m.verifying is None and m.name in self._waiting and m.verdict is None:
                    m.verifying = {}  # waiting its turn

    @property
    def waiting(self) -> int:
        with self._lock:
            return len(self._waiting)

    def _next(self) -> tuple[str, str] | None:
        with self._lock:
            while not self._stopped:
                ready = [(at, name) for name, (at, _) in self._waiting.items()]
                ready = [r for r in ready if r[1] not in self._live]
                if ready:
                    name = max(ready)[1]  # the newest first
                    commit = self._waiting.pop(name)[1]
                    self._live[name] = Live(commit)
                    return name, commit
                self._lock.wait()
            return None

    def _work(self) -> None:
        while (job := self._next()) is not None:
            name, commit = job
            try:
                verdict = self._verify(name, commit)
            except Exception as exc:  # never lose the worker: the verdict says what happened
                verdict = _not_judged(name, commit, f"{type(exc).__name__}: {exc}")
            save_verdicts(self.url, self.cohort, [verdict])
            with self._lock:
                del self._live[name]
                self._lock.notify_all()
            self.on_change()

    def _set(self, name: str, claims: Sequence[tuple[str, str]], state: str) -> None:
        with self._lock:
            live = self._live.get(name)
            if live is not None:
                live.steps.update(dict.fromkeys(claims, state))
        self.on_change()

    def _verify(self, name: str, commit: str) -> ParticipantVerdict:
        s = self.settings

        def on_verdict(verdict: StepVerdict) -> None:
            self._set(name, [(verdict.lab, verdict.step)], verdict.status.value)

        try:
            report = verify_participant(
                self.url,
                name,
                cohort=self.cohort,
                engine=s.engine,
                backend=s.backend,
                labs_root=s.labs_root,
                sandboxed=s.sandboxed,
                apart=True,  # a process of its own: never the watcher's
                on_claims=lambda claims: self._set(name, claims, VerifyState.VERIFYING),
                on_verdict=on_verdict,
                reuse=load_step_cache(self.url, self.cohort),
                flags=self._flags.get(name, []),
            )
        except HarnessError as exc:
            return _not_judged(name, commit, exc.message)
        save_step_cache(self.url, self.cohort, report.fresh_verdicts())
        with self._lock:
            live = self._live.get(name)
            if live is not None:
                live.commit = report.commit  # a later submit may have come meanwhile
        return from_report(name, report.to_json(), report.duration)


def _judgeable(m: Member) -> bool:
    return m.arrived and not m.deleted and m.progress is not None and bool(m.commit)


def _not_judged(name: str, commit: str, why: str) -> ParticipantVerdict:
    return ParticipantVerdict(name, commit, VerifyState.NOT_JUDGED, message=why, at=time.time())
