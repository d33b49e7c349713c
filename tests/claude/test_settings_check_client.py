"""The settings check against the pinned client itself: where Claude Code warns about an
entry, the check names the same entry in the same words, and names nothing the client warns
about that it does not.

Observed on 2.1.332, offline (scripted model on 127.0.0.1, a fresh HOME):
- the interactive client, after the folder's trust, shows a "Settings Warning" dialog
  (``hooks.Stop.0.hooks.1.type: Unknown hook type "prompts"; entry ignored. Valid types: …``,
  ``hooks.Stopp: Unknown hook event "Stopp" was ignored. Valid events: …``), then ⚠ lines
  under its banner (``Deny rule Write(target/**) never matches · use Edit(target/**)``,
  ``Deny rule Bashh(ls) matches no tool · check for typos``); a matcher naming no tool gets
  no word from it;
- in ``-p`` mode none of these is printed; a command hook naming ``${CLAUDE_PLUGIN_ROOT}`` is
  not run and its hook_response says why; a missing script exits 127, one without its x bit
  126 (``/bin/sh``'s words).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from harness.claude.client.api import ScriptedApi
from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.person import client_env
from harness.claude.client.terminal import Terminal, fresh_home
from harness.claude.settings_check import (
    MATCHER_TOOLS,
    PLUGIN_ROOT_SAID,
    SettingsWarning,
    check_settings,
)
from harness.workspace import Workspace
from tests.conftest import require_real_client

SETTINGS: dict[str, Any] = {
    "permissions": {
        "deny": ["Edit(target/**)", "Write(target/**)", "Bashh(ls)", "Read(secret.txt)"],
        "ask": ["Frob"],
    },
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    {"type": "command", "command": "true"},
                    {"type": "prompts", "prompt": "Did the tests run? $ARGUMENTS"},
                ]
            }
        ],
        "Stopp": [{"hooks": [{"type": "command", "command": "true"}]}],
        "PreToolUse": [{"matcher": "Bashh", "hooks": [{"type": "command", "command": "true"}]}],
    },
}


def _flat(text: str) -> str:
    return " ".join(text.split())


def _dotted(path: str) -> str:
    """Our field path as the client writes it: hooks.Stop[0].hooks[1] → hooks.Stop.0.hooks.1"""
    return re.sub(r"\[(\d+)\]", r".\1", path)


def _client_screens(root: Path, folder: Path) -> tuple[str, str]:
    """The interactive client started in ``root`` as a person starts it: the Settings Warning
    dialog it shows (empty if none), and the screen once its prompt box is up."""
    home = fresh_home(folder)
    warning = ""
    with ScriptedApi(on_request=lambda request: None) as api:
        terminal = Terminal(root, client_env(home, api.base_url), folder / "terminal")
        try:
            terminal.type("claude")
            terminal.key("Enter")
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                shown = terminal.screen()
                if "auto mode on" in shown:
                    break
                if "Yes, I trust this folder" in shown:
                    terminal.choose("Yes, I trust this folder")
                elif "Do you want to use this API key?" in shown:
                    terminal.choose("Yes")
                elif "Settings Warning" in shown:
                    warning = shown
                    terminal.choose("1. Continue")
                else:
                    time.sleep(0.3)
            # The ⚠ lines come with the banner, after the prompt box.
            banner = terminal.wait("never matches", timeout=60)
        finally:
            terminal.close()
    return warning, banner


@pytest.mark.skipif(shutil.which("tmux") is None, reason="the interactive client needs tmux")
def test_the_check_names_what_the_interactive_client_warns_about_in_its_words(
    tmp_path: Path,
) -> None:
    require_real_client()
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(SETTINGS, indent=2))
    warning, banner = _client_screens(root, tmp_path / "person")
    ours = check_settings(root)
    client_said = [w for w in ours if w.client]
    assert len(client_said) == 5, ours
    dialog = _flat(warning)
    for w in client_said:
        if w.path.startswith("hooks."):  # the Settings Warning dialog: path, then words
            assert f"{_dotted(w.path)}: {w.said}" in dialog, (w, warning)
        else:  # a ⚠ line under the banner, word for word
            assert f"⚠ {w.said}" in banner.splitlines(), (w, banner)
    # The other way round: nothing the client warns about is left unnamed.
    said = {w.said for w in ours}
    warned = [line[2:] for line in banner.splitlines() if line.startswith("⚠ ")]
    assert warned and set(warned) <= said, (warned, said)
    entries = re.findall(r"[├└] (hooks\S*): ([^.]*)", warning)
    assert entries and {(p, s.strip()) for p, s in entries} <= {
        (_dotted(w.path), w.said.split(".")[0]) for w in ours
    }
    # What the client says nothing about, the check names in its own words.
    (matcher,) = [w for w in ours if w.path == "hooks.PreToolUse[0].matcher"]
    assert not matcher.client and "Bashh" not in dialog


def _hook_responses(session: ClaudeCodeSession) -> list[dict[str, Any]]:
    return [e for e in session.events if e.get("subtype") == "hook_response"]


def test_hooks_the_client_cannot_run_are_the_ones_the_check_names(tmp_path: Path) -> None:
    require_real_client()
    root = tmp_path / "project"
    hooks = root / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    for name, mode in (("ok.sh", 0o755), ("plain.sh", 0o644)):
        (hooks / name).write_text("#!/usr/bin/env bash\ncat >/dev/null\necho ran-" + name + "\n")
        (hooks / name).chmod(mode)
    commands = [
        "bash ${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh",
        "bash ${CLAUDE_PLUGIN_ROOT:-.}/.claude/hooks/ok.sh",
        '"$CLAUDE_PROJECT_DIR/.claude/hooks/gone.sh"',
        '"$CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh"',
    ]
    entries = [{"type": "command", "command": c} for c in commands]
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": entries}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    named = {w.path: w for w in check_settings(root)}
    with ClaudeCodeSession(root, transcript_dir=tmp_path / "t") as session:
        session.session_start()
        session.prompt("say hi")
        session.bash("echo hi")
        responses = _hook_responses(session)
        init = next(e for e in session.events if e.get("subtype") == "init")
        offered = {
            tool["name"]
            for request in session.requests
            for tool in request.body.get("tools", [])
            if isinstance(tool, dict) and "name" in tool
        }
    # The tools a matcher can meet, as the client lists them: its init message (with Task,
    # the Agent tool's other name) and the tools its requests offer the model.
    assert (set(init["tools"]) | offered) - {"DeferredToolPlaceholder"} == MATCHER_TOOLS
    path = "hooks.PreToolUse[0].hooks[{}].command".format
    assert sorted(named) == [path(0), path(2), path(3)]
    plugin: SettingsWarning = named[path(0)]
    assert any(
        PLUGIN_ROOT_SAID in r.get("stderr", "") and r.get("exit_code") == 1 for r in responses
    ), responses
    assert plugin.said == PLUGIN_ROOT_SAID
    missing = [r for r in responses if r.get("exit_code") == 127]
    denied = [r for r in responses if r.get("exit_code") == 126]
    assert missing and "gone.sh: not found" in missing[0]["stderr"], responses
    assert denied and "plain.sh: Permission denied" in denied[0]["stderr"], responses
    assert "not found" in named[path(2)].said and "Permission denied" in named[path(3)].said
    # The fallback form ran: the client accepts ${CLAUDE_PLUGIN_ROOT:-.}.
    assert any("ran-ok.sh" in r.get("stdout", "") for r in responses), responses


@pytest.mark.skipif(shutil.which("jq") is None, reason="the fixture's hooks need jq")
def test_the_fixtures_edit_rule_alone_keeps_a_write_into_target_refused(
    workspace: Workspace, tmp_path: Path
) -> None:
    """SPEC §3 has the fixture deny Edit(target/**) and Write(target/**); the client says the
    second never matches, and the first covers Write: the real client wins."""
    require_real_client()
    assert json.loads((workspace.root / ".claude" / "settings.json").read_text())["permissions"][
        "deny"
    ] == ["Edit(target/**)"]
    assert check_settings(workspace.root) == ()
    target = workspace.root / "target" / "surefire-reports" / "TEST-forged.xml"
    with ClaudeCodeSession(workspace.root, transcript_dir=tmp_path / "t") as session:
        session.session_start()
        session.prompt("write a green report")
        wrote = session.write(target, '<testsuite tests="1" failures="0" errors="0"/>\n')
    assert wrote.outcome == "blocked", wrote
    shown = wrote.feedback + wrote.tool_result
    assert "denied by your permission settings" in shown, wrote
    assert not target.exists()
