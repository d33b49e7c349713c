"""The variables the pinned client puts in every hook's environment, so that a hook Hook Lab
runs (the emulator's, a check's) cannot tell it from a real session by them.

Observed on 2.1.332, plain ``claude`` in a terminal, a Stop and a PreToolUse hook that wrote
``env`` (tests/claude/test_client_env.py keeps the names equal to a live run). A hook that
does its check only when ``CLAUDECODE`` is unset (walk-n) or ``AI_AGENT`` is (walk-p) did
nothing in every real session while passing every run that lacked them.
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from pathlib import Path

from harness.claude.client.install import PINNED_VERSION

EFFORT = "medium"  # the client's default effort; a hook sees it as CLAUDE_EFFORT
_NOT_A_NAME = re.compile(r"[^A-Za-z0-9]")


def project_slug(folder: Path) -> str:
    """The folder's name among the client's projects: every character that is not a letter
    or a digit becomes ``-`` (``/tmp/obs/proj`` → ``-tmp-obs-proj``), as 2.1.332 names the
    folder under ``~/.claude/projects`` and under its temp folder."""
    return _NOT_A_NAME.sub("-", str(folder))


def client_hook_variables(
    project_dir: Path, session_id: str, effort: str = EFFORT
) -> dict[str, str]:
    """What the client adds to a hook's environment, with values shaped as its own: the
    session's id, its process (this one stands in), its notes folder and messaging socket
    (named, never made: no hook seen so far opens them). The token is made up per call."""
    pid = str(os.getpid())
    notes = Path(tempfile.gettempdir()) / f"claude-{os.getuid()}" / project_slug(project_dir)
    return {
        "AI_AGENT": f"claude-code_{PINNED_VERSION.replace('.', '-')}_harness",
        "CLAUDECODE": "1",
        "CLAUDE_CODE_CHILD_NOTES_DIR": str(notes / session_id / "started"),
        "CLAUDE_CODE_CHILD_SESSION": "1",
        "CLAUDE_CODE_ENTRYPOINT": "cli",
        "CLAUDE_CODE_MESSAGING_SOCKET": f"/tmp/cc-socks/{pid}.sock",
        "CLAUDE_CODE_MESSAGING_TOKEN": secrets.token_hex(16),
        "CLAUDE_CODE_SESSION_ATTENDED": "1",
        "CLAUDE_CODE_SESSION_ID": session_id,
        "CLAUDE_EFFORT": effort,
        "CLAUDE_PID": pid,
        "CLAUDE_PROJECT_DIR": str(project_dir),
        "COREPACK_ENABLE_AUTO_PIN": "0",
        "NoDefaultCurrentDirectoryInExePath": "1",
    }
