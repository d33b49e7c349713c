"""``lab replay`` plays the hooks the settings point to as they are on disk now: Lab 07's own
Stop hook lives in scripts/, outside .claude/, uncommitted while the participant works. The
session is one the real, pinned client wrote (scripted model) in a workspace at Lab 07 step 4;
the replay runs on both engines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders import run_cli
from tests.engine.live_steps import ReachStep
from tests.recorded_sessions import copy_workspace_into, play

LAB = "07-own-stop-hook"
HOOK = "scripts/check-before-stop.sh"


@pytest.fixture(scope="module")
def at_step_four(workspace_at_step: ReachStep) -> Path:
    return workspace_at_step(LAB, "your-session")


def _replay(root: Path, config: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict]:  # type: ignore[type-arg]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    done = run_cli("replay", "--latest", "--engine", "both", "--json", cwd=root)
    return done.code, json.loads(done.out)


def test_the_uncommitted_hook_outside_claude_is_replayed_and_its_change_found(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    play("small-change", root, config)
    code, data = _replay(root, config, monkeypatch)
    # the hook is untracked: HEAD lacks it, the replay plays it as it is now and says so
    assert data["hooks_now"] == [f"{HOOK} (not in the start commit): played as it is on disk now"]
    assert code == 0, data["first_divergence"]
    held = next(row for row in data["rows"] if row["what"] == "stop")
    assert "check-before-stop.sh" in held["recorded"]
    # the participant breaks the hook, without committing: the replay finds it on both engines
    hook = root / HOOK
    hook.write_text(hook.read_text().replace("\n", "\nexit 1\n", 1))
    code, data = _replay(root, config, monkeypatch)
    assert code == 1
    assert data["first_divergence"]["what"] == "stop"
    held = next(row for row in data["rows"] if row["what"] == "stop")
    assert all("check-before-stop.sh" not in v for v in held["replayed"].values()), held
