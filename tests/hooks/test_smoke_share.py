"""smoke.sh through the dev check's share (harness/maven/share.py): two copies of one project,
the real smoke.sh run in each as the two engines' sessions run it. The second engine's
identical run is restored; any difference that could change its verdict is a real run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.maven.share import MavenShare, maven_share
from tests.hooks.hookrepo import clean_env, git_dir, project_with_hooks, run_smoke

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")

GUARD = Path(".claude/hooks/guard-spec-status.sh")


def copies(tmp_path: Path) -> tuple[Path, Path]:
    """Two copies of one committed project, mtimes and .git kept, as hook_session makes them."""
    project = project_with_hooks(tmp_path)
    first, second = tmp_path / "a" / "project", tmp_path / "b" / "project"
    for target in (first, second):
        shutil.copytree(project, target, symlinks=True)
    return first, second


def smoke(
    share: MavenShare, engine: str, root: Path, *groups: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    return run_smoke(root, *groups, **share.environment(engine, {"PATH": path} if path else {}))


def ledger(share: MavenShare) -> list[tuple[str, str, str]]:
    return [(c.program, c.engine, c.how) for c in share.calls()]


def test_the_other_engines_identical_smoke_run_is_restored_with_its_record(
    tmp_path: Path,
) -> None:
    first, second = copies(tmp_path)
    with maven_share() as share:
        real = smoke(share, "emulator", first)
        restored = smoke(share, "claude-code", second)
        calls = ledger(share)

    assert calls == [("smoke.sh", "emulator", "real"), ("smoke.sh", "claude-code", "restored")]
    assert real.returncode == restored.returncode == 0, real.stdout + real.stderr
    assert "checks passed" in real.stdout
    assert restored.stdout == real.stdout.replace(str(first), str(second))
    assert restored.stderr == real.stderr
    record = (git_dir(second) / "aiup-smoke-ran").read_text()
    assert record == (git_dir(first) / "aiup-smoke-ran").read_text()
    assert ".claude/hooks/require-sensors.sh" in record


def test_a_broken_hook_in_one_copy_runs_for_real_and_fails(tmp_path: Path) -> None:
    first, second = copies(tmp_path)
    hook = second / GUARD
    text = hook.read_text()
    assert '[ -n "$problem" ] || exit 0' in text
    hook.write_text(text.replace('[ -n "$problem" ] || exit 0', '[ -n "$problem" ] && exit 0'))
    with maven_share() as share:
        green = smoke(share, "emulator", first, "guard")
        broken = smoke(share, "claude-code", second, "guard")
        calls = ledger(share)

    assert green.returncode == 0, green.stdout + green.stderr
    assert calls == [("smoke.sh", "emulator", "real"), ("smoke.sh", "claude-code", "real")]
    assert broken.returncode == 1
    assert "  FAIL Approved -> Done is refused" in broken.stdout
    assert not (git_dir(second) / "aiup-smoke-ran").exists()


def test_a_session_without_jq_is_a_run_of_its_own(tmp_path: Path) -> None:
    first, second = copies(tmp_path)
    # A PATH with every program of this machine but jq.
    no_jq = tmp_path / "no-jq-bin"
    no_jq.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        if not Path(folder).is_dir():
            continue
        for program in Path(folder).iterdir():
            if program.name != "jq" and not (no_jq / program.name).exists():
                (no_jq / program.name).symlink_to(program)
    with maven_share() as share:
        green = smoke(share, "emulator", first, "audit")
        without = smoke(share, "claude-code", second, "audit", path=str(no_jq))
        calls = ledger(share)

    assert green.returncode == 0, green.stdout + green.stderr
    assert calls == [("smoke.sh", "emulator", "real"), ("smoke.sh", "claude-code", "real")]
    assert without.returncode == 1
    assert "smoke: no jq" in without.stderr


def test_a_change_to_the_index_alone_is_a_run_of_its_own(tmp_path: Path) -> None:
    # The record names the hooks changed since the session began; git's index is part of what
    # the hooks read of the project, so a staged file makes the inputs differ.
    first, second = copies(tmp_path)
    for root in (first, second):
        (root / ".claude/hooks/notes.txt").write_text("a note\n")
    subprocess.run(["git", "add", ".claude/hooks/notes.txt"], cwd=second, check=True)
    with maven_share() as share:
        smoke(share, "emulator", first, "audit")
        smoke(share, "claude-code", second, "audit")
        calls = ledger(share)

    assert calls == [("smoke.sh", "emulator", "real"), ("smoke.sh", "claude-code", "real")]


def test_every_other_bash_goes_straight_to_the_real_one(tmp_path: Path) -> None:
    first, _second = copies(tmp_path)
    with maven_share() as share:
        env = clean_env(**share.environment("emulator", {}))
        assert shutil.which("bash", path=env["PATH"]) == str(share.bin_dir / "bash")
        script = first / "hello.sh"
        script.write_text('echo "hello from $BASH_VERSION" "$@"\n')
        ran = subprocess.run(
            ["bash", str(script), "there"], cwd=first, env=env, capture_output=True, text=True
        )
        inline = subprocess.run(
            ["bash", "-c", "echo $0 $1", "zero", "one"], env=env, capture_output=True, text=True
        )
        calls = ledger(share)

    assert ran.returncode == 0 and ran.stdout.startswith("hello from 5.") and "there" in ran.stdout
    assert inline.stdout == "zero one\n"
    assert calls == []
