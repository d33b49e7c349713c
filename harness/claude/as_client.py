"""Run one command as the pinned client runs a Stop hook, for a lab check's shell command.

    $HOOKLAB_AS_CLAUDE_CODE stop [--active] FOLDER COMMAND

The hook gets what a real session's Stop hook gets: the event's JSON as 2.1.332 sends it
(session id, a transcript in the client's place, cwd, prompt id, mode, effort,
``stop_hook_active``, the last message), every variable the client adds (client_env.py), and
its working folder. Hook Lab's own variables for the check are taken out first. The hook's
stdout and stderr are passed on, and its exit code is this command's: a check reads them as if
it had run the hook, and the hook cannot tell (walk-n, walk-p: hooks that checked only when
``CLAUDECODE``, ``AI_AGENT`` or ``transcript_path`` was missing passed the hand-fed runs).

The hook runs where the person's session would run it (harness/jail_view.py): the copy a
check made (``mktemp -d``) is seen at the workspace's own path, which ``$PWD``, the cwd,
``CLAUDE_PROJECT_DIR`` and the event's ``cwd`` all name, and the transcript sits at
``$HOME/.claude/projects/<slug>/<session>.jsonl`` under the person's own HOME, where
``~/.claude`` is a throwaway folder: Hook Lab never reads nor writes the person's own
(walk-q: a hook that checked only under /tmp/tmp.* passed and did nothing in a real session).
Where bubblewrap cannot make that view, HOME is a throwaway folder shaped the same way.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import jail_view
from harness.claude.client_env import project_slug
from harness.claude.emulator import EmulatedSession, fire
from harness.claude.events import Event
from harness.claude.recorded.finder import config_root
from harness.claude.settings import parse_settings

# What a shell check adds for itself (engine/checks/shell.py): no session has them.
WORKSPACE = "HOOKLAB_WORKSPACE"  # the workspace a copy stands for
CHECK_ONLY = ("HOOKLAB_AS_CLAUDE_CODE", "HOOKLAB_PRISTINE_FIXTURE", WORKSPACE)
PROMPT = "Finish the task, then stop."
LAST_MESSAGE = "Done."
MODE = "auto"  # 2.1.332's default: a plain `claude` session's hooks read it


def run_stop(folder: Path, command: str, active: bool) -> int:
    """Play a prompt, the model's last message and the stop, with ``command`` the one Stop
    hook; print what it printed and answer its exit code (1 when it timed out). The play
    runs in a view where ``folder`` is seen at the workspace's path (see the module)."""
    folder = folder.resolve()
    workspace = Path(os.environ.get(WORKSPACE) or folder)
    for name in CHECK_ONLY:
        os.environ.pop(name, None)
    if not jail_view.available():
        return _with_home(folder, command, active)
    client_dir = Path(tempfile.mkdtemp(prefix="hooklab-client-"))
    try:
        argv = [sys.executable, "-I", "-m", "harness.claude.as_client", "stop", "--seen"]
        argv += [*(["--active"] if active else []), str(workspace), command]
        seen = jail_view.view_argv(
            argv,
            chdir=workspace,
            client_dir=client_dir,
            client_at=config_root(),
            copy=folder,
            workspace=workspace,
        )
        env = {**os.environ, "PWD": str(workspace)}
        return subprocess.run(seen, env=env, check=False).returncode
    finally:
        shutil.rmtree(client_dir, ignore_errors=True)


def _with_home(folder: Path, command: str, active: bool) -> int:
    """No view: the play in ``folder`` itself, under a throwaway HOME shaped as the client's."""
    home = Path(tempfile.mkdtemp(prefix="hooklab-home-"))
    try:
        os.environ["HOME"] = str(home)
        os.environ.pop("CLAUDE_CONFIG_DIR", None)
        return _play(folder, command, active)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _play(folder: Path, command: str, active: bool) -> int:
    """The stop, its transcript where the client keeps it under ``$HOME``."""
    projects = config_root() / "projects" / project_slug(folder)
    projects.mkdir(parents=True, exist_ok=True)
    settings = parse_settings(
        {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}},
        "the check's Stop hook",
    )
    with EmulatedSession(
        folder, settings, transcript_dir=projects, permission_mode=MODE
    ) as session:
        session.prompt(PROMPT)
        session.transcript.assistant_text(LAST_MESSAGE)
        out = fire(
            session, Event.STOP, stop_hook_active=active, last_assistant_message=LAST_MESSAGE
        )
    run = out.runs[0]
    for stream, text in ((sys.stdout, run.stdout), (sys.stderr, run.stderr)):
        stream.write(text if not text or text.endswith("\n") else text + "\n")
    return 1 if run.exit_code is None else run.exit_code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="as_client", description="run a command as Claude Code runs a Stop hook"
    )
    sub = parser.add_subparsers(dest="event", required=True)
    stop = sub.add_parser("stop", help="the command as the session's one Stop hook")
    stop.add_argument("--active", action="store_true", help="stop_hook_active: true")
    # Inside the view already (run_stop started it): play in the folder as it is seen there.
    stop.add_argument("--seen", action="store_true", help=argparse.SUPPRESS)
    stop.add_argument("folder", type=Path, help="the project folder (CLAUDE_PROJECT_DIR, cwd)")
    stop.add_argument("command", help="the hook's command, as settings.json would give it")
    args = parser.parse_args(argv)
    if args.seen:
        return _play(args.folder.resolve(), args.command, args.active)
    return run_stop(args.folder, args.command, args.active)


if __name__ == "__main__":
    raise SystemExit(main())
