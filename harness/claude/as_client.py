"""Run one command as the pinned client runs a Stop hook, for a lab check's shell command.

    $HOOKLAB_AS_CLAUDE_CODE stop [--active] FOLDER COMMAND

The hook gets what a real session's Stop hook gets: the event's JSON as 2.1.332 sends it
(session id, a transcript in the client's place, cwd, prompt id, mode, effort,
``stop_hook_active``, the last message), every variable the client adds (client_env.py), and
its working folder. Hook Lab's own variables for the check are taken out first. The hook's
stdout and stderr are passed on, and its exit code is this command's: a check reads them as if
it had run the hook, and the hook cannot tell (walk-n, walk-p: hooks that checked only when
``CLAUDECODE``, ``AI_AGENT`` or ``transcript_path`` was missing passed the hand-fed runs).

The transcript and ``HOME`` sit in a throwaway folder, shaped as ``~/.claude/projects/...``:
Hook Lab never writes the person's own ``~/.claude``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from harness.claude.client_env import project_slug
from harness.claude.emulator import EmulatedSession, fire
from harness.claude.events import Event
from harness.claude.settings import parse_settings

# What a shell check adds for itself (engine/checks/shell.py): no session has them.
CHECK_ONLY = ("HOOKLAB_AS_CLAUDE_CODE", "HOOKLAB_PRISTINE_FIXTURE")
PROMPT = "Finish the task, then stop."
LAST_MESSAGE = "Done."
MODE = "auto"  # 2.1.332's default: a plain `claude` session's hooks read it


def run_stop(folder: Path, command: str, active: bool) -> int:
    """Play a prompt, the model's last message and the stop, with ``command`` the one Stop
    hook; print what it printed and answer its exit code (1 when it timed out)."""
    folder = folder.resolve()
    home = Path(tempfile.mkdtemp(prefix="hooklab-home-"))
    try:
        for name in CHECK_ONLY:
            os.environ.pop(name, None)
        os.environ["HOME"] = str(home)
        projects = home / ".claude" / "projects" / project_slug(folder)
        projects.mkdir(parents=True)
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
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="as_client", description="run a command as Claude Code runs a Stop hook"
    )
    sub = parser.add_subparsers(dest="event", required=True)
    stop = sub.add_parser("stop", help="the command as the session's one Stop hook")
    stop.add_argument("--active", action="store_true", help="stop_hook_active: true")
    stop.add_argument("folder", type=Path, help="the project folder (CLAUDE_PROJECT_DIR, cwd)")
    stop.add_argument("command", help="the hook's command, as settings.json would give it")
    args = parser.parse_args(argv)
    return run_stop(args.folder, args.command, args.active)


if __name__ == "__main__":
    raise SystemExit(main())
