"""A hook played on a copy, seen where the person's session would run it.

Hook Lab plays a person's hook on throwaway copies of the workspace, so that what a check does
never changes their files. A copy has a path of its own (``mktemp -d``: /tmp/tmp.*; Hook Lab's
scratch folder), and a hook that reads ``$PWD``, its cwd or ``CLAUDE_PROJECT_DIR`` can tell it
from the workspace: walk-q's hook checked only under /tmp/tmp.* and let every real stop go.
Likewise a transcript kept anywhere but ``$HOME/.claude/projects/<slug>/`` tells a check's
run from the client's.

:func:`view_argv` runs a command in a mount namespace (bubblewrap) that shows the machine as
it is, except that the copy is bound at the workspace's own path and ``$HOME/.claude`` is a
throwaway folder (the person's own is never read nor written). No path a hook can read tells
the two apart. Unlike harness/jail.py's jail it confines nothing: the hook runs as it would
in the person's session, with their HOME, environment and network.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from harness.jail import bwrap


@functools.cache
def _works(program: str) -> bool:
    """Whether ``program`` can make a mount namespace here (a container may forbid user
    namespaces). Asked once a process."""
    try:
        done = subprocess.run(
            [program, "--dev-bind", "/", "/", "true"],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def available() -> bool:
    """Whether a view can be made here."""
    program = bwrap()
    return program is not None and _works(program)


def _client_binds(at: Path, client_dir: Path) -> list[str]:
    """``client_dir`` seen at ``at`` (the client's folder). Where there is none yet, a mount
    point cannot be made there without writing the person's files: the folder above becomes a
    fresh one holding each of its entries bound back, and the throwaway beside them."""
    if at.is_dir() and not at.is_symlink():
        return ["--bind", str(client_dir), str(at)]
    above = at.parent
    args = ["--tmpfs", str(above)]
    for entry in sorted(os.scandir(above), key=lambda e: e.name):
        path = Path(entry.path)
        if entry.name == at.name:
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        else:
            args += ["--dev-bind", str(path), str(path)]
    return [*args, "--bind", str(client_dir), str(at)]


def view_argv(
    argv: Sequence[str],
    *,
    chdir: Path,
    client_dir: Path,
    client_at: Path,
    copy: Path | None = None,
    workspace: Path | None = None,
) -> list[str]:
    """``argv`` run in ``chdir`` where ``client_dir`` is seen at ``client_at`` (the client's
    folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``) and ``copy`` (when given) at
    ``workspace``. The environment passes through unchanged: the caller sets ``PWD`` to the
    path the hook should read."""
    program = bwrap()
    assert program is not None, "view_argv without bubblewrap: ask available() first"
    args = [program, "--dev-bind", "/", "/", "--die-with-parent"]
    at = Path(os.path.abspath(client_at))
    if at.parent.is_dir() and at.parent != Path("/"):
        args += _client_binds(at, client_dir)
    if copy is not None and workspace is not None and copy.resolve() != workspace.resolve():
        # After the client's binds: a workspace under HOME is shown as the copy, not itself.
        args += ["--bind", str(copy.resolve()), str(workspace.resolve())]
    return [*args, "--chdir", str(chdir), "--", *argv]
