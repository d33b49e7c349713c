"""What smoke.sh no longer plays, played here on the fixture's real hooks: real bash, real git,
real JSON on stdin. smoke.sh keeps the checks a participant learns from (Lab 06); the
bookkeeping around them (session start, failing open, worktrees, unusual report forms and a few
rarer events) is proved here, each case on a fresh project of its own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from harness.engine.throwaway import path_without
from harness.maven.surefire import SENSORS
from tests.builders import git
from tests.hooks.hookrepo import (
    HOOKS,
    SENSOR_COMMAND,
    SRC_FILE,
    bash_post,
    clean_env,
    event,
    git_dir,
    project_with_hooks,
    run_hook,
    start_session,
    stop,
)

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")

SPEC = "docs/use_cases/UC-005-add-visit.md"
AGENT = "aiup-vaadin-jooq:uc-coverage"
Run = subprocess.CompletedProcess[str]


def tick() -> None:
    """File times move in kernel ticks (4 ms at HZ=250): the next write is newer after this."""
    time.sleep(0.01)


def change(root: Path, rel: str = SRC_FILE) -> None:
    tick()
    with (root / rel).open("a") as handle:
        handle.write("// changed\n")
    tick()


def report_path(root: Path, name: str) -> Path:
    return root / "target/surefire-reports" / f"TEST-ai.unifiedprocess.petclinic.{name}.xml"


def green_reports(root: Path) -> None:
    """What a green sensor run leaves: one report per sensor, the old ones gone."""
    tick()
    shutil.rmtree(root / "target", ignore_errors=True)
    for name in SENSORS:
        path = report_path(root, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="{name}" tests="3" '
            'errors="0" failures="0">\n  <testcase name="rule"/>\n</testsuite>\n'
        )
    tick()


def quiet(result: Run) -> bool:
    return (result.returncode, result.stdout, result.stderr) == (0, "", "")


def edit(root: Path, old: str, new: str, path: str = SPEC, **more: object) -> Run:
    tool_input = {"file_path": str(root / path), "old_string": old, "new_string": new, **more}
    return run_hook(
        root,
        "guard-spec-status.sh",
        event("PreToolUse", root, tool_name="Edit", tool_input=tool_input),
    )


def audit(root: Path, tmp_path: Path, assignment: str, last: str) -> Run:
    transcript = tmp_path / "agent.jsonl"
    entries = [
        {"type": "user", "message": {"role": "user", "content": assignment}},
        {
            "type": "assistant",
            "message": {"role": "assistant", "stop_reason": "end_turn", "content": [last]},
        },
    ]
    transcript.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    fields = {"agent_id": "a1", "agent_type": AGENT, "agent_transcript_path": str(transcript)}
    return run_hook(
        root,
        "record-coverage-check.sh",
        event("SubagentStop", root, last_assistant_message=last, **fields),
    )


# --- session start -------------------------------------------------------------------------


def test_a_new_session_starts_silently_from_head_with_every_status_snapshotted(
    tmp_path: Path,
) -> None:
    root = project_with_hooks(tmp_path)
    started = run_hook(root, "session-start.sh", event("SessionStart", root, source="startup"))
    assert quiet(started), started
    state = git_dir(root)
    assert (state / "aiup-session-base").read_text().strip() == git(
        root, "rev-parse", "HEAD"
    ).strip()
    assert f"{SPEC}\tApproved" in (state / "aiup-spec-status").read_text().splitlines()


def test_resume_keeps_the_session_clear_starts_a_new_one_but_keeps_the_smoke_record(
    tmp_path: Path,
) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    state = git_dir(root)
    (state / "aiup-coverage-checked").mkdir()
    for name in ("aiup-coverage-checked/UC-005", "aiup-sensors-ran", "aiup-smoke-ran"):
        (state / name).write_text("x\n")
    base = (state / "aiup-session-base").stat().st_mtime_ns
    tick()

    run_hook(root, "session-start.sh", event("SessionStart", root, source="resume"))
    assert (state / "aiup-session-base").stat().st_mtime_ns == base
    assert (state / "aiup-sensors-ran").exists()

    run_hook(root, "session-start.sh", event("SessionStart", root, source="clear"))
    assert (state / "aiup-session-base").stat().st_mtime_ns > base
    assert not (state / "aiup-coverage-checked/UC-005").exists()
    assert not (state / "aiup-sensors-ran").exists()
    assert (state / "aiup-smoke-ran").exists()  # its content hashes stay true


def test_an_unborn_head_gives_an_empty_session_base(tmp_path: Path) -> None:
    root = tmp_path / "unborn"
    shutil.copytree(project_with_hooks(tmp_path) / ".claude", root / ".claude")
    git(root, "init", "-q")
    start_session(root)
    assert (git_dir(root) / "aiup-session-base").read_text().strip() == ""
    # Every file of a repository without a commit is new: a stop wants the sensors.
    assert stop(root).returncode == 2


# --- fail open -----------------------------------------------------------------------------


def test_without_jq_the_stop_hook_and_the_status_guard_let_go(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    change(root)
    assert stop(root).returncode == 2  # with jq, it holds
    with path_without(["jq"]) as no_jq:
        env = clean_env(CLAUDE_PROJECT_DIR=str(root), PATH=no_jq)
        stopped = run_hook(root, "require-sensors.sh", event("Stop", root), env)
        guarded = run_hook(
            root,
            "guard-spec-status.sh",
            event(
                "PreToolUse",
                root,
                tool_name="Edit",
                tool_input={
                    "file_path": str(root / SPEC),
                    "old_string": "Approved",
                    "new_string": "Done",
                },
            ),
            env,
        )
    assert quiet(stopped), stopped
    assert quiet(guarded), guarded


@pytest.mark.parametrize("script", HOOKS)
@pytest.mark.parametrize("text", ['{"hook_event_name": "Stop", "stop_hook_a', "", "[1, 2]"])
def test_garbage_empty_or_no_object_on_stdin_lets_each_hook_go(
    tmp_path: Path, script: str, text: str
) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    change(root)
    spec = root / SPEC
    spec.write_text(spec.read_text().replace("Approved", "Done"))  # work for every guard
    done = subprocess.run(
        [str(root / ".claude/hooks" / script)],
        input=text,
        cwd=root,
        env=clean_env(CLAUDE_PROJECT_DIR=str(root)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert quiet(done), done


@pytest.mark.parametrize("where", ["no CLAUDE_PROJECT_DIR", "outside git"])
def test_a_stop_without_a_project_or_a_repository_lets_go(tmp_path: Path, where: str) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    change(root)
    if where == "outside git":
        loose = tmp_path / "loose"
        shutil.copytree(root, loose, ignore=shutil.ignore_patterns(".git"))
        env = clean_env(CLAUDE_PROJECT_DIR=str(loose), GIT_CEILING_DIRECTORIES=str(tmp_path))
        root = loose
    else:
        env = clean_env()
    assert quiet(run_hook(root, "require-sensors.sh", event("Stop", root), env))


def test_a_hook_that_crashes_exits_0_and_only_aiup_block_exits_2(tmp_path: Path) -> None:
    lib = project_with_hooks(tmp_path) / ".claude/hooks/lib.sh"

    def body(text: str) -> Run:
        script = f'. "$1"; aiup_fail_open; {text}'
        return subprocess.run(
            ["bash", "-c", script, "_", str(lib)], capture_output=True, text=True, timeout=60
        )

    crashed = body("echo boom >&2; ls /no/such/file; exit 3")
    assert quiet(crashed), crashed  # stray errors hidden, the exit turned into 0
    blocked = body('aiup_block "no, and here is why"')
    assert (blocked.returncode, blocked.stderr) == (2, "no, and here is why\n")
    assert body("exit 2").returncode == 0  # only aiup_block blocks


# --- worktrees -----------------------------------------------------------------------------


def test_a_worktree_keeps_its_own_state_in_its_own_git_dir(tmp_path: Path) -> None:
    main = project_with_hooks(tmp_path)
    tree = tmp_path / "wt"
    git(main, "worktree", "add", "-q", str(tree), "-b", "wt")
    start_session(tree)
    assert git_dir(tree) != git_dir(main)
    assert (git_dir(tree) / "aiup-session-base").is_file()
    assert not (git_dir(main) / "aiup-session-base").exists()

    change(tree)
    assert stop(tree).returncode == 2
    green_reports(tree)
    bash_post(tree, SENSOR_COMMAND)
    assert (git_dir(tree) / "aiup-sensors-ran").is_file()
    assert not (git_dir(main) / "aiup-sensors-ran").exists()
    assert quiet(stop(tree))


# --- what a report must say, in its rarer forms ----------------------------------------------


@pytest.mark.parametrize(
    ("form", "blocks"),
    [
        ("a NUL byte after the end", True),
        ("no test count", True),
        ("a start tag over several lines", False),
        ("one line, the counts first (Lab 01's forgery)", False),
    ],
)
def test_a_report_is_read_by_its_text(tmp_path: Path, form: str, blocks: bool) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    change(root)
    green_reports(root)
    assert quiet(stop(root))
    report = report_path(root, "UseCaseTraceabilityTest")
    text = report.read_text()
    if form == "a NUL byte after the end":
        report.write_bytes(text.encode() + b"\0")
    elif form == "no test count":
        report.write_text(text.replace(' tests="3"', ""))
    elif form.startswith("one line"):
        report.write_text('<testsuite tests="1" failures="0" errors="0"></testsuite>\n')
    else:
        for name in ("tests", "errors", "failures"):  # a line break, not a space, before each
            text = text.replace(f" {name}=", f"\n{name}=")
        report.write_text(text)
    result = stop(root)
    if blocks:
        assert result.returncode == 2
        assert "the UseCaseTraceabilityTest report cannot be read" in result.stderr
    else:
        assert quiet(result), result


# --- rarer events ----------------------------------------------------------------------------


def test_a_backdated_change_after_the_green_run_still_blocks(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    green_reports(root)
    change(root)
    os.utime(root / SRC_FILE, (978307200, 978307200))  # touch -d 2001-01-01
    blocked = stop(root)
    assert blocked.returncode == 2
    assert f"{SRC_FILE} changed after the last" in blocked.stderr


def test_a_deleted_hook_holds_the_turn(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    (root / ".claude/hooks/session-start.sh").unlink()
    blocked = stop(root)
    assert blocked.returncode == 2
    assert ".claude/hooks/session-start.sh" in blocked.stderr


def test_test_compile_records_nothing_and_a_background_run_is_explained(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    change(root)
    green_reports(root)
    compiled = bash_post(root, "./mvnw -q test-compile")
    assert quiet(compiled)
    assert not (git_dir(root) / "aiup-sensors-ran").exists()

    shutil.rmtree(root / "target")
    background = run_hook(
        root,
        "record-sensor-run.sh",
        event(
            "PostToolUse",
            root,
            tool_name="Bash",
            tool_input={"command": SENSOR_COMMAND, "run_in_background": True},
        ),
    )
    note = json.loads(background.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "It runs in the background" in note


def test_a_done_from_a_command_that_then_failed_is_reported(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    tick()
    spec = root / SPEC
    spec.write_text(spec.read_text().replace("Approved", "Done"))
    failed = run_hook(
        root,
        "check-spec-status.sh",
        event("PostToolUseFailure", root, tool_name="Bash", tool_input={"command": "sed"}),
    )
    assert failed.returncode == 2
    assert "aiup-vaadin-jooq:coverage-check UC-005" in failed.stderr


def test_an_edit_that_leaves_done_as_it_is_passes_the_guard(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    spec = root / SPEC
    spec.write_text(spec.read_text().replace("Approved", "Done") + "1. Step\n")
    start_session(root)
    assert quiet(edit(root, "1. Step", "1. Open the form"))
    assert edit(root, "**Status:** Done", "**Status:** Tested").returncode == 2


def test_multiedit_of_other_clients_is_judged_edit_by_edit(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    edits = [
        {"old_string": "Add visit", "new_string": "Add a visit"},
        {"old_string": "Approved", "new_string": "Done", "replace_all": True},
    ]
    multi = event(
        "PreToolUse",
        root,
        tool_name="MultiEdit",
        tool_input={"file_path": str(root / SPEC), "edits": edits},
    )
    assert run_hook(root, "guard-spec-status.sh", multi).returncode == 2
    multi["tool_input"]["edits"] = edits[:1]
    assert quiet(run_hook(root, "guard-spec-status.sh", multi))


def test_an_audit_marks_the_ids_in_its_report_headings_normalised(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    start_session(root)
    done = audit(root, tmp_path, "Check the spec you were given.", "# Coverage: UC-003, TC001")
    assert quiet(done), done
    checked = git_dir(root) / "aiup-coverage-checked"
    assert sorted(path.name for path in checked.iterdir()) == ["TC-001", "UC-003"]
