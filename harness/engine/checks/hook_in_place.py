"""A Stop hook graded on copies must answer in the workspace as it does in a copy of it.

``verify_hook`` grades the participant's hook on a throwaway copy (it breaks and fixes the
artefact there). A hook that tells its workspace from a copy (walk-i, Lab 07 step 2: ``[
"$project" = /home/me/ws ] && exit 0`` after the honest checks) passes every graded case and
never holds a turn where Claude works. Two looks catch it: the hook's text naming the
workspace's own path, and the hook run once in the workspace and once in a copy of it as it
is now (it only reads: a Stop hook is run so by Claude Code itself), whose exit codes must
agree. And since a hook that checks only in copies lets every stop go while the artefact is
fixed, it is also run on a broken copy seen at the workspace's own path, where it must block
as it did in the graded copies (walk-q).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from harness import jail_view
from harness.claude.as_client import WORKSPACE
from harness.claude.session_home import session_home
from harness.engine.throwaway import sandbox_copy

_FIX = 'find the project with "$CLAUDE_PROJECT_DIR" (Claude Code sets it), never by its path'


def _exit_code(project: Path, script: str, timeout: float) -> int | None:
    """The hook's exit code with ``project`` as the Claude Code project, on the stdin a first
    stop of a real session sends (walk-m I3: its transcript where the client keeps one, under
    a HOME of this run's own), with the variables the client gives every hook (None: it did
    not end or could not start)."""
    with session_home() as home:
        stdin = home.stop_stdin(project, active=False)
        env = {
            **os.environ,
            "HOME": str(home.home),
            "CLAUDE_PROJECT_DIR": str(project),
            "CLAUDECODE": "1",
            "CLAUDE_CODE_ENTRYPOINT": "cli",
        }
        try:
            done = subprocess.run(
                [str(project / script)],
                input=json.dumps(stdin, separators=(",", ":")),
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
    return done.returncode


def _naming_line(root: Path, script: str) -> tuple[str, str] | None:
    """(the path, the line) of the first line of the script holding the workspace's path."""
    try:
        lines = (root / script).read_text(errors="replace").splitlines()
    except OSError:
        return None
    for where in dict.fromkeys((str(root), str(root.resolve()))):
        for line in lines:
            if where in line:
                return where, line.strip()
    return None


def in_place_problem(
    root: Path, script: str, timeout: float, break_cmd: str | None = None
) -> tuple[str, str, str] | None:
    """(headline, found, fix) when the hook at ``script`` tells the workspace ``root`` from a
    copy of it; None when it does not. ``break_cmd``: how the grader broke the artefact, to
    look at the hook on a broken copy too."""
    named = _naming_line(root, script)
    if named is not None:
        where, line = named
        return (
            f"{script} names this workspace's own path ({where}): it can answer one way here "
            "and another in the copies lab check grades it on, so its grade says nothing of "
            "your workspace",
            f"{script}: {line}",
            _FIX,
        )
    here = _exit_code(root, script, timeout)
    with sandbox_copy(root) as copy:
        there = _exit_code(copy, script, timeout)
    if here is None or there is None or here == there:
        return None if break_cmd is None else _broken_problem(root, script, timeout, break_cmd)
    return (
        f"{script} exits {here} in your workspace and {there} in a copy of it as it is now: "
        "a Stop hook answers on what it reads, not on where it runs, and lab check grades it "
        "on copies",
        f"in {root}: exit {here}; in a copy at {copy}: exit {there}",
        _FIX,
    )


def _broken_problem(
    root: Path, script: str, timeout: float, break_cmd: str
) -> tuple[str, str, str] | None:
    """The hook blocked the broken artefact in the graded copies; on a copy broken the same
    way, seen at the workspace's own path (harness/jail_view.py: $PWD, its cwd,
    CLAUDE_PROJECT_DIR and the event's cwd name the workspace, its transcript sits under
    ~/.claude/projects), it must block too (walk-q: a hook that checked only in copies)."""
    if not jail_view.available():
        return None
    with sandbox_copy(root) as copy:
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(copy)}
        broke = subprocess.run(
            ["bash", "-c", break_cmd], cwd=copy, env=env, capture_output=True, check=False
        )
        seen = _seen_at(copy, root, script, timeout) if broke.returncode == 0 else None
    if seen is None or seen == 2:
        return None
    return (
        f"{script} blocks when {break_cmd} broke a copy of your workspace, but exits {seen} "
        f"on such a copy seen at your workspace's own path ({root}), with its transcript "
        "where Claude Code keeps one: a Stop hook answers on what it reads, not on where it "
        "runs or where its transcript is",
        f"after {break_cmd}, seen at {root}: exit {seen}; in the graded copies: exit 2",
        _FIX,
    )


def _seen_at(copy: Path, root: Path, script: str, timeout: float) -> int | None:
    """The hook's exit code on ``copy`` seen at ``root``, as the client runs a Stop hook
    (harness/claude/as_client.py); None when it did not end."""
    command = f'"$CLAUDE_PROJECT_DIR"/{shlex.quote(script)}'  # as the grader registers it
    argv = [sys.executable, "-m", "harness.claude.as_client", "stop", str(copy), command]
    env = {**os.environ, WORKSPACE: str(root)}
    try:
        done = subprocess.run(
            argv, cwd=copy, env=env, capture_output=True, timeout=timeout + 60, check=False
        )
    except subprocess.TimeoutExpired:
        return None
    return done.returncode
