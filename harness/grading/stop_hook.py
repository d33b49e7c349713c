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
The first hook run sees canary secrets in its environment (the others do not, so a hook
cannot tell grading by them); none may show up in its output.

A hook that misbehaves (crashes, hangs, prints nonsense) is a failed check, never an exception.
``HarnessError`` is raised only for bad input: a missing or non-executable script, a missing
project directory, or a break/fix/stale command that itself fails (then the hook cannot be
judged, and blaming the hook would be wrong).
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Required, TypedDict, Unpack

from harness import proc
from harness.claude import Event, HookRun
from harness.claude.dispatch import dispatch
from harness.claude.engines import CLAUDE_CODE, ScriptedSession, open_session, resolve_engine
from harness.claude.plugins import in_plugin
from harness.claude.scripted import SessionOptions
from harness.claude.session_home import SessionHome, session_home
from harness.claude.settings import Settings, parse_settings
from harness.claude.vocabulary import Engine
from harness.errors import HarnessError
from harness.grading.fix_replay import FixRecord, changed, listing
from harness.grading.registration import failing_command, registered_stop_hook
from harness.grading.stop_grade import DEFAULT_TIMEOUT, Canary, HookGrade, Phase
from harness.grading.stop_judges import (
    judge_blocks,
    judge_leak,
    judge_lets_go,
    judge_other_breaks,
    judge_passes,
    judge_reason,
    judge_session_ends,
    judge_session_held,
    judge_stale,
    judge_timeout,
)
from harness.jail import Confinement
from harness.paths import scratch_dir
from harness.results import CheckResult

COMMAND_TIMEOUT = 900.0  # break/fix/stale may run Maven; they are ours, not the hook's
SETTINGS_LABEL = "verify-hook settings (temporary)"

Progress = Callable[[str], None]


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


class _Grader:
    def __init__(
        self,
        project: Path,
        settings: Settings,
        canary: Canary,
        work: Path,
        progress: Progress,
        home: SessionHome,
        jail: Confinement | None = None,
    ) -> None:
        self.project = project
        self.home = home  # where a real session's transcript would be, and the hooks' HOME
        self.jail = jail  # where --break, --fix and --stale run (None: as this process)
        self.settings = settings
        self.canary = canary
        self.work = work
        self.progress = progress
        self.phases: list[Phase] = []
        self.record: FixRecord | None = None  # the first real fix's outputs
        self.recorded = False  # the first real fix has run (its record may be None)

    def fix(self, fix_cmd: str, *, again: bool = False) -> None:
        """Run the fix; ``again`` (a fix between breaks): put the first fix's outputs back
        instead when they were recorded, the same files a run now would write (fix_replay)."""
        if again and self.record is not None:
            try:
                self.record.replay()
            except OSError:
                pass  # a break left something the replay cannot undo: run the real fix
            else:
                self.progress("--fix: fixed again (the fix's output put back)")
                return
        if self.recorded:
            self.command("--fix", fix_cmd)
            return
        before = listing(self.project)
        self.command("--fix", fix_cmd)
        self.recorded = True
        store = self.work / "fix-output"
        self.record = FixRecord.take(self.project, store, before)

    def breaks(self, break_cmd: str) -> frozenset[str]:
        """Run the break; the files it changed: what the hook should find broken."""
        before = listing(self.project)
        self.command("--break", break_cmd)
        return changed(before, listing(self.project))

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

    def direct(
        self,
        label: str,
        *,
        active: bool,
        broke: frozenset[str] = frozenset(),
        planted: bool = False,
    ) -> Phase:
        """The seed's `printf '{"stop_hook_active":…}' | ./hook; echo $?` with a full payload;
        ``planted``: with the canary secrets in its environment."""
        self.progress(f"Stop hook, {label}")
        # A real session's stdin, its transcript under a HOME of the run's own (walk-m I3).
        payload = self.home.stop_stdin(self.project, active=active)
        before = listing(self.project)
        out = dispatch(
            Event.STOP,
            payload,
            self.settings,
            self.project,
            cwd=self.project,
            env={"HOME": str(self.home.home), **(self.canary.values if planted else {})},
        )
        rewrote = changed(before, listing(self.project))
        run = out.runs[0] if out.runs else None
        phase = Phase(label, active, run, out, rewrote=rewrote, broke=broke)
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


class StopHookDrill(TypedDict, total=False):
    """How a Stop hook is put through its paces: ``grade_stop_hook``'s keywords that
    ``verify_hook`` passes on as they came."""

    break_cmd: Required[str]
    fix_cmd: Required[str]
    stale_cmd: str | None
    other_breaks: tuple[str, ...]
    timeout: float | None
    progress: Progress | None


def grade_stop_hook(
    project_dir: Path,
    script: Path,
    *,
    break_cmd: str,
    fix_cmd: str,
    stale_cmd: str | None = None,
    other_breaks: tuple[str, ...] = (),
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
    in ``project_dir``. ``other_breaks``: more ways to make the claim false (a red report, a
    missing one), each run after a fix and each to be blocked. The project is left fixed. The
    session phases play on ``engine``.
    ``timeout`` (None): the one the project's settings register the script with, else
    DEFAULT_TIMEOUT. ``confinement``: the jail the three commands and the session's tool
    calls run in. ``plugin_root``: the plugin the script belongs to; it runs as that plugin's
    hook, with ``CLAUDE_PLUGIN_ROOT`` set.
    """
    commands = {"--break": break_cmd, "--fix": fix_cmd, "--stale": stale_cmd}
    project, path = _check_inputs(project_dir, script, commands, timeout or DEFAULT_TIMEOUT)
    timeout, timeout_source = _timeout(project, path, timeout, plugin_root)
    command = hook_command(path, project)
    settings_data = stop_settings(command, timeout)
    settings = parse_settings(settings_data, SETTINGS_LABEL)
    if plugin_root is not None:
        settings = in_plugin(settings, plugin_root)
    say = progress or (lambda _: None)
    grade = HookGrade(path, project, command, timeout, settings_data, timeout_source=timeout_source)

    with (
        tempfile.TemporaryDirectory(prefix="hooklab-verify-", dir=scratch_dir()) as tmp,
        session_home() as home,
    ):
        g = _Grader(project, settings, Canary.make(), Path(tmp), say, home, confinement)
        # (1) broken, first stop: the one run with the canary secrets planted. A hook must
        # block there and in the session below, which has none: a hook that judges only
        # with them (or only without them) fails one of the two (walk-k: `[ -n
        # "$HOOKLAB_CANARY_SECRET" ] || exit 0`, a hook that judges only while graded).
        broken = g.direct("artefact broken", active=False, broke=g.breaks(break_cmd), planted=True)
        # (3) + (4) a session: Claude tries to stop with the artefact still broken
        options = _at_home(engine, home, project)
        options["confinement"] = confinement
        with open_session(engine, project, settings, **options) as session:
            session.prompt("Make a small, reversible change, then finish.")
            held, active = _held_then_active(g, session)
            # (2) fixed; a hook that still blocks is traced for the command that fails
            g.fix(fix_cmd)
            fixed = g.direct("artefact fixed", active=False)
            env = dict(os.environ)
            failing = failing_command(project, path, env, timeout) if fixed.code == 2 else None
            # (5) a new turn in the same session, artefact fixed
            session.prompt("Thanks. Now finish.")
            ended = g.session_stop(session, "session, artefact fixed")
        stale = _stale(g, stale_cmd, fix_cmd, last=not other_breaks)
        others = _other_breaks(g, other_breaks, fix_cmd)

    grade.checks = [
        judge_blocks(broken, break_cmd),
        judge_reason(broken),
        judge_passes(fixed, fix_cmd, active, failing),
        judge_session_held(held),
        judge_lets_go(active),
        judge_session_ends(ended),
        judge_stale(stale, broken, fix_cmd, stale_cmd, a_source(project)),
        *([judge_other_breaks(others, other_breaks)] if other_breaks else []),
        judge_timeout(list(g.all_runs()), timeout),
        judge_leak(list(g.all_runs()), g.canary),
    ]
    return grade


def _at_home(engine: str, home: SessionHome, project: Path) -> SessionOptions:
    """The session's transcript where the client keeps one, under the run's own HOME (the
    real client lays out its config folder itself, and gives its hooks a HOME of its own)."""
    if resolve_engine(engine) == CLAUDE_CODE:
        return {"env": {}, "transcript_dir": home.config_dir}
    return {"env": {"HOME": str(home.home)}, "transcript_dir": home.transcripts(project)}


def a_source(project: Path) -> str:
    """A file under the project's src/ (the first in order), named whole for an example
    command; SOURCE, a placeholder, where there is none."""
    src = project / "src"
    files = sorted(f for f in src.rglob("*") if f.is_file()) if src.is_dir() else []
    return files[0].relative_to(project).as_posix() if files else "SOURCE"


def _stale(g: _Grader, stale_cmd: str | None, fix_cmd: str, *, last: bool) -> Phase | None:
    """The artefact in place but out of date, then fixed again (the project is left fixed:
    by the real fix when no other break follows)."""
    if stale_cmd is None:
        return None
    g.command("--stale", stale_cmd)
    stale = g.direct("artefact stale", active=False)
    g.fix(fix_cmd, again=not last)
    return stale


def _other_breaks(g: _Grader, commands: tuple[str, ...], fix_cmd: str) -> list[Phase]:
    """Each other way to break the claim, on a fixed project, then fixed again: a hook that
    checks only one report's presence lets a red or a missing other report through. The fixes
    between breaks replay the first fix's outputs; the one after the last break is real, so
    the project is left really fixed (a touched source rebuilt, not only fresh reports)."""
    phases = []
    for n, command in enumerate(commands, 1):
        broke = g.breaks(command)
        phases.append(g.direct(f"artefact broken another way ({n})", active=False, broke=broke))
        g.fix(fix_cmd, again=n < len(commands))
    return phases


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


def _timeout(
    project: Path, script: Path, given: float | None, plugin_root: Path | None
) -> tuple[float, str]:
    """The timeout to grade with, and where it comes from."""
    if given is not None:
        return given, "given (--timeout)"
    registered = registered_stop_hook(project, script, plugin_root)
    if registered is not None:
        return registered.timeout, registered.source
    where = "its plugin's hooks/hooks.json" if plugin_root else "the project's settings"
    return DEFAULT_TIMEOUT, f"default: {script.name} is not a Stop hook in {where}"


def verify_hook(
    project_dir: Path, script: Path | str, **drill: Unpack[StopHookDrill]
) -> CheckResult:
    """``grade_stop_hook`` in the one result model, for the lab engine's ``verify_hook`` check.

    A script that is missing or not executable is the participant's to fix: ``fail``. A
    break/fix/stale command that fails means the hook could not be graded: ``error``.
    """
    name = f"verify-hook {script}"
    try:
        grade = grade_stop_hook(Path(project_dir), Path(script), **drill)
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
