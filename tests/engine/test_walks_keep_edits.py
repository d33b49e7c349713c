"""Nothing a participant writes is lost, whatever path they take through a lab.

Seeded random walks through Lab 07 (start, goto, reset, next, check, solve, back and forth)
with the participant's own edits between the commands; after every command each edit is still
in the workspace or in a backup ``lab backups`` lists. The engine is the emulator (forced, as
``--engine emulator``): the walk is about files, not about the client. A live step's solve
plays the real client and is left out of the walk; its check runs (and fails: no session).
"""

from __future__ import annotations

import random

import pytest

from harness.engine.context import CheckContext
from harness.engine.runner import LabRunner
from harness.errors import HarnessError
from harness.results import Status
from harness.workspace import Workspace
from harness.workspace.snapshot import read_blob
from tests.builders import REPO_ROOT

LAB = "07-own-stop-hook"
HOOK = "scripts/check-before-stop.sh"
EDITED = (HOOK, "NOTES-mine.md", "docs/use_cases/UC-002-edit-owner.md", ".claude/settings.json")
# Weighted as a participant works: mostly solve or write, check, next; now and then back.
COMMANDS = ("goto", "reset", "start", *("next", "check", "solve") * 3)
OWN_HOOK = (REPO_ROOT / "labs" / LAB / "solution" / "check-before-stop.sh").read_bytes()

pytestmark = pytest.mark.maven


def _runner(ws: Workspace) -> LabRunner:
    return LabRunner(ws, context=CheckContext(ws, ws.root, engine="emulator", engine_forced=True))


def _kept(ws: Workspace, rel: str, content: bytes) -> bool:
    path = ws.root / rel
    if path.is_file() and path.read_bytes() == content:
        return True
    for backup in ws.backups():
        commit = ws.repo[backup.commit.encode()]
        if read_blob(ws.repo, commit.tree, rel) == content:  # type: ignore[attr-defined]
            return True
    return False


def _edit(ws: Workspace, rng: random.Random, n: int) -> tuple[str, bytes]:
    rel = HOOK if rng.random() < 0.5 else rng.choice(EDITED)
    path = ws.root / rel
    before = path.read_bytes() if path.is_file() else b""
    content = before + f"\n# the participant's own line {n}\n".encode()
    if rel == HOOK:
        # a hook that does the job, in the participant's own take
        content = OWN_HOOK + f"# my own Stop hook, take {n}\n".encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return rel, content


def _command(runner: LabRunner, name: str, rng: random.Random, steps: int) -> str:
    if name in ("goto", "reset"):
        number = str(rng.randint(1, steps))
        moved = runner.goto(number) if name == "goto" else runner.reset(number)
        return f"{name} {number} -> {moved.step.id if moved.step else 'done'}"
    if name == "next":
        moved = runner.next()
        return f"next -> {moved.step.id if moved.step else 'complete'} {moved.note}"
    if name == "check":
        return f"check -> {runner.check().status}"
    if name == "solve":
        _, step = runner.current()
        if any(spec.name == "live_session" for spec in step.checks):
            return "solve skipped (a live step plays the real client)"
        runner.solve(apply=True)
        return f"solve {step.id}"
    return f"start -> {runner.start(LAB).note or 'started'}"


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_random_walk_keeps_every_edit_in_place_or_in_a_backup(
    workspace: Workspace, seed: int
) -> None:
    rng = random.Random(seed)
    runner = _runner(workspace)
    runner.start(LAB)
    steps = len(runner.lab().steps)
    edits: dict[str, bytes] = {}  # the participant's latest content of each file they edited
    walked: list[str] = []
    for n in range(16):
        if rng.random() < 0.6:  # the participant's own work between two commands
            rel, content = _edit(workspace, rng, n)
            edits[rel] = content
            walked.append(f"edit {rel}")
        name = rng.choice(COMMANDS)
        runner = _runner(workspace)  # each command is a new lab process
        try:
            walked.append(_command(runner, name, rng, steps))
        except HarnessError as exc:  # refused (next before a pass): nothing may change
            walked.append(f"{name} refused: {exc.message[:60]}")
        lost = [rel for rel, content in edits.items() if not _kept(workspace, rel, content)]
        assert not lost, f"lost {lost} after: " + " | ".join(walked)


def test_goto_then_next_neither_sends_back_nor_overwrites_the_own_hook(
    workspace: Workspace,
) -> None:
    """The issue's walk: lab start 7; lab goto 3; write your own hook and pass steps 3 and 4
    (4 scripted); lab next completes the lab, naming steps 1 and 2 as skipped, and the hook
    is the participant's."""
    runner = _runner(workspace)
    runner.start(LAB)
    runner.goto("3")
    # the participant's own hook: the course's answer in their words (a comment of theirs)
    own = OWN_HOOK + b"# written by me, not copied\n"
    hook = workspace.root / HOOK
    hook.write_bytes(own)
    hook.chmod(0o755)
    runner.solve(apply=True)  # registers the hook in the settings (step 3's solve)
    hook.write_bytes(own)  # the solve wrote the course's hook; the participant's own again
    assert _runner(workspace).check().status == Status.PASS
    moved = _runner(workspace).next()
    assert moved.step is not None and moved.step.id == "your-session"
    scripted = CheckContext(
        workspace, workspace.root, engine="emulator", engine_forced=True, scripted=True
    )
    runner = LabRunner(workspace, context=scripted)
    assert runner.check().status == Status.PASS
    done = _runner(workspace).next()
    assert done.step is None, done.note
    assert "steps 1, 2 you skipped with lab goto were not checked" in done.note
    assert hook.read_bytes() == own
