"""``shell``: a command in the workspace with an expected exit code and output."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from harness import proc
from harness.engine.context import CheckContext
from harness.engine.kinds import Worded, check_kind
from harness.errors import HarnessError
from harness.results import CheckResult
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class ShellParams(Worded):
    """A ``shell`` check's parameters, typed (``KIND.params`` is derived from them)."""

    command: str = param(doc="run with bash -c in the workspace root")
    title: str | None = param(
        default=None, doc="a short name for results (default: the command's first line)"
    )
    exit: int = param(default=0, minimum=0, maximum=255, doc="expected exit code")
    stdin: str | None = param(default=None, doc="text fed on stdin")
    env: dict[str, Any] = param(default={}, doc="extra environment variables")
    stdout_contains: str | None = param(default=None, doc="text stdout must contain")
    stderr_contains: str | None = param(default=None, doc="text stderr must contain")
    stdout_matches: str | None = param(default=None, doc="regular expression stdout must match")
    stderr_matches: str | None = param(default=None, doc="regular expression stderr must match")
    means: str | None = param(
        default=None,
        doc="what stdout_matches or stderr_matches asks for, in words (a person reads this, "
        "never the pattern); required with either",
    )
    stdout_is_file: str | None = param(
        default=None,
        doc="a workspace file whose text stdout must be, byte for byte (an answer the "
        "participant kept); a difference is named by its first line that differs, without "
        "the printed line (a person would copy it instead of running the command)",
        inside="the workspace",
    )
    quiet: bool = param(default=False, doc="the command must print nothing")
    expected: str | None = param(
        default=None,
        doc="what a pass is, in words, for the expected: row; found: is then what the command "
        "printed (a command that names the difference itself, not its own exit code)",
    )
    timeout: float = param(
        default=120.0, positive=True, doc="seconds before the command is stopped"
    )
    slow: bool = param(default=False, doc="takes a while (runs Maven): show progress")

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
    # A hook run as the client runs it: `$HOOKLAB_AS_CLAUDE_CODE stop DIR COMMAND` (its event's
    # JSON, the client's variables; harness/claude/as_client.py), never a hand-fed imitation.
    env["HOOKLAB_AS_CLAUDE_CODE"] = f"{sys.executable} -m harness.claude.as_client"
    # What a copy of the workspace stands for: the hook is played on it seen at this path.
    env["HOOKLAB_WORKSPACE"] = str(ctx.root)
    # The shipped fixture, as it came: a check may prove the participant's files with the
    # fixture's own instruments (smoke.sh), never with copies the participant may have edited.
    with contextlib.suppress(HarnessError):  # no fixture to read: a check needing it says so
        env["HOOKLAB_PRISTINE_FIXTURE"] = str(ctx.workspace.fixture.dir)
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
            expected=p.expected or f"exit {p.exit}",
            found=(output[:1500] or found) if p.expected else found,
            output=output,
        )
    failed = _stream_failure(p, res, name, output)
    if failed is not None:
        return failed
    kept = _kept_differs(ctx, p.stdout_is_file, res.stdout) if p.stdout_is_file else None
    if kept is not None:
        return CheckResult.failed(
            p.message or f"{p.stdout_is_file} is not what {command} prints",
            name=name,
            expected=kept[0],
            found=kept[1],
        )
    if p.quiet and (res.stdout.strip() or res.stderr.strip()):
        return CheckResult.failed(
            p.message or f"{command} should say nothing",
            name=name,
            expected=p.expected or "no output",
            found=output[:1500],
            output=output,
        )
    return CheckResult.passed(
        p.pass_message or f"{found} as expected", name=name, found=found, output=output
    )


def _stream_failure(
    p: ShellParams, res: proc.ProcResult, name: str, output: str
) -> CheckResult | None:
    """What stdout or stderr lacks of what the check wants (None: nothing)."""
    command = p.command
    for stream, text in (("stdout", res.stdout), ("stderr", res.stderr)):
        want, pattern = p.contains(stream), p.matches(stream)
        if want is not None and want not in text:
            lacks = (
                f"{stream} of {command} lacks the expected text",
                f"{stream} contains {want!r}",
            )
        elif pattern is not None and not re.search(pattern, text, re.MULTILINE):
            lacks = (f"{stream} of {command} does not match", f"{stream}: {p.means}")
        else:
            continue
        return CheckResult.failed(
            p.message or lacks[0],
            name=name,
            expected=lacks[1],
            found=text.strip()[:1500] or "(empty)",
            output=output,
        )
    return None


def _kept_differs(ctx: CheckContext, rel: str, printed: str) -> tuple[str, str] | None:
    """Where a kept file differs from what the command printed now (None: they are the same):
    the first line that differs, named by its number and where it parts, the file's line as it
    is. The command's own line is never shown: a person would copy it from the screen instead
    of running the command (Lab 13 step 4)."""
    path = ctx.path(rel)
    if not path.is_file():
        return f"{rel} holds what the command prints", f"{rel} does not exist yet: create it"
    kept = path.read_text(errors="replace")
    if kept == printed:
        return None
    now, there = printed.splitlines(), kept.splitlines()
    run_it = "not shown here: run the command as it is, so it writes the file"
    for i in range(max(len(now), len(there))):
        line_now = now[i] if i < len(now) else None
        line_there = there[i] if i < len(there) else None
        if line_now != line_there:
            expected = f"line {i + 1} as the command prints it now ({run_it})"
            if line_now is None or line_there is None:
                return expected, (
                    f"line {i + 1} in {rel}: "
                    + (
                        "(none: the file ends there, the output goes on)"
                        if line_there is None
                        else f"{line_there}\n(the output has no line {i + 1}: it ends before)"
                    )
                )
            return (
                expected,
                f"line {i + 1} in {rel}: {line_there}\n{_parts_at(line_now, line_there)}",
            )
    # The same lines: only the end differs.
    ends = "ends with a newline" if printed.endswith("\n") else "ends without a newline"
    return f"the output {ends}", f"{rel} does not: keep the output as printed (tee, or >)"


def _parts_at(line_now: str, line_there: str) -> str:
    """Where the file's line parts from the printed one, in words, without the printed one."""
    column = next(
        (c for c, (a, b) in enumerate(zip(line_now, line_there, strict=False)) if a != b),
        min(len(line_now), len(line_there)),
    )
    if line_now.startswith(line_there):
        return f"(your line stops at character {column + 1}; the printed one goes on)"
    if line_there.startswith(line_now):
        return f"(your line goes on after character {column}; the printed one ends there)"
    return f"(the two lines differ from character {column + 1} on)"


def _validate(p: ShellParams) -> str | None:
    if (p.stdout_matches or p.stderr_matches) and not p.means:
        return "say in words what the pattern asks for (means = ...): a person never reads it"
    for key in ("stdout_matches", "stderr_matches"):
        pattern = p.matches(key.split("_")[0])
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                return f"{key} is not a valid regular expression: {exc}"
    return None


KIND = check_kind(
    "shell",
    "a bash command in the workspace with an expected exit code and output",
    run,
    slow=lambda p: p.slow,
    rules=_validate,
)
