"""A command lab prints works where it is printed: `lab init`'s "Next:" line, run as is."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from harness.engine.throwaway import path_without
from tests.builders import REPO_ROOT

LAB = REPO_ROOT / ".venv" / "bin" / "lab"


def next_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("Next:")).removeprefix("Next:")


@pytest.mark.maven
@pytest.mark.parametrize("on_path", [True, False], ids=["lab-on-path", "lab-not-on-path"])
def test_the_next_command_of_init_runs_as_printed(tmp_path: Path, on_path: bool) -> None:
    with path_without(["lab"]) as bare_path:
        path = f"{LAB.parent}:{bare_path}" if on_path else bare_path
        env = dict(os.environ, PATH=path, NO_COLOR="1", COLUMNS="60")
        init = subprocess.run(
            [str(LAB), "init", "my ws"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert init.returncode == 0, init.stderr
        command = next_line(init.stdout).strip()
        # The guide's order: doctor first, then list and start 1 (not a Maven run of its own).
        assert command.endswith("lab doctor")
        assert re.search(r"^then +(\S*lab) list +and +\1 start 1$", init.stdout, re.MULTILINE)
        assert command.startswith("cd 'my ws' && ")
        if not on_path:
            assert str(LAB) in command and "bootstrap.sh" in init.stdout
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Ready for the workshop." in done.stdout
