"""Entry point of ``lab``: parse, dispatch to one command module, map errors to exit codes.

Exit codes: 0 ok, 1 user-facing error or failed check, 2 usage, 130 interrupted,
3 unexpected crash (with the traceback written to a log file, not the terminal).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import traceback
from collections.abc import Sequence
from types import ModuleType

from harness import __version__
from harness.errors import HarnessError

# Each module defines ``add_parser(subparsers)``; the parser it adds sets ``func`` to a
# callable taking the parsed arguments and returning an exit status.
COMMAND_MODULES = [
    "harness.cli.workspace_cmds",
    "harness.cli.doctor",
    "harness.cli.simulate",
    "harness.cli.lab_cmds",
    "harness.cli.verify_hook",
    "harness.cli.trainer_cmds",
]


def _load(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:  # a command module not written yet must not break the others
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lab",
        description="Hook Lab: learn Claude Code guard hooks on a real Maven project.",
    )
    parser.add_argument("--version", action="version", version=f"hooklab {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = _load(name)
        if module is not None:
            module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except HarnessError as exc:
        from harness.ui.console import print_error

        print_error(exc.message, exc.fix)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception:
        fd, log = tempfile.mkstemp(prefix="hooklab-crash-", suffix=".log")
        with os.fdopen(fd, "w") as fh:
            traceback.print_exc(file=fh)
        print(f"lab crashed unexpectedly; the traceback is in {log}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
