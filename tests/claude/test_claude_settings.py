"""Settings loading, merging and the exact error messages a user gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.claude import Event, find_project_root, load_settings, parse_settings
from harness.claude.events import KNOWN_EVENTS
from harness.claude.permissions import Permissions, parse_rule
from harness.claude.settings_check import check_settings
from harness.errors import ConfigError, HarnessError


def write(root: Path, data: Any, name: str = "settings.json") -> None:
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else json.dumps(data)
    (root / ".claude" / name).write_text(text)


def hook(command: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **extra}


def error_for(data: Any) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_settings(data, ".claude/settings.json")
    return info.value


def test_bad_timeout_names_file_field_and_fix() -> None:
    err = error_for(
        {
            "hooks": {
                "PreToolUse": [{"matcher": "Edit", "hooks": [hook("a"), hook("b", timeout=-3)]}]
            }
        }
    )
    assert str(err) == (
        ".claude/settings.json: hooks.PreToolUse[0].hooks[1].timeout: must be a "
        'positive number\n  fix: give the timeout in seconds, e.g. "timeout": 10'
    )


def test_unknown_events_are_ignored_and_the_settings_check_names_them(tmp_path: Path) -> None:
    """Claude Code (2.1.332) loads such a file and runs the other hooks (differential case
    unknown-event-does-not-reject-settings); settings_check names each in the client's words."""
    data = {"hooks": {"Stop": [{"hooks": [hook("true")]}], "PreToolUSE": [], "AfterEdit": []}}
    settings = parse_settings(data, ".claude/settings.json")
    assert set(settings.hooks) == {"Stop"}
    assert settings.warnings == ()
    write(tmp_path, data)
    typo, other = check_settings(tmp_path)
    assert str(typo) == (
        '.claude/settings.json: hooks.PreToolUSE: Unknown hook event "PreToolUSE" was ignored'
    )
    assert typo.fix == 'rename it to "PreToolUse"' and typo.client
    assert other.path == "hooks.AfterEdit" and "PreToolUse, PostToolUse" in other.fix


def test_every_event_the_pinned_client_knows_is_known() -> None:
    """Read from the client's own list of hook events (2.1.332): StopFailure, PostToolBatch
    and TaskCompleted are events, and load without a warning."""
    names = ("StopFailure", "PostToolBatch", "TaskCompleted", "SessionEnd", "SubagentStart")
    settings = parse_settings(
        {"hooks": {name: [{"hooks": [hook("true")]}] for name in names}}, "s.json"
    )
    assert settings.warnings == ()
    assert set(settings.hooks) == set(names)
    assert len(KNOWN_EVENTS) == 34


def test_prompt_agent_and_http_hooks_load_with_what_they_run() -> None:
    settings = parse_settings(
        {
            "hooks": {
                "Stop": [
                    {
                        "hooks": [
                            {"type": "prompt", "prompt": "Ran? $ARGUMENTS"},
                            {"type": "agent", "prompt": "Verify", "timeout": 9},
                            {
                                "type": "http",
                                "url": "http://127.0.0.1:9/h",
                                "headers": {"X-Token": "$T"},
                                "allowedEnvVars": ["T"],
                            },
                        ]
                    }
                ]
            }
        },
        "s.json",
    )
    prompt, agent, http = settings.hooks["Stop"][0].hooks
    assert (prompt.kind, prompt.label, prompt.timeout) == ("prompt", "Ran? $ARGUMENTS", 30.0)
    assert (agent.kind, agent.timeout) == ("agent", 9.0)
    assert (http.kind, http.label, http.headers) == (
        "http",
        "http://127.0.0.1:9/h",
        (("X-Token", "$T"),),
    )
    assert http.allowed_env_vars == ("T",)
    assert settings.warnings == ()


def test_a_hook_that_cannot_be_played_is_named_and_the_rest_of_the_file_runs() -> None:
    """Observed on 2.1.332: a Stop command hook next to an entry of an unknown type still
    runs and blocks; the file is not refused for one entry. An mcp_tool hook needs an MCP
    server, which a scripted session has none of: it is named, not played."""
    settings = parse_settings(
        {
            "hooks": {
                "Stop": [
                    {
                        "hooks": [
                            hook("a"),
                            {"type": "frobnicate"},
                            {"type": "mcp_tool", "server": "s", "tool": "t"},
                            {"type": "comand", "command": "b"},
                        ]
                    }
                ]
            }
        },
        "s.json",
    )
    assert [h.label for h in settings.hooks["Stop"][0].hooks] == ["a"]
    (mcp,) = settings.warnings
    assert "hooks.Stop[0].hooks[2]: an mcp_tool hook" in mcp and "does not play it" in mcp


@pytest.mark.parametrize(
    ("data", "field", "problem"),
    [
        (
            {"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}},
            "hooks.Stop[0].hooks[0].type",
            "is missing",
        ),
        (
            {"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": " "}]}]}},
            "hooks.Stop[0].hooks[0].prompt",
            "must be a non-empty string",
        ),
        (
            {"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "ftp://x"}]}]}},
            "hooks.Stop[0].hooks[0].url",
            "must be a URL",
        ),
        (
            {"hooks": {"Stop": [{"hooks": [{"type": 7, "command": "x"}]}]}},
            "hooks.Stop[0].hooks[0].type",
            "must be a string",
        ),
        (
            {"hooks": {"Stop": [{"hooks": [hook("")]}]}},
            "hooks.Stop[0].hooks[0].command",
            "must be a non-empty string",
        ),
        (
            {"hooks": {"Stop": [{"hooks": [hook("x", timeout=True)]}]}},
            "hooks.Stop[0].hooks[0].timeout",
            "must be a positive number",
        ),
        ({"hooks": {"Stop": [{"hooks": []}]}}, "hooks.Stop[0].hooks", "must be a non-empty list"),
        ({"hooks": {"Stop": {"hooks": []}}}, "hooks.Stop", "must be a list of matcher groups"),
        (
            {"hooks": {"PreToolUse": [{"matcher": "Edit(", "hooks": [hook("x")]}]}},
            "hooks.PreToolUse[0].matcher",
            "is not a valid regular expression",
        ),
        (
            {"permissions": {"deny": ["Edit(target/**"]}},
            "permissions.deny[0]",
            "'Edit(target/**' is not a permission rule",
        ),
        ({"permissions": {"allow": "Bash"}}, "permissions.allow", "must be a list of rules"),
        (
            {"hooks": {"Stop": [{"hooks": [hook("x", args="--strict")]}]}},
            "hooks.Stop[0].hooks[0].args",
            "must be a list of strings",
        ),
        (
            {"hooks": {"Stop": [{"hooks": [hook("x", args=["--level", 2])]}]}},
            "hooks.Stop[0].hooks[0].args",
            "must be a list of strings",
        ),
    ],
)
def test_field_errors(data: Any, field: str, problem: str) -> None:
    err = error_for(data)
    assert err.field == field
    assert err.problem.startswith(problem)
    assert err.fix


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    write(tmp_path, '{\n  "hooks": {\n    "Stop": [],\n  }\n}\n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert info.value.path == ".claude/settings.json"
    assert info.value.field == "line 4, column 3"
    assert "invalid JSON" in info.value.problem


def test_local_settings_are_merged(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "hooks": {"Stop": [{"hooks": [hook("one")]}]},
            "permissions": {"deny": ["Edit(target/**)"]},
        },
    )
    write(
        tmp_path,
        {
            "hooks": {
                "Stop": [{"hooks": [hook("two")]}],
                "PreToolUse": [{"matcher": "Bash", "hooks": [hook("three")]}],
            },
            "permissions": {"deny": ["Write(target/**)"], "allow": ["Bash(git status)"]},
        },
        "settings.local.json",
    )
    settings = load_settings(tmp_path)
    assert [h.command for h in settings.commands_for(Event.STOP, None)] == ["one", "two"]
    assert [h.command for h in settings.commands_for(Event.PRE_TOOL_USE, "Bash")] == ["three"]
    assert [r.text for r in settings.permissions.deny] == ["Edit(target/**)", "Write(target/**)"]
    assert settings.files == (".claude/settings.json", ".claude/settings.local.json")


def test_error_in_local_file_names_the_local_file(tmp_path: Path) -> None:
    write(tmp_path, {})
    write(tmp_path, {"hooks": {"Stop": [{"hooks": [hook("x", timeout=0)]}]}}, "settings.local.json")
    with pytest.raises(ConfigError, match=r"^\.claude/settings\.local\.json: hooks\.Stop"):
        load_settings(tmp_path)


def test_default_timeout_is_600(tmp_path: Path) -> None:
    write(tmp_path, {"hooks": {"Stop": [{"hooks": [hook("x")]}]}})
    assert load_settings(tmp_path).commands_for(Event.STOP, None)[0].timeout == 600


def test_find_project_root_walks_up(tmp_path: Path) -> None:
    write(tmp_path, {})
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_project_root(deep) == tmp_path.resolve()
    with pytest.raises(HarnessError, match=r"no \.claude/settings\.json"):
        find_project_root(tmp_path.parent)


# -- permission rules ------------------------------------------------------------------------


def perms(**rules: list[str]) -> Permissions:
    def parse(texts: list[str]) -> tuple[Any, ...]:
        return tuple(parse_rule(t) for t in texts)

    return Permissions(
        parse(rules.get("allow", [])), parse(rules.get("ask", [])), parse(rules.get("deny", []))
    )


@pytest.mark.parametrize(
    ("rule", "rel", "hit"),
    [
        ("Edit(target/**)", "target/surefire-reports/TEST-x.xml", True),
        ("Edit(target/**)", "src/target/x", False),
        ("Edit(/target/**)", "target/x", True),
        ("Edit(*.env)", "config/prod.env", True),
        ("Edit(docs/*.md)", "docs/sub/x.md", False),
        ("Edit", "anything.txt", True),
    ],
)
def test_path_rules(tmp_path: Path, rule: str, rel: str, hit: bool) -> None:
    kind, _ = perms(deny=[rule]).check("Edit", {"file_path": str(tmp_path / rel)}, tmp_path)
    assert (kind == "deny") is hit


@pytest.mark.parametrize(
    ("rule", "command", "hit"),
    [
        ("Bash(rm -rf:*)", "rm -rf /", True),
        ("Bash(rm -rf:*)", "rm -rfv x", False),
        ("Bash(rm -rf:*)", "cd x && rm -rf build", True),
        ("Bash(git push *)", "git push origin main", True),
        ("Bash(git status)", "git status --short", False),
    ],
)
def test_bash_deny_rules(tmp_path: Path, rule: str, command: str, hit: bool) -> None:
    kind, _ = perms(deny=[rule]).check("Bash", {"command": command}, tmp_path)
    assert (kind == "deny") is hit


def test_allow_rule_must_cover_every_part_and_deny_beats_allow(tmp_path: Path) -> None:
    rules = perms(allow=["Bash(git status:*)"], deny=["Bash(git push:*)"])
    assert rules.check("Bash", {"command": "git status"}, tmp_path)[0] == "allow"
    assert rules.check("Bash", {"command": "git status; curl x"}, tmp_path)[0] == "none"
    assert rules.check("Bash", {"command": "git status && git push"}, tmp_path)[0] == "deny"


def test_a_handler_with_args_is_named_by_command_and_args_and_deduplicated_by_both() -> None:
    settings = parse_settings(
        {
            "hooks": {
                "Stop": [
                    {"hooks": [hook("./check.sh", args=["a b"]), hook("./check.sh")]},
                    {"hooks": [hook("./check.sh", args=["a b"])]},
                ]
            }
        },
        ".claude/settings.json",
    )
    found = settings.commands_for(Event.STOP, None)
    assert [(h.command, h.args, h.label) for h in found] == [
        ("./check.sh", ("a b",), "./check.sh a b"),
        ("./check.sh", None, "./check.sh"),
    ]


def test_async_rewake_implies_async() -> None:
    """The client's schema: asyncRewake "runs in background and wakes the model on exit code
    2 (blocking error). Implies async." The hook is not waited for."""
    settings = parse_settings(
        {"hooks": {"PostToolUse": [{"hooks": [hook("x", asyncRewake=True)]}]}}, "s.json"
    )
    assert settings.hooks["PostToolUse"][0].hooks[0].run_async is True
