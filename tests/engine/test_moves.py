"""Moving between steps and labs: one backup per action, named for it; reset and next on a
completed lab; the end of a lab names the next lab's start command."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.errors import HarnessError
from harness.workspace import Workspace
from tests.builders import file_check, lab, run_cli, step, write_action, write_lab


@pytest.fixture
def labs(tmp_path: Path) -> Path:
    root = tmp_path / "labs"
    for lab_id in ("01-first-lab", "02-second-lab"):
        two_steps = lab(
            lab_id,
            step("first", check=file_check("a.txt"), solve=write_action("a.txt", "a")),
            step("second", check=file_check("b.txt"), solve=write_action("b.txt", "b")),
            title="Two quick steps",
        )
        write_lab(root, lab_id, two_steps)
    return root


def _finish(runner: LabRunner) -> None:
    for _ in range(2):
        runner.solve(apply=True)
        assert runner.check().status.value == "pass"
        moved = runner.next()
    assert moved.step is None


def test_one_reset_gives_one_backup_named_for_the_reset(ws: Workspace, labs: Path) -> None:
    runner = LabRunner(ws, labs_root=labs)
    runner.start("1")
    (ws.root / "work-in-progress.txt").write_text("mine\n")
    before = {b.name for b in ws.backups()}
    moved = runner.reset()
    new = [b for b in ws.backups() if b.name not in before]
    assert len(new) == 1, [b.name for b in new]
    assert new[0].name.endswith("-before-reset"), new[0].name
    assert moved.backup is not None and moved.backup.name == new[0].name
    assert "reset" in new[0].reason and "goto" not in new[0].reason


def test_goto_and_solve_and_restore_name_their_backups(ws: Workspace, labs: Path) -> None:
    runner = LabRunner(ws, labs_root=labs)
    runner.start("1")
    _, _, solved = runner.solve(apply=True)
    assert solved is not None and solved.name.endswith("-before-solve")
    (ws.root / "mine.txt").write_text("mine\n")
    moved = runner.goto("2")
    assert moved.backup is not None and moved.backup.name.endswith("-before-goto")
    _, safety = ws.restore(moved.backup.name)
    assert safety.name.endswith("-before-restore")


def test_backup_names_never_end_mid_word(ws: Workspace) -> None:
    for reason in (
        "before restoring 20260101-120000-before-reset of 03-stop-hook",
        "before starting 07-own-stop-hook after a very long afternoon of work",
    ):
        name = ws.backup(reason).name
        slug = name.split("-", 2)[2]  # after the YYYYMMDD-HHMMSS stamp
        assert not slug.endswith("-") and len(slug) <= 40, name
        words = re.sub(r"[^a-z0-9]+", "-", reason.lower()).strip("-").split("-")
        assert slug.split("-") == words[: len(slug.split("-"))], name


def test_reset_of_a_completed_lab_walks_it_again_and_keeps_it_complete(
    ws: Workspace, labs: Path
) -> None:
    runner = LabRunner(ws, labs_root=labs)
    runner.start("1")
    _finish(runner)
    moved = runner.reset()
    assert moved.step is not None and moved.step.id == "first"
    assert runner.progress.step == "first"
    assert moved.note == "this lab stays complete, your passes kept; you walk it again from step 1"
    lp = runner.progress.labs["01-first-lab"]
    assert lp.completed_at and lp.revisited_at  # nothing earned is taken back
    assert all(sp.passed for sp in lp.steps.values())
    assert not (ws.root / "a.txt").exists()


def test_next_after_a_completed_lab_names_the_next_lab(ws: Workspace, labs: Path) -> None:
    runner = LabRunner(ws, labs_root=labs)
    runner.start("1")
    _finish(runner)
    again = runner.next()
    assert again.step is None and again.next_lab == "02-second-lab"
    runner.start("2")
    _finish(runner)
    assert runner.next().next_lab is None  # the last lab: nothing comes after it


def test_completing_a_lab_does_not_rerun_the_step_that_just_passed(
    ws: Workspace, labs: Path
) -> None:
    runner = LabRunner(ws, labs_root=labs)
    runner.start("1")
    runner.solve(apply=True)
    runner.check()
    runner.next()
    runner.solve(apply=True)
    runner.check()
    ran: list[str] = []
    original = runner.run_checks

    def counting(lab, step, root=None, **kw):  # type: ignore[no-untyped-def]
        ran.append(step.id)
        return original(lab, step, root, **kw)

    runner.run_checks = counting  # type: ignore[method-assign]
    moved = runner.next()
    assert moved.step is None and moved.note == "lab complete"
    assert ran == ["first"]  # "second" passed just now and nothing changed since
    assert [r.status.value for r in moved.reverified] == ["pass", "pass"]


def test_cli_next_at_the_end_prints_the_next_start_command(ws: Workspace, labs: Path) -> None:
    import os

    os.environ["HOOKLAB_LABS"] = str(labs)
    try:
        assert run_cli("start", "1", cwd=ws.root).code == 0
        for _ in range(2):
            assert run_cli("solve", "--apply", cwd=ws.root).code == 0
            assert run_cli("check", cwd=ws.root).code == 0
            done = run_cli("next", cwd=ws.root)
        assert done.code == 0, done
        assert "Lab 01-first-lab complete" in done.out and "lab start 2" in done.out
        again = run_cli("next", cwd=ws.root)
        assert again.code == 0, again
        assert "lab start 2" in again.out and "re-verified" not in again.out
        reset = run_cli("reset", cwd=ws.root)
        assert reset.code == 0, reset
        assert "step 1/2" in reset.out
    finally:
        del os.environ["HOOKLAB_LABS"]


def test_reset_outside_any_lab_still_says_how_to_start(ws: Workspace, labs: Path) -> None:
    runner = LabRunner(ws, labs_root=labs)
    with pytest.raises(HarnessError, match="no lab started"):
        runner.reset()
    shutil.rmtree(labs)
