"""``--plugin-dir`` and plugin repositories through ``lab simulate`` and ``lab verify-hook``, as
real processes; simulate on both engines. The guards are tests/plugins (Hook Lab's own)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.claude.plugins import NOT_A_PLUGIN_SAID
from harness.jail import unavailable
from tests.builders import REPO_ROOT, git, run_lab_process

PLUGINS = REPO_ROOT / "tests" / "plugins"
SCENARIO = """
[[step]]
do = "bash"
command = "rm -rf gone"
expect = "blocked"

[[step]]
do = "bash"
command = "curl -s https://api.github.com/repos/x/y"
expect = "{fetch}"

[[step]]
do = "bash"
command = "echo rm -rf"
expect = "allowed"
"""

pytestmark = [
    pytest.mark.skipif(shutil.which("jq") is None, reason="the guards need jq"),
    pytest.mark.skipif(unavailable() is not None, reason="lab simulate runs confined"),
]


def _repository(root: Path, settings: dict[str, object] | None = None) -> Path:
    """A git repository of someone's own (no lab init), with ``gone/`` to remove."""
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(settings or {}))
    (root / "gone").mkdir()
    (root / "gone" / "file").write_text("kept\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    return root


def _simulate(root: Path, tmp: Path, fetch: str, *flags: str) -> list[dict[str, object]]:
    scenario = tmp / "scenario.toml"
    scenario.write_text(SCENARIO.format(fetch=fetch))
    done = run_lab_process("simulate", str(scenario), "--json", *flags, cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "gone" / "file").is_file()  # played on a copy
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_simulate_loads_the_plugins_given_with_plugin_dir(engine: str, tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo")
    flags = [
        "--plugin-dir",
        str(PLUGINS / "rm-guard"),
        "--plugin-dir",
        str(PLUGINS / "fetch-guard"),
    ]
    steps = _simulate(root, tmp_path, "blocked", "--engine", engine, *flags)
    assert [s["outcome"] for s in steps] == ["blocked", "blocked", "allowed"]
    assert "No Bash calls to GitHub here" in str(steps[1]["feedback"])


def test_simulate_in_a_repository_that_is_a_plugin_loads_it(engine: str, tmp_path: Path) -> None:
    shutil.copytree(PLUGINS / "rm-guard", tmp_path / "repo")
    root = _repository(tmp_path / "repo")
    steps = _simulate(root, tmp_path, "allowed", "--engine", engine)
    assert [s["outcome"] for s in steps] == ["blocked", "allowed", "allowed"]


def test_simulate_shows_the_clients_words_for_a_settings_hook_naming_the_plugin_root(
    engine: str, tmp_path: Path
) -> None:
    entry = {"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/hooks/block-rm-rf.sh"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [entry]}]}}
    root = _repository(tmp_path / "repo", settings)
    shutil.copytree(PLUGINS / "rm-guard" / "hooks", root / "hooks")
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('[[step]]\ndo = "bash"\ncommand = "rm -rf gone"\nexpect = "allowed"\n')
    done = run_lab_process("simulate", str(scenario), "--engine", engine, cwd=root)
    assert done.returncode == 0, done.stderr
    shown = " ".join(done.stdout.split())
    assert "hook error: PreToolUse hook error (" in shown
    assert " ".join(NOT_A_PLUGIN_SAID.split()) in shown
    assert (root / "gone" / "file").is_file()


def test_a_plugin_dir_that_is_no_folder_is_refused_with_the_fix(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo")
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('[[step]]\ndo = "bash"\ncommand = "true"\n')
    gone = tmp_path / "nowhere"
    done = run_lab_process("simulate", str(scenario), "--plugin-dir", str(gone), cwd=root)
    assert done.returncode == 1
    said = " ".join(done.stderr.split())
    assert f"{gone} is not a folder" in said and "fix:" in said
    assert "Traceback" not in done.stderr


STOP_HOOK = """#!/usr/bin/env bash
# A plugin's Stop hook: its reason is a file of the plugin, found by the plugin's root.
set -u
[ "$(jq -r '.stop_hook_active')" = true ] && exit 0
[ -f "$CLAUDE_PROJECT_DIR/broken" ] || exit 0
cat "$CLAUDE_PLUGIN_ROOT/hooks/reason.txt" >&2
exit 2
"""


def test_verify_hook_runs_a_plugins_script_with_its_plugin_root(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    shutil.copytree(PLUGINS / "rm-guard", plugin)
    (plugin / "hooks" / "reason.txt").write_text("remove broken first\n")
    script = plugin / "hooks" / "stop.sh"
    script.write_text(STOP_HOOK)
    script.chmod(0o755)
    root = _repository(tmp_path / "repo")
    argv = ["verify-hook", str(script), "--break", "touch broken", "--fix", "rm -f broken"]
    graded = run_lab_process(*argv, "--json", "--plugin-dir", str(plugin), cwd=root)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    bare = run_lab_process(*argv, "--json", cwd=root)  # run bare: CLAUDE_PLUGIN_ROOT unbound
    assert bare.returncode == 1
    checks = {c["name"]: c for c in json.loads(bare.stdout)["checks"]}
    assert not checks["blocks-when-broken"]["passed"], checks


def test_replay_with_plugin_dir_gives_the_verdicts_the_client_recorded(tmp_path: Path) -> None:
    """A session recorded on the real client with the guard loaded by --plugin-dir replays the
    same on both engines with it, and diverges at the refusal without it."""
    from harness.claude.client.driver import ClaudeCodeSession
    from tests.conftest import require_real_client

    require_real_client()
    root = _repository(tmp_path / "repo")
    guard = str(PLUGINS / "rm-guard")
    with ClaudeCodeSession(
        root, transcript_dir=tmp_path / "t", auto_approve=True, plugin_dirs=[Path(guard)]
    ) as session:
        session.session_start()
        session.prompt("Tidy up.")
        assert session.bash("rm -rf gone").outcome == "blocked"
        assert session.bash("echo tidy").outcome == "allowed"
        transcript = session.transcript_path
    kept = tmp_path / "session.jsonl"
    shutil.copy(transcript, kept)  # written whole once the client has ended
    argv = ["replay", str(kept), "--engine", "both", "--json"]
    done = run_lab_process(*argv, "--plugin-dir", guard, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [r["what"] for r in rows] == ["Bash rm -rf gone", "Bash echo tidy"]
    assert rows[0]["recorded"].startswith("refused") and rows[1]["recorded"] == "ran"
    assert all(r["agrees"] == {"emulator": True, "claude-code": True} for r in rows), rows
    bare = run_lab_process(*argv, cwd=root)
    assert bare.returncode == 1


def test_verify_hook_grades_a_plugins_stop_hook_with_the_timeout_of_its_hooks_json(
    tmp_path: Path,
) -> None:
    """The client runs a plugin's hook with the timeout its hooks.json gives; the grade uses
    that one, not the 10 s default (the grade said "default: not a Stop hook" before)."""
    plugin = tmp_path / "plugin"
    shutil.copytree(PLUGINS / "rm-guard", plugin)
    (plugin / "hooks" / "reason.txt").write_text("remove broken first\n")
    script = plugin / "hooks" / "stop.sh"
    script.write_text(STOP_HOOK)
    script.chmod(0o755)
    hooks_json = plugin / "hooks" / "hooks.json"
    declared = json.loads(hooks_json.read_text())
    declared.setdefault("hooks", {})["Stop"] = [
        {
            "hooks": [
                {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh", "timeout": 45}
            ]
        }
    ]
    hooks_json.write_text(json.dumps(declared))
    root = _repository(tmp_path / "repo")
    argv = ["verify-hook", str(script), "--break", "touch broken", "--fix", "rm -f broken"]
    graded = run_lab_process(*argv, "--json", "--plugin-dir", str(plugin), cwd=root)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    grade = json.loads(graded.stdout)
    assert grade["timeout"] == 45, grade
    assert str(hooks_json) in grade["timeout_source"], grade["timeout_source"]
