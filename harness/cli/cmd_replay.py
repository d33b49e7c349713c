"""``lab replay [SESSION.jsonl | --latest]``: play a recorded Claude Code session's tool calls
against the workspace's hooks as they are now, and compare every verdict."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.claude.recorded import config_root, find_sessions, read_session
from harness.claude.settings_check import check_settings
from harness.claude.vocabulary import BOTH, Engine
from harness.cli.common import (
    add_command,
    add_plugin_dir_flag,
    add_unconfined_flag,
    emit_json,
    in_copy,
    make_console,
    plugin_dirs,
    wants_jail,
)
from harness.engine.session_replay import replay, replay_engines
from harness.errors import HarnessError
from harness.jail import CONFINED, UNCONFINED
from harness.workspace import Workspace
from harness.workspace.own import own_repository, repository_root

_DESCRIPTION = """\
Replay a session Claude Code recorded (a transcript under ~/.claude/projects/, or under
$CLAUDE_CONFIG_DIR/projects/) against this workspace's hooks as they are now. The replay runs
in a throwaway copy of the workspace: its files as at the session's start (--from REV, default
HEAD), its .claude/ (hooks and settings) and the hook scripts the settings run from elsewhere
(scripts/...) as they are on disk now, committed or not; each of those that differs from the
start is named. Outside a Hook Lab workspace it replays the sessions of the git repository you
are in (one with .claude/settings.json, no lab init needed), in a throwaway copy of it.

Confined by default, on both engines (the real client runs inside too): every replayed tool
call runs in a bubblewrap jail where the copy is the only writable folder, HOME and TMPDIR are
throwaway folders, there is no network, and the environment is an allow-list. Without
bubblewrap it refuses; --unconfined replays the calls as you, with your files, HOME,
environment and network.

Each tool call and each stop gets a row: the recorded verdict (ran, refused by which hook,
ran and reported by which hook, stop blocked or allowed) beside the replayed one. The first
divergence is named; exit status 1 when any verdict differs, or when nothing was compared
(every row not played or without a recorded verdict: the replay tested no hook).

--engine emulator (default) plays the calls as scenario steps on Hook Lab's emulator;
claude-code plays them on the real, pinned client, the scripted model answering with the
recorded turns; both does the two. Every tool call gets a row. Edit, Write, Bash, Read,
Agent, WebFetch (which fails offline, as on the client), WebSearch and MCP tools (both answer
their recorded result; nothing is searched or sent) are played, and so are calls of tools the
pinned client does not offer (Grep, Glob, MultiEdit: refused before any hook, on both engines
as on the client); a row whose call no hook ran for says so. The client's other tools
(AskUserQuestion, Skill, ...) are not played: their row says so, and whether a hook selects
them.

--plugin-dir DIR (repeatable) loads the plugin in DIR as claude --plugin-dir does (its
hooks/hooks.json, ${CLAUDE_PLUGIN_ROOT} set to DIR); a repository that is itself a plugin, and
the plugins its settings enable from a marketplace in it, are loaded too.

The hooks and rules of the settings that the pinned client ignores or cannot run are named
first (lab doctor names the same); --json has them as settings_warnings [{file, path, said,
fix, client}]."""


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "replay",
        "replay a recorded Claude Code session against the workspace's hooks",
        run,
        description=_DESCRIPTION,
    )
    parser.add_argument("session", type=Path, nargs="?", metavar="SESSION.jsonl")
    parser.add_argument(
        "--latest", action="store_true", help="this workspace's newest recorded session"
    )
    parser.add_argument(
        "--engine",
        choices=(Engine.EMULATOR, Engine.CLAUDE_CODE, BOTH),
        default=Engine.EMULATOR,
        help="emulator (default), claude-code (the real client) or both",
    )
    parser.add_argument(
        "--from",
        dest="start",
        metavar="REV",
        default=None,
        help="the commit the session started from (default HEAD)",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    add_plugin_dir_flag(parser)
    add_unconfined_flag(parser)


def _transcript(args: argparse.Namespace, root: Path) -> Path:
    if args.session is not None and args.latest:
        raise HarnessError("give a session file or --latest, not both", fix="lab replay --latest")
    if args.session is not None:
        return Path(args.session)
    if not args.latest:
        raise HarnessError(
            "which session? give SESSION.jsonl or --latest",
            fix="lab replay --latest replays this workspace's newest session",
        )
    found = find_sessions(root)
    if not found:
        raise HarnessError(
            f"no Claude Code session of {root} under {config_root() / 'projects'}",
            fix=f"start claude in {root} and ask it something, or name the transcript",
        )
    return found[0].path


def run(args: argparse.Namespace) -> int:
    plugins = plugin_dirs(args)
    found = repository_root(Path.cwd())
    with own_repository(found[0] if found else Path.cwd(), "lab replay") as own:
        if own is not None:
            print(own.notice("lab replay"), file=sys.stderr)
            # Sessions are found by the folder claude ran in; they are played in the copy.
            args.plugin_dirs = in_copy(plugins, own.root, own.copy)
            return _replay(args, own.root, own.copy)
        root = Workspace.find(Path.cwd()).root
        args.plugin_dirs = plugins
        return _replay(args, root, root)


def _replay(args: argparse.Namespace, root: Path, play_in: Path) -> int:
    """The session of ``root`` (the one named, or its newest) replayed in ``play_in``."""
    timeline = read_session(_transcript(args, root))
    engines = replay_engines(args.engine)
    # The hooks as they are now, which the replay plays: those the client would never run.
    unfired = check_settings(play_in, unreadable=False)
    confine = wants_jail(args, "lab replay")
    options = {"start": args.start, "confine": confine, "plugin_dirs": args.plugin_dirs}
    if args.json:
        report = replay(timeline, play_in, engines=engines, **options)
        emit_json(
            {
                **report.to_json(),
                "confined": confine,
                "settings_warnings": [w.to_json() for w in unfired],
            }
        )
    else:
        from harness.ui.replay_view import render_replay, replay_status
        from harness.ui.settings_view import print_settings_warnings

        console = make_console()
        print_settings_warnings(unfired)
        calls = len(timeline.tool_calls) + len(timeline.stops)
        with replay_status(console, f"replaying {calls} calls and stops on {args.engine}"):
            report = replay(timeline, play_in, engines=engines, **options)
        render_replay(console, report)
        console.print(CONFINED if confine else UNCONFINED)
    if not report.agrees:
        if not args.json:
            print("replay: a verdict differs from the recorded one", file=sys.stderr)
        return 1
    if not report.compared:  # a replay that compared nothing passed nothing either
        print(
            "replay: nothing was compared (every row was not played or has no recorded "
            "verdict); see each row's note",
            file=sys.stderr,
        )
        return 1
    return 0
