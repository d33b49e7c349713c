"""The entry point: a reader that goes away early is no crash; a crash leaves a log that
names the versions it happened on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders import REPO_ROOT, run_cli


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


def test_a_crash_log_names_the_versions_beside_the_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug stands in as a command that raises (no input of a user's may crash lab)."""
    import platform
    import tempfile

    from harness import __version__
    from harness.cli import cmd_list

    def buggy(args: object) -> int:
        raise RuntimeError("a bug in the harness")

    monkeypatch.setattr(cmd_list, "cmd_list", buggy)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    done = run_cli("list")

    assert done.code == 3 and "lab crashed unexpectedly" in done.err
    (log,) = tmp_path.glob("hooklab-crash-*.log")
    text = log.read_text()
    head = text.splitlines()[:4]
    assert head[0] == f"hooklab {__version__}"
    assert head[1].startswith(f"python {platform.python_version()} ")
    assert head[2].startswith("git version ")
    assert head[3] == f"platform {platform.platform()}"
    assert "RuntimeError: a bug in the harness" in text


def test_each_command_is_parsed_by_its_own_module_alone() -> None:
    """``lab check`` imports the lab commands' module only: COMMAND_OWNERS names, for every
    command the full parser has, the module that adds it."""
    import argparse
    import importlib

    from harness.cli.main import COMMAND_MODULES, COMMAND_OWNERS

    added: dict[str, str] = {}
    for name in COMMAND_MODULES:
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(name).add_parser(subparsers)
        added.update(dict.fromkeys(subparsers.choices, name))
    assert added == COMMAND_OWNERS
