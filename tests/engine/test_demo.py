"""`lab demo` as a trainer runs it: into a new directory, then again into the same one."""

from __future__ import annotations

from pathlib import Path

from tests.builders import git, run_lab_process


def test_demo_runs_again_in_the_same_place_and_keeps_the_earlier_state(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    first = run_lab_process("demo", str(target), "--labs", "9", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "every step failed before and passed after its solve" in first.stdout
    (target / "notes.md").write_text("the trainer's notes")

    again = run_lab_process("demo", str(target), "--labs", "9", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Earlier state backed up: lab restore" in again.stdout
    assert not (target / "notes.md").exists()
    backups = git(target, "for-each-ref", "--format=%(refname)", "refs/hooklab/backups/")
    latest = [r for r in backups.splitlines() if r.endswith("-before-demo")]
    assert latest, backups
    assert git(target, "show", f"{latest[0]}:notes.md") == "the trainer's notes"


def test_demo_refuses_a_directory_with_other_work(tmp_path: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "thesis.tex").write_text("precious")
    done = run_lab_process("demo", str(target), cwd=tmp_path)
    assert done.returncode == 1
    # The error wraps at the terminal width; the path in front of it is as long as tmp_path.
    assert "not empty and is not a Hook Lab workspace" in " ".join(done.stderr.split())
    assert [p.name for p in target.iterdir()] == ["thesis.tex"]
