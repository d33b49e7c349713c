"""Fixtures of the hook tests: smoke.sh's runs of the unmutated hooks, made once per run."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hooks.hookrepo import (
    SMOKE_COMMAND,
    git_dir,
    project_with_hooks,
    run_smoke,
    start_session,
    stop,
)

Run = subprocess.CompletedProcess[str]


@dataclass(frozen=True)
class ProvedHooks:
    """One project with the fixture's hooks, as several tests need smoke.sh to have seen it."""

    root: Path
    # Each check group on its own, on the hooks as shipped (a subset records nothing).
    alone: dict[str, Run]
    # Then a session in which a hook changed: the stop held, smoke.sh with every group, the
    # record it left in the git dir, and the stop after it.
    held: Run
    whole: Run
    record: str
    released: Run


def groups_of_smoke(root: Path) -> list[str]:
    """smoke.sh's own list of its check groups (GROUPS_ALL)."""
    text = (root / SMOKE_COMMAND).read_text()
    listed = re.search(r"^GROUPS_ALL=\((.*)\)$", text, re.M)
    assert listed is not None, f"{SMOKE_COMMAND} lists no GROUPS_ALL"
    return listed[1].split()


@pytest.fixture(scope="session")
def proved_hooks(tmp_path_factory: pytest.TempPathFactory) -> ProvedHooks:
    """smoke.sh is slow (every group fires hundreds of real hooks): the runs of the unmutated
    hooks that several tests read are made here once, in the order a participant would."""
    if shutil.which("jq") is None:
        pytest.skip("the hooks need jq")
    root = project_with_hooks(tmp_path_factory.mktemp("proved-hooks"))
    alone = {group: run_smoke(root, group) for group in groups_of_smoke(root)}
    start_session(root)
    hook = root / ".claude/hooks/require-sensors.sh"
    hook.write_text(hook.read_text() + "# reviewed\n")
    held = stop(root)
    whole = run_smoke(root)
    record_file = git_dir(root) / "aiup-smoke-ran"
    record = record_file.read_text() if record_file.exists() else ""
    return ProvedHooks(root, alone, held, whole, record, stop(root))
