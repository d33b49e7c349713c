"""``lab trainer verify --all``: every participant's claims re-checked, several at once, and
the verdicts kept where ``lab trainer status`` and the page read them.

Each participant is verified by its own ``lab trainer verify … --json`` process: the work is
Maven and hook scripts in subprocesses, and a process of its own keeps one participant's
failure (or a submission's misbehaving scripts) from touching another's. As many run at once
as the machine has cores. The verdicts are kept on the trainer's machine beside the journal
(``$XDG_STATE_HOME/hooklab/trainer``), one per participant, with the commit they judged: a
participant who submits again is "unverified" until the next run.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.results import Status
from harness.trainer.journal import journal_path

VERIFIED, FAILED, NOT_JUDGED, UNVERIFIED, STALE = (
    "verified",
    "failed",
    "not judged",
    "unverified",
    "stale",
)
URL_ENV = "HOOKLAB_VERIFY_REMOTE"  # the remote for the child process, never on its argv
RUNNER_ENV = "HOOKLAB_RUNNER"  # who judged: a CI workflow names its runner and shard here


def runner_name() -> str:
    """The machine a verdict is judged on: the workflow's name for it, else this host's."""
    return os.environ.get(RUNNER_ENV) or socket.gethostname()


@dataclass
class Verdict:
    """One participant's verification: what it judged and how it came out."""

    participant: str
    commit: str
    state: str  # verified, failed, not judged
    hold: int = 0
    claimed: int = 0
    failed: list[str] = field(default_factory=list)  # the steps whose claim does not hold
    message: str = ""
    seconds: float = 0.0
    at: float = 0.0
    runner: str = ""  # the machine that judged (a CI runner's verdicts come through the room)

    @property
    def summary(self) -> str:
        if self.state == VERIFIED:
            return f"every claim holds ({self.hold}/{self.claimed})"
        if self.state == FAILED:
            return f"{self.claimed - self.hold} of {self.claimed} claims do not hold: " + (
                ", ".join(self.failed[:3]) + (" …" if len(self.failed) > 3 else "")
            )
        return f"not judged: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "participant": self.participant,
            "commit": self.commit,
            "state": self.state,
            "hold": self.hold,
            "claimed": self.claimed,
            "failed": self.failed,
            "message": self.message,
            "seconds": round(self.seconds, 2),
            "at": self.at,
            "runner": self.runner,
        }

    @classmethod
    def from_json(cls, raw: Any) -> Verdict | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("commit"), str):
            return None
        try:
            return cls(
                str(raw["participant"]),
                raw["commit"],
                str(raw["state"]),
                int(raw.get("hold", 0)),
                int(raw.get("claimed", 0)),
                [str(s) for s in raw.get("failed") or []],
                str(raw.get("message") or ""),
                float(raw.get("seconds") or 0.0),
                float(raw.get("at") or 0.0),
                str(raw.get("runner") or ""),
            )
        except (KeyError, TypeError, ValueError):
            return None


def verdicts_path(url: str, cohort: str) -> Path:
    journal = journal_path(url, cohort)
    return journal.with_name(journal.stem + "-verified.json")


def load_verdicts(url: str, cohort: str) -> dict[str, Verdict]:
    try:
        raw = json.loads(verdicts_path(url, cohort).read_text())
    except (OSError, ValueError):
        return {}
    found = {}
    for value in raw.values() if isinstance(raw, dict) else ():
        verdict = Verdict.from_json(value)
        if verdict is not None:
            found[verdict.participant] = verdict
    return found


def save_verdicts(url: str, cohort: str, verdicts: Sequence[Verdict]) -> None:
    path = verdicts_path(url, cohort)
    kept = load_verdicts(url, cohort)
    kept.update({v.participant: v for v in verdicts})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({n: v.to_json() for n, v in sorted(kept.items())}, indent=1))
    tmp.replace(path)


def from_report(participant: str, report: dict[str, Any], seconds: float) -> Verdict:
    steps = report.get("steps") or []
    failed = [f"{s['lab']}/{s['step']}" for s in steps if s.get("status") == Status.FAIL.value]
    errors = [s for s in steps if s.get("status") == Status.ERROR.value]
    state = FAILED if failed else NOT_JUDGED if errors else VERIFIED
    return Verdict(
        participant,
        str(report.get("commit") or ""),
        state,
        int(report.get("hold") or 0),
        int(report.get("claimed") or 0),
        failed,
        str(errors[0].get("message", "")) if errors and not failed else "",
        seconds,
        time.time(),
        runner_name(),
    )


def verify_one(url: str, cohort: str, participant: str, options: Sequence[str] = ()) -> Verdict:
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
        return Verdict(
            participant,
            "",
            NOT_JUDGED,
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
    on_done: Callable[[Verdict, int, int], None] = lambda v, i, n: None,
) -> list[Verdict]:
    """Every participant verified, ``jobs`` at once (default: one per core)."""
    workers = max(1, jobs or os.cpu_count() or 1)
    results: list[Verdict] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(verify_one, url, cohort, name, options) for name in participants]
        for future in as_completed(futures):
            verdict = future.result()
            results.append(verdict)
            save_verdicts(url, cohort, [verdict])  # kept as it comes: a Ctrl-C loses none
            on_done(verdict, len(results), len(futures))
    return sorted(results, key=lambda v: v.participant)
