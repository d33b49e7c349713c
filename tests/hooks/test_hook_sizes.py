"""The hook layer stays small enough to read in one sitting (the seed: "Halte die
Hook-Schicht klein"). Participants read these files in Labs 05-07 and change them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hooks.hookrepo import HOOKS

HOOK_DIR = Path(__file__).parents[2] / "petclinic_fixture/.claude/hooks"
LIMITS = {"lib.sh": 200, "smoke.sh": 250} | dict.fromkeys(HOOKS, 70)


@pytest.mark.parametrize(("name", "limit"), sorted(LIMITS.items()))
def test_each_file_stays_within_its_line_count(name: str, limit: int) -> None:
    lines = (HOOK_DIR / name).read_text(encoding="utf-8").splitlines()
    assert len(lines) <= limit, f"{name} has {len(lines)} lines; the limit is {limit}"


def test_every_shell_file_in_the_hook_dir_has_a_limit() -> None:
    assert sorted(path.name for path in HOOK_DIR.glob("*.sh")) == sorted(LIMITS)


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_no_line_is_wider_than_100_columns(name: str) -> None:
    for number, line in enumerate((HOOK_DIR / name).read_text().splitlines(), 1):
        assert len(line) <= 100, f"{name}:{number} is {len(line)} columns wide"
