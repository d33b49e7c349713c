"""``lab trainer verify --all``: every participant's claims re-checked, several at once, and
the verdicts kept where ``lab trainer status`` and the page read them.

Each participant is verified by its own ``lab trainer verify … --json`` process: the work is
Maven and hook scripts in subprocesses, and a process of its own keeps one participant's
failure (or a submission's misbehaving scripts) from touching another's. As many run at once
as the machine has cores. The verdicts are kept on the trainer's machine beside the journal
(``$XDG_STATE_HOME/hooklab/trainer``), one per participant, with the commit they judged: a
participant who submits again is "unverified" until the next run.

A record also keeps each step's verdict (``steps``: which check failed and why) and the
record's flags (``flags``: replaced, copy, forged, named beside the verdicts). Beside the
records, the folder ``…-steps`` keeps every step verdict by the key of what it judged
(harness/trainer/claims.py, ``step_key``): a later verify of the same state reuses it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.vocabulary import VerifyState
from harness.results import Status
from harness.trainer.journal import journal_path

# The states by their old names, for branches in flight: VerifyState is the word.
VERIFIED, FAILED, NOT_JUDGED, UNVERIFIED, STALE = (
    VerifyState.VERIFIED,
    VerifyState.FAILED,
    VerifyState.NOT_JUDGED,
    VerifyState.UNVERIFIED,
    VerifyState.STALE,
)
URL_ENV = "HOOKLAB_VERIFY_REMOTE"  # the remote for the child process, never on its argv
RUNNER_ENV = "HOOKLAB_RUNNER"  # who judged: a CI workflow names its runner and shard here


def runner_name() -> str:
    """The machine a verdict is judged on: the workflow's name for it, else this host's."""
    return os.environ.get(RUNNER_ENV) or socket.gethostname()


@dataclass
class ParticipantVerdict:
    """One participant's verification: what it judged and how it came out."""

    participant: str
    commit: str
    state: VerifyState  # verified, failed, not judged
    hold: int = 0
    claimed: int = 0
    failed: list[str] = field(default_factory=list)  # the steps whose claim does not hold
    message: str = ""
    seconds: float = 0.0
    at: float = 0.0
    # each claimed step: lab, step, status, message, check and why (a claim that does not
    # hold), reused (judged before at the same state)
    steps: list[dict[str, Any]] = field(default_factory=list)
    flags: list[dict[str, str]] = field(default_factory=list)  # kind, text: not their own?
    reused: int = 0  # steps whose verdict was reused, not re-run

    @property
    def flagged(self) -> str:
        """The record's flags in one line ("" when it is the participant's own)."""
        return "; ".join(f["text"] for f in self.flags)

    def step_status(self, lab: str, step: str) -> str | None:
        """pass, fail or error for one claimed step; None when this verify did not judge it."""
        found = next((s for s in self.steps if s.get("lab") == lab and s.get("step") == step), None)
        return str(found["status"]) if found else None

    runner: str = ""  # the machine that judged (a CI runner's verdicts come through the room)

    @property
    def summary(self) -> str:
        if self.state == VerifyState.VERIFIED:
            return f"every claim holds ({self.hold}/{self.claimed})"
        if self.state == VerifyState.FAILED:
            return f"{self.claimed - self.hold} of {self.claimed} claims do not hold: " + (
                ", ".join(self.failed[:3]) + (" …" if len(self.failed) > 3 else "")
            )
        return f"not judged: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "seconds": round(self.seconds, 2)}

    @classmethod
    def from_json(cls, raw: Any) -> ParticipantVerdict | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("commit"), str):
            return None
        try:
            return cls(
                str(raw["participant"]),
                raw["commit"],
                VerifyState(raw["state"]),
                int(raw.get("hold", 0)),
                int(raw.get("claimed", 0)),
                [str(s) for s in raw.get("failed") or []],
                str(raw.get("message") or ""),
                float(raw.get("seconds") or 0.0),
                float(raw.get("at") or 0.0),
                [dict(s) for s in raw.get("steps") or [] if isinstance(s, dict)],
                [
                    {"kind": str(f.get("kind")), "text": str(f.get("text"))}
                    for f in raw.get("flags") or []
                    if isinstance(f, dict)
                ],
                int(raw.get("reused") or 0),
                str(raw.get("runner") or ""),
            )
        except (KeyError, TypeError, ValueError):
            return None


def verdicts_path(url: str, cohort: str) -> Path:
    journal = journal_path(url, cohort)
    return journal.with_name(journal.stem + "-verified.json")


def load_verdicts(url: str, cohort: str) -> dict[str, ParticipantVerdict]:
    try:
        raw = json.loads(verdicts_path(url, cohort).read_text())
    except (OSError, ValueError):
        return {}
    found = {}
    for value in raw.values() if isinstance(raw, dict) else ():
        verdict = ParticipantVerdict.from_json(value)
        if verdict is not None:
            found[verdict.participant] = verdict
    return found


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One writer at a time (watch workers, verify processes): none loses another's update."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _write(path: Path, data: Any) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)  # a reader never sees half a file


def save_verdicts(url: str, cohort: str, verdicts: Sequence[ParticipantVerdict]) -> None:
    path = verdicts_path(url, cohort)
    with _locked(path):
        kept = load_verdicts(url, cohort)
        kept.update({v.participant: v for v in verdicts})
        _write(path, {n: v.to_json() for n, v in sorted(kept.items())})


def steps_path(url: str, cohort: str) -> Path:
    """The folder of step verdicts, one small file each: a save never rewrites the others."""
    journal = journal_path(url, cohort)
    return journal.with_name(journal.stem + "-steps")


class StepCache(Mapping[str, dict[str, Any]]):
    """Step verdicts by the key of the state they judged (verify.step_key), read as asked."""

    def __init__(self, url: str, cohort: str) -> None:
        self.root = steps_path(url, cohort)

    def _file(self, key: str) -> Path:
        if not key.isalnum():  # a sha256 in hex: never a path of its own
            raise KeyError(key)
        return self.root / key[:2] / f"{key}.json"

    def __getitem__(self, key: str) -> dict[str, Any]:
        try:
            found = json.loads(self._file(key).read_text())
        except (OSError, ValueError) as exc:
            raise KeyError(key) from exc
        if not isinstance(found, dict):
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.isalnum() and self._file(key).is_file()

    def __iter__(self) -> Iterator[str]:
        return (f.stem for f in self.root.glob("*/*.json"))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def keep(self, found: dict[str, dict[str, Any]]) -> None:
        """Keep these verdicts: pass and fail only (an error is the trainer's machine's), and
        of their checks what a record reads (not the build output)."""
        for key, verdict in found.items():
            if verdict.get("status") not in (Status.PASS.value, Status.FAIL.value):
                continue
            checks = [
                {k: c.get(k) for k in ("name", "status", "message")}
                for c in verdict.get("checks") or []
            ]
            path = self._file(key)
            path.parent.mkdir(parents=True, exist_ok=True)
            _write(path, {**verdict, "checks": checks})


def load_step_cache(url: str, cohort: str) -> StepCache:
    return StepCache(url, cohort)


def save_step_cache(url: str, cohort: str, found: dict[str, dict[str, Any]]) -> None:
    StepCache(url, cohort).keep(found)


def _step_record(step: dict[str, Any]) -> dict[str, Any]:
    """What a record keeps of a step's verdict: for one that does not hold, which check and
    why (the first check that did not pass)."""
    kept = {k: step.get(k) for k in ("lab", "step", "number", "status", "message")}
    kept["reused"] = bool(step.get("reused"))
    bad = next((c for c in step.get("checks") or [] if c.get("status") != Status.PASS.value), None)
    if step.get("status") != Status.PASS.value:
        kept["check"] = str(bad.get("name") or "") if bad else ""
        kept["why"] = str(bad.get("message") or "") if bad else str(step.get("message") or "")
    return kept


def from_report(participant: str, report: dict[str, Any], seconds: float) -> ParticipantVerdict:
    steps = report.get("steps") or []
    failed = [f"{s['lab']}/{s['step']}" for s in steps if s.get("status") == Status.FAIL.value]
    errors = [s for s in steps if s.get("status") == Status.ERROR.value]
    state = (
        VerifyState.FAILED if failed else VerifyState.NOT_JUDGED if errors else VerifyState.VERIFIED
    )
    return ParticipantVerdict(
        participant,
        str(report.get("commit") or ""),
        state,
        int(report.get("hold") or 0),
        int(report.get("claimed") or 0),
        failed,
        str(errors[0].get("message", "")) if errors and not failed else "",
        seconds,
        time.time(),
        [_step_record(s) for s in steps],
        [dict(f) for f in report.get("flags") or []],
        sum(1 for s in steps if s.get("reused")),
        runner_name(),
    )


def verify_one(
    url: str, cohort: str, participant: str, options: Sequence[str] = ()
) -> ParticipantVerdict:
    """``lab trainer verify URL NAME --json`` in a process of its own."""
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "trainer",
            "verify",
            "-",
            participant,
            "--cohort",
            cohort,
            "--json",
            "--for-all",
            *options,
        ],
        env={**os.environ, URL_ENV: url, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - started
    try:
        report = json.loads(done.stdout)
    except ValueError:
        said = " ".join((done.stderr or done.stdout).split())[-300:]
        return ParticipantVerdict(
            participant,
            "",
            VerifyState.NOT_JUDGED,
            message=said or f"exit {done.returncode}",
            seconds=seconds,
            at=time.time(),
            runner=runner_name(),
        )
    return from_report(participant, report, seconds)


def verify_all(
    url: str,
    cohort: str,
    participants: Sequence[str],
    *,
    jobs: int | None = None,
    options: Sequence[str] = (),
    on_done: Callable[[ParticipantVerdict, int, int], None] = lambda v, i, n: None,
    flags: dict[str, list[dict[str, str]]] | None = None,
) -> list[ParticipantVerdict]:
    """Every participant verified, ``jobs`` at once (default: one per core); ``flags``: each
    one's record's flags as the room shows them, kept with the verdict."""
    workers = max(1, jobs or os.cpu_count() or 1)
    results: list[ParticipantVerdict] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(verify_one, url, cohort, name, options) for name in participants]
        for future in as_completed(futures):
            verdict = future.result()
            known = {f["kind"] for f in verdict.flags}
            verdict.flags += [
                f for f in (flags or {}).get(verdict.participant, []) if f["kind"] not in known
            ]
            results.append(verdict)
            save_verdicts(url, cohort, [verdict])  # kept as it comes: a Ctrl-C loses none
            on_done(verdict, len(results), len(futures))
    return sorted(results, key=lambda v: v.participant)
