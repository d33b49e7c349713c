"""Ctrl-C in ``lab verify-hook``: the grader breaks and fixes the artefact in the workspace
itself, so a stop part-way says what it left and how to mend it. Real: the CLI in a process of
its own, a real SIGINT, the workspace's files."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time

from harness.workspace import Workspace
from tests.builders import REPO_ROOT


def test_ctrl_c_in_verify_hook_says_what_it_left(workspace: Workspace) -> None:
    """The grader breaks and fixes the artefact in the workspace itself: stopped part-way, it
    says the reports are gone and the command that brings them back."""
    shutil.copyfile(
        REPO_ROOT / "labs/07-own-stop-hook/solution/check-before-stop.sh",
        workspace.root / "scripts-hook.sh",
    )
    (workspace.root / "scripts-hook.sh").chmod(0o755)
    reports = workspace.root / "target" / "surefire-reports"
    reports.mkdir(parents=True, exist_ok=True)
    (reports / "TEST-x.xml").write_text("<testsuite/>")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness",
            "verify-hook",
            "scripts-hook.sh",
            "--break",
            "rm -rf target/surefire-reports",
            "--fix",
            "sleep 30",
        ],
        cwd=workspace.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while (reports / "TEST-x.xml").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)  # the break ran; the fix (a long sleep) is under way
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    said = " ".join(err.split())
    assert proc.returncode == 130, err
    assert (
        "lab verify-hook stopped part-way: it runs 'rm -rf target/surefire-reports' and then"
        in said
    )
    assert "target/surefire-reports has no report now" in said
    assert "fix: sleep 30 (or run lab verify-hook again to its end)" in said
