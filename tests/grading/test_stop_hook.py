"""Grading real bash Stop hooks, fed real JSON by the hook runtime."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.grading import CHECK_ORDER, HookGrade, grade_stop_hook
from tests.grading.stop_hooks import BREAK, CORRECT, FIX, STALE, WRONG, make_project, write_hook


def grade(root: Path, text: str, *, stale: str | None = STALE, timeout: float = 5) -> HookGrade:
    script = write_hook(root, text)
    return grade_stop_hook(
        root, script, break_cmd=BREAK, fix_cmd=FIX, stale_cmd=stale, timeout=timeout
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], HookGrade]:
    """Each wrong hook of WRONG graded once per run, in a project of its own: several tests
    read each grade (a grade runs the hook for real, too-slow waits out its timeout)."""
    grades: dict[str, HookGrade] = {}

    def get(variant: str) -> HookGrade:
        if variant not in grades:
            root = make_project(tmp_path_factory.mktemp(f"graded-{variant}") / "proj")
            timeout = 1 if variant == "too-slow" else 5
            grades[variant] = grade(root, WRONG[variant][0], timeout=timeout)
        return grades[variant]

    return get


def test_correct_hook_passes_every_check(project: Path) -> None:
    result = grade(project, CORRECT)
    assert [c.name for c in result.checks] == list(CHECK_ORDER)
    assert [c.name for c in result.checks if not c.passed] == []
    assert result.passed
    assert result.check("lets-go-when-active").found.startswith("exit 0, systemMessage")
    assert (
        "Stop check blocked: build/app.txt is missing" in result.check("session-shows-reason").found
    )
    # the project is left fixed, and its settings untouched
    assert (project / "build" / "app.txt").is_file()
    assert not (project / ".claude").exists()


@pytest.mark.parametrize("variant", sorted(WRONG))
def test_each_wrong_hook_fails_exactly_its_checks(
    graded: Callable[[str], HookGrade], variant: str
) -> None:
    expected = WRONG[variant][1]
    result = graded(variant)
    assert {c.name for c in result.failures} == expected, result.checks
    assert not result.passed


PROBLEMS = {
    "exit-1": ("blocks-when-broken", "exits 1 instead of 2"),
    "set-e-crash": ("blocks-when-broken", "exits 1 instead of 2"),
    "ignores-active": ("lets-go-when-active", "ignores stop_hook_active"),
    "reason-on-stdout": ("reason-on-stderr", "reason on stdout"),
    "never-blocks": ("blocks-when-broken", "never blocks"),
    "too-slow": ("within-timeout", "too slow for its timeout"),
    "leaks-env": ("no-leak", "leaks the environment"),
    "trusts-stale": ("blocks-on-stale", "trusts a stale artefact"),
    "whole-log": ("reason-on-stderr", "reason too long"),
}


@pytest.mark.parametrize("variant", sorted(PROBLEMS))
def test_each_failure_is_named(graded: Callable[[str], HookGrade], variant: str) -> None:
    name, problem = PROBLEMS[variant]
    result = graded(variant)
    check = result.check(name)
    assert check.failed
    assert check.problem == problem
    assert check.fix
    assert problem in result.summary()


def test_ignoring_stop_hook_active_runs_into_the_cap(graded: Callable[[str], HookGrade]) -> None:
    check = graded("ignores-active").check("lets-go-when-active")
    # Claude Code 2.1.332 honours eight blocks in a row and overrides the ninth.
    assert "blocked 8 more times" in check.found
    assert "cap of 9 ended the turn" in check.found


def test_slow_hook_leaves_the_other_checks_unjudged(graded: Callable[[str], HookGrade]) -> None:
    result = graded("too-slow")
    assert {c.name for c in result.checks if c.skipped} == set(CHECK_ORDER) - {
        "within-timeout",
        "no-leak",
    }
    assert "killed after 1." in result.check("within-timeout").found


def test_leak_names_the_variable_not_the_value(project: Path) -> None:
    check = grade(project, WRONG["leaks-env"][0]).check("no-leak")
    assert "ANTHROPIC_API_KEY" in check.found
    assert "sk-ant-canary" not in json.dumps(check.to_json())


def test_stale_check_is_skipped_without_a_stale_command(project: Path) -> None:
    result = grade(project, WRONG["trusts-stale"][0], stale=None)
    assert result.passed
    assert result.check("blocks-on-stale").skipped
    assert "--stale" in result.check("blocks-on-stale").fix


def test_hook_outside_the_project_is_registered_by_absolute_path(
    project: Path, tmp_path: Path
) -> None:
    script = write_hook(tmp_path / "elsewhere", CORRECT, rel="hook.sh")
    result = grade_stop_hook(project, script, break_cmd=BREAK, fix_cmd=FIX, timeout=5)
    assert result.command == str(script)
    assert result.passed


def test_to_check_result_carries_the_failures(project: Path) -> None:
    outcome = grade(project, WRONG["exit-1"][0]).to_check_result()
    assert not outcome
    assert "exits 1 instead of 2" in outcome.message
    assert outcome.expected == "exit 2"
    assert outcome.details["passed"] is False
    assert grade(project, CORRECT).to_check_result()


def test_missing_script_is_an_input_error(project: Path) -> None:
    with pytest.raises(HarnessError) as err:
        grade_stop_hook(project, project / "scripts/nope.sh", break_cmd=BREAK, fix_cmd=FIX)
    assert "scripts/nope.sh does not exist" in err.value.message


def test_script_not_executable_names_chmod(project: Path) -> None:
    script = write_hook(project, CORRECT)
    script.chmod(0o644)
    with pytest.raises(HarnessError) as err:
        grade_stop_hook(project, script, break_cmd=BREAK, fix_cmd=FIX)
    assert "is not executable" in err.value.message
    assert err.value.fix == f"chmod +x {script}"


def test_failing_fix_command_is_an_input_error_not_a_hook_failure(project: Path) -> None:
    script = write_hook(project, CORRECT)
    with pytest.raises(HarnessError) as err:
        grade_stop_hook(project, script, break_cmd=BREAK, fix_cmd="echo compile error >&2; false")
    assert "the --fix command `echo compile error >&2; false` exited 1" in err.value.message
    assert "compile error" in err.value.message


def test_crashing_hook_is_a_failed_check(project: Path) -> None:
    result = grade(project, "#!/usr/bin/env bash\nnosuchcommand-xyz\n")
    blocks = result.check("blocks-when-broken")
    assert blocks.failed and blocks.problem == "exits 127 instead of 2"
    assert "nosuchcommand-xyz" in blocks.found
