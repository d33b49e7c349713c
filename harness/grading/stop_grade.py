"""A Stop hook's grade: the contract's checks, each check's verdict and the whole grade.

The checks by name and title, each check's verdict (GradeCheck), the whole grade (HookGrade),
and what the grader observed: each Stop (Phase) and the secrets planted in every hook's
environment (Canary)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude import EventOutcome, HookRun, StepOutcome
from harness.claude.vocabulary import Outcome
from harness.results import CheckResult, Status
from harness.schema import pick

# Check names, stable: tests, --json readers and the lab engine refer to them.
BLOCKS = "blocks-when-broken"
REASON = "reason-on-stderr"
PASSES = "passes-when-fixed"
SESSION_HELD = "session-shows-reason"
LETS_GO = "lets-go-when-active"
SESSION_ENDS = "session-ends-when-fixed"
STALE = "blocks-on-stale"
# Judged only when other ways to break the claim are given (a red report, a missing one).
OTHER_BREAKS = "blocks-every-break"
# The grade's timeout when none is given and the settings do not register the script.
DEFAULT_TIMEOUT = 10.0
IN_TIME = "within-timeout"
NO_LEAK = "no-leak"
CHECK_ORDER = (BLOCKS, REASON, PASSES, SESSION_HELD, LETS_GO, SESSION_ENDS, STALE, IN_TIME, NO_LEAK)


_TITLES = {
    BLOCKS: "broken → blocks with exit 2",
    REASON: "short reason on stderr",
    PASSES: "fixed → exit 0",
    SESSION_HELD: "session: stop blocked, Claude sees the reason",
    LETS_GO: "stop_hook_active: true → lets go",
    SESSION_ENDS: "session: fixed → turn ends",
    STALE: "stale artefact → blocks",
    OTHER_BREAKS: "broken other ways → blocks",
    IN_TIME: "finishes within its timeout",
    NO_LEAK: "no secrets or environment in output",
}


@dataclass
class GradeCheck:
    """One clause of the contract. ``problem`` is the named failure ("exits 1 instead of 2")."""

    name: str
    title: str
    status: Status  # pass | fail | skip (never error: a hook that cannot run fails)
    expected: str
    found: str
    problem: str = ""
    detail: str = ""
    fix: str = ""

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    @property
    def failed(self) -> bool:
        return self.status is Status.FAIL

    @property
    def skipped(self) -> bool:
        return self.status is Status.SKIP

    def __repr__(self) -> str:
        why = f" {self.problem!r}" if self.problem else ""
        return f"<GradeCheck {self.name} {self.status}{why}>"

    def to_json(self) -> dict[str, Any]:
        return {
            **pick(self, "name title"),
            "status": self.status.value,
            **pick(self, "passed expected found problem detail fix"),
        }


@dataclass
class HookGrade:
    script: Path
    project_dir: Path
    command: str  # as registered in the temporary settings
    timeout: float
    settings: dict[str, Any]
    checks: list[GradeCheck] = field(default_factory=list)
    # Where the timeout came from: the settings entry that registers the script, or a default.
    timeout_source: str = ""

    @property
    def passed(self) -> bool:
        """Every check passed or was skipped (a skip is never the hook's fault)."""
        return not any(c.failed for c in self.checks)

    @property
    def failures(self) -> list[GradeCheck]:
        return [c for c in self.checks if c.failed]

    def check(self, name: str) -> GradeCheck:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def __repr__(self) -> str:
        failed = ", ".join(c.name for c in self.failures) or "none"
        return f"<HookGrade {self.script.name} passed={self.passed} failed=[{failed}]>"

    def summary(self) -> str:
        """Counted out of every check, as the table lists them (``lab check`` and ``lab
        verify-hook`` both say it): a skipped check is named as not judged, not left out."""
        total = len(self.checks)
        skipped = sum(1 for c in self.checks if c.skipped)
        if self.passed:
            if not skipped:
                return f"all {total} checks pass"
            return f"{total - skipped} of {total} checks pass, {skipped} not judged"
        return (
            f"{len(self.failures)} of {total} checks fail"
            + (f" ({skipped} not judged)" if skipped else "")
            + ": "
            + _problems(self.failures)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "summary": self.summary(),
            "script": str(self.script),
            "project_dir": str(self.project_dir),
            "command": self.command,
            "timeout": self.timeout,
            "timeout_source": self.timeout_source,
            "settings": self.settings,
            "checks": [c.to_json() for c in self.checks],
        }

    def junit_xml(self) -> str:
        """The grade as JUnit XML, one testcase per check (a skipped one passes)."""
        from harness.grading.junit import JUnitCase, junit_xml

        name = self.script.name
        cases = [
            JUnitCase(f"{name}.stop", c.title, not c.failed, c.problem, c.detail)
            for c in self.checks
        ]
        return junit_xml(f"verify-hook {name}", cases)

    def counts(self) -> str:
        """``N passed, M failed, K not judged``, as test runners say it: a check not judged
        is neither (counted as passed, it read "7 passed, 2 failed" under "1 not judged")."""
        failed = len(self.failures)
        skipped = sum(1 for c in self.checks if c.skipped)
        said = f"{len(self.checks) - failed - skipped} passed, {failed} failed"
        return said + (f", {skipped} not judged" if skipped else "")

    def to_check_result(self, name: str = "verify-hook") -> CheckResult:
        """The grade in the one result model, for the lab engine and CI."""
        failed = self.failures
        kw: dict[str, Any] = {"name": name, "details": self.to_json()}
        if not failed:
            return CheckResult.passed(
                f"{self.script.name}: {self.summary()}",
                expected="every contract check passes",
                found="all pass",
                **kw,
            )
        first = failed[0]
        lines = [
            f"✗ {c.title}: {c.problem}" + (f" — fix: {c.fix}" if c.fix else "") for c in failed
        ]
        return CheckResult.failed(
            f"{self.script.name}: {self.summary()}",
            expected=first.expected,
            found=first.found,
            output="\n".join(lines),
            **kw,
        )


def _problems(failures: list[GradeCheck]) -> str:
    """Each problem once, with the checks that have it when several do: "blocks although
    fixed; blocks although fixed" read as one check said twice."""
    titles: dict[str, list[str]] = {}
    for c in failures:
        titles.setdefault(c.problem or c.title, []).append(c.title)
    return "; ".join(
        problem if len(named) == 1 else f"{problem} ({', '.join(named)})"
        for problem, named in titles.items()
    )


def grade_check(
    name: str,
    status: Status,
    expected: str,
    found: str,
    problem: str = "",
    detail: str = "",
    fix: str = "",
) -> GradeCheck:
    return GradeCheck(name, _TITLES[name], status, expected, found, problem, detail, fix)


@dataclass(frozen=True)
class Canary:
    """Secrets planted in every hook's environment; seeing one in the output is a leak."""

    values: dict[str, str]

    @classmethod
    def make(cls) -> Canary:
        token = secrets.token_hex(12)
        return cls(
            {
                "ANTHROPIC_API_KEY": f"sk-ant-canary-{token}",
                "HOOKLAB_CANARY_SECRET": f"canary-secret-{token}",
            }
        )

    def found_in(self, text: str) -> list[str]:
        return [name for name, value in self.values.items() if value in text]


@dataclass
class Phase:
    """One observed Stop: which state the artefact was in, what the hook did."""

    label: str
    stop_hook_active: bool
    run: HookRun | None
    outcome: EventOutcome | None = None
    step: StepOutcome | None = None
    extra_runs: list[HookRun] = field(default_factory=list)  # further stops in the same turn
    # The files the hook's own run changed (a hook that runs ./mvnw rewrites the reports).
    rewrote: frozenset[str] = frozenset()
    broke: frozenset[str] = frozenset()  # the files the break before this stop changed

    @property
    def timed_out(self) -> bool:
        return self.run is not None and self.run.timed_out

    @property
    def blocked(self) -> bool:
        if self.step is not None:
            return self.step.outcome == Outcome.BLOCKED
        return self.outcome is not None and self.outcome.blocked

    @property
    def code(self) -> int | None:
        return None if self.run is None else self.run.exit_code
