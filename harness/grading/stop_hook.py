"""Grading a Stop hook against its four-line contract (claim, check, success, block: lab 07
teaches it, labs/07-own-stop-hook/solution/stop-hook-contract.md is one) through a full cycle.

The hook is registered alone, as the only Stop hook of a throwaway settings object (the
participant's ``.claude/settings.json`` is never read or written), and driven through the hook
runtime in ``harness.claude``:

1. artefact broken, ``stop_hook_active: false`` → exit 2 with a short reason on stderr;
2. artefact fixed → exit 0;
3. a scripted session, artefact broken → the stop is blocked and Claude is shown the reason;
4. the next stop of that turn (``stop_hook_active: true``), still broken → the hook lets go
   (exit 0, ideally a ``systemMessage``) instead of riding Claude Code's cap (eight blocks in
   a row honoured, the ninth overridden: stop-block-cap in docs/claude-code-semantics.md);
5. artefact fixed, a new turn → the stop goes through;
plus, when a stale command is given, an artefact that exists but is out of date must block.
Every hook run sees canary secrets in its environment; none may show up in its output.

A hook that misbehaves (crashes, hangs, prints nonsense) is a failed check, never an exception.
``HarnessError`` is raised only for bad input: a missing or non-executable script, a missing
project directory, or a break/fix/stale command that itself fails (then the hook cannot be
judged, and blaming the hook would be wrong).
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import proc
from harness.claude import Event, EventOutcome, HookRun, StepOutcome, dispatch
from harness.claude.engines import ScriptedSession, open_session
from harness.claude.plugins import in_plugin
from harness.claude.scripted import STOP_BLOCK_CAP
from harness.claude.settings import Settings, parse_settings
from harness.claude.vocabulary import Engine, Outcome
from harness.errors import HarnessError
from harness.grading.registration import FailingCommand, failing_command, registered_stop_hook
from harness.jail import Confinement
from harness.paths import scratch_dir
from harness.results import CheckResult

REASON_MAX_LINES = 10
REASON_MAX_CHARS = 1000
COMMAND_TIMEOUT = 900.0  # break/fix/stale may run Maven; they are ours, not the hook's
SETTINGS_LABEL = "verify-hook settings (temporary)"

PASS, FAIL, SKIP = "pass", "fail", "skip"

# Check names, stable: tests, --json readers and the lab engine refer to them.
BLOCKS = "blocks-when-broken"
REASON = "reason-on-stderr"
PASSES = "passes-when-fixed"
SESSION_HELD = "session-shows-reason"
LETS_GO = "lets-go-when-active"
SESSION_ENDS = "session-ends-when-fixed"
STALE = "blocks-on-stale"
# The grade's timeout when none is given and the settings do not register the script.
DEFAULT_TIMEOUT = 10.0
IN_TIME = "within-timeout"
NO_LEAK = "no-leak"
CHECK_ORDER = (BLOCKS, REASON, PASSES, SESSION_HELD, LETS_GO, SESSION_ENDS, STALE, IN_TIME, NO_LEAK)

Progress = Callable[[str], None]


@dataclass
class GradeCheck:
    """One clause of the contract. ``problem`` is the named failure ("exits 1 instead of 2")."""

    name: str
    title: str
    status: str  # pass | fail | skip
    expected: str
    found: str
    problem: str = ""
    detail: str = ""
    fix: str = ""

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    @property
    def skipped(self) -> bool:
        return self.status == SKIP

    def __repr__(self) -> str:
        why = f" {self.problem!r}" if self.problem else ""
        return f"<GradeCheck {self.name} {self.status}{why}>"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "status": self.status,
            "passed": self.passed,
            "expected": self.expected,
            "found": self.found,
            "problem": self.problem,
            "detail": self.detail,
            "fix": self.fix,
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
            + "; ".join(c.problem or c.title for c in self.failures)
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
        """``N passed, M failed``, as test runners say it (a skipped check is not failed)."""
        failed = len(self.failures)
        return f"{len(self.checks) - failed} passed, {failed} failed"

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


# -- input -----------------------------------------------------------------------------------


class HookScriptError(HarnessError):
    """The script itself is missing or not executable: the participant's to fix."""


def _check_inputs(
    project_dir: Path, script: Path, commands: dict[str, str | None], timeout: float
) -> tuple[Path, Path]:
    project = Path(project_dir).resolve()
    if not project.is_dir():
        raise HarnessError(
            f"project directory {project} does not exist",
            fix="run lab verify-hook inside the workspace (or an existing dir)",
        )
    path = Path(os.path.abspath(project / script))  # a relative script is in the project
    if not path.exists():
        raise HookScriptError(
            f"hook script {path} does not exist",
            fix="write the script first (e.g. scripts/check-before-stop.sh) or check the path",
        )
    if not path.is_file():
        raise HookScriptError(
            f"hook script {path} is not a file", fix="pass the script itself, not its folder"
        )
    if not os.access(path, os.X_OK):
        raise HookScriptError(
            f"hook script {path} is not executable", fix=f"chmod +x {shlex.quote(str(path))}"
        )
    for flag, command in commands.items():
        if command is not None and not command.strip():
            raise HarnessError(
                f"the {flag} command is empty",
                fix=f"give {flag} a shell command, e.g. {flag} 'rm -rf build'",
            )
    if timeout <= 0:
        raise HarnessError(
            f"timeout {timeout} s is not positive",
            fix="give the hook's timeout in seconds, e.g. --timeout 10",
        )
    return project, path


def hook_command(script: Path, project_dir: Path) -> str:
    """How the script is registered: through ``$CLAUDE_PROJECT_DIR`` when it lives in the
    project (as the fixture's settings do), else by its absolute path."""
    try:
        rel = script.relative_to(project_dir).as_posix()
    except ValueError:
        return shlex.quote(str(script))
    if re.fullmatch(r"[\w./+-]+", rel):
        return f'"$CLAUDE_PROJECT_DIR/{rel}"'
    return f'"$CLAUDE_PROJECT_DIR"/{shlex.quote(rel)}'


def stop_settings(command: str, timeout: float) -> dict[str, Any]:
    return {
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": command, "timeout": timeout}]}]
        }
    }


# -- running ---------------------------------------------------------------------------------


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


class _Grader:
    def __init__(
        self,
        project: Path,
        settings: Settings,
        canary: Canary,
        work: Path,
        progress: Progress,
        jail: Confinement | None = None,
    ) -> None:
        self.project = project
        self.jail = jail  # where --break, --fix and --stale run (None: as this process)
        self.settings = settings
        self.canary = canary
        self.work = work
        self.progress = progress
        self.phases: list[Phase] = []
        self.transcript = work / "direct-transcript.jsonl"
        self.transcript.touch()  # hooks may read transcript_path; it must exist

    def command(self, flag: str, command: str) -> None:
        self.progress(f"running {flag}: {command}")
        argv = ["bash", "-c", command]
        if self.jail is None:
            env = {**os.environ, "CLAUDE_PROJECT_DIR": str(self.project)}
        else:
            inside = self.jail.environment({"CLAUDE_PROJECT_DIR": str(self.project)})
            argv, env = self.jail.wrap(argv, cwd=self.project, env=inside), {}
        res = proc.run(argv, cwd=self.project, env=env, timeout=COMMAND_TIMEOUT)
        if res.returncode != 0:
            tail = "\n".join((res.stdout + res.stderr).strip().splitlines()[-8:])
            why = (
                f"timed out after {COMMAND_TIMEOUT:.0f} s"
                if res.returncode == 124
                else f"exited {res.returncode}"
            )
            raise HarnessError(
                f"the {flag} command `{command}` {why} in {self.project}, so the hook cannot "
                "be graded" + (f":\n{tail}" if tail else ""),
                fix=f"run `{command}` by hand in {self.project} until it exits 0"
                + (
                    "; it ran confined, with no network, no Docker and an empty HOME: if it "
                    "needs one of them, and you trust it, add --unconfined"
                    if self.jail is not None
                    else ""
                ),
            )

    def direct(self, label: str, *, active: bool) -> Phase:
        """The seed's `printf '{"stop_hook_active":…}' | ./hook; echo $?` with a full payload."""
        self.progress(f"Stop hook, {label}")
        payload = {
            "session_id": f"verify-{secrets.token_hex(6)}",
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "permission_mode": "default",
            "hook_event_name": Event.STOP.value,
            "stop_hook_active": active,
            "last_assistant_message": "Done.",
        }
        out = dispatch(
            Event.STOP,
            payload,
            self.settings,
            self.project,
            cwd=self.project,
            env=self.canary.values,
        )
        phase = Phase(label, active, out.runs[0] if out.runs else None, outcome=out)
        self.phases.append(phase)
        return phase

    def session_stop(self, session: ScriptedSession, label: str) -> Phase:
        self.progress(f"session: Claude tries to stop ({label})")
        step = session.stop("Done: the change is made.")
        runs = step.hooks
        phase = Phase(label, bool(step.stop_hook_active), runs[0] if runs else None, step=step)
        self.phases.append(phase)
        return phase

    def all_runs(self) -> Iterable[tuple[str, HookRun]]:
        for phase in self.phases:
            for run in [phase.run, *phase.extra_runs]:
                if run is not None:
                    yield phase.label, run


def grade_stop_hook(
    project_dir: Path,
    script: Path,
    *,
    break_cmd: str,
    fix_cmd: str,
    stale_cmd: str | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
    engine: str = Engine.EMULATOR,
    confinement: Confinement | None = None,
    plugin_root: Path | None = None,
) -> HookGrade:
    """Grade ``script`` as a Stop hook of ``project_dir`` (its ``CLAUDE_PROJECT_DIR``); a
    relative ``script`` is taken relative to ``project_dir``.

    ``break_cmd`` makes the hook's claim false, ``fix_cmd`` makes it true, ``stale_cmd`` (run
    after a fix) leaves the artefact in place but out of date. All three run with ``bash -c``
    in ``project_dir``. The project is left fixed. The session phases play on ``engine``.
    ``timeout`` (None): the one the project's settings register the script with, else
    DEFAULT_TIMEOUT. ``confinement``: the jail the three commands and the session's tool
    calls run in. ``plugin_root``: the plugin the script belongs to; it runs as that plugin's
    hook, with ``CLAUDE_PLUGIN_ROOT`` set.
    """
    commands = {"--break": break_cmd, "--fix": fix_cmd, "--stale": stale_cmd}
    project, path = _check_inputs(project_dir, script, commands, timeout or DEFAULT_TIMEOUT)
    timeout, timeout_source = _timeout(project, path, timeout)
    command = hook_command(path, project)
    settings_data = stop_settings(command, timeout)
    settings = parse_settings(settings_data, SETTINGS_LABEL)
    if plugin_root is not None:
        settings = in_plugin(settings, plugin_root)
    say = progress or (lambda _: None)
    grade = HookGrade(path, project, command, timeout, settings_data, timeout_source=timeout_source)

    with tempfile.TemporaryDirectory(prefix="hooklab-verify-", dir=scratch_dir()) as tmp:
        g = _Grader(project, settings, Canary.make(), Path(tmp), say, confinement)
        # (1) broken, first stop
        g.command("--break", break_cmd)
        broken = g.direct("artefact broken", active=False)
        # (3) + (4) a session: Claude tries to stop with the artefact still broken
        with open_session(
            engine,
            project,
            settings,
            env=g.canary.values,
            transcript_dir=Path(tmp) / "session",
            confinement=confinement,
        ) as session:
            session.prompt("Make a small, reversible change, then finish.")
            held, active = _held_then_active(g, session)
            # (2) fixed; a hook that still blocks is traced for the command that fails
            g.command("--fix", fix_cmd)
            fixed = g.direct("artefact fixed", active=False)
            env = dict(os.environ)
            failing = failing_command(project, path, env, timeout) if fixed.code == 2 else None
            # (5) a new turn in the same session, artefact fixed
            session.prompt("Thanks. Now finish.")
            ended = g.session_stop(session, "session, artefact fixed")
        stale: Phase | None = None
        if stale_cmd is not None:
            g.command("--stale", stale_cmd)
            stale = g.direct("artefact stale", active=False)
            g.command("--fix", fix_cmd)  # leave the project as we found it: fixed

    grade.checks = [
        _judge_blocks(broken, break_cmd),
        _judge_reason(broken),
        _judge_passes(fixed, fix_cmd, active, failing),
        _judge_session_held(held),
        _judge_lets_go(active),
        _judge_session_ends(ended),
        _judge_stale(stale, broken, fix_cmd, stale_cmd),
        _judge_timeout(g, timeout),
        _judge_leak(g),
    ]
    return grade


# -- judging ---------------------------------------------------------------------------------

_TITLES = {
    BLOCKS: "broken → blocks with exit 2",
    REASON: "short reason on stderr",
    PASSES: "fixed → exit 0",
    SESSION_HELD: "session: stop blocked, Claude sees the reason",
    LETS_GO: "stop_hook_active: true → lets go",
    SESSION_ENDS: "session: fixed → turn ends",
    STALE: "stale artefact → blocks",
    IN_TIME: "finishes within its timeout",
    NO_LEAK: "no secrets or environment in output",
}
_TIMED_OUT_SKIP = f"not judged: the hook was killed at its timeout (see {IN_TIME})"


def _check(
    name: str,
    status: str,
    expected: str,
    found: str,
    problem: str = "",
    detail: str = "",
    fix: str = "",
) -> GradeCheck:
    return GradeCheck(name, _TITLES[name], status, expected, found, problem, detail, fix)


def _first_line(text: str, limit: int = 120) -> str:
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            if len(line) <= limit:
                return line
            # Cut between words, so a path or option is never shown broken.
            return line[:limit].rsplit(" ", 1)[0] + " …"
    return ""


def _said(run: HookRun) -> str:
    """``exit 1: <first stderr line>``: what a run did, in one line."""
    if run.timed_out:
        return f"killed after {run.duration:.1f} s (timeout)"
    line = _first_line(run.stderr, 200) or _first_line(run.stdout, 200)
    return f"exit {run.exit_code}" + (f": {line}" if line else "")


def _no_run(name: str, expected: str) -> GradeCheck:
    # The hook is the only Stop hook registered, so it always runs; guard anyway.
    return _check(
        name, FAIL, expected, "the hook did not run", "did not run", fix="check the script path"
    )


def _run_to_judge(name: str, expected: str, p: Phase) -> HookRun | GradeCheck:
    """The hook's run in ``p``, or the check's verdict when there is no run to judge: the hook
    did not run, or it was killed at its timeout."""
    if p.run is None:
        return _no_run(name, expected)
    if p.timed_out:
        return _check(name, SKIP, expected, _said(p.run), detail=_TIMED_OUT_SKIP)
    return p.run


_SET_E_HINT = (
    "With `set -e`, a failing test command ends the script with its own code "
    "before your `exit 2`: wrap it in `if ! …; then … exit 2; fi`."
)


def _judge_blocks(p: Phase, break_cmd: str) -> GradeCheck:
    expected = "exit 2"
    run = _run_to_judge(BLOCKS, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if p.code == 2:
        return _check(BLOCKS, PASS, expected, _said(run))
    if p.code == 0 and p.blocked:
        return _check(
            BLOCKS,
            FAIL,
            expected,
            'exit 0 with {"decision": "block"}',
            "blocks through JSON, not exit 2",
            detail="Claude Code accepts this, but the contract is exit 2 with the "
            "reason on stderr, which works the same for every event.",
            fix="print the reason to stderr (`>&2`) and `exit 2`",
        )
    if p.code == 0:
        return _check(
            BLOCKS,
            FAIL,
            expected,
            _said(run),
            "never blocks",
            detail=f"After `{break_cmd}` the claim is false, yet the hook exited 0: "
            "Claude ends the turn on a false claim.",
            fix="test the claim and, when it does not hold, print why on stderr and `exit 2`",
        )
    return _check(
        BLOCKS,
        FAIL,
        expected,
        _said(run),
        f"exits {p.code} instead of 2",
        detail=f"Exit {p.code} is a non-blocking error: Claude Code shows the first "
        "stderr line and ends the turn anyway. " + _SET_E_HINT,
        fix="end the failing branch with `exit 2`",
    )


def _judge_reason(p: Phase) -> GradeCheck:
    expected = f"non-empty, ≤ {REASON_MAX_LINES} lines and ≤ {REASON_MAX_CHARS} characters"
    run = _run_to_judge(REASON, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if p.code == 0:
        return _check(
            REASON,
            SKIP,
            expected,
            "the hook did not block",
            detail=f"not judged: the hook gave no exit-2 reason (see {BLOCKS})",
        )
    reason = run.stderr.strip()
    if not reason:
        if run.stdout.strip():
            return _check(
                REASON,
                FAIL,
                expected,
                f"stderr empty; stdout: {_first_line(run.stdout)!r}",
                "reason on stdout",
                detail="On exit 2 Claude Code ignores stdout: Claude is told "
                "nothing and cannot act on the block.",
                fix="print the reason to stderr: `echo '…' >&2`",
            )
        return _check(
            REASON,
            FAIL,
            expected,
            "stderr and stdout empty",
            "no reason",
            detail="Claude is held but not told why.",
            fix="print one line on stderr: the failed check and the command to run",
        )
    lines = len(reason.splitlines())
    if lines > REASON_MAX_LINES or len(reason) > REASON_MAX_CHARS:
        return _check(
            REASON,
            FAIL,
            expected,
            f"{lines} lines, {len(reason)} characters",
            "reason too long",
            detail="A Stop reason is an instruction for Claude, not a log: a long "
            "one buries the point and may carry secrets.",
            fix="name the failed check and the command to run; leave the log in its file",
        )
    return _check(
        REASON,
        PASS,
        expected,
        repr(_first_line(reason)) + (f" (+{lines - 1} lines)" if lines > 1 else ""),
    )


def _held_then_active(g: _Grader, session: ScriptedSession) -> tuple[Phase, Phase]:
    """Claude stops with the artefact broken (held?), then stops again (stop_hook_active)."""
    held = g.session_stop(session, "session, artefact broken")
    if held.blocked and not (held.step and held.step.turn_ended):
        active = g.session_stop(session, "session, stopping again (stop_hook_active)")
        # A hook that ignores stop_hook_active keeps blocking until Claude Code's cap.
        while active.blocked and active.step is not None and not active.step.turn_ended:
            again = session.stop("Done.")
            active.extra_runs.extend(again.hooks)
            active.step = again
    else:  # the first stop already went through: ask the active branch directly
        active = g.direct("artefact broken, stop_hook_active: true", active=True)
    return held, active


def _timeout(project: Path, script: Path, given: float | None) -> tuple[float, str]:
    """The timeout to grade with, and where it comes from."""
    if given is not None:
        return given, "given (--timeout)"
    registered = registered_stop_hook(project, script)
    if registered is not None:
        return registered.timeout, registered.source
    return DEFAULT_TIMEOUT, f"default: {script.name} is not a Stop hook in the project's settings"


def _still_blocks(fix_cmd: str, active: Phase, failing: FailingCommand | None) -> str:
    """Why a hook that blocks although fixed matters, in terms of its stop_hook_active branch,
    and which of its commands fails."""
    fix = fix_cmd  # whole: it is the command a person runs again
    if failing is not None:
        why = f"its check `{failing.command}` fails after `{fix}` ({failing.said})"
    else:
        why = f"after `{fix}` the claim holds, yet the hook refuses the stop"
    if active.code == 0 and not active.blocked:
        return (
            f"{why[0].upper()}{why[1:]}. In a session Claude is held once with that reason, "
            "then the hook lets go on stop_hook_active: every turn ends with its "
            "still-fails message, whatever Claude does."
        )
    return (
        f"{why[0].upper()}{why[1:]}. The hook also blocks on stop_hook_active, so every turn "
        f"is held until Claude Code's cap of {STOP_BLOCK_CAP} blocks in a row ends it."
    )


def _judge_passes(
    p: Phase, fix_cmd: str, active: Phase, failing: FailingCommand | None = None
) -> GradeCheck:
    expected = "exit 0, no block"
    run = _run_to_judge(PASSES, expected, p)
    if isinstance(run, GradeCheck):
        return run
    out = p.outcome
    if p.code == 0 and out is not None and out.stopped:
        return _check(
            PASSES,
            FAIL,
            expected,
            'exit 0 with {"continue": false}',
            "stops Claude although fixed",
            fix='drop "continue": false; exit 0 when the claim holds',
        )
    if p.code == 0 and p.blocked:
        return _check(
            PASSES,
            FAIL,
            expected,
            'exit 0 with {"decision": "block"}',
            "blocks although fixed",
            fix="exit 0 without a block decision when the claim holds",
        )
    if p.code == 0:
        return _check(PASSES, PASS, expected, _said(run))
    if p.code == 2:
        return _check(
            PASSES,
            FAIL,
            expected,
            _said(run) + (f"; `{failing.command}` fails" if failing is not None else ""),
            "blocks although fixed",
            detail=_still_blocks(fix_cmd, active, failing),
            fix=f"run `{failing.command}` by hand after `{fix_cmd}`, and make the hook's check "
            "one that passes when the claim holds"
            if failing is not None
            else f"run `{fix_cmd}`, then the hook by hand, and see which test fails",
        )
    return _check(
        PASSES,
        FAIL,
        expected,
        _said(run),
        f"exits {p.code} when fixed",
        detail="A non-blocking error: the turn ends, but every stop shows a hook "
        "error. " + _SET_E_HINT,
        fix="exit 0 when the claim holds",
    )


def _judge_session_held(p: Phase) -> GradeCheck:
    expected = "stop blocked; Claude is shown the stderr reason"
    if p.run is None or p.step is None:
        return _no_run(SESSION_HELD, expected)
    if p.timed_out:
        return _check(
            SESSION_HELD,
            SKIP,
            expected,
            "the hook timed out; the turn ended",
            detail=_TIMED_OUT_SKIP,
        )
    step = p.step
    if step.outcome == Outcome.STOPPED:
        return _check(
            SESSION_HELD,
            FAIL,
            expected,
            "Claude stopped (continue: false)",
            "stops Claude instead of holding the turn",
            fix="exit 2 with a reason; `continue: false` ends the session's work",
        )
    if step.outcome != Outcome.BLOCKED:
        why = (
            "the hook exited 0"
            if p.code == 0
            else f"exit {p.code} is a non-blocking error, shown as {step.errors[0]!r}"
            if step.errors
            else f"the hook exited {p.code}"
        )
        return _check(
            SESSION_HELD,
            FAIL,
            expected,
            f"turn ended: {why}",
            "the session is not held",
            detail="Claude said done with the artefact broken and the turn ended.",
            fix="exit 2 with the reason on stderr when the claim does not hold",
        )
    return _judge_reason_shown(p.code, p.run.stderr, step, expected)


def _judge_reason_shown(
    code: int | None, stderr: str, step: StepOutcome, expected: str
) -> GradeCheck:
    """The stop was held: Claude must be shown the hook's stderr reason, whole."""
    shown = step.feedback.strip()
    # Claude is sent "Stop hook feedback:\n[COMMAND]: STDERR": the reason, whole, in a frame.
    reason = stderr.strip() if code == 2 else ""
    if code == 2 and not reason:
        return _check(
            SESSION_HELD,
            FAIL,
            expected,
            f"blocked; Claude was shown {shown!r}",
            "Claude is not told why",
            detail="The turn is held but stderr was empty, so Claude gets no instruction.",
            fix="print the reason to stderr (`>&2`)",
        )
    if code == 2 and reason not in shown:
        return _check(
            SESSION_HELD,
            FAIL,
            expected,
            f"Claude was shown {shown[:120]!r}",
            "feedback differs from the stderr reason",
            detail="The simulator showed Claude something other than the hook's "
            "stderr; please report this.",
        )
    said = _first_line(reason) if reason else _first_line(shown)
    return _check(SESSION_HELD, PASS, expected, f"blocked; Claude was shown {said!r}")


def _judge_lets_go(p: Phase) -> GradeCheck:
    expected = "exit 0 (ideally a systemMessage)"
    run = _run_to_judge(LETS_GO, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if p.blocked or p.code == 2:
        blocks = 1 + sum(1 for r in p.extra_runs if r.exit_code == 2)
        capped = p.step is not None and p.step.turn_ended
        return _check(
            LETS_GO,
            FAIL,
            expected,
            f"{_said(run)} — blocked {blocks} more time{'s' if blocks > 1 else ''}"
            + (f"; Claude Code's cap of {STOP_BLOCK_CAP} ended the turn" if capped else ""),
            "ignores stop_hook_active",
            detail="With stop_hook_active: true and the artefact still broken the hook blocks "
            f"again, so the turn only ends when Claude Code overrides it after {STOP_BLOCK_CAP} "
            "consecutive blocks.",
            fix="read it first: `active=$(jq -r '.stop_hook_active // false')`; when true, "
            'print \'{"systemMessage": "…still fails…"}\' and exit 0',
        )
    if p.code != 0:
        return _check(
            LETS_GO,
            FAIL,
            expected,
            _said(run),
            f"exits {p.code} on stop_hook_active",
            detail="The turn ends, but with a hook error instead of a message to the user.",
            fix="print a systemMessage JSON and exit 0",
        )
    message = (
        p.step.system_message
        if p.step is not None
        else p.outcome.system_message
        if p.outcome is not None
        else ""
    )
    if message:
        return _check(
            LETS_GO, PASS, expected, f"exit 0, systemMessage {_first_line(message, 200)!r}"
        )
    return _check(
        LETS_GO,
        PASS,
        expected,
        "exit 0, no systemMessage",
        detail="Lets go silently: a systemMessage would tell the user the check still fails.",
    )


def _judge_session_ends(p: Phase) -> GradeCheck:
    expected = "stop allowed, turn ends, no hook error"
    if p.run is None or p.step is None:
        return _no_run(SESSION_ENDS, expected)
    if p.timed_out:
        return _check(SESSION_ENDS, SKIP, expected, _said(p.run), detail=_TIMED_OUT_SKIP)
    step = p.step
    if step.outcome == Outcome.BLOCKED:
        return _check(
            SESSION_ENDS,
            FAIL,
            expected,
            # The hook's own reason: the feedback's first line is the client's frame
            # ("Stop hook feedback:"), which says nothing.
            f"blocked ({_said(p.run)})",
            "blocks although fixed",
            fix="exit 0 when the claim holds",
        )
    if step.outcome == Outcome.STOPPED:
        return _check(
            SESSION_ENDS,
            FAIL,
            expected,
            "Claude stopped (continue: false)",
            "stops Claude although fixed",
            fix='drop "continue": false',
        )
    if step.errors:
        return _check(
            SESSION_ENDS,
            FAIL,
            expected,
            f"turn ended with {step.errors[0]!r}",
            f"exits {p.code} when fixed",
            fix="exit 0 when the claim holds",
        )
    return _check(SESSION_ENDS, PASS, expected, "turn ended, no block")


def _judge_stale(p: Phase | None, broken: Phase, fix_cmd: str, stale_cmd: str | None) -> GradeCheck:
    expected = "exit 2"
    if p is None or stale_cmd is None:
        return _check(
            STALE,
            SKIP,
            expected,
            "no stale command given",
            detail="Not judged: without a command that makes the artefact stale, "
            "freshness cannot be tested.",
            fix="give --stale CMD, e.g. --stale 'touch src/…' (a source newer than the artefact)",
        )
    run = _run_to_judge(STALE, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if broken.code != 2:
        return _check(
            STALE,
            SKIP,
            expected,
            _said(run),
            detail=f"not judged: the hook does not block a missing artefact either (see {BLOCKS})",
        )
    if p.code == 2:
        return _check(STALE, PASS, expected, _said(run))
    if p.code == 0:
        return _check(
            STALE,
            FAIL,
            expected,
            _said(run),
            "trusts a stale artefact",
            detail=f"After `{fix_cmd}` and then `{stale_cmd}` the artefact exists "
            "but is out of date, and the hook let the turn end: it proves that a "
            "build once ran, not that it ran after the last change.",
            fix="compare mtimes: the artefact must be newer than what it is built "
            "from (`find src -newer ARTEFACT`) or than the session start",
        )
    return _check(
        STALE,
        FAIL,
        expected,
        _said(run),
        f"exits {p.code} on a stale artefact",
        detail="Non-blocking: the turn ends on an out-of-date artefact.",
        fix="exit 2 when the artefact is older than its sources",
    )


def _judge_timeout(g: _Grader, timeout: float) -> GradeCheck:
    expected = f"every run under {timeout:g} s"
    runs = list(g.all_runs())
    slow = [(label, run) for label, run in runs if run.timed_out]
    if slow:
        where = ", ".join(dict.fromkeys(label for label, _ in slow))
        return _check(
            IN_TIME,
            FAIL,
            expected,
            f"killed after {slow[0][1].duration:.1f} s in {len(slow)} of {len(runs)} "
            f"runs ({where})",
            "too slow for its timeout",
            detail="A Stop hook that runs past its timeout is cancelled: its output "
            "is thrown away and it does not block.",
            fix="check what the build left behind (reports, files) instead of "
            f"running the build, or raise the timeout (now {timeout:g} s)",
        )
    longest = max((run.duration for _, run in runs), default=0.0)
    return _check(IN_TIME, PASS, expected, f"slowest of {len(runs)} runs: {longest:.1f} s")


def _judge_leak(g: _Grader) -> GradeCheck:
    expected = "no planted secret in stdout or stderr"
    runs = list(g.all_runs())
    for label, run in runs:
        for stream, text in (("stderr", run.stderr), ("stdout", run.stdout)):
            names = g.canary.found_in(text)
            if names:
                return _check(
                    NO_LEAK,
                    FAIL,
                    expected,
                    f"the value of {', '.join(names)} on {stream} ({label})",
                    "leaks the environment",
                    detail="The hook printed an environment variable holding a secret. Its "
                    "output goes to Claude, the transcript and the screen.",
                    fix="never print env, set, keys, .env or whole logs; print only the failed "
                    "check and the command to run",
                )
    return _check(NO_LEAK, PASS, expected, f"no secret in {len(runs)} runs")


def verify_hook(
    project_dir: Path,
    script: Path | str,
    *,
    break_cmd: str,
    fix_cmd: str,
    stale_cmd: str | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> CheckResult:
    """``grade_stop_hook`` in the one result model, for the lab engine's ``verify_hook`` check.

    A script that is missing or not executable is the participant's to fix: ``fail``. A
    break/fix/stale command that fails means the hook could not be graded: ``error``.
    """
    name = f"verify-hook {script}"
    try:
        grade = grade_stop_hook(
            Path(project_dir),
            Path(script),
            break_cmd=break_cmd,
            fix_cmd=fix_cmd,
            stale_cmd=stale_cmd,
            timeout=timeout,
            progress=progress,
        )
    except HookScriptError as exc:
        return CheckResult.failed(
            exc.message,
            name=name,
            expected="an executable script",
            found=exc.message,
            details={"fix": exc.fix},
        )
    except HarnessError as exc:
        return CheckResult.errored(exc.message, name=name, details={"fix": exc.fix})
    return grade.to_check_result(name)
