from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.workspace import Workspace, provision
from tests.builders import git, run_cli


def test_provision_makes_a_committed_git_repository(tmp_path: Path, fixture_root: Path) -> None:
    result = provision(tmp_path / "ws")
    ws = result.workspace
    assert result.created and result.files > 20
    assert git(ws.root, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(ws.root, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    tracked = git(ws.root, "ls-files").splitlines()
    assert "pom.xml" in tracked and "mvnw" in tracked
    assert ".claude/settings.json" in tracked
    # Executable bits survive the copy and the commit: the hooks and ./mvnw must run.
    modes = git(ws.root, "ls-files", "-s", "mvnw").split()[0]
    assert modes == "100755"
    meta = json.loads((ws.git_dir / "hooklab" / "workspace.json").read_text())
    assert meta["initial_commit"] == ws.head()
    assert meta["backend"] == "local"
    assert not (ws.root / "target").exists()


def test_provision_packs_the_fixture_commit_and_git_reads_it_whole(tmp_path: Path) -> None:
    ws = provision(tmp_path / "ws").workspace
    objects = ws.git_dir / "objects"
    loose = [p for p in objects.glob("??/*") if p.is_file()]
    assert loose == [], "the fixture's objects stay loose: every workspace copy makes them all"
    assert len(list((objects / "pack").glob("*.pack"))) == 1
    # Real git agrees the pack holds the whole commit: nothing missing, nothing dangling.
    subprocess.run(["git", "-C", str(ws.root), "fsck", "--full", "--strict"], check=True)
    assert "mvnw" in git(ws.root, "ls-tree", "-r", "--name-only", "HEAD").splitlines()


def test_provision_again_is_safe_and_keeps_work(tmp_path: Path) -> None:
    ws = provision(tmp_path / "ws").workspace
    (ws.root / "notes.txt").write_text("my work")
    again = provision(tmp_path / "ws")
    assert not again.created
    assert (ws.root / "notes.txt").read_text() == "my work"


def test_provision_refuses_a_directory_with_other_work(tmp_path: Path) -> None:
    other = tmp_path / "thesis"
    other.mkdir()
    (other / "chapter1.tex").write_text("precious")
    with pytest.raises(HarnessError) as info:
        provision(other)
    assert "not empty and is not a Hook Lab workspace" in info.value.message
    assert info.value.fix and "lab init DIR" in info.value.fix
    assert sorted(p.name for p in other.iterdir()) == ["chapter1.tex"]
    assert (other / "chapter1.tex").read_text() == "precious"


def test_cli_init_refusal_is_exit_1_without_traceback(tmp_path: Path) -> None:
    other = tmp_path / "busy"
    other.mkdir()
    (other / "file").write_text("x")
    result = run_cli("init", str(other))
    assert result.code == 1, result
    # The error wraps at the terminal width; the path in front of it is as long as tmp_path.
    assert "not empty and is not a Hook Lab workspace" in " ".join(result.err.split())
    assert "fix:" in result.err and "Traceback" not in result.err
    assert list(other.iterdir()) == [other / "file"]


def test_cli_init_json(tmp_path: Path) -> None:
    result = run_cli("init", str(tmp_path / "ws"), "--json")
    assert result.code == 0, result
    data = json.loads(result.out)
    assert data["created"] is True and data["backend"] == "local"
    assert Path(data["workspace"]).is_dir()


@pytest.mark.maven
def test_cli_init_leaves_the_fixture_compiled_and_no_report(tmp_path: Path) -> None:
    result = run_cli("init", str(tmp_path / "ws"), "--json")
    assert result.code == 0, result
    assert json.loads(result.out)["compiled"] in ("cache", "compiled")
    target = tmp_path / "ws" / "target"
    assert (
        target / "classes" / "ai" / "unifiedprocess" / "petclinic" / "PetClinic.class"
    ).is_file()
    assert (target / "test-classes").is_dir()
    assert not (target / "surefire-reports").exists()


def test_changed_files_sees_edits_new_files_and_deletions(workspace: Workspace) -> None:
    assert workspace.changed_files() == []
    (workspace.root / "pom.xml").write_text(
        (workspace.root / "pom.xml").read_text() + "<!-- edit -->\n"
    )
    (workspace.root / "docs" / "new.md").write_text("new")
    (workspace.root / "CLAUDE.md").unlink()
    assert workspace.changed_files() == ["CLAUDE.md", "docs/new.md", "pom.xml"]


def test_backup_and_restore_lose_nothing(workspace: Workspace) -> None:
    root = workspace.root
    (root / "docs" / "mine.md").write_text("participant's notes")
    (root / "pom.xml").write_text("broken on purpose")
    backup = workspace.backup("before reset")
    assert backup.ref.startswith("refs/hooklab/backups/")
    assert backup.name in backup.restore_hint
    # a reset to the provisioned state
    workspace.restore_commit(workspace.meta["initial_commit"])
    assert not (root / "docs" / "mine.md").exists()
    assert "<project" in (root / "pom.xml").read_text()
    # ...and the work comes back
    restored, safety = workspace.restore(backup.name)
    assert restored == backup
    assert (root / "docs" / "mine.md").read_text() == "participant's notes"
    assert (root / "pom.xml").read_text() == "broken on purpose"
    assert safety.name in [b.name for b in workspace.backups()]
    # HEAD and the index were never touched by backups: git sees the same two changes.
    status = git(root, "status", "--porcelain", "--untracked-files=all")
    assert sorted(status.splitlines()) == [" M pom.xml", "?? docs/mine.md"]


def test_backup_restore_via_git_checkout(workspace: Workspace) -> None:
    (workspace.root / "docs" / "mine.md").write_text("kept")
    backup = workspace.backup("check")
    (workspace.root / "docs" / "mine.md").unlink()
    subprocess.run(["git", "checkout", backup.ref, "--", "."], cwd=workspace.root, check=True)
    assert (workspace.root / "docs" / "mine.md").read_text() == "kept"


def test_cli_backups_and_restore(workspace: Workspace) -> None:
    (workspace.root / "docs" / "mine.md").write_text("v1")
    backup = workspace.backup("manual")
    (workspace.root / "docs" / "mine.md").write_text("v2")
    listed = run_cli("backups", "--json", cwd=workspace.root)
    assert [b["name"] for b in json.loads(listed.out)] == [backup.name]
    result = run_cli("restore", backup.name, cwd=workspace.root)
    assert result.code == 0, result
    assert (workspace.root / "docs" / "mine.md").read_text() == "v1"
    unknown = run_cli("restore", "nope", cwd=workspace.root)
    assert unknown.code == 1 and "no backup named 'nope'" in unknown.err


def test_progress_is_a_commit_chain_that_survives_reopening(workspace: Workspace) -> None:
    assert workspace.read_progress() == {}
    workspace.write_progress({"lab": "01", "step": 1}, "start")
    workspace.write_progress({"lab": "01", "step": 2}, "step done")
    reopened = Workspace(workspace.root)
    # Each document names the workspace that wrote it (and the name it submits as: none yet).
    whose = {"id": reopened.identity, "submits_as": None}
    assert reopened.read_progress() == {"lab": "01", "step": 2, "workspace": whose}
    log = git(workspace.root, "log", "--format=%s", "refs/hooklab/progress").split("\n")
    assert log[:2] == ["step done", "start"]
    # Progress is not a change in the participant's worktree.
    assert workspace.changed_files() == []


def test_find_outside_a_workspace_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(HarnessError) as info:
        Workspace.find(tmp_path)
    assert "not inside a Hook Lab workspace" in info.value.message
    assert info.value.fix and "lab init" in info.value.fix


def test_rewind_returns_to_a_commit_and_keeps_everything_in_a_backup(
    workspace: Workspace,
) -> None:
    root = workspace.root
    initial = workspace.meta["initial_commit"]
    (root / "docs" / "committed.md").write_text("committed work")
    workspace.commit_all("participant's commit")
    (root / "docs" / "loose.md").write_text("uncommitted work")
    backup = workspace.rewind(initial, "before starting lab 03")
    assert backup is not None
    assert workspace.head() == initial
    assert workspace.changed_files() == []
    assert not (root / "docs" / "committed.md").exists()
    assert not (root / "docs" / "loose.md").exists()
    workspace.restore(backup.name)
    assert (root / "docs" / "committed.md").read_text() == "committed work"
    assert (root / "docs" / "loose.md").read_text() == "uncommitted work"
    # The backup's parent is the participant's commit, so `git log` of the ref shows it.
    log = git(root, "log", "--format=%s", backup.ref).splitlines()
    assert log[:2] == ["hooklab backup: before starting lab 03", "participant's commit"]


def test_rewind_of_a_pristine_workspace_takes_no_backup(workspace: Workspace) -> None:
    assert workspace.rewind(workspace.meta["initial_commit"], "noop") is None
    assert workspace.backups() == []


def test_restoring_leaves_files_that_already_match_alone(workspace: Workspace) -> None:
    """A rewind writes only what differs (as git's checkout does): a rewritten source reads as
    changed to Maven, and the next sensor run would compile the module again."""
    root = workspace.root
    pom, readme, hook = root / "pom.xml", root / "README.md", root / ".claude/hooks/smoke.sh"
    before = {path: path.stat().st_mtime_ns for path in (pom, readme, hook)}
    original = readme.read_text()
    readme.write_text("edited\n")
    hook.chmod(0o644)  # the same bytes, but no longer executable: that differs too
    (root / "docs" / "new.md").write_text("new\n")

    workspace.rewind(workspace.meta["initial_commit"], "before starting lab 03")

    assert pom.stat().st_mtime_ns == before[pom]  # untouched
    assert readme.read_text() == original and readme.stat().st_mtime_ns > before[readme]
    assert hook.stat().st_mode & 0o111 and hook.stat().st_mtime_ns > before[hook]
    assert not (root / "docs" / "new.md").exists()
    assert workspace.changed_files() == []


def test_restoring_everything_anew_rewrites_each_file(workspace: Workspace) -> None:
    pom = workspace.root / "pom.xml"
    before = pom.stat().st_mtime_ns

    workspace.restore_commit(workspace.meta["initial_commit"], rewrite_all=True)

    assert pom.stat().st_mtime_ns > before
