"""A Stop hook graded on copies must answer in the workspace as it does in a copy of it.

``verify_hook`` grades the participant's hook on a throwaway copy (it breaks and fixes the
artefact there). A hook that tells its workspace from a copy (walk-i, Lab 07 step 2: ``[
"$project" = /home/me/ws ] && exit 0`` after the honest checks) passes every graded case and
never holds a turn where Claude works. Two looks catch it: the hook's text naming the
workspace's own path, and the hook run once in the workspace and once in a copy of it as it
is now (it only reads: a Stop hook is run so by Claude Code itself), whose exit codes must
agree.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

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


def in_place_problem(root: Path, script: str, timeout: float) -> tuple[str, str, str] | None:
    """(headline, found, fix) when the hook at ``script`` tells the workspace ``root`` from a
    copy of it; None when it does not."""
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
        return None
    return (
        f"{script} exits {here} in your workspace and {there} in a copy of it as it is now: "
        "a Stop hook answers on what it reads, not on where it runs, and lab check grades it "
        "on copies",
        f"in {root}: exit {here}; in a copy at {copy}: exit {there}",
        _FIX,
    )
