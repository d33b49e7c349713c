"""What a check or an action gets to work with: the workspace, the lab's folder, the Maven
backend and callbacks for the live view. Knows nothing of rich."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.claude.vocabulary import Engine

if TYPE_CHECKING:
    from harness.engine.progress import ReportsSeen
    from harness.engine.stepview import StepView
from harness.errors import HarnessError
from harness.maven import MavenBackend, get_backend
from harness.paths import inside
from harness.workspace import Workspace

Sink = Callable[[str], None]
EventSink = Callable[["StepView"], None]


def _ignore(_: Any) -> None:
    return None


@dataclass(frozen=True)
class PassedClaim:
    """What a passed live step recorded: the session it passed on, found again by its id and
    the digest of its timeline, and the commit that keeps its evidence."""

    session_id: str
    digest: str | None = None
    evidence_commit: str | None = None


@dataclass(frozen=True)
class StepState:
    """Where the step being checked stands: set by the runner for one run of its checks."""

    rebuild_evidence: bool = False  # lab verify: the evidence is built again, quietly
    entered_at: float | None = None  # when the participant reached the step (epoch seconds)
    start_ref: str | None = None  # the git ref of the workspace as the step began
    passed: PassedClaim | None = None  # re-verifying: the claim the step passed with
    sessions: int = 1  # hook sessions the step plays: with several, each row says whose it is
    quiz_tries: int = 0  # complete quiz answers checked on this step before (lab check)
    quiz_tried_at: float | None = None  # when the last of them was checked
    # The sensor runs checks read before, from the progress record (the runner saves what a
    # check adds); None outside a runner: nothing is remembered.
    reports_seen: ReportsSeen | None = None


@dataclass
class CheckContext:
    workspace: Workspace
    lab_dir: Path
    backend_name: str | None = None  # None: the workspace's own backend
    on_output: Sink = _ignore  # Maven's console, line by line, for a live view
    on_activity: Sink = _ignore  # "running the sensors…": anything that takes a while
    on_hook_event: EventSink = _ignore  # each simulated hook event with its verdict
    root_override: Path | None = None  # checks that work on a sandbox copy set this
    lab_start_commit: str | None = None  # the workspace's commit when the lab started
    step: StepState = field(default_factory=StepState)
    # Which Claude Code runs hook sessions (an Engine, auto or both); a passed step records
    # the one it ran on.
    engine: str = Engine.EMULATOR
    engine_forced: bool = False  # chosen on the command line: wins over a lab's own choice
    # lab check --scripted, or re-verifying a step that passed so: a live step passes on its
    # scripted session
    scripted: bool = False
    # lab dev check: a session played on both engines runs each identical Maven call once
    # (harness/maven/share.py); a participant's own check always runs Maven for real.
    share_maven: bool = False
    # lab dev check: a folder for the person whose plain `claude`, typed in a terminal, plays
    # a live step's session (harness/claude/client/person.py); the live check reads that
    # person's HOME as the participant's own. None: the sessions play with -p, and the live
    # check reads the environment's own client state.
    person_folder: Path | None = None

    @property
    def person_home(self) -> Path | None:
        return self.person_folder / "home" if self.person_folder else None

    @property
    def root(self) -> Path:
        return self.root_override or self.workspace.root

    def in_sandbox(self, root: Path) -> CheckContext:
        return replace(self, root_override=root)

    def maven(self) -> MavenBackend:
        return get_backend(self.backend_name or self.workspace.backend)

    def path(self, rel: str) -> Path:
        """A workspace path; a manifest may not reach outside the workspace."""
        try:
            return inside(self.root, rel)
        except ValueError as exc:
            raise HarnessError(f"refused: {exc}") from None

    def git_dir(self) -> Path:
        git = self.root / ".git"
        return git if git.is_dir() else self.workspace.git_dir

    def asset(self, rel: str) -> Path:
        """A file of the lab folder; a symlink there may not lead out of it."""
        try:
            return inside(self.lab_dir, rel)
        except ValueError as exc:
            raise HarnessError(f"refused: {exc}") from None
