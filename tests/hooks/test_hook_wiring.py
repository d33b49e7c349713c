"""What smoke.sh leaves to the harness: how Claude Code wires the hooks (settings.json, its
matchers and timeouts, the event on a Unix socket) and the input forms other clients send.

smoke.sh feeds each hook its event directly, as a participant's test of the hooks' logic;
the emulator and the real client (tests/claude/test_fixture_hooks_on_both_engines.py) fire
them through settings.json. These tests pin the registrations those sessions rely on and
show that a hook mutated to lose them is caught here.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.hooks.hookrepo import (
    HOOKS,
    SRC_FILE,
    event,
    git_dir,
    project_with_hooks,
    run_hook,
    start_session,
    stop,
)

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")

FIXTURE_SETTINGS = Path(__file__).parents[2] / "petclinic_fixture/.claude/settings.json"
COMMAND = '"$CLAUDE_PROJECT_DIR/.claude/hooks/{}"'

# (event, matcher, script, timeout): every registration the sessions rely on.
REGISTRATIONS = [
    ("SessionStart", "startup|clear", "session-start.sh", 10),
    ("PreToolUse", "Edit|Write", "guard-spec-status.sh", 10),
    ("PostToolUse", "Bash", "record-sensor-run.sh", 10),
    ("PostToolUse", "", "check-spec-status.sh", 10),
    ("PostToolUseFailure", "", "check-spec-status.sh", 10),
    ("SubagentStart", "aiup-vaadin-jooq:uc-coverage$", "record-coverage-check.sh", 10),
    ("SubagentStop", "aiup-vaadin-jooq:uc-coverage$", "record-coverage-check.sh", 10),
    ("Stop", "", "require-sensors.sh", 15),
]


def registered(settings: dict[str, Any]) -> set[tuple[str, str, str, int]]:
    """(event, matcher, script, timeout) of every hook of the fixture's that settings run."""
    scripts = {COMMAND.format(script): script for script in HOOKS}
    return {
        (name, group.get("matcher", ""), scripts[hook["command"]], hook["timeout"])
        for name, groups in settings["hooks"].items()
        for group in groups
        for hook in group["hooks"]
        if hook["type"] == "command" and hook["command"] in scripts
    }


def test_settings_register_every_hook_with_its_matcher_and_timeout() -> None:
    settings = json.loads(FIXTURE_SETTINGS.read_text())
    assert set(REGISTRATIONS) <= registered(settings)
    assert "Edit(target/**)" in settings["permissions"]["deny"]  # it covers every file tool
    allow = set(settings["permissions"]["allow"])
    assert {"Bash(./mvnw -q test -Dgroups=sensor)", "Bash(./.claude/hooks/smoke.sh)"} <= allow
    for script in HOOKS:
        assert os.access(FIXTURE_SETTINGS.parent / "hooks" / script, os.X_OK), script


def test_a_dropped_registration_is_seen() -> None:
    settings = json.loads(FIXTURE_SETTINGS.read_text())
    settings["hooks"]["PostToolUse"] = [
        group
        for group in settings["hooks"]["PostToolUse"]
        if not any("check-spec-status.sh" in h["command"] for h in group["hooks"])
    ]
    assert ("PostToolUse", "", "check-spec-status.sh", 10) not in registered(settings)


def test_reading_stdin_the_way_a_socket_refuses_fails_open_on_the_real_carrier(
    tmp_path: Path,
) -> None:
    """Claude Code hands the event over a Unix socket. A lib.sh that reads with
    $(</dev/stdin) still works on a pipe, and lets every stop go on the socket in silence."""
    root = project_with_hooks(tmp_path)
    lib = root / ".claude/hooks/lib.sh"
    text = lib.read_text()
    assert "AIUP_INPUT=$(cat)" in text
    lib.write_text(text.replace("AIUP_INPUT=$(cat)", "AIUP_INPUT=$(</dev/stdin)"))
    start_session(root)
    (root / SRC_FILE).write_text("class Changed {}\n")
    payload = event("Stop", root, stop_hook_active=False)

    assert run_hook(root, "require-sensors.sh", payload, stdin_kind="pipe").returncode == 2
    assert run_hook(root, "require-sensors.sh", payload, stdin_kind="socket").returncode == 0


def write_green_reports(root: Path) -> None:
    reports = root / "target/surefire-reports"
    reports.mkdir(parents=True, exist_ok=True)
    for name in (
        "ArchitectureTest",
        "TestLayerConventionsTest",
        "UseCaseTraceabilityTest",
        "TestCaseTraceabilityTest",
        "BusinessRuleTraceabilityTest",
    ):
        (reports / f"TEST-ai.unifiedprocess.petclinic.{name}.xml").write_text(
            f'<testsuite name="{name}" tests="3" errors="0" failures="0"><testcase/></testsuite>\n'
        )


@pytest.mark.parametrize(("tool_name", "recorded"), [(None, True), ("Bash", True), ("Task", False)])
def test_a_shell_call_without_a_tool_name_is_taken_for_bash(
    tmp_path: Path, tool_name: str | None, recorded: bool
) -> None:
    """Some clients leave tool_name out of a shell call; a tool that is named stays itself."""
    root = project_with_hooks(tmp_path)
    start_session(root)
    (root / SRC_FILE).write_text("class Changed {}\n")
    write_green_reports(root)
    fields: dict[str, object] = {"tool_input": {"command": "./mvnw -q test -Dgroups=sensor"}}
    if tool_name is not None:
        fields["tool_name"] = tool_name

    result = run_hook(root, "record-sensor-run.sh", event("PostToolUse", root, **fields))

    assert result.returncode == 0, result.stderr
    assert (git_dir(root) / "aiup-sensors-ran").exists() == recorded
    assert stop(root).returncode == 0  # the reports decide the stop, whatever was recorded
