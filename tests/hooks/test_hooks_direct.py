"""The fixture's hook scripts run one by one: real bash, real git, real JSON on stdin."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.maven.surefire import SENSORS
from tests.hooks.hookrepo import (
    HOOKS,
    SENSOR_COMMAND,
    SRC_FILE,
    bash_post,
    clean_env,
    commit_all,
    event,
    git_dir,
    init_repo,
    project_with_hooks,
    run_hook,
    run_with_stdin,
    start_session,
    stop,
)

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")

CANARY = "canary-5b1e-not-for-output"
SPEC = "docs/use_cases/UC-005-add-visit.md"


def edit_event(root: Path, path: str, old: str, new: str) -> dict[str, object]:
    return event(
        "PreToolUse",
        root,
        tool_name="Edit",
        tool_use_id="t2",
        tool_input={
            "file_path": str(root / path),
            "old_string": old,
            "new_string": new,
            "replace_all": False,
        },
    )


def write_report(root: Path, name: str, tests: int = 3, failures: int = 0) -> None:
    reports = root / "target/surefire-reports"
    reports.mkdir(parents=True, exist_ok=True)
    (reports / f"TEST-ai.unifiedprocess.petclinic.{name}.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="{name}" tests="{tests}" '
        f'errors="0" skipped="0" failures="{failures}"><testcase name="t"/></testsuite>\n'
    )


def test_stop_names_the_changed_paths_capped_and_the_command(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    for n in range(12):
        (root / f"src/main/java/Extra{n:02d}.java").write_text("class X {}\n")

    result = stop(root)

    assert result.returncode == 2
    assert "src/main/java/Extra00.java, src/main/java/Extra01.java" in result.stderr
    assert "src/main/java/Extra03.java" not in result.stderr
    assert "... and 9 more" in result.stderr
    assert f"  {SENSOR_COMMAND}" in result.stderr
    # A short reason, as Lab 07's contract and lab verify-hook ask: ten lines at most.
    assert len(result.stderr.strip().splitlines()) <= 10, result.stderr
    assert result.stdout == ""


def test_second_stop_lets_go_with_a_json_warning(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    (root / SRC_FILE).write_text("class Changed {}\n")

    result = stop(root, active=True)

    assert result.returncode == 0
    assert SENSOR_COMMAND in json.loads(result.stdout)["systemMessage"]


def test_a_run_that_does_not_count_is_explained_in_valid_json(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    (root / SRC_FILE).write_text("class Changed {}\n")
    for sensor in SENSORS:
        write_report(root, sensor, failures=1 if sensor == "UseCaseTraceabilityTest" else 0)

    result = bash_post(root, f"{SENSOR_COMMAND} | tail -3", stdout="BUILD SUCCESS")

    assert result.returncode == 0
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "UseCaseTraceabilityTest failed" in context
    assert not (git_dir(root) / "aiup-sensors-ran").exists()
    assert stop(root).returncode == 2


def test_status_guard_refuses_says_while_the_audit_runs_and_accepts_after_it(
    tmp_path: Path,
) -> None:
    """Between the agent's start and its end (a background agent hands its report back
    before it ends, 2.1.332) the guard says the audit still runs, not to run one."""
    root = project_with_hooks(tmp_path)
    start_session(root)
    edit = edit_event(root, SPEC, "**Status:** Approved", "**Status:** Done")

    refused = run_hook(root, "guard-spec-status.sh", edit)
    assert refused.returncode == 2
    assert 'would read "**Status:** Done"' in refused.stderr
    assert "  aiup-vaadin-jooq:coverage-check UC-005\n" in refused.stderr

    agent = {"agent_id": "a1", "agent_type": "aiup-vaadin-jooq:uc-coverage"}
    started = run_hook(root, "record-coverage-check.sh", event("SubagentStart", root, **agent))
    assert (started.returncode, started.stdout, started.stderr) == (0, "", "")
    running = run_hook(root, "guard-spec-status.sh", edit)
    assert running.returncode == 2
    assert "The coverage audit is still running (its report" in running.stderr
    assert "coverage-check UC-005" not in running.stderr  # not: run one

    transcript = tmp_path / "agent.jsonl"
    transcript.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "Audit uc 5"}})
        + "\n"
        + json.dumps(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "No gaps."}],
                    "stop_reason": "end_turn",
                },
            }
        )
        + "\n"
    )
    audit = run_hook(
        root,
        "record-coverage-check.sh",
        event(
            "SubagentStop",
            root,
            agent_id="a1",
            agent_type="aiup-vaadin-jooq:uc-coverage",
            agent_transcript_path=str(transcript),
            last_assistant_message="No gaps.",
            stop_hook_active=False,
        ),
    )
    assert audit.returncode == 0
    assert (git_dir(root) / "aiup-coverage-checked" / "UC-005").is_file()
    assert not (git_dir(root) / "aiup-coverage-running" / "a1").exists()

    assert run_hook(root, "guard-spec-status.sh", edit).returncode == 0


def test_no_hook_prints_the_environment(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    env = clean_env(CLAUDE_PROJECT_DIR=str(root), API_TOKEN=CANARY, AWS_SECRET_ACCESS_KEY=CANARY)
    start_session(root)
    (root / SRC_FILE).write_text("class Changed {}\n")
    hook = root / ".claude/hooks/require-sensors.sh"
    hook.write_text(hook.read_text() + "# touched\n")
    spec = root / SPEC
    spec.write_text(spec.read_text().replace("Approved", "Done"))

    outputs = [
        run_hook(root, "require-sensors.sh", event("Stop", root, stop_hook_active=False), env),
        run_hook(root, "require-sensors.sh", event("Stop", root, stop_hook_active=True), env),
        run_hook(root, "guard-spec-status.sh", edit_event(root, SPEC, "Done", "Tested"), env),
        run_hook(
            root,
            "check-spec-status.sh",
            event(
                "PostToolUse",
                root,
                tool_name="Bash",
                tool_input={"command": "sed -i s/A/D/ x"},
                tool_response={"stdout": CANARY, "stderr": ""},
            ),
            env,
        ),
        run_hook(
            root,
            "record-sensor-run.sh",
            event(
                "PostToolUse",
                root,
                tool_name="Bash",
                tool_input={"command": SENSOR_COMMAND},
                tool_response={"stdout": "", "stderr": ""},
            ),
            env,
        ),
    ]

    assert [o.returncode for o in outputs] == [2, 0, 2, 2, 0]
    for output in outputs:
        assert CANARY not in output.stdout + output.stderr
        assert "PATH=" not in output.stdout + output.stderr


def test_a_project_nested_in_a_bigger_repository_sees_its_own_paths(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    root = project_with_hooks(outer)  # outer/project, its own repository for now
    shutil.rmtree(root / ".git")
    (outer / "README.md").write_text("outer\n")
    init_repo(outer)
    start_session(root)

    (outer / "README.md").write_text("changed outside the project\n")
    assert stop(root).returncode == 0

    (root / SRC_FILE).write_text("class Changed {}\n")
    commit_all(outer, "change inside the project")
    blocked = stop(root)
    assert blocked.returncode == 2
    assert f"not yet committed: {SRC_FILE}\n" in blocked.stderr


@pytest.mark.parametrize("kind", ["socket", "pipe", "file"])
def test_each_event_is_read_whatever_carries_stdin(tmp_path: Path, kind: str) -> None:
    """The real client hands the event over a Unix socket: a hook that reads only pipes would
    fail open there in silence. Every way of handing it over must block alike."""
    root = project_with_hooks(tmp_path)
    start = run_hook(
        root, "session-start.sh", event("SessionStart", root, source="startup"), stdin_kind=kind
    )
    assert start.returncode == 0
    assert (git_dir(root) / "aiup-session-base").exists()
    (root / SRC_FILE).write_text("class Changed {}\n")

    stopped = run_hook(
        root,
        "require-sensors.sh",
        event("Stop", root, stop_hook_active=False, last_assistant_message="Done."),
        stdin_kind=kind,
    )
    guarded = run_hook(
        root,
        "guard-spec-status.sh",
        edit_event(root, SPEC, "**Status:** Approved", "**Status:** Done"),
        stdin_kind=kind,
    )

    assert stopped.returncode == 2, stopped.stderr
    assert SENSOR_COMMAND in stopped.stderr
    assert guarded.returncode == 2, guarded.stderr
    assert "coverage-check UC-005" in guarded.stderr


@pytest.mark.parametrize("kind", ["closed", "terminal"])
@pytest.mark.parametrize("script", HOOKS)
def test_no_event_on_stdin_lets_the_session_go_at_once(
    tmp_path: Path, script: str, kind: str
) -> None:
    """A closed stdin or a terminal carries no event: exit 0, silent, and no hang (a closed
    fd 0 would otherwise be taken by $(cat)'s own pipe and read forever)."""
    root = project_with_hooks(tmp_path)
    start_session(root)
    (root / SRC_FILE).write_text("class Changed {}\n")

    result = run_with_stdin(
        [str(root / ".claude/hooks" / script)],
        "",
        kind,
        cwd=root,
        env=clean_env(CLAUDE_PROJECT_DIR=str(root)),
    )

    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
