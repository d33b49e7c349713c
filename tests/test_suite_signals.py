"""The suite itself: started as a background job (SIGINT ignored), the processes its tests start
still take a Ctrl-C, as a participant's terminal would deliver it."""

from __future__ import annotations

import subprocess
import sys

from tests.builders import REPO_ROOT

# Loads conftest.py in a process that ignores SIGINT, as `pytest &` from a script would, then
# reads a child's ignored-signal mask from the kernel (bit 1 is SIGINT, signal 2).
PROBE = """
import signal, subprocess
signal.signal(signal.SIGINT, signal.SIG_IGN)
import tests.conftest
child = subprocess.run(["grep", "^SigIgn:", "/proc/self/status"], capture_output=True, text=True)
print(int(child.stdout.split()[1], 16) & 2)
"""


def test_a_child_of_a_suite_started_with_sigint_ignored_takes_sigint() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "0", done.stdout + done.stderr
