"""Importable builders for tests: run the CLI, run git, write files."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def __repr__(self) -> str:
        return f"CliResult(code={self.code}, out={self.out[-800:]!r}, err={self.err[-800:]!r})"


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(*argv: str, cwd: Path | None = None) -> CliResult:
    """Run ``lab`` in-process, capturing what a user would see."""
    from harness.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with chdir(cwd or Path.cwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return CliResult(code, out.getvalue(), err.getvalue())


def run_lab_process(
    *argv: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``lab`` as a real process (a participant's terminal, without a TTY)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [str(REPO_ROOT / ".venv" / "bin" / "python"), "-m", "harness", *argv],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout
