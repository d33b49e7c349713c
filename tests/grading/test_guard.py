"""``lab verify-hook`` on a guard: graded against its case table on the engines asked for,
with the contract every guard owes, and never given a Stop-hook grade.

The guards are real bash scripts fed real JSON: the project's own test plugins
(tests/plugins: an rm -rf guard with exit 2, a fetch guard with permissionDecision JSON),
registered here in a project's settings.json, and a guard written for a plugin that crashes
outside one (tests/hooks_fixtures/plugin-root-guard.sh: ``set -u`` and no CLAUDE_PLUGIN_ROOT).
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.builders import REPO_ROOT, run_cli
from tests.claude.hookproject import HookProject
from tests.conftest import require_real_client
from tests.lines import fnmatch_lines

FIXTURES = REPO_ROOT / "tests" / "hooks_fixtures"
RM_GUARD = REPO_ROOT / "tests" / "plugins" / "rm-guard" / "hooks" / "block-rm-rf.sh"
FETCH_GUARD = REPO_ROOT / "tests" / "plugins" / "fetch-guard" / "hooks" / "deny-github-fetch.sh"
CRASHING = FIXTURES / "plugin-root-guard.sh"
RM_CASES = FIXTURES / "rm-rf-cases.toml"
FETCH_CASES = FIXTURES / "fetch-cases.toml"
SUBMIT = "UserPromptSubmit"


def guard_project(root: Path, guards: dict[str, tuple[Path, str, str | None]]) -> Path:
    """A git repository whose settings.json registers each guard (name: script, event,
    matcher), the way a hook author's own repository does."""
    project = HookProject(root)
    for name, (script, event, matcher) in guards.items():
        project.register(event, project.install(script, name), matcher=matcher)
    project.file("README.md", "a project with guards\n")
    return project.commit("guards")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return guard_project(
        tmp_path / "proj",
        {
            "block-rm-rf.sh": (RM_GUARD, "PreToolUse", "Bash"),
            "deny-github-fetch.sh": (FETCH_GUARD, "PreToolUse", "Bash|WebFetch"),
            "plugin-root-guard.sh": (CRASHING, "PreToolUse", "Bash"),
            "secret-prompt-guard.sh": (FIXTURES / "secret-prompt-guard.sh", SUBMIT, None),
            "permission-guard.sh": (FIXTURES / "permission-guard.sh", "PermissionRequest", "Bash"),
        },
    )


def grade(project: Path, script: str, cases: Path, *extra: str) -> dict:
    res = run_cli(
        "verify-hook", f".claude/hooks/{script}", "--cases", str(cases), "--json", *extra,
        cwd=project,
    )  # fmt: skip
    data = json.loads(res.out)
    assert res.code == (0 if data["passed"] else 1), res
    return data


@pytest.mark.parametrize(
    ("script", "cases", "event"),
    [
        ("block-rm-rf.sh", RM_CASES, "PreToolUse"),
        ("deny-github-fetch.sh", FETCH_CASES, "PreToolUse"),
        ("secret-prompt-guard.sh", FIXTURES / "secret-prompt-cases.toml", SUBMIT),
        ("permission-guard.sh", FIXTURES / "permission-cases.toml", "PermissionRequest"),
    ],
)
def test_the_test_guards_pass_their_case_tables(
    project: Path, script: str, cases: Path, event: str
) -> None:
    """On both engines in one grade, as a hook author runs it (--engine both): every case
    on each, one verdict per case on both, and the contract checked once (it was graded
    once per engine, by two tests)."""
    require_real_client()
    data = grade(project, script, cases, "--engine", "both")
    missed = [c for c in data["cases"] if not c["passed"]]
    failed = [c for c in data["checks"] if not c["passed"]]
    assert not missed and not failed, (missed, failed)
    assert data["kind"] == "guard" and data["events"] == [event]
    for engine in ("emulator", "claude-code"):
        assert len([c for c in data["cases"] if c["engine"] == engine]) == 20, engine
    assert len(data["cases"]) == 40
    assert data["summary"] == f"{40 + len(data['checks'])} passed, 0 failed"
    refused = [c for c in data["by_hand"] if c["got"] == "blocked"]
    assert refused and all(c["said"] for c in refused)  # the reason, word for word


def test_a_guard_that_crashes_on_its_own_input_fails(project: Path, engine: str) -> None:
    data = grade(project, "plugin-root-guard.sh", RM_CASES, "--engine", engine)
    assert data["passed"] is False
    checks = {c["name"]: c for c in data["checks"]}
    assert not checks["no-crash"]["passed"]
    assert "unbound variable" in checks["no-crash"]["rows"][0]
    assert not checks["fails-open"]["passed"]
    # Every case it should refuse goes through: the client lets a crashed guard's call run.
    missed = {c["case"] for c in data["cases"] if not c["passed"]}
    assert missed == {c["case"] for c in data["cases"] if c["want"] == "blocked"}


def test_the_screen_grades_a_crashing_guard_and_never_as_a_stop_hook(project: Path) -> None:
    res = run_cli(
        "verify-hook", ".claude/hooks/plugin-root-guard.sh", "--cases", str(RM_CASES),
        "--engine", "emulator", cwd=project,
    )  # fmt: skip
    assert res.code == 1, res
    # The failed check on a line of its own, the verdict, then the count last of all.
    fnmatch_lines(res.out, ["✗ runs its own cases without crashing*", "FAIL plugin-root-guard.sh"])
    fnmatch_lines(res.out.rstrip().splitlines()[-1:], ["* passed, * failed"])
    assert "CLAUDE_PLUGIN_ROOT: unbound variable" in res.out  # a row may wrap inside the path
    for stop_words in ("short reason on stderr", "session is not held", "never blocks", "Stop"):
        assert stop_words not in res.out


def test_a_guard_given_stop_hook_flags_is_told_to_write_a_case_table(project: Path) -> None:
    res = run_cli(
        "verify-hook", ".claude/hooks/deny-github-fetch.sh", "--break", "true", "--fix", "true",
        cwd=project,
    )  # fmt: skip
    assert res.code == 1
    said = " ".join((res.out + res.err).split())
    assert "is a PreToolUse hook in the project's settings, not a Stop hook" in said
    assert "--cases cases.toml" in said
    assert "checks fail" not in said and "session is not held" not in said


def test_junit_xml_has_a_testcase_per_case_and_clause(project: Path, tmp_path: Path) -> None:
    report = tmp_path / "verify-hook.xml"
    data = grade(
        project, "plugin-root-guard.sh", RM_CASES, "--engine", "emulator",
        "--junit-xml", str(report),
    )  # fmt: skip
    suite = ElementTree.parse(report).getroot()
    cases = suite.findall("testcase")
    assert len(cases) == 20 + len(data["checks"]) == int(suite.get("tests", "0"))
    failed = [c for c in cases if c.find("failure") is not None]
    nfailed = data["summary"].split(", ")[1]
    assert len(failed) == int(suite.get("failures", "0")) == int(nfailed.split()[0])
    crash = next(c for c in cases if c.get("name") == "runs its own cases without crashing")
    failure = crash.find("failure")
    assert failure is not None and "unbound variable" in (failure.text or "")


@pytest.mark.parametrize(
    ("table", "field", "fix"),
    [
        ('[[case]]\ntool = "Bash"\ninput = { command = "ls" }\nwant = "denied"\n',
         "case[1].want", "use one of: blocked, allowed, asked"),
        ('[[case]]\ntool = "Bash"\ninput = { cmd = "ls" }\nwant = "allowed"\n',
         "case[1].input.command", 'input = { command = "..." }'),
        ('[[case]]\nwant = "allowed"\n', "case[1]", 'prompt = "..."'),
        ('[[case]]\nprompt = "hi"\ntool = "Bash"\nwant = "allowed"\n', "case[1]", "or prompt"),
        ('[[case]]\ntool = "Bash"\ninput = { command = "ls" }\nwant = "allowed"\nwnat = 1\n',
         "case[1].wnat", "remove it or use one of"),
        ("case = []\n", "case", "[[case]]"),
    ],
)  # fmt: skip
def test_a_bad_case_table_names_file_field_and_fix(
    project: Path, tmp_path: Path, table: str, field: str, fix: str
) -> None:
    cases = tmp_path / "cases.toml"
    cases.write_text(table)
    res = run_cli("verify-hook", ".claude/hooks/block-rm-rf.sh", "--cases", str(cases), cwd=project)
    assert res.code == 1
    said = " ".join(res.err.split())
    assert f"{cases}: {field}:" in said, said
    assert fix in said
    assert "Traceback" not in res.err
