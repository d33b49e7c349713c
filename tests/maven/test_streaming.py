"""run_streaming's exit codes, above all the timeout of a process that prints nothing."""

from __future__ import annotations

import sys
from pathlib import Path

from harness.maven.streaming import run_streaming


def test_a_silent_process_is_stopped_at_its_timeout(tmp_path: Path) -> None:
    # A hung Maven prints nothing; the timeout must still stop it, not wait for a line.
    run = run_streaming(["bash", "-c", "sleep 60; echo late"], cwd=tmp_path, timeout=1)
    assert run.returncode == 124
    assert "late" not in run.output
    assert run.output.endswith("[stopped after 1 s]")


def test_a_process_that_ends_in_time_keeps_its_exit_code_and_output(tmp_path: Path) -> None:
    lines: list[str] = []
    run = run_streaming(
        [sys.executable, "-c", "print('one'); print('two'); raise SystemExit(3)"],
        cwd=tmp_path,
        on_output=lines.append,
        timeout=60,
    )
    assert run.returncode == 3
    assert lines == ["one", "two"]
    assert run.output == "one\ntwo"


def test_a_missing_program_is_127(tmp_path: Path) -> None:
    run = run_streaming(["hooklab-no-such-program"], cwd=tmp_path, timeout=5)
    assert run.returncode == 127
