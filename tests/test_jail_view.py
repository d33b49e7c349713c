"""The view a person's hook is played in (harness/jail_view.py): a copy seen at the workspace's
own path, a throwaway folder at ~/.claude, the rest of the machine as it is."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.jail_view import available, view_argv

pytestmark = pytest.mark.skipif(not available(), reason="bubblewrap cannot make a view here")

SCRIPT = 'pwd; cat f; echo made > g; echo kept > "$HOME/.claude/t"; ls -A "$HOME"'


def _play(home: Path, ws: Path, copy: Path, client: Path) -> list[str]:
    argv = view_argv(
        ["sh", "-c", SCRIPT],
        chdir=ws,
        client_dir=client,
        client_at=home / ".claude",
        copy=copy,
        workspace=ws,
    )
    env = {**os.environ, "HOME": str(home), "PWD": str(ws)}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    return done.stdout.split()


@pytest.mark.parametrize("has_claude", [True, False], ids=["with ~/.claude", "without"])
def test_the_copy_is_seen_at_the_workspace_and_the_persons_claude_folder_is_untouched(
    tmp_path: Path, has_claude: bool
) -> None:
    home, ws, copy, client = (tmp_path / n for n in ("home", "ws", "copy", "client"))
    for folder in (home / ".config", ws, copy, client):
        folder.mkdir(parents=True)
    if has_claude:
        (home / ".claude").mkdir()
        (home / ".claude" / "settings.json").write_text("{}")
    (ws / "f").write_text("workspace\n")
    (copy / "f").write_text("copy\n")

    seen = _play(home, ws, copy, client)

    assert seen[:2] == [str(ws), "copy"]  # at the workspace's path, the copy's files
    assert ".config" in seen[2:] and ".claude" in seen[2:]
    assert (copy / "g").read_text() == "made\n" and not (ws / "g").exists()
    assert (client / "t").read_text() == "kept\n"  # the throwaway, not the person's
    if has_claude:
        assert sorted(p.name for p in (home / ".claude").iterdir()) == ["settings.json"]
    else:
        assert not (home / ".claude").exists()
