"""Nothing a participant writes is lost, whatever path they take through a lab.

Seeded random walks through every lab, on both fixtures (start, goto, reset, next, check,
solve, back and forth, off to another lab and back) with the participant's own edits between
the commands (tests/engine/walks.py). After every command each edit is still in the workspace
or in a backup ``lab backups`` lists; re-verification sends no one back to a step they did not
pass; the step a participant is at, or comes back to, is never one ``lab goto`` passed over.
A failure names the walk and its test id (lab and seed): running that id replays it.

Real: the lab's own setups, solves and checks on a provisioned workspace (real Maven where a
step runs the sensors, the PetClinic's classes from the compiled template), the hooks on the
emulator.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.engine.context import CheckContext
from harness.engine.lab_runner import LabRunner
from harness.engine.manifest import find_lab, lab_dirs
from harness.results import Status
from harness.workspace import Workspace, provision
from tests.builders import REPO_ROOT, run_cli
from tests.engine.walks import walk_lab

LAB07 = "07-own-stop-hook"
HOOK = "scripts/check-before-stop.sh"
OWN_HOOK = (REPO_ROOT / "labs" / LAB07 / "solution" / "check-before-stop.sh").read_bytes()
# A walk per shape of lab, not per lab (seed 1 each; another seed is another walk, run by its
# own id): the Maven labs 01 (sensors, quiz) and 02 (git, sensors), the hook labs 03 (a live
# step too) and 04, Lab 07 (contract, verify-hook, the own hook, a live step), the quiz-only
# Lab 09 and the Node Lab 12. Labs 05, 06, 08, 10, 11 and 13 repeat those shapes and took 162
# of the 13 walks' 219 s. Checked: with a reset or goto that backs up only when HEAD moves (not
# the participant's uncommitted edits), the walks of 01, 02, 03, 04 and 09 lose work and fail.
SHAPES = ("01", "02", "03", "04", "07", "09", "12")
WALKS = [(lab.name, 1) for lab in lab_dirs() if lab.name[:2] in SHAPES]
COMMANDS = 10

pytestmark = pytest.mark.maven


def _workspace(tmp_path: Path, template: Path, lab_id: str) -> Workspace:
    """A fresh workspace of the lab's fixture: the compiled PetClinic template copied, or a
    Node project provisioned (no compile, a second)."""
    fixture = find_lab(lab_id).fixture
    if fixture != "petclinic":
        return provision(tmp_path / "ws", fixture_name=fixture).workspace
    shutil.copytree(template, tmp_path / "ws", symlinks=True)
    return Workspace(tmp_path / "ws")


@pytest.mark.parametrize(("lab_id", "seed"), WALKS, ids=[f"{lab}-{seed}" for lab, seed in WALKS])
def test_a_random_walk_keeps_every_edit_in_place_or_in_a_backup(
    tmp_path: Path, _compiled_template: Path, lab_id: str, seed: int
) -> None:
    walk_lab(_workspace(tmp_path, _compiled_template, lab_id), lab_id, seed, COMMANDS)


def _runner(ws: Workspace, *, scripted: bool = False) -> LabRunner:
    ctx = CheckContext(ws, ws.root, engine="emulator", engine_forced=True, scripted=scripted)
    return LabRunner(ws, context=ctx)


def test_goto_then_next_neither_sends_back_nor_overwrites_the_own_hook(
    workspace: Workspace,
) -> None:
    """The issue's walk: lab start 7; lab goto 3; write your own hook and pass steps 3 and 4
    (4 scripted); lab next completes the lab, naming steps 1 and 2 as skipped, and the hook
    is the participant's."""
    runner = _runner(workspace)
    runner.start(LAB07)
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
    assert _runner(workspace, scripted=True).check().status == Status.PASS
    done = _runner(workspace).next()
    assert done.step is None, done.note
    assert "steps 1, 2 you skipped with lab goto were not checked" in done.note
    assert hook.read_bytes() == own


def test_coming_back_to_a_lab_left_after_goto_resumes_where_it_was_left(
    workspace: Workspace,
) -> None:
    """lab start 7; lab goto 3; pass step 3; lab next; lab start 6; lab start 7: back at step
    4, where the lab was left, not at step 1, which lab goto passed over and the participant
    was never asked to do; lab status says so."""
    root = workspace.root
    assert run_cli("start", "7", cwd=root).code == 0
    assert run_cli("goto", "3", cwd=root).code == 0
    assert run_cli("solve", "--apply", cwd=root).code == 0
    assert run_cli("check", "--engine", "emulator", cwd=root).code == 0
    assert run_cli("next", cwd=root).code == 0
    assert run_cli("start", "6", cwd=root).code == 0
    back = run_cli("start", "7", cwd=root)
    assert back.code == 0, back.err
    assert "resumed where you left this lab" in back.out
    assert "step 4/4: " in back.out and "step 1/4" not in back.out
    status = run_cli("status", cwd=root)
    rows = {
        line.split()[1]: " ".join(line.split()[2:])
        for line in status.out.splitlines()
        if line.split()[:1] in (["1"], ["2"], ["3"], ["4"])
    }
    assert rows["contract"].startswith("skipped with lab goto"), status.out
    assert rows["write-hook"].startswith("skipped with lab goto"), status.out
    assert rows["register"].startswith("passed"), status.out
    assert rows["your-session"].startswith("current"), status.out


def test_next_names_the_own_file_a_steps_setup_replaced(workspace: Workspace) -> None:
    """The newcomer's walk: the hook finished early, at step 1; lab next into step 2 puts the
    step's skeleton in its place. The screen names the file and the backup that holds the
    participant's own, and lab restore brings it back."""
    runner = _runner(workspace)
    runner.start(LAB07)
    contract = REPO_ROOT / "labs" / LAB07 / "solution" / "stop-hook-contract.md"
    (workspace.root / "docs" / "stop-hook-contract.md").write_bytes(contract.read_bytes())
    own = OWN_HOOK + b"# written by me, early\n"
    (workspace.root / HOOK).parent.mkdir(exist_ok=True)
    (workspace.root / HOOK).write_bytes(own)
    assert _runner(workspace).check().status == Status.PASS
    shown = run_cli("next", cwd=workspace.root)
    assert shown.code == 0, shown
    said = " ".join(shown.out.split())
    assert f"This step starts from its own version of {HOOK}: yours is in that backup" in said
    assert (workspace.root / HOOK).read_bytes() != own  # the skeleton
    name = said.split("lab restore ", 1)[1].split()[0]
    assert run_cli("restore", name, cwd=workspace.root).code == 0
    assert (workspace.root / HOOK).read_bytes() == own
