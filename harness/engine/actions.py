"""Actions a step's ``setup`` and ``solve`` perform: write or patch a file, run a command,
commit. Each returns a CheckResult so the runner and the views treat them like checks."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness import proc
from harness.claude.vocabulary import Engine
from harness.engine.checks.runs_seen import remember_sensor_runs
from harness.engine.context import CheckContext
from harness.engine.kinds import Kind, one_of, tagged_kind
from harness.maven.backend import SENSOR_GOALS
from harness.maven.warm import warm_compile
from harness.results import CheckResult
from harness.schema import Field, param
from harness.userfiles import read_text

if TYPE_CHECKING:
    from harness.claude.scenario import Scenario

DO = Field("do", str, required=True)
WORKSPACE = "the workspace"
LAB_FOLDER = "the lab folder"


# Each action's parameters, typed and declared once: its kind's fields (``do`` aside) are
# derived from them (harness.schema.param).
_PATH = "the file, relative to the workspace"


@dataclass(frozen=True, kw_only=True)
class AppendParams:
    path: str = param(inside=WORKSPACE, doc=_PATH)
    content: str | None = param(default=None, doc="the text (give content or from)")
    from_: str | None = param(
        default=None, inside=LAB_FOLDER, doc="a file in the lab folder instead of content"
    )


@dataclass(frozen=True, kw_only=True)
class WriteParams(AppendParams):
    executable: bool = param(default=False, doc="make the file executable")


@dataclass(frozen=True, kw_only=True)
class ReplaceParams:
    path: str = param(inside=WORKSPACE, doc=_PATH)
    old: str = param(doc="the text to replace; the action fails when it is not there")
    new: str = param(doc="its replacement")
    all: bool = param(default=False, doc="replace every occurrence, not only the first")


@dataclass(frozen=True, kw_only=True)
class CopyParams:
    from_: str = param(inside=LAB_FOLDER, doc="the file in the lab folder")
    to: str = param(inside=WORKSPACE, doc="where it goes, relative to the workspace")
    executable: bool = param(default=False, doc="make the copy executable")


@dataclass(frozen=True, kw_only=True)
class PathParams:
    path: str = param(inside=WORKSPACE, doc="the file or folder, relative to the workspace")


@dataclass(frozen=True, kw_only=True)
class PatchParams:
    from_: str = param(inside=LAB_FOLDER, doc="a unified diff in the lab folder (git apply)")


@dataclass(frozen=True, kw_only=True)
class RunParams:
    command: str = param(doc="run with bash -c in the workspace root")
    exit: int | None = param(
        default=None, minimum=0, maximum=255, doc="fail unless the command exits with this code"
    )
    timeout: float = param(default=300.0, positive=True, doc="seconds before it is stopped")
    slow: bool = param(default=False, doc="takes a while (runs Maven): show progress")


@dataclass(frozen=True, kw_only=True)
class NoParams:
    pass


@dataclass(frozen=True, kw_only=True)
class PlayParams:
    steps: list[Any] = param(doc="hook_session steps, played in order")
    engine: str = param(
        default=Engine.CLAUDE_CODE,
        choices=(Engine.CLAUDE_CODE,),
        doc="the real client: what a live_session check reads is its transcript",
    )


@dataclass(frozen=True, kw_only=True)
class CommitParams:
    message: str = param(doc="the commit message")


def _content(ctx: CheckContext, p: AppendParams) -> str:
    if p.from_ is not None:
        return read_text(ctx.asset(p.from_))  # a lab author's file: UTF-8 or a clear error
    return str(p.content)


def _write(ctx: CheckContext, p: WriteParams) -> CheckResult:
    path = ctx.path(p.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_content(ctx, p))
    if p.executable:
        path.chmod(0o755)
    return CheckResult.passed(f"wrote {p.path}", name="write")


def _append(ctx: CheckContext, p: AppendParams) -> CheckResult:
    path = ctx.path(p.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fh.write(_content(ctx, p))
    return CheckResult.passed(f"appended to {p.path}", name="append")


def _replace(ctx: CheckContext, p: ReplaceParams) -> CheckResult:
    path = ctx.path(p.path)
    if not path.is_file():
        return CheckResult.errored(f"{p.path} does not exist", name="replace")
    text = read_text(path, p.path)  # not UTF-8, binary: a clear error naming the file
    if p.old not in text:
        # Applied already: the new text is there and no line the change takes away is left
        # (Lab 05: the strict lines edited by hand still hold "# Strict mode", not applied).
        gone = {ln.strip() for ln in p.old.splitlines()} - {ln.strip() for ln in p.new.splitlines()}
        left = [ln for ln in text.splitlines() if ln.strip() and ln.strip() in gone]
        if p.new in text and not left:
            return CheckResult.passed(f"{p.path} already has the change", name="replace")
        # The person's edit, not the machine: a failure naming it and the way out.
        return CheckResult.failed(
            f"{p.path} is not as this step's solution expects: the lines it replaces "
            "(below) are no longer in it, because you changed them since the step began",
            name="replace",
            expected=p.old[:300],
            details={
                "fix": f"put the step's version back: `git checkout {p.path}` (yours stays in "
                "the backup named below), then `lab solve --apply` again; or make the change "
                "by hand, as `lab solve` shows it"
            },
        )
    count = -1 if p.all else 1
    path.write_text(text.replace(p.old, p.new, count))
    return CheckResult.passed(f"changed {p.path}", name="replace")


def _copy(ctx: CheckContext, p: CopyParams) -> CheckResult:
    target = ctx.path(p.to)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ctx.asset(p.from_), target)
    if p.executable or os.access(ctx.asset(p.from_), os.X_OK):
        target.chmod(0o755)
    return CheckResult.passed(f"copied {p.from_} to {p.to}", name="copy")


def _delete(ctx: CheckContext, p: PathParams) -> CheckResult:
    path = ctx.path(p.path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    return CheckResult.passed(f"deleted {p.path}", name="delete")


def _shell(
    ctx: CheckContext, command: str, timeout: float, name: str, expect_exit: int | None
) -> CheckResult:
    env = dict(os.environ)
    env["CLAUDE_PROJECT_DIR"] = str(ctx.root)
    res = proc.run(["bash", "-c", command], cwd=ctx.root, env=env, timeout=timeout)
    output = (res.stdout + res.stderr).strip()
    if expect_exit is not None and res.returncode != expect_exit:
        return CheckResult.errored(
            f"{command} exited {res.returncode}",
            name=name,
            expected=f"exit {expect_exit}",
            output=output,
        )
    return CheckResult.passed(f"ran {command}", name=name, output=output)


def _patch(ctx: CheckContext, p: PatchParams) -> CheckResult:
    patch = ctx.asset(p.from_)
    return _shell(ctx, f"git apply --whitespace=nowarn {_quote(str(patch))}", 60, "patch", 0)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _run(ctx: CheckContext, p: RunParams) -> CheckResult:
    if p.slow:
        ctx.on_activity(f"running {p.command}")
    return _shell(ctx, p.command, p.timeout, "run", p.exit)


def _sensors(ctx: CheckContext, p: NoParams) -> CheckResult:
    ctx.on_activity("running ./mvnw " + " ".join(SENSOR_GOALS))
    backend = ctx.maven()
    run = backend.run(ctx.root, SENSOR_GOALS, on_output=ctx.on_output, timeout=600)
    if run.returncode in (124, 127):
        return CheckResult.errored(
            f"Maven could not run (exit {run.returncode})", name="sensors", output=run.output
        )
    remember_sensor_runs(ctx)
    return CheckResult.passed(
        f"ran the sensors (exit {run.returncode})", name="sensors", output=run.output
    )


def _compile(ctx: CheckContext, p: NoParams) -> CheckResult:
    """The workspace compiled as it is now, so the session the step checks pays no compile in
    each of its sensor runs. No test runs: the reports stay exactly as they were."""
    ctx.on_activity("compiling the workspace (./mvnw -q test-compile)")
    warm = warm_compile(ctx.root, ctx.maven(), on_output=ctx.on_output)
    if not warm.ok:
        return CheckResult.errored(
            "Maven could not compile the workspace", name="compile", output=warm.output
        )
    how = "from the compiled cache" if warm.how == "cache" else "by Maven"
    return CheckResult.passed(f"compiled the workspace {how}", name="compile")


def _commit(ctx: CheckContext, p: CommitParams) -> CheckResult:
    if ctx.root_override is not None:
        return _shell(ctx, f"git add -A && git commit -q -m {_quote(p.message)}", 60, "commit", 0)
    commit = ctx.workspace.commit_all(p.message)
    return CheckResult.passed(f"committed {commit[:10]}: {p.message}", name="commit")


def _play_steps(p: PlayParams, path: object, where: str) -> None:
    from harness.engine.checks.hook_session import parse_inline

    parse_inline(p.steps, path, where)


def _play_session(ctx: CheckContext, p: PlayParams) -> CheckResult:
    """A session played on the real client with the scripted model, in the workspace itself:
    the transcript the client writes is what a live step then reads (kept in the git
    directory, never in the participant's own ~/.claude)."""
    from harness.claude.engines import open_session
    from harness.claude.scenario import run_scenario
    from harness.engine.checks.hook_session import parse_inline
    from harness.engine.checks.live_session import SOLVED_SESSIONS
    from harness.errors import HarnessError

    scenario, asserts = parse_inline(p.steps, "lab.toml", "solve")
    if ctx.person_folder is not None:
        return _play_as_person(ctx, scenario, [a.marker_exists for a in asserts])
    ctx.on_activity("playing the session on the real Claude Code client (scripted model)")
    try:
        with open_session(
            p.engine,
            ctx.root,
            transcript_dir=ctx.git_dir() / SOLVED_SESSIONS,
            auto_approve=True,
        ) as session:
            outcomes = [report.outcome for report in run_scenario(scenario, session)]
    except HarnessError as exc:
        return CheckResult.errored(f"the session could not be played: {exc}", name="session")
    said = ", ".join(f"{o.do} {o.outcome}" for o in outcomes)
    return CheckResult.passed(
        f"played a session on Claude Code: {said}",
        name="session",
        details={"engine": Engine.CLAUDE_CODE, "person": False},
    )


def _play_as_person(
    ctx: CheckContext, scenario: Scenario, markers: list[str | None]
) -> CheckResult:
    """The session played as a person plays it (lab dev check): plain ``claude`` typed in a
    terminal in the workspace root, the person's own HOME; the live check reads it there."""
    from harness.claude.client.person import play_as_person
    from harness.errors import HarnessError

    assert ctx.person_folder is not None
    ctx.on_activity("playing the session as a person: plain claude in a terminal")
    try:
        play_as_person(scenario, ctx.root, ctx.git_dir(), ctx.person_folder, markers=markers)
    except HarnessError as exc:
        return CheckResult.errored(
            f"the session could not be played as a person: {exc}", name="session"
        )
    said = "; ".join(str(s.do) for s in scenario.steps)
    return CheckResult.passed(
        f"a person typed claude in the workspace and the session went: {said}",
        name="session",
        details={"engine": Engine.CLAUDE_CODE, "person": True},
    )


def _text_asset(p: AppendParams) -> list[str]:
    return [p.from_] if p.from_ else []


def _content_or_from(p: AppendParams) -> str | None:
    return one_of(p, "content", "from")


def _action(name: str, summary: str, call: Any, **options: Any) -> Kind[Any]:
    """An action kind: its parameters are the ``do`` tag, then the fields ``call`` reads."""
    return tagged_kind(DO, name, summary, call, **options)


ACTION_KINDS: dict[str, Kind[Any]] = {
    k.name: k
    for k in (
        _action(
            "write",
            "write a file (content inline or from a lab asset)",
            _write,
            assets=_text_asset,
            rules=_content_or_from,
        ),
        _action(
            "append",
            "append text to a file",
            _append,
            assets=_text_asset,
            rules=_content_or_from,
        ),
        _action(
            "replace",
            "replace text in a file (the first occurrence, or all)",
            _replace,
        ),
        _action(
            "copy",
            "copy a file from the lab folder into the workspace",
            _copy,
            assets=lambda p: [p.from_],
        ),
        _action(
            "delete",
            "delete a file or folder",
            _delete,
        ),
        _action(
            "patch",
            "apply a unified diff from the lab folder with git apply",
            _patch,
            assets=lambda p: [p.from_],
        ),
        _action(
            "run",
            "run a bash command in the workspace",
            _run,
            slow=lambda p: p.slow,
        ),
        _action(
            "sensors",
            "run the sensors (./mvnw -q test -Dgroups=sensor)",
            _sensors,
            slow=lambda p: True,
        ),
        _action(
            "compile",
            "compile the workspace as it is (./mvnw -q test-compile, or the compiled cache for "
            "these sources); no test runs, the reports stay",
            _compile,
            slow=lambda p: True,
        ),
        _action(
            "play_session",
            "play a session on the real Claude Code client with the scripted model, in the "
            "workspace (what a live step reads)",
            _play_session,
            slow=lambda p: True,
            tables=_play_steps,
        ),
        _action(
            "commit",
            "commit every change in the workspace",
            _commit,
        ),
    )
}
