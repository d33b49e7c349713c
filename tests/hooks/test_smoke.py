"""smoke.sh proves the fixture's hooks, and its record is what lets a hook change go."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.hooks.conftest import ProvedHooks, groups_of_smoke
from tests.hooks.hookrepo import SMOKE_COMMAND, git_dir, project_with_hooks, run_smoke

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")


def test_a_hook_change_holds_the_turn_until_smoke_passes(proved_hooks: ProvedHooks) -> None:
    # The session (tests/hooks/conftest.py): a comment added to require-sensors.sh, a stop,
    # smoke.sh with every group, a stop again.
    held = proved_hooks.held
    assert held.returncode == 2
    assert ".claude/hooks/require-sensors.sh" in held.stderr
    assert SMOKE_COMMAND in held.stderr

    smoke = proved_hooks.whole
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    count = re.search(r"smoke: (\d+)/(\d+) checks passed", smoke.stdout)
    assert count is not None, smoke.stdout
    assert count[1] == count[2]
    assert int(count[2]) >= 50
    assert ".claude/hooks/require-sensors.sh" in proved_hooks.record

    assert proved_hooks.released.returncode == 0


def test_smoke_outside_a_git_repository_proves_but_records_nothing(tmp_path: Path) -> None:
    root = tmp_path / "loose"
    shutil.copytree(project_with_hooks(tmp_path) / ".claude", root / ".claude")
    smoke = run_smoke(root, GIT_CEILING_DIRECTORIES=str(tmp_path))
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "not a git repository; nothing recorded" in smoke.stdout


def smoke_count(output: str) -> tuple[int, int]:
    count = re.search(r"smoke: (\d+)/(\d+) checks passed", output)
    assert count is not None, output
    return int(count[1]), int(count[2])


def test_each_group_alone_counts_what_it_counts_in_the_whole_run(
    proved_hooks: ProvedHooks,
) -> None:
    whole = proved_hooks.whole
    assert whole.returncode == 0, whole.stdout + whole.stderr
    groups = groups_of_smoke(proved_hooks.root)
    assert sorted(proved_hooks.alone) == sorted(groups)
    alone = [proved_hooks.alone[group] for group in groups]
    assert all(run.returncode == 0 for run in alone), [run.stdout for run in alone]
    assert smoke_count(whole.stdout)[1] == sum(smoke_count(run.stdout)[1] for run in alone)


def test_a_line_per_group_and_per_check_none_wider_than_100_columns(
    proved_hooks: ProvedHooks, tmp_path: Path
) -> None:
    """Progress as it goes: a heading per group, then a line per check, each short enough
    for a 100-column terminal, passed or failed (a failure's detail included)."""
    lines = proved_hooks.whole.stdout.splitlines()
    headings = [line for line in lines if line.startswith("-- ")]
    checks = [line for line in lines if line.startswith(("  ok   ", "  FAIL "))]
    assert len(headings) == len(groups_of_smoke(proved_hooks.root))
    assert len(checks) == smoke_count(proved_hooks.whole.stdout)[1]

    root = project_with_hooks(tmp_path)
    guard = root / ".claude/hooks/guard-spec-status.sh"
    guard.write_text(
        guard.read_text().replace('[ -n "$problem" ] || exit 0', '[ -n "$problem" ] && exit 0')
    )
    broken = run_smoke(root, "guard")
    assert broken.returncode == 1
    assert "  FAIL Approved -> Done is refused" in broken.stdout
    assert "       the last hook exited 0" in broken.stdout
    for line in lines + broken.stdout.splitlines():
        assert len(line) <= 100, line


def test_a_check_group_that_dies_fails_the_run_and_records_nothing(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    smoke = root / SMOKE_COMMAND
    source = smoke.read_text()
    assert "group_audit() {\n" in source
    smoke.write_text(source.replace("group_audit() {\n", "group_audit() {\n    exit 3\n", 1))

    run = run_smoke(root)
    assert run.returncode != 0, run.stdout
    assert "checks passed" not in run.stdout
    assert not (git_dir(root) / "aiup-smoke-ran").exists()


def test_fail_fast_stops_at_the_first_failure(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    lib = root / ".claude/hooks/lib.sh"
    source = lib.read_text()
    assert "trap - EXIT; exit 2; }" in source
    lib.write_text(source.replace("trap - EXIT; exit 2; }", "exit 0; }"))

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    # Without fail-fast, one group alone already fails more than once: what fail-fast cuts.
    everything = run_smoke(root, "guard")
    fast = run_smoke(root, AIUP_SMOKE_FAIL_FAST="1", TMPDIR=str(scratch))
    assert everything.returncode == fast.returncode == 1
    assert "stopped at the first failed check" in fast.stdout
    assert list(scratch.iterdir()) == []  # its throwaway project is gone
    assert fast.stdout.count("  FAIL ") == 1 < everything.stdout.count("  FAIL ")
