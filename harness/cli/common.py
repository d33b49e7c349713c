"""Small pieces every command module shares: --json output and the console."""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness import jail
from harness.claude.vocabulary import BOTH, ENGINE_CHOICES
from harness.errors import HarnessError
from harness.ui.console import make_console
from harness.workspace.own import OwnRepository, own_repository

__all__ = [
    "OwnRepository",
    "add_command",
    "add_engine_flag",
    "add_json_flag",
    "add_plugin_dir_flag",
    "add_unconfined_flag",
    "confining",
    "emit_json",
    "lab_command",
    "make_console",
    "own_repository",
    "wants_jail",
]


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def add_command(
    subparsers: Any,
    name: str,
    help: str,
    func: Any,
    json_flag: bool = False,
    *,
    description: str | None = None,
    epilog: str | None = None,
) -> argparse.ArgumentParser:
    """A command's parser running ``func``; its description is its help unless one is given,
    and a given one is shown as written (its paragraphs and lists kept)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=help,
        description=description or help,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter
        if description
        else argparse.HelpFormatter,
    )
    parser.set_defaults(func=func)
    if json_flag:
        add_json_flag(parser)
    return parser


def emit_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")


def lab_command() -> str:
    """How to run this very ``lab`` from the participant's shell: bare ``lab`` when PATH finds
    it, else its full path, so a command we print works where it is printed."""
    on_path = shutil.which("lab")
    entry = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if entry is not None and entry.name == "lab" and entry.exists():
        if on_path and Path(on_path).resolve() == entry.resolve():
            return "lab"
        return shlex.quote(str(entry.absolute()))
    # python -m harness (or an embedding test): any lab on PATH is the participant's.
    return "lab" if on_path else f"{shlex.quote(sys.executable)} -m harness"


def add_engine_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=(*ENGINE_CHOICES, BOTH),
        default=None,
        help="play hook sessions on the emulator or the real Claude Code client; both plays "
        "each on the two and fails where they disagree (default: as each lab says, else the "
        "emulator)",
    )


def engine_fields(args: argparse.Namespace) -> dict[str, Any]:
    """CheckContext fields for a command's --engine (none when it was not given)."""
    engine = getattr(args, "engine", None)
    return {"engine": engine, "engine_forced": True} if engine else {}


def add_unconfined_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--unconfined",
        action="store_true",
        help="run the tool calls (and the real client) as you, outside the jail: with your "
        "HOME, environment and network, free to change any file you can; only for hooks "
        "and commands you trust",
    )


def add_project_flag(parser: argparse.ArgumentParser, help: str) -> None:
    """``--project DIR``: the project the hooks run in (CLAUDE_PROJECT_DIR); ``help`` says
    what the command takes when it is not given."""
    parser.add_argument("--project", type=Path, default=None, metavar="DIR", help=help)


def add_plugin_dir_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plugin-dir",
        dest="plugin_dirs",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="load the plugin in DIR (its hooks/hooks.json, with CLAUDE_PLUGIN_ROOT set to "
        "DIR) as claude --plugin-dir does; repeat it for more plugins",
    )


def plugin_dirs(args: argparse.Namespace) -> list[Path]:
    """The --plugin-dir folders, each checked to be a folder (bad input: the folder and the
    fix, before any copy is made). Like the client's flag, a folder without
    .claude-plugin/plugin.json is taken too: its hooks/hooks.json is what counts."""
    folders = []
    for given in getattr(args, "plugin_dirs", None) or []:
        folder = Path(given).expanduser().resolve()
        if not folder.is_dir():
            raise HarnessError(
                f"--plugin-dir {given}: {folder} is not a folder",
                fix="give the plugin's own folder, the one holding hooks/hooks.json",
            )
        folders.append(folder)
    return folders


def in_copy(folders: list[Path], original: Path, copy: Path) -> list[Path]:
    """``folders`` as the throwaway ``copy`` of ``original`` holds them: a plugin inside the
    project is played from the copy, like the rest of it; one outside stays where it is."""
    return [
        copy / folder.relative_to(original) if folder.is_relative_to(original) else folder
        for folder in folders
    ]


@contextlib.contextmanager
def confining(
    args: argparse.Namespace, play_in: Path, command: str
) -> Iterator[jail.Confinement | None]:
    """The jail ``command``'s tool calls run in, with ``play_in`` its only writable folder;
    None with --unconfined. Refused, with the fix, where bubblewrap cannot make one."""
    if not wants_jail(args, command):
        yield None
        return
    with jail.confined(play_in) as confinement:
        yield confinement


def wants_jail(args: argparse.Namespace, command: str) -> bool:
    """Whether ``command`` confines its tool calls: False with --unconfined; refused, with
    the fix, where bubblewrap cannot make a jail."""
    if args.unconfined:
        return False
    problem = jail.unavailable()
    if problem is not None:
        raise HarnessError(
            f"{command} runs every tool call in a jail (bubblewrap), and {problem}",
            fix=f"{jail.INSTALL_FIX}; or, for hooks and commands you trust, {command} "
            "--unconfined (the tool calls then run as you, with your files, HOME and network)",
        )
    return True
