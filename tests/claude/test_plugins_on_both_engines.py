"""Plugins' hooks as the pinned client loads them, on the emulator and on the real client.

The guards are Hook Lab's own test plugins (tests/plugins): rm-guard refuses ``rm -rf`` with
exit 2, fetch-guard denies ``curl`` to GitHub with permissionDecision JSON. Each case table
runs through ``--plugin-dir``, through a marketplace in the repository that the settings
enable, and from a repository that is itself the plugin; both engines must give every verdict.
Registered in settings.json with ``${CLAUDE_PLUGIN_ROOT}``, the client runs neither: both
engines give its verdict (the call goes ahead) and its own words.

Every Bash step is real and runs confined (no network, the project the only writable folder),
so an allowed ``curl`` reaches nothing.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from harness.claude.engines import ScriptedSession, open_session
from harness.claude.plugins import (
    NOT_A_PLUGIN_SAID,
    enabled_marketplace_plugins,
    flag_folders,
    not_run_said,
    plugin_hooks,
)
from harness.claude.settings import load_settings
from harness.errors import HarnessError
from harness.jail import confined, unavailable
from tests.builders import REPO_ROOT

PLUGINS = REPO_ROOT / "tests" / "plugins"
RM_CASES = {
    "rm -rf gone": "blocked",
    "rm -fr gone": "blocked",
    "rm -r -f gone": "blocked",
    "rm gone -rf": "blocked",
    "cd /tmp && rm -rf directory/": "blocked",
    "ls; sudo rm -Rf gone": "blocked",
    "rm --recursive --force gone": "blocked",
    "rm -f gone": "allowed",
    "rm -r -- gone-too": "allowed",
    "echo rm -rf": "allowed",
    "ls -rf": "allowed",
}
FETCH_CASES = {
    "curl https://github.com/anthropics": "blocked",
    "curl -s https://api.github.com/repos/x/y": "blocked",
    "curl -sL https://raw.githubusercontent.com/x/y/main/README.md": "blocked",
    "curl --version": "allowed",
    "curl -s https://notgithub.com/": "allowed",
    "echo see https://github.com/anthropics": "allowed",
}

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the guards need jq")


def _project(root: Path, settings: dict[str, Any] | None = None) -> Path:
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(settings or {}))
    return root


@contextmanager
def _session(engine: str, root: Path, tmp: Path, **kw: Any) -> Iterator[ScriptedSession]:
    if unavailable() is not None:
        pytest.skip(f"the Bash steps run confined: {unavailable()}")
    with (
        confined(root) as jail,
        open_session(
            engine, root, transcript_dir=tmp / "t", auto_approve=True, confinement=jail, **kw
        ) as session,
    ):
        session.session_start()
        session.prompt("Tidy up.")
        yield session


def _verdicts(session: ScriptedSession, cases: dict[str, str]) -> dict[str, str]:
    return {command: str(session.bash(command).outcome) for command in cases}


# -- loading, without a session ---------------------------------------------------------------


def test_a_plugins_hooks_get_its_folder_filled_in() -> None:
    settings = plugin_hooks(PLUGINS / "rm-guard")
    (group,) = settings.hooks["PreToolUse"]
    (hook,) = group.hooks
    folder = (PLUGINS / "rm-guard").resolve()
    assert hook.command == f"bash {folder}/hooks/block-rm-rf.sh"
    assert hook.plugin_root == str(folder)


def test_a_missing_folder_is_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(HarnessError) as raised:
        plugin_hooks(tmp_path / "nowhere")
    assert "is not a folder" in raised.value.message
    assert raised.value.fix and "--plugin-dir" in raised.value.fix


def test_a_repository_that_is_a_plugin_and_its_marketplace_plugins_are_found(
    tmp_path: Path,
) -> None:
    root = _as_plugin(tmp_path / "repo", "rm-guard")
    assert flag_folders(root) == [root.resolve()]
    market = _with_marketplace(tmp_path / "market", ["fetch-guard"])
    assert enabled_marketplace_plugins(market) == [(market / "plugins" / "fetch-guard").resolve()]
    assert [g.matcher for g in load_settings(market).hooks["PreToolUse"]] == ["Bash|WebFetch"]


def _as_plugin(root: Path, name: str) -> Path:
    shutil.copytree(PLUGINS / name, root)
    return _project(root)


def _with_marketplace(root: Path, enabled: list[str]) -> Path:
    """A repository holding tests/plugins as a directory marketplace its settings declare and
    whose ``enabled`` plugins they enable, as the PetClinic does with its own."""
    shutil.copytree(PLUGINS, root / "plugins")
    return _project(
        root,
        {
            "extraKnownMarketplaces": {
                "hooklab-tests": {"source": {"source": "directory", "path": "./plugins"}}
            },
            "enabledPlugins": {f"{name}@hooklab-tests": True for name in enabled},
        },
    )


# -- the case tables, on both engines ----------------------------------------------------------


def test_the_guards_through_plugin_dir_give_every_verdict(engine: str, tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    plugins = [PLUGINS / "rm-guard", PLUGINS / "fetch-guard"]
    with _session(engine, root, tmp_path, plugin_dirs=plugins) as session:
        assert _verdicts(session, RM_CASES) == RM_CASES
        assert _verdicts(session, FETCH_CASES) == FETCH_CASES
        denied = session.bash("curl https://github.com/x")
    assert "No Bash calls to GitHub here" in denied.feedback


def test_the_guards_from_a_marketplace_in_the_repository_give_every_verdict(
    engine: str, tmp_path: Path
) -> None:
    root = _with_marketplace(tmp_path / "project", ["rm-guard", "fetch-guard"])
    with _session(engine, root, tmp_path) as session:
        assert _verdicts(session, RM_CASES) == RM_CASES
        assert _verdicts(session, FETCH_CASES) == FETCH_CASES


def test_a_repository_that_is_the_plugin_loads_its_own_hooks(engine: str, tmp_path: Path) -> None:
    """The client guards a --plugin-dir folder as it guards .claude/: a write the guard lets
    go still asks (``... which is a sensitive file``), on both engines."""
    root = _as_plugin(tmp_path / "project", "rm-guard")
    writes = {"rm -f gone", "rm -r -- gone-too"}
    wanted = {c: "asked" if c in writes else verdict for c, verdict in RM_CASES.items()}
    with _session(engine, root, tmp_path) as session:
        assert _verdicts(session, RM_CASES) == wanted


def test_a_settings_hook_naming_the_plugin_root_is_not_run_on_either_engine(
    engine: str, tmp_path: Path
) -> None:
    command = "bash ${CLAUDE_PLUGIN_ROOT}/hooks/block-rm-rf.sh"
    entry = {"type": "command", "command": command}
    root = _project(
        tmp_path / "project",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [entry]}]}},
    )
    shutil.copytree(PLUGINS / "rm-guard" / "hooks", root / "hooks")
    (root / "gone").mkdir()
    with _session(engine, root, tmp_path) as session:
        step = session.bash("rm -rf gone")
    assert step.outcome == "allowed" and step.tool_ran
    assert not (root / "gone").exists()
    (run,) = step.hooks
    assert (run.command, run.exit_code) == (command, 1)  # named as the client's message does
    assert run.stderr == not_run_said(command)
    # Each engine shows the client's own words as the hook's error.
    (error,) = step.errors
    assert error.startswith("PreToolUse hook error (") and NOT_A_PLUGIN_SAID in error


BROKEN = {
    # Observed on 2.1.332: each makes the client load nothing of the plugin ("Failed to load
    # plugin: ..." in its init message's plugin_errors).
    "a guard event outside hooks": lambda hooks: {**hooks, "PreToolUse": [{"hooks": []}]},
    "an unknown hook type": lambda hooks: _add_entry(hooks, {"type": "prompts", "prompt": "x"}),
    "a timeout that is no number": lambda hooks: _add_entry(
        hooks, {"type": "command", "command": "true", "timeout": "x"}
    ),
}


def _add_entry(hooks: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    hooks["hooks"]["PreToolUse"][0]["hooks"].append(entry)
    return hooks


@pytest.mark.parametrize("mistake", sorted(BROKEN))
def test_a_plugin_the_client_cannot_load_runs_no_hook_on_either_engine(
    engine: str, tmp_path: Path, mistake: str
) -> None:
    plugin = tmp_path / "plugin"
    shutil.copytree(PLUGINS / "rm-guard", plugin)
    hooks_json = plugin / "hooks" / "hooks.json"
    hooks_json.write_text(json.dumps(BROKEN[mistake](json.loads(hooks_json.read_text()))))
    root = _project(tmp_path / "project")
    (root / "gone").mkdir()
    warnings = plugin_hooks(plugin).warnings
    assert len(warnings) == 1 and "Failed to load plugin: " in warnings[0]
    with _session(engine, root, tmp_path, plugin_dirs=[plugin]) as session:
        step = session.bash("rm -rf gone")
        notes = [note for earlier in session.history for note in earlier.notes]
    assert step.outcome == "allowed" and not step.hooks
    if engine == "claude-code":  # the client's own words reach the steps' notes
        assert any(f"{plugin}: Failed to load plugin: " in note for note in notes), notes
