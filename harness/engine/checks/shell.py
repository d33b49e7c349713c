"""``shell``: a command in the workspace with an expected exit code and output."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from harness import proc
from harness.engine.context import CheckContext
from harness.engine.kinds import Kind
from harness.results import CheckResult
from harness.schema import Field


@dataclass(frozen=True)
class ShellParams:
    """A ``shell`` check's parameters, typed (the fields of ``KIND.params``)."""

    command: str
    title: str | None
    exit: int
    stdin: str | None
    env: dict[str, Any]
    stdout_contains: str | None
    stderr_contains: str | None
    stdout_matches: str | None
    stderr_matches: str | None
    quiet: bool
    timeout: float
    slow: bool
    message: str | None
    pass_message: str | None

    def contains(self, stream: str) -> str | None:
        return self.stdout_contains if stream == "stdout" else self.stderr_contains

    def matches(self, stream: str) -> str | None:
        return self.stdout_matches if stream == "stdout" else self.stderr_matches


def run(ctx: CheckContext, p: ShellParams) -> CheckResult:
    command = p.command
    name = p.title or f"shell: {command.strip().splitlines()[0][:70]}"
    env = dict(os.environ)
    env.update({k: str(v) for k, v in (p.env or {}).items()})
    env["CLAUDE_PROJECT_DIR"] = str(ctx.root)
    if p.slow:
        ctx.on_activity(f"running {command}")
    res = proc.run(["bash", "-c", command], cwd=ctx.root, env=env, stdin=p.stdin, timeout=p.timeout)
    output = (res.stdout + ("\n" if res.stdout and res.stderr else "") + res.stderr).strip()
    found = f"exit {res.returncode}"
    if res.returncode == 124 and p.exit != 124:
        return CheckResult.errored(
            f"{command} did not finish within {p.timeout} s", name=name, output=output
        )
    if res.returncode != p.exit:
        return CheckResult.failed(
            p.message or f"exited {res.returncode}",
            name=name,
            expected=f"exit {p.exit}",
            found=found,
            output=output,
        )
    for stream, text in (("stdout", res.stdout), ("stderr", res.stderr)):
        want = p.contains(stream)
        if want is not None and want not in text:
            return CheckResult.failed(
                p.message or f"{stream} of {command} lacks the expected text",
                name=name,
                expected=f"{stream} contains {want!r}",
                found=text.strip()[:1500] or "(empty)",
                output=output,
            )
        pattern = p.matches(stream)
        if pattern is not None and not re.search(pattern, text, re.MULTILINE):
            return CheckResult.failed(
                p.message or f"{stream} of {command} does not match",
                name=name,
                expected=f"{stream} matches /{pattern}/",
                found=text.strip()[:1500] or "(empty)",
                output=output,
            )
    if p.quiet and (res.stdout.strip() or res.stderr.strip()):
        return CheckResult.failed(
            p.message or f"{command} should say nothing",
            name=name,
            expected="no output",
            found=output[:1500],
            output=output,
        )
    return CheckResult.passed(
        p.pass_message or f"{found} as expected", name=name, found=found, output=output
    )


def _validate(p: ShellParams) -> str | None:
    for key in ("stdout_matches", "stderr_matches"):
        pattern = p.matches(key.split("_")[0])
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                return f"{key} is not a valid regular expression: {exc}"
    return None


KIND = Kind(
    name="shell",
    summary="a bash command in the workspace with an expected exit code and output",
    params=(
        Field("kind", str, required=True),
        Field("command", str, required=True, doc="run with bash -c in the workspace root"),
        Field("title", str, doc="a short name for results (default: the command's first line)"),
        Field("exit", int, default=0, minimum=0, maximum=255, doc="expected exit code"),
        Field("stdin", str, doc="text fed on stdin"),
        Field("env", dict, default={}, doc="extra environment variables"),
        Field("stdout_contains", str, doc="text stdout must contain"),
        Field("stderr_contains", str, doc="text stderr must contain"),
        Field("stdout_matches", str, doc="regular expression stdout must match"),
        Field("stderr_matches", str, doc="regular expression stderr must match"),
        Field("quiet", bool, default=False, doc="the command must print nothing"),
        Field(
            "timeout",
            float,
            default=120.0,
            positive=True,
            doc="seconds before the command is stopped",
        ),
        Field("slow", bool, default=False, doc="takes a while (runs Maven): show progress"),
        Field("message", str, doc="what the participant reads when the check fails"),
        Field("pass_message", str, doc="what the participant reads when it passes"),
    ),
    typed=ShellParams,
    call=run,
    slow=lambda p: p.slow,
    rules=_validate,
)
