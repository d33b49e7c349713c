"""walk-q: a replay hands the hook its transcript where the client keeps one.

The client writes a session's transcript to ``$HOME/.claude/projects/<slug>/<session>.jsonl``
(the slug: the project's path, each character not a letter or digit a ``-``). A replay that
kept it elsewhere (/dev/shm/hooklab-session-*/) let a Stop hook tell the replay from the real
session by its ``transcript_path`` alone. Here Lab 07's hook refuses (exit 1, no block) any
stop whose transcript is not of that shape under the HOME it sees: the replay on both engines
must still find the stop the real client recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders import run_cli
from tests.engine.live_steps import ReachStep
from tests.recorded_sessions import copy_workspace_into, play

LAB = "07-own-stop-hook"
HOOK = "scripts/check-before-stop.sh"
# After the shebang: the event read once, judged, then handed on to the hook as it was.
GATE = """
stdin=$(cat)
slug=$(printf '%s' "$PWD" | sed 's/[^A-Za-z0-9]/-/g')
case "$stdin" in
  *"\\"transcript_path\\":\\"$HOME/.claude/projects/$slug/"*.jsonl\\"*) ;;
  *) echo "not where the client keeps a transcript" >&2; exit 1 ;;
esac
exec 0< <(printf '%s' "$stdin")
"""


@pytest.fixture(scope="module")
def at_step_four(workspace_at_step: ReachStep) -> Path:
    return workspace_at_step(LAB, "your-session")


def test_the_replayed_stop_reads_its_transcript_where_the_client_keeps_one(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    play("small-change", root, config)
    hook = root / HOOK
    first, rest = hook.read_text().split("\n", 1)
    hook.write_text(f"{first}\n{GATE}{rest}")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))

    done = run_cli("replay", "--latest", "--engine", "both", "--json", cwd=root)

    data = json.loads(done.out)
    assert done.code == 0, data["first_divergence"]
    held = next(row for row in data["rows"] if row["what"] == "stop")
    assert all("check-before-stop.sh" in v for v in held["replayed"].values()), held
