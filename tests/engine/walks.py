"""A participant's random walk through a lab, for the tests that nothing they write is lost.

A walk is seeded (``Walk(lab, seed)``): the same seed takes the same path, so a failure names
its seed and the test id that replays it. Between two commands the participant edits files:
their own (untracked), the files the lab's setups and solves write, a tracked file no step
touches, and ``.claude/settings.json`` (kept valid JSON); now and then they commit it all
with git (a clean worktree, their work in a commit a later reset or goto must not drop).
Each command is a new lab process (a new ``LabRunner``), as ``lab start``, ``lab goto`` ...
are on a terminal. The engine is the emulator (``--engine emulator``): a walk is about files,
not about the client. A live step's solve (the real client) is left out; it is started,
passed over, reset and left like any step, and its check is ``lab check --scripted`` (the
lab's own session on the emulator).
"""

from __future__ import annotations

import random
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner, Moved
from harness.engine.manifest import Lab, Step, find_lab, load_labs
from harness.errors import HarnessError
from harness.workspace import Workspace
from harness.workspace.snapshot import read_blob

# Weighted as a participant works: mostly write, check, solve, next; now and then back, or
# off to another lab and back again.
COMMANDS = ("goto", "reset", "start", "leave", *("next", "check", "solve") * 3)
OWN_FILES = ("NOTES-mine.md", "notes/mine/today.md")  # the participant's own, untracked
COMMIT_SHARE = 0.2  # of the edits, those after which the participant commits everything
WRITES = ("write", "append", "replace", "copy", "delete")  # actions that name a workspace file
COMMENT = {".java": "// ", ".js": "// ", ".md": "", ".xml": "<!-- "}


def written_by(steps: Sequence[Step], *, setup_only: bool = False) -> list[str]:
    """Every workspace file the steps' setups (and solves) write, replace or delete (build
    output aside): the files a participant most often has open."""
    paths = set()
    for step in steps:
        for spec in step.setup if setup_only else (*step.setup, *step.solve):
            if spec.name in WRITES:
                rel = getattr(spec.typed, "path", None) or getattr(spec.typed, "to", None)
                # Build output aside, the folder itself too (Lab 01 step 1 deletes target/).
                if (
                    rel
                    and rel.rstrip("/") not in ("target", "dist")
                    and not rel.startswith(("target/", "dist/"))
                ):
                    paths.add(str(rel))
    return sorted(paths)


def edited_line(rel: str, n: int) -> bytes:
    """A line of the participant's own, in the file's comment syntax (the file stays valid)."""
    suffix = Path(rel).suffix
    start = COMMENT.get(suffix, "# ")
    end = " -->" if suffix == ".xml" else ""
    return f"\n{start}the participant's own line {n}{end}\n".encode()


def edit_settings(text: str, n: int) -> str:
    """An env entry of the participant's own, inserted as text: the rest of the file keeps
    its bytes (a step's replace still finds its text) and it stays valid JSON."""
    entry = f'"PARTICIPANT_OWN_{n}": "{n}"'
    if '"env": {' in text:
        return text.replace('"env": {', '"env": {' + entry + ", ", 1)
    return re.sub(r"^\{", "{\n  " + '"env": {' + entry + "},", text, count=1)


def kept(ws: Workspace, rel: str, content: bytes) -> bool:
    """The content is at ``rel`` in the workspace, or there in a backup lab backups lists."""
    path = ws.root / rel
    if path.is_file() and path.read_bytes() == content:
        return True
    for backup in ws.backups():
        commit = ws.repo[backup.commit.encode()]
        if read_blob(ws.repo, commit.tree, rel) == content:  # type: ignore[attr-defined]
            return True
    return False


@dataclass
class Walk:
    lab: Lab
    seed: int
    ws: Workspace
    rng: random.Random = field(init=False)
    targets: list[str] = field(init=False)
    edits: dict[str, bytes] = field(default_factory=dict)  # the latest content of each edit
    said: list[str] = field(default_factory=list)  # the walk so far, for a failure message
    passed: set[str] = field(default_factory=set)  # steps a check of the participant passed
    solved: set[str] = field(default_factory=set)  # steps lab solve solved since entered
    away: bool = False  # off in another lab, coming back with the next command
    completed: bool = False  # a lab next of the walk completed the lab
    left_at: str | None = None  # the step this lab was left at (None: it was complete)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"{self.lab.id}:{self.seed}")  # each lab its own path
        self.targets = [
            *written_by(self.lab.steps),
            ".claude/settings.json",
            "README.md",
            *OWN_FILES,
        ]

    def runner(self, *, scripted: bool = False) -> LabRunner:
        ctx = CheckContext(
            self.ws, self.ws.root, engine="emulator", engine_forced=True, scripted=scripted
        )
        return LabRunner(self.ws, context=ctx)

    def other_lab(self) -> str:
        others = [
            lab.id for lab in load_labs() if lab.fixture == self.lab.fixture and lab != self.lab
        ]
        return self.rng.choice(sorted(others))

    def edit(self, n: int) -> None:
        # Half the time a file the next step's setup writes: where a lab next can lose work.
        ahead = self.ahead()
        rel = self.rng.choice(ahead if ahead and self.rng.random() < 0.5 else self.targets)
        path = self.ws.root / rel
        before = path.read_bytes() if path.is_file() else b""
        if rel.endswith("settings.json") and before:
            content = edit_settings(before.decode(), n).encode()
        else:
            content = before + edited_line(rel, n)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        self.edits[rel] = content
        self.said.append(f"edit {rel}")
        if self.rng.random() < COMMIT_SHARE:  # now and then the participant commits it all
            git = ["git", "-C", str(self.ws.root), "-c", "user.name=P", "-c", "user.email=p@x"]
            subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
            subprocess.run([*git, "commit", "-qm", f"my work {n}"], check=True, capture_output=True)
            self.said.append("git commit")

    def ahead(self) -> list[str]:
        """The files the setup of the step after the current one writes (none at the end)."""
        runner = self.runner()
        if runner.progress.lab != self.lab.id or runner.progress.step is None:
            return []
        index = self.lab.step(runner.progress.step).index + 1
        if index >= len(self.lab.steps):
            return []
        return written_by(self.lab.steps[index : index + 1], setup_only=True)

    def lost(self) -> list[str]:
        return [rel for rel, content in self.edits.items() if not kept(self.ws, rel, content)]

    def where(self) -> str:
        return " | ".join(self.said)

    def run(self, name: str, command: Callable[[], str]) -> str:
        """One command, said with its time; then nothing of the participant's may be lost,
        and the step they are at is never one lab goto passed over."""
        started = time.monotonic()
        try:
            did = command()
        except HarnessError as exc:  # refused (next before a pass): nothing may change
            did = f"{name} refused: {exc.message[:60]}"
        took = time.monotonic() - started
        self.said.append(did + (f" ({took:.0f} s)" if took >= 2 else ""))
        lost = self.lost()
        assert not lost, f"lost {lost} after: {self.where()}"
        runner = self.runner()
        if runner.progress.lab == self.lab.id and runner.progress.step is not None:
            sp = runner.progress.lab_progress(self.lab.id).step(runner.progress.step)
            assert not sp.skipped_by_goto, f"at a step lab goto skipped: {self.where()}"
        return did


def current_step(runner: LabRunner) -> Step | None:
    lab = runner.lab()
    return lab.step(runner.progress.step) if runner.progress.step else None


def _moved(walk: Walk, name: str, moved: Moved) -> str:
    """What a move did, and the rule it must keep: re-verification sends a person back only
    to a step they passed themselves, never to one they were not asked to do."""
    if moved.reverified and moved.step is not None:
        assert moved.step.id in walk.passed, (
            f"{name} sent the participant back to {moved.step.id}, which they never passed: "
            + walk.where()
        )
    if not moved.note.startswith("already started"):
        walk.solved.clear()  # a step entered anew (or the lab complete): nothing solved yet
    return f"{name} -> {moved.step.id if moved.step else 'complete'}"


def play(walk: Walk, name: str) -> str:
    """One command of the walk; returns what it did, in a few words."""
    runner = walk.runner()
    steps = len(walk.lab.steps)
    if name in ("goto", "reset"):
        number = str(walk.rng.randint(1, steps))
        if name == "reset" and walk.rng.random() < 0.5:
            return _moved(walk, "reset", runner.reset())
        moved = runner.goto(number) if name == "goto" else runner.reset(number)
        return _moved(walk, f"{name} {number}", moved)
    if name == "leave":
        other = walk.other_lab()
        left_at = runner.progress.step if runner.progress.lab == walk.lab.id else None
        runner.start(other)
        walk.away, walk.left_at = True, left_at
        return f"start {other}"
    if name == "start":
        return _moved(walk, "start", runner.start(walk.lab.id))
    if name == "next":
        return complete(walk, runner)
    step = current_step(runner)
    if step is None:
        return f"{name}: the lab is complete"
    if name == "check":
        return check(walk, runner, step)
    if any(spec.name == "play_session" for spec in step.solve):
        return f"solve {step.id} left out (a live step's solve plays the real client)"
    runner.solve(apply=True)
    walk.solved.add(step.id)
    return f"solve {step.id}"


def check(walk: Walk, runner: LabRunner, step: Step) -> str:
    """lab check. A slow step's check (a played session, the sensors) is left out where its
    answer is known without it: the step is not solved yet (a walk's edits solve nothing, and
    every step fails before its solve: lab dev check proves it), or it passed already. A check
    never changes the participant's files."""
    live = any(spec.name == "live_session" for spec in step.checks)
    slow = any(spec.slow for spec in step.checks)
    passed = runner.progress.lab_progress(walk.lab.id).passed_this_walk(step.id)
    if passed and slow:
        return f"check {step.id} left out (slow, and passed)"
    if slow and not live and step.id not in walk.solved:
        return f"check {step.id} left out (slow, and not solved)"
    if live:  # lab check --scripted: the lab's own session stands in for the participant's
        runner = walk.runner(scripted=True)
    before = walk.ws.snapshot_tree_id()
    run = runner.check(record_failure=True)
    assert walk.ws.snapshot_tree_id() == before, f"check changed the files: {walk.where()}"
    if run.status.value == "pass":
        walk.passed.add(step.id)
    return f"check {step.id} -> {run.status.value}"


def come_back(walk: Walk) -> str:
    """Back from another lab: lab start resumes where this lab was left."""
    moved = walk.runner().start(walk.lab.id)
    at = moved.step.id if moved.step else None
    # A lab left complete starts over at its first step.
    assert at == (walk.left_at or walk.lab.steps[0].id), (
        f"lab start {walk.lab.id} resumed at {at}, but it was left at {walk.left_at}: "
        + walk.where()
    )
    walk.away = False
    walk.solved.clear()
    return f"start {walk.lab.id} -> back at {at}"


def choose(walk: Walk) -> str:
    """The next command: at random, but as a person goes on, mostly lab check after lab solve
    and lab next after a pass (so a walk gets deep into the lab, through its setups)."""
    runner = walk.runner()
    if runner.progress.lab == walk.lab.id and runner.progress.step is not None:
        lp = runner.progress.lab_progress(walk.lab.id)
        if lp.passed_this_walk(runner.progress.step) and walk.rng.random() < 0.5:
            return "next"
        if runner.progress.step in walk.solved and walk.rng.random() < 0.5:
            return "check"
    return walk.rng.choice(COMMANDS)


def walk_lab(ws: Workspace, lab_id: str, seed: int, commands: int) -> Walk:
    """Start ``lab_id`` and walk ``commands`` random commands, the participant's edits between
    them, then finish the lab from its last step (``finish``). After every command each edit
    is in place or in a listed backup, and the step the participant is at is never one lab
    goto skipped."""
    walk = Walk(find_lab(lab_id), seed, ws)
    walk.runner().start(lab_id)
    for n in range(commands):
        if walk.rng.random() < 0.6:  # the participant's own work between two commands
            walk.edit(n)
        name = choose(walk)
        walk.run(name, partial(come_back, walk) if walk.away else partial(play, walk, name))
    if walk.away:
        walk.run("start", lambda: come_back(walk))
    walk.edit(commands)
    finish(walk)
    return walk


def unpassed(walk: Walk, runner: LabRunner) -> list[str]:
    """The numbers of the steps before the last one that never passed (lab goto passed over
    them): a lab next that completes the lab must name them."""
    lp = runner.progress.lab_progress(walk.lab.id)
    return [str(s.index + 1) for s in walk.lab.steps[:-1] if not lp.step(s.id).passed]


def complete(walk: Walk, runner: LabRunner) -> str:
    """lab next. Where it completes the lab, it names the steps goto passed over that were
    never passed."""
    at_work = runner.progress.lab == walk.lab.id and runner.progress.step is not None
    skipped = unpassed(walk, runner) if at_work else []
    moved = runner.next()
    did = _moved(walk, "next", moved)
    if at_work and moved.step is None:
        walk.completed = True
        said = f"{', '.join(skipped)} you skipped with lab goto"
        assert not skipped or said in moved.note, (
            f"{moved.note!r} does not name {said!r}: {walk.where()}"
        )
    return did


def finish(walk: Walk) -> None:
    """lab goto to the last step, pass it (a live step with lab check --scripted), lab next:
    the lab is complete. Re-verification sends no one back to a step they did not pass, and
    the completion names the steps goto passed over that were never passed (``complete``).
    A lab the walk completed already and is still complete has shown all that: the goto alone
    (the lab walked again, nothing lost), not its slow check and re-verification again."""
    last = walk.lab.steps[-1]
    runner = walk.runner()
    done = walk.completed and runner.progress.lab == walk.lab.id and runner.progress.step is None
    walk.run("goto", lambda: _moved(walk, "goto last", walk.runner().goto(last.id)))
    if done:
        return
    walk.run("solve", lambda: play(walk, "solve"))
    walk.solved.add(last.id)  # a live step: lab check --scripted passes it
    walk.run("check", lambda: play(walk, "check"))
    lp = walk.runner().progress.lab_progress(walk.lab.id)
    assert lp.passed_this_walk(last.id), f"the last step did not pass: {walk.where()}"
    walk.run("next", lambda: complete(walk, walk.runner()))
    after = walk.runner().progress
    assert after.lab == walk.lab.id and after.step is None, f"not complete: {walk.where()}"
