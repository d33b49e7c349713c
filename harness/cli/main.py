"""Entry point of ``lab``: parse, dispatch to one command module, map errors to exit codes.

Exit codes: 0 ok, 1 user-facing error or failed check, 2 usage, 130 interrupted,
3 unexpected crash (with the traceback written to a log file, not the terminal).
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import os
import re
import sys
import tempfile
import traceback
from collections.abc import Sequence
from typing import NoReturn

from harness import __version__
from harness.errors import HarnessError

# One module per command, named for it: harness/cli/cmd_<command>.py defines
# ``add_parser(subparsers)``; the parser it adds sets ``func`` to a callable taking the parsed
# arguments and returning an exit status. A small family shares one module (``lab dev
# check|merge``, ``lab backups`` and ``lab restore``; ``lab trainer`` adds its subcommands
# from cmd_trainer_*.py).
COMMAND_OWNERS = {
    **{
        name: f"harness.cli.cmd_{name.replace('-', '_')}"
        for name in (
            # the workspace itself
            "init",
            "fixtures",
            "sensors",
            "backups",
            "doctor",
            # a lab, step by step
            "list",
            "start",
            "status",
            "check",
            "watch",
            "hint",
            "next",
            "goto",
            "reset",
            "solve",
            # a hook on its own, a scenario, a recorded session
            "verify-hook",
            "simulate",
            "replay",
            # the lab author's and the trainer's
            "demo",
            "dev",
            "submit",
            "trainer",
        )
    },
    "restore": "harness.cli.cmd_backups",
}
# Which module adds each command: ``lab check`` imports its own module only, not the
# trainer's or the grader's (importing all of them took a second of a loaded laptop's start,
# before the command could say a word). tests/cli/test_main.py keeps this equal to the modules.
COMMAND_MODULES = list(dict.fromkeys(COMMAND_OWNERS.values()))


# How argparse words a command it does not know (Python 3.11: "invalid choice: 'x' (choose
# from 'a', 'b')"): its list of every command, on one line the terminal wraps mid-word.
_INVALID_CHOICE = re.compile(r"argument COMMAND: invalid choice: '(.*)' \(choose from (.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse, with a short error for an unknown command: the closest one, or for ``back``
    how to go back; the list of all is ``lab --help``'s."""

    def error(self, message: str) -> NoReturn:
        unknown = _INVALID_CHOICE.match(message)
        if unknown is None:
            super().error(message)
        word, known = unknown[1], re.findall(r"'([^']*)'", unknown[2])
        lines = [f"{self.prog}: error: there is no command {self.prog} {word}"]
        close = difflib.get_close_matches(word, known, n=1)
        if self.prog == "lab" and word in ("back", "previous", "prev", "undo"):
            # Not "did you mean: lab backups": going back is a step's, not a backup's.
            lines.append("  to go back: lab goto N (jump to step N of this lab)")
            lines.append("          or: lab reset N (put step N back to its start)")
        elif close:
            lines.append(f"  did you mean: {self.prog} {close[0]}")
        lines.append(f"  the commands: {self.prog} --help")
        self.exit(2, "\n".join(lines) + "\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with ``command`` (a known one) of its module only."""
    parser = Parser(
        prog="lab",
        description="Hook Lab: learn Claude Code guard hooks on a real project (a fixture: "
        "the PetClinic on Maven, or a small Node project; lab fixtures lists them).",
    )
    parser.add_argument("--version", action="version", version=f"hooklab {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    owner = COMMAND_OWNERS.get(command or "")
    for name in [owner] if owner else COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return parser


# The disk, not the harness: the user can fix these, so they are errors, not crashes.
STORAGE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS}


def main(argv: Sequence[str] | None = None) -> int:
    from harness.cli.starting import starting

    words = list(sys.argv[1:] if argv is None else argv)
    try:
        with starting(words):  # the imports take a second on a loaded laptop: not in silence
            parser = build_parser(words[0] if words else None)
        # Outside the spinner: argparse prints help, usage and errors itself, on a line the
        # spinner must already have left (the help began after its frame otherwise).
        args = parser.parse_args(words)
    except KeyboardInterrupt:  # Ctrl-C while starting: nothing was done yet
        print("interrupted", file=sys.stderr)
        return 130
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    # Cleanup that fails after the real error (dulwich closing a lock file on a full disk)
    # would print a traceback on the way out; the error that counts is reported below.
    sys.unraisablehook = lambda unraisable: None
    try:
        return int(args.func(args))
    except HarnessError as exc:
        from harness.ui.console import print_error

        print_error(exc.message, exc.fix)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (lab list --json | head): nothing is wrong, nothing more to say.
        # Stdout goes to /dev/null so the interpreter's own flush at exit cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        if exc.errno not in STORAGE_ERRORS:
            return _crashed()
        from harness.ui.console import print_error

        where = f" ({exc.filename})" if exc.filename else ""
        print_error(
            f"{exc.strerror}{where}",
            "free some space on the disk that holds the workspace (df -h .), then run the "
            "command again; a command that changes your files backs them up first "
            "(lab backups)",
        )
        return 1
    except Exception:
        return _crashed()


def versions() -> list[str]:
    """What a crash report needs beside the traceback: which Hook Lab, Python, git and
    platform it happened on (git's own version, as the workspace's commands use it)."""
    import platform

    from harness import proc

    git = proc.run(["git", "--version"], timeout=10)
    return [
        f"hooklab {__version__}",
        f"python {platform.python_version()} ({sys.executable})",
        git.stdout.strip() if git.ok else f"git: {git.stderr.strip() or 'not found'}",
        f"platform {platform.platform()}",
    ]


def _crashed() -> int:
    fd, log = tempfile.mkstemp(prefix="hooklab-crash-", suffix=".log")
    with os.fdopen(fd, "w") as fh:
        # A failure to tell the versions must not lose the traceback.
        try:
            said = versions()
        except Exception as exc:
            said = [f"(the versions could not be read: {type(exc).__name__}: {exc})"]
        fh.write("\n".join([*said, "", ""]))
        traceback.print_exc(file=fh)
    print(f"lab crashed unexpectedly; the traceback is in {log}", file=sys.stderr)
    return 3


if __name__ == "__main__":
    sys.exit(main())
