"""The entry point: a reader that goes away early is no crash."""

from __future__ import annotations

import subprocess
import sys

from tests.builders import REPO_ROOT


def test_a_reader_that_goes_away_is_no_crash() -> None:
    # `lab list --json | head -1`: the reader closes the pipe before lab writes (lab needs a
    # few tenths of a second to start; the pipe is closed at once).
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "list", "--json"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait(timeout=60) == 1
    assert "crashed" not in stderr and "Traceback" not in stderr, stderr
