"""What a graded Stop hook is given to read: a real session's stdin, its transcript where the
client keeps it, under a HOME of the grading run's own.

A hook that judges only when it is graded (walk-m I3: only when ``transcript_path`` is empty or
under /dev/shm, where the grader kept its transcripts) passed every graded run and let every
real stop go. The client (2.1.332) writes a session's transcript to
``$HOME/.claude/projects/<project path, each character not a letter or digit a ->/<session
id>.jsonl`` and sends a Stop hook ``session_id``, ``transcript_path``, ``cwd``, ``prompt_id``,
``permission_mode``, ``effort``, ``hook_event_name``, ``stop_hook_active``,
``last_assistant_message``, ``background_tasks`` and ``session_crons`` (seen with a hook that
logged its stdin). The graded runs get the same, under a throwaway HOME in the system's temp
folder (never the person's own ~/.claude), and that HOME is theirs. So do the replays of a
recorded session and the sessions a check plays (:func:`client_layout`): a transcript kept
anywhere else (/dev/shm/hooklab-session-*/) tells a hook it is not in a real session.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.jail import Confinement
from harness.paths import cache_home

EFFORT = "medium"  # what 2.1.332 sends when no effort was chosen


def project_slug(project: Path) -> str:
    """The client's folder name for a project's transcripts."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(project))


@dataclass(frozen=True)
class SessionHome:
    """A throwaway HOME laid out as the client's: ``.claude/projects/<slug>/``."""

    home: Path

    @property
    def config_dir(self) -> Path:
        return self.home / ".claude"

    def transcripts(self, project: Path) -> Path:
        """The folder the client keeps ``project``'s transcripts in (made)."""
        folder = self.config_dir / "projects" / project_slug(project)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def stop_stdin(
        self, project: Path, *, active: bool, last_message: str = "Done."
    ) -> dict[str, Any]:
        """A first (or, ``active``, a later) stop of a new session in ``project``, as the
        client sends it; its transcript exists (a hook may read it), empty."""
        session_id = str(uuid.uuid4())
        transcript = self.transcripts(project) / f"{session_id}.jsonl"
        transcript.touch()
        return {
            "session_id": session_id,
            "transcript_path": str(transcript),
            "cwd": str(project),
            "prompt_id": str(uuid.uuid4()),
            "permission_mode": "default",
            "effort": {"level": EFFORT},
            "hook_event_name": "Stop",
            "stop_hook_active": active,
            "last_assistant_message": last_message,
            "background_tasks": [],
            "session_crons": [],
        }


@contextmanager
def session_home() -> Iterator[SessionHome]:
    """A throwaway HOME in the system's temp folder (not Hook Lab's scratch folder, whose
    place a hook could tell), removed after."""
    home = Path(tempfile.mkdtemp(prefix="home-")).resolve()
    try:
        yield SessionHome(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def client_layout(
    home: SessionHome, project: Path, *, real_client: bool, confinement: Confinement | None
) -> dict[str, Any]:
    """The options of a session in ``project`` whose transcript is where the client keeps it,
    ``$HOME/.claude/projects/<slug>/<session>.jsonl``, under the HOME its hooks see: the real
    client's own layout (its HOME is the folder above its config folder, harness/claude/client/
    launch.py), the jail's HOME when the session is confined, else ``home``, pointing back at
    what the person's tools still need, as the real client's launch does."""
    if confinement is not None:  # the jail's HOME is the one its hooks see
        home = SessionHome(confinement.home)
        return {"transcript_dir": home.config_dir if real_client else home.transcripts(project)}
    if real_client:
        return {"transcript_dir": home.config_dir}
    return {"env": _pointers(home.home), "transcript_dir": home.transcripts(project)}


def _pointers(home: Path) -> dict[str, str]:
    """HOME moved to ``home``, with the person's git and docker configuration and Hook Lab's
    cache (./mvnw's class-data archive) still found where they are."""
    moved = {"HOME": str(home)}
    if "HOOKLAB_CACHE" not in os.environ:
        moved["HOOKLAB_CACHE"] = str(cache_home())
    real = Path(os.environ.get("HOME") or Path.home())
    configs = (real / ".gitconfig", real / ".config" / "git" / "config")
    git_config = next((path for path in configs if path.is_file()), None)
    if "GIT_CONFIG_GLOBAL" not in os.environ and git_config is not None:
        moved["GIT_CONFIG_GLOBAL"] = str(git_config)
    if "DOCKER_CONFIG" not in os.environ and (real / ".docker").is_dir():
        moved["DOCKER_CONFIG"] = str(real / ".docker")
    return moved
