"""``lab verify-hook`` end to end: table, --json, exit codes, input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders import run_cli
from tests.grading.stop_hooks import BREAK, CORRECT, FIX, STALE, WRONG, make_project, write_hook

ARGS = ("--break", BREAK, "--fix", FIX, "--stale", STALE, "--timeout", "5")


def test_json_shape_and_exit_0_for_a_correct_hook(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    write_hook(root, CORRECT)
    res = run_cli("verify-hook", "scripts/check-before-stop.sh", *ARGS, "--json", cwd=root)
    assert res.code == 0, res
    data = json.loads(res.out)
    assert data["passed"] is True
    assert data["command"] == '"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh"'
    assert data["settings"]["hooks"]["Stop"][0]["hooks"][0]["timeout"] == 5
    assert len(data["checks"]) == 9
    for check in data["checks"]:
        assert set(check) >= {"name", "passed", "status", "expected", "found", "detail", "fix"}
        assert check["passed"] is True
    assert not (root / ".claude").exists()


def test_exit_1_and_named_failure_for_a_wrong_hook(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    write_hook(root, WRONG["exit-1"][0])
    res = run_cli("verify-hook", "scripts/check-before-stop.sh", *ARGS, "--json", cwd=root)
    assert res.code == 1, res
    data = json.loads(res.out)
    assert data["passed"] is False
    failed = {c["name"]: c for c in data["checks"] if not c["passed"] and c["status"] == "fail"}
    assert set(failed) == {"blocks-when-broken", "session-shows-reason"}
    assert failed["blocks-when-broken"]["problem"] == "exits 1 instead of 2"


def test_human_output_lists_checks_and_the_fix(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    write_hook(root, WRONG["ignores-active"][0])
    res = run_cli("verify-hook", "scripts/check-before-stop.sh", *ARGS, cwd=root)
    assert res.code == 1, res
    assert "stop_hook_active: true → lets go" in res.out
    assert "✗ stop_hook_active: true → lets go — ignores stop_hook_active" in res.out
    assert "fix: read it first" in res.out
    assert "FAIL 1 of 9 checks fail: ignores stop_hook_active" in res.out


def test_project_option_and_an_existing_settings_file_left_alone(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {}}\n')
    script = write_hook(root, CORRECT)
    res = run_cli("verify-hook", str(script), *ARGS, "--project", str(root), "--json", cwd=tmp_path)
    assert res.code == 0, res
    assert settings.read_text() == '{"hooks": {}}\n'


def test_missing_script_is_a_clear_error(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    res = run_cli("verify-hook", "scripts/check-before-stop.sh", *ARGS, cwd=root)
    assert res.code == 1
    err = " ".join(res.err.split())  # rich wraps long lines
    assert "scripts/check-before-stop.sh does not exist" in err
    assert "Traceback" not in err


def test_not_executable_names_chmod(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    write_hook(root, CORRECT).chmod(0o644)
    res = run_cli("verify-hook", "scripts/check-before-stop.sh", *ARGS, "--json", cwd=root)
    assert res.code == 1
    err = " ".join(res.err.split())  # rich wraps long lines
    assert "check-before-stop.sh is not executable" in err
    assert "fix: chmod +x " in err
    assert res.out == ""


def test_break_and_fix_are_required(tmp_path: Path) -> None:
    """For a Stop hook (or a script registered nowhere): a guard needs --cases instead."""
    res = run_cli("verify-hook", "x.sh", "--fix", FIX, cwd=tmp_path)
    assert res.code == 1
    assert "as a Stop hook needs --break" in " ".join(res.err.split())


def test_the_commands_run_confined_unless_unconfined(tmp_path: Path) -> None:
    """--break, --fix and --stale run in the jail: a write outside the project does not land,
    and HOME is not the person's. With --unconfined it lands (what the jail keeps off)."""
    from harness.jail import unavailable

    if unavailable() is not None:
        pytest.skip(str(unavailable()))
    root = make_project(tmp_path / "proj")
    write_hook(root, CORRECT)
    outside = tmp_path / "outside"
    outside.mkdir()
    leaky = ("--break", f"{BREAK}; echo leaked > {outside}/x; touch ~/planted")
    args = (*leaky, "--fix", FIX, "--stale", STALE, "--timeout", "5", "--json")
    res = run_cli("verify-hook", "scripts/check-before-stop.sh", *args, cwd=root)
    assert res.code == 0, res
    assert json.loads(res.out)["confined"] is True
    assert not (outside / "x").exists()
    assert not (Path.home() / "planted").exists()
    res = run_cli("verify-hook", "scripts/check-before-stop.sh", *args, "--unconfined", cwd=root)
    assert res.code == 0, res
    assert json.loads(res.out)["confined"] is False
    assert (outside / "x").read_text() == "leaked\n"
    (Path.home() / "planted").unlink()


def test_a_stop_hook_grade_ends_with_counts_and_writes_junit(tmp_path: Path) -> None:
    """The CI shape a guard's grade has, for a Stop hook too: N passed, M failed and JUnit."""
    from xml.etree import ElementTree

    root = make_project(tmp_path / "proj")
    write_hook(root, WRONG["exit-1"][0])
    report = tmp_path / "stop.xml"
    res = run_cli(
        "verify-hook", "scripts/check-before-stop.sh", *ARGS, "--junit-xml", str(report),
        cwd=root,
    )  # fmt: skip
    assert res.code == 1, res
    # The not-judged check is neither passed nor failed: the head says "(1 not judged)" and
    # the last line counted it as passed ("7 passed, 2 failed"; walk f).
    assert "2 of 9 checks fail (1 not judged)" in " ".join(res.out.split()), res.out
    assert res.out.rstrip().splitlines()[-1] == "6 passed, 2 failed, 1 not judged"
    suite = ElementTree.parse(report).getroot()
    assert (suite.get("tests"), suite.get("failures")) == ("9", "2")
