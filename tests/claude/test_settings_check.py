"""The settings check: every hook and rule the pinned client ignores or cannot run, named with
its file, field path, words and fix, and shown by doctor, simulate and verify-hook.

Real: settings files and hook scripts on disk (a missing one, one without its x bit), the CLI
as a process. The client's words are proved on the client in test_settings_check_client.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.claude.settings_check import PLUGIN_ROOT_SAID, SettingsWarning, check_settings
from harness.doctor import OK, WARN, check_hook_settings
from harness.ui.settings_view import settings_warnings_renderable
from harness.workspace import Workspace
from tests.builders import run_lab_process
from tests.claude.hookproject import HookProject


def command(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": text, **extra}


def write(root: Path, data: dict[str, Any], name: str = "settings.json") -> None:
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    (root / ".claude" / name).write_text(json.dumps(data, indent=2))


def by_path(warnings: tuple[SettingsWarning, ...]) -> dict[str, SettingsWarning]:
    return {w.path: w for w in warnings}


def test_an_unknown_type_and_an_unknown_event_are_named_in_the_clients_words(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "hooks": {
                "Stop": [{"hooks": [command("true"), {"type": "prompts", "prompt": "ok?"}]}],
                "stop": [{"hooks": [command("true")]}],
                "Frobnicate": [],
            }
        },
    )
    found = by_path(check_settings(tmp_path))
    typo = found["hooks.Stop[0].hooks[1].type"]
    assert (typo.file, typo.said, typo.fix, typo.client) == (
        ".claude/settings.json",
        'Unknown hook type "prompts"; entry ignored',
        'write "type": "prompt"',
        True,
    )
    assert found["hooks.stop"].said == 'Unknown hook event "stop" was ignored'
    assert found["hooks.stop"].fix == 'rename it to "Stop"'
    assert found["hooks.Frobnicate"].fix.startswith("use an event Claude Code knows")
    assert len(found) == 3


def test_plugin_root_outside_a_plugin_is_named_and_its_fallback_form_is_not(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [
                            command("bash ${CLAUDE_PLUGIN_ROOT}/hooks/block-rm-rf.sh"),
                            command('"$CLAUDE_PLUGIN_ROOT/hooks/x.sh"'),
                            command("bash ${CLAUDE_PLUGIN_ROOT:-.}/hooks/ok.sh"),
                        ],
                    }
                ]
            }
        },
    )
    found = check_settings(tmp_path)
    assert [w.path for w in found] == [
        "hooks.PreToolUse[0].hooks[0].command",
        "hooks.PreToolUse[0].hooks[1].command",
    ]
    assert all(w.said == PLUGIN_ROOT_SAID and w.client for w in found)
    assert "--plugin-dir" in found[0].fix


def test_a_missing_or_unrunnable_program_is_named_after_expanding_the_project_dir(
    project: HookProject,
) -> None:
    ok = project.script("exit 0", "ok.sh")
    project.register("Stop", ok)
    project.register("Stop", '"$CLAUDE_PROJECT_DIR/.claude/hooks/gone.sh"')
    plain = project.script("exit 0", "plain.sh")
    (project.hooks_dir / "plain.sh").chmod(0o644)
    project.register("Stop", plain)
    project.register("Stop", "${CLAUDE_PROJECT_DIR}/.claude/hooks/ok.sh --flag")
    project.register("Stop", "no-such-program-hooklab --x")
    project.register("Stop", "echo hi; exit 0")  # a shell builtin
    project.register("Stop", "jq -n 1 >/dev/null || true")  # a program on PATH
    project.register("Stop", "$MY_HOOK")  # another variable: told only when it runs
    found = by_path(check_settings(project.root))
    gone = found["hooks.Stop[1].hooks[0].command"]
    assert gone.said == (
        "$CLAUDE_PROJECT_DIR/.claude/hooks/gone.sh: not found (/bin/sh exits 127: the hook runs "
        "and checks nothing)"
    )
    assert gone.fix == "create the script there, or correct the path" and not gone.client
    denied = found["hooks.Stop[2].hooks[0].command"]
    assert denied.said.startswith("$CLAUDE_PROJECT_DIR/.claude/hooks/plain.sh: Permission denied")
    assert denied.fix == "chmod +x .claude/hooks/plain.sh"
    missing = found["hooks.Stop[4].hooks[0].command"]
    assert missing.said.startswith("no-such-program-hooklab: not found")
    assert sorted(found) == [
        "hooks.Stop[1].hooks[0].command",
        "hooks.Stop[2].hooks[0].command",
        "hooks.Stop[4].hooks[0].command",
    ]


def test_a_matcher_naming_no_tool_the_client_has_is_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Edit|Write|MultiEdit", "hooks": [command("true")]},
                    {"matcher": "Grep|Glob", "hooks": [command("true")]},
                    {"matcher": "Bash|WebFetch|mcp__github__get_issue", "hooks": [command("true")]},
                    {"matcher": "mcp__.*", "hooks": [command("true")]},
                    {"matcher": "Notebook.*", "hooks": [command("true")]},
                    {"matcher": "^Shell$", "hooks": [command("true")]},
                ],
                # SubagentStop matches agent types, not tools: not a tool name to check.
                "SubagentStop": [{"matcher": "my-agent", "hooks": [command("true")]}],
            }
        },
    )
    found = by_path(check_settings(tmp_path))
    assert sorted(found) == [
        "hooks.PreToolUse[0].matcher",
        "hooks.PreToolUse[1].matcher",
        "hooks.PreToolUse[5].matcher",
    ]
    some = found["hooks.PreToolUse[0].matcher"]
    assert some.said == (
        "MultiEdit: no tool Claude Code has by that name; the hooks here never run for it"
    )
    search = found["hooks.PreToolUse[1].matcher"]
    assert search.said == (
        "Grep, Glob: no tool Claude Code has by these names; the hooks here never run"
    )
    assert 'match "Bash"' in search.fix
    assert found["hooks.PreToolUse[5].matcher"].said.startswith("/^Shell$/ matches no tool")


def test_deny_and_ask_rules_that_never_match_are_named_in_the_clients_words(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "permissions": {
                "allow": ["Write(out/**)", "Zork"],  # the client warns about neither
                "deny": ["Edit(target/**)", "Write(target/**)", "Bashh(ls)", "Glob(src/**)"],
                "ask": ["Grep(x)", "Frob", "mcp__srv__tool"],
            }
        },
        "settings.local.json",
    )
    said = [(w.file, w.path, w.said) for w in check_settings(tmp_path)]
    local = ".claude/settings.local.json"
    assert said == [
        (
            local,
            "permissions.deny[1]",
            "Deny rule Write(target/**) never matches · use Edit(target/**)",
        ),
        (local, "permissions.deny[2]", "Deny rule Bashh(ls) matches no tool · check for typos"),
        (local, "permissions.deny[3]", "Deny rule Glob(src/**) never matches · use Read(src/**)"),
        (local, "permissions.ask[1]", "Ask rule Frob matches no tool · check for typos"),
    ]
    write_rule = check_settings(tmp_path)[0]
    assert write_rule.fix == "write Edit(target/**): an Edit rule covers every file-editing tool"


def test_a_settings_file_that_cannot_be_read_is_one_warning(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text('{"hooks": {,}}')
    (warning,) = check_settings(tmp_path)
    assert (warning.file, warning.path) == (".claude/settings.json", "")
    assert warning.said == (
        "line 1, column 12: invalid JSON (Expecting property name enclosed in double quotes); "
        "Claude Code runs none of this file's hooks"
    )
    assert warning.fix.startswith("check the JSON syntax near line 1")
    # simulate and replay load the settings next, and name it as their error: not twice.
    assert check_settings(tmp_path, unreadable=False) == ()


def test_the_petclinic_workspace_has_nothing_to_name_and_doctor_says_so(
    workspace: Workspace,
) -> None:
    """The fixture denies Edit(target/**) only: the client warned that its former
    Write(target/**) never matches (an Edit rule covers Write; proved on the client)."""
    assert check_settings(workspace.root) == ()
    (ok,) = check_hook_settings(workspace.root)
    assert ok.state == OK and ok.name == "hook settings"
    settings = workspace.root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["permissions"]["deny"].append("Write(target/**)")
    settings.write_text(json.dumps(data, indent=2))
    (warn,) = check_hook_settings(workspace.root / "docs")
    assert (warn.state, warn.required) == (WARN, False)
    assert warn.found == (
        ".claude/settings.json: permissions.deny[1]: Claude Code says: Deny rule "
        "Write(target/**) never matches · use Edit(target/**)"
    )


def test_lab_doctor_json_in_the_workspace_names_the_rule(workspace: Workspace) -> None:
    settings = workspace.root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["permissions"]["deny"].append("Write(target/**)")
    settings.write_text(json.dumps(data, indent=2))
    done = run_lab_process("doctor", "--json", cwd=workspace.root)
    rows = [c for c in json.loads(done.stdout)["checks"] if c["name"] == "hook settings"]
    assert [r["state"] for r in rows] == ["warn"]
    assert "Deny rule Write(target/**) never matches · use Edit(target/**)" in rows[0]["found"]
    assert rows[0]["fix"] == "write Edit(target/**): an Edit rule covers every file-editing tool"


def test_every_warning_fits_100_columns_with_its_fix_below(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "hooks": {
                "Stop": [{"hooks": [{"type": "prompts", "prompt": "ok?"}]}],
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [command("bash ${CLAUDE_PLUGIN_ROOT}/x.sh")]}
                ],
            },
            "permissions": {"deny": ["Write(target/**)"]},
        },
    )
    for width in (80, 100, 120):
        console = Console(width=width, record=True, no_color=True)
        console.print(settings_warnings_renderable(check_settings(tmp_path)), crop=False)
        shown = console.export_text()
        lines = shown.splitlines()
        assert all(len(line) <= width for line in lines), lines
        assert lines[0].startswith("warning: .claude/settings.json: hooks.Stop[0].hooks[0].type")
        assert '  fix: write "type": "prompt"' in lines
        text = " ".join(shown.split())
        assert 'Claude Code says: Unknown hook type "prompts"; entry ignored' in text


def test_lab_simulate_names_the_entries_before_it_plays(project: HookProject) -> None:
    project.hook("Stop", "exit 0")
    data = json.loads((project.root / ".claude" / "settings.json").read_text())
    data["hooks"]["Stop"][0]["hooks"].append({"type": "prompts", "prompt": "ok? $ARGUMENTS"})
    data["permissions"] = {"deny": ["Write(target/**)"]}
    (project.root / ".claude" / "settings.json").write_text(json.dumps(data))
    scenario = project.root / "s.toml"
    scenario.write_text('[[step]]\ndo = "session_start"\n[[step]]\ndo = "stop"\n')
    done = run_lab_process("simulate", str(scenario), "--json", cwd=project.root)
    assert done.returncode == 0, done.stderr
    err = " ".join(done.stderr.split())
    assert (
        "warning: .claude/settings.json: hooks.Stop[0].hooks[1].type: Claude Code says: Unknown "
        'hook type "prompts"; entry ignored fix: write "type": "prompt"'
    ) in err
    assert "permissions.deny[0]: Claude Code says: Deny rule Write(target/**) never matches" in err
    assert [json.loads(line)["do"] for line in done.stdout.splitlines()] == [
        "session_start",
        "stop",
    ]


def test_lab_verify_hook_json_carries_the_warnings(project: HookProject) -> None:
    script = project.script("exit 0", "stop.sh")
    project.register("Stop", script)
    project.register("PreToolUse", "bash ${CLAUDE_PLUGIN_ROOT}/g.sh", matcher="Bash")
    done = run_lab_process(
        "verify-hook",
        ".claude/hooks/stop.sh",
        "--break",
        "true",
        "--fix",
        "true",
        "--json",
        cwd=project.root,
    )
    data = json.loads(done.stdout)
    assert data["settings_warnings"] == [
        {
            "file": ".claude/settings.json",
            "path": "hooks.PreToolUse[0].hooks[0].command",
            "said": PLUGIN_ROOT_SAID,
            "fix": data["settings_warnings"][0]["fix"],
            "client": True,
        }
    ]
