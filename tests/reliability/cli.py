"""The real ``lab`` CLI as a process (``lab``: tests/builders.py ``run_lab``, the suite's one
runner), a project for it to run in, and what a clean user-facing error looks like."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.builders import run_lab as lab

__all__ = ["assert_clean_error", "lab", "project"]


def project(root: Path, settings: object, local: object | None = None) -> Path:
    """A project whose .claude/settings.json (and settings.local.json, when given) hold
    ``settings`` (``local``): text as it is, anything else as JSON."""
    (root / ".claude").mkdir(parents=True)
    for name, data in (("settings.json", settings), ("settings.local.json", local)):
        if data is not None:
            text = data if isinstance(data, str) else json.dumps(data)
            (root / ".claude" / name).write_text(text)
    return root


def assert_clean_error(done: subprocess.CompletedProcess[str], *names: str) -> None:
    """Exit 1, no traceback, no crash report, and every one of ``names`` in what was said."""
    __tracebackhide__ = True  # a failure points at the test that called it
    said = done.stdout + done.stderr
    assert done.returncode == 1, f"exit {done.returncode}:\n{said[-3000:]}"
    assert "Traceback" not in said and "crashed unexpectedly" not in said, said[-3000:]
    for name in names:
        assert name in said, f"{name!r} not named in:\n{said[-3000:]}"
