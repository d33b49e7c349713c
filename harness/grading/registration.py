"""What the grader learns about a Stop hook beyond its exit codes: the timeout the project's
settings register it with, and which of its commands made it block.

The timeout is Claude Code's, not the grader's: a hook that needs 20 s is fine at 30 and too
slow at 10, so the grade uses the one in ``.claude/settings.json`` (and
``settings.local.json``) when the script is registered there as a Stop hook.

The failing command is read from the hook's own trace (``sh -x``): a hook that hides its
check's output (``>/dev/null 2>&1``) says only "run npm test", while the trace shows the
command it really ran, and running that command again shows why it fails.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from harness import proc
from harness.claude.events import Event
from harness.claude.plugins import plugin_hooks
from harness.claude.settings import HookCommand, load_settings
from harness.errors import HarnessError

# Interpreters whose scripts the grader can trace (-x), and that a hook command may name first.
_SHELLS = ("sh", "bash", "dash")


@dataclass(frozen=True)
class Registration:
    timeout: float
    source: str  # e.g. ".claude/settings.json: hooks.Stop[0].hooks[0]"


def registered_stop_hook(
    project: Path, script: Path, plugin_root: Path | None = None
) -> Registration | None:
    """The Stop hook entry that runs ``script``: first in the hooks.json of the plugin at
    ``plugin_root`` when given (the client runs a plugin's hook with the plugin's timeout),
    then in ``project``'s settings. None when not registered, or the files do not load."""
    target = os.path.realpath(script)
    for plugin in [plugin_root, None] if plugin_root else [None]:
        try:
            settings = plugin_hooks(plugin) if plugin else load_settings(project)
        except HarnessError:
            continue
        for hook in settings.commands_for(Event.STOP, None):
            if _runs(hook.command, project, target):
                return Registration(hook.timeout, hook.source)
    return None


@dataclass(frozen=True)
class Registered:
    """One settings entry that runs the script: its event, its group's matcher, the hook."""

    event: str
    matcher: str | None
    hook: HookCommand


def registered_entries(project: Path, script: Path) -> list[Registered]:
    """Every hook entry of ``project``'s settings, on any event, that runs ``script``
    (none when the settings do not load: settings_check names why)."""
    try:
        settings = load_settings(project)
    except HarnessError:
        return []
    target = os.path.realpath(script)
    found: list[Registered] = []
    for event, groups in settings.hooks.items():
        for group in groups:
            for hook in group.hooks:
                if hook.kind == "command" and _runs(hook.label, project, target):
                    found.append(Registered(event, group.matcher, hook))
    return found


def _runs(command: str, project: Path, target: str) -> bool:
    """Whether the hook command's program is ``target`` (``$CLAUDE_PROJECT_DIR`` expanded,
    a relative path taken from the project root, where Claude Code starts sessions)."""
    text = command.replace("${CLAUDE_PROJECT_DIR}", str(project)).replace(
        "$CLAUDE_PROJECT_DIR", str(project)
    )
    try:
        words = shlex.split(text)
    except ValueError:
        return False
    if not words:
        return False
    program = words[1] if words[0] in _SHELLS and len(words) > 1 else words[0]
    return os.path.realpath(project / program) == target


@dataclass(frozen=True)
class FailingCommand:
    command: str  # as the hook ran it, e.g. "npm test -- --runInBand"
    said: str  # the last line it printed when run again, e.g. "node: bad option: --runInBand"


# A test of a file (test -s dist/app.js) is a check; a test of the hook's own variables is not.
_FILE_TEST = re.compile(r"^'?-[efsdrx]'? ")
# Trace lines that are the hook talking or deciding, not its check.
_NOT_A_CHECK = ("printf", "echo", "exit", "return", "cat", "cd", ":", "true", "false")
# The shell's own words: bash -x traces ``case $input in``, which is no command to run by hand.
_KEYWORDS = ("case", "for", "select", "while", "until", "if", "then", "else", "elif", "do")


def failing_command(
    project: Path, script: Path, env: dict[str, str], timeout: float
) -> FailingCommand | None:
    """The command that made ``script`` block, from its ``-x`` trace on a first stop, or None
    (not a shell script, or no such command found)."""
    shell = _shell_of(script)
    if shell is None:
        return None
    payload = '{"hook_event_name":"Stop","stop_hook_active":false}'
    run = proc.run(
        [shell, "-x", str(script)],
        cwd=project,
        env={**env, "CLAUDE_PROJECT_DIR": str(project)},
        stdin=payload,
        timeout=timeout,
    )
    if run.returncode != 2:
        return None
    source = script.read_text(errors="replace")
    functions = set(re.findall(r"(?m)^\s*(\w+)\s*\(\)", source))
    command = _last_check(run.stderr, functions, source)
    if command is None:
        return None
    again = proc.run(["bash", "-c", command], cwd=project, env=env, timeout=timeout)
    if again.returncode == 0 or "syntax error" in again.stderr:
        # Not the command that failed, or no command alone (a part of the shell's grammar):
        # the trace was misread, say nothing rather than send a person to run it by hand.
        return None
    lines = [ln.strip() for ln in (again.stderr or again.stdout).splitlines() if ln.strip()]
    said = lines[-1][:200] if lines else f"exit {again.returncode}"
    return FailingCommand(command, said)


def _shell_of(script: Path) -> str | None:
    try:
        first = script.read_text(errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if words and words[0].endswith("/env") and len(words) > 1:
        words = words[1:]
    name = Path(words[0]).name if words else ""
    return name if name in _SHELLS else None


def _last_check(trace: str, functions: set[str], source: str = "") -> str | None:
    """The last traced command before the hook's refusal that is a check: not an
    assignment, not the hook's own output or exit, not one of its functions, not a test of
    values (only a test of a file counts), not a part of a pipeline in ``source``."""
    traced = [ln.lstrip("+").strip() for ln in trace.splitlines() if ln.startswith("+")]
    for line in reversed(traced):
        first = line.split(" ", 1)[0].strip("'")  # bash -x quotes [ and ] as '[' and ']'
        if first == "[[":
            first = "["
        if (
            not line
            or re.match(r"^\w+=", line)
            or first in _NOT_A_CHECK
            or first in _KEYWORDS
            or first in functions
            or (first in ("[", "test") and not _FILE_TEST.match(line.split(" ", 1)[-1]))
            # reading the event JSON (the seed's hook parses it with node -e)
            or (first == "node" and " -e " in f" {line} ")
            or _in_a_pipeline(line, source)
        ):
            continue
        return line
    return None


# What may stand between a command and the pipe it feeds: its redirections (``<"$1"``,
# ``2>/dev/null``), which -x does not trace.
_FEEDS_A_PIPE = re.compile(
    r"""(?:[ \t]*\d*[<>]+&?[ \t]*(?:"[^"]*"|'[^']*'|[^\s|;&]+))*[ \t]*\|(?!\|)"""
)


def _in_a_pipeline(line: str, source: str) -> bool:
    """True when every place the script writes ``line`` is a part of a pipeline. ``-x``
    traces a pipeline's commands in the order they happened to start, and one of them run
    alone reads no input: it would be blamed for failing at random (seen under load)."""
    places = [m.start() for m in re.finditer(re.escape(line), source)]
    for at in places:
        before = source[:at].rstrip().removesuffix("\\").rstrip()
        after = source[at + len(line) :]
        fed = before.endswith("|") and not before.endswith("||")
        feeds = _FEEDS_A_PIPE.match(after) is not None
        if not (fed or feeds):
            return False
    return bool(places)
