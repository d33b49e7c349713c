"""walk-p's free passes, second set (issue 51): each played as the walker did it, each failing
with a message that names its cause."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.results import CheckResult, Status
from harness.workspace import Workspace
from tests.builders import reach_step
from tests.conftest import require_real_client
from tests.engine.live_steps import check_json
from tests.labs.solved import checked, solved_at
from tests.labs.test_failures_name_cause import WIDTHS, assert_whole_lines, screen
from tests.labs.test_free_passes_walk_kl import CONTRACT, _contract_said
from tests.recorded_sessions import (
    APPROVED,
    ASK_DONE,
    AUDIT_PROMPT,
    AUDIT_REPORT,
    AUDITOR,
    DONE,
    SENSORS,
    UC5,
)

HOOK = "scripts/check-before-stop.sh"
ARCHITECTURE_TEST = "src/test/java/ai/unifiedprocess/petclinic/ArchitectureTest.java"


def _hook_text(node_ws: Workspace, command: str) -> str:
    """What ``command`` (walk-p's shell line, run in the workspace) prints from the hook."""
    done = subprocess.run(
        ["sh", "-c", command], cwd=node_ws.root, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_lab12_step1_the_hook_without_its_shebang_is_no_contract(node_ws: Workspace) -> None:
    """`tail -n +2 scripts/check-before-stop.sh > docs/stop-hook-contract.md` passed: the
    hook's header comment has the four labels, and #! was the only sign of a script."""
    status, message = _contract_said(node_ws, _hook_text(node_ws, f"tail -n +2 {HOOK}"))
    assert status is Status.FAIL
    assert message.startswith(f"docs/stop-hook-contract.md is the text of {HOOK} ("), message
    assert "your own words" in message, message


@pytest.mark.parametrize("uncopied", [False, True], ids=["grepped", "typed-as-comments"])
def test_lab12_step1_the_hooks_comment_lines_are_no_contract(
    node_ws: Workspace, uncopied: bool
) -> None:
    """`grep -E '^#   (Claim|Check|Success|Block):' scripts/check-before-stop.sh` passed: a
    line `#   Claim: …` counted as starting with its label. The fixture's hook no longer
    carries the four labels (walk-s: a sed of them passed): the grep finds none; the
    solution's lines typed as comments are still no contract lines."""
    lines = _hook_text(node_ws, f"grep -E '^#   (Claim|Check|Success|Block):' {HOOK} || true")
    if not uncopied:
        assert lines == "", lines
        return
    # the solution's own lines, each made a comment: no copy, no contract line
    lines = "".join(f"#   {line}\n" for line in CONTRACT.read_text().splitlines()[2:])
    status, message = _contract_said(node_ws, lines, with_found=True)
    assert status is Status.FAIL
    assert "your Claim: line is a script's comment (“#   Claim: the build is ready" in message, (
        message
    )


# walk-p's l11-sedback.json: Done refused, the audit, Done accepted, Done set back to Approved
# by a Bash sed (not an Edit), the sensors (on Approved), the stop.
SED_BACK = "sed -i 's/^\\*\\*Status:\\*\\* Done/**Status:** Approved/' " + UC5


@pytest.mark.maven
def test_lab11_step4_done_set_back_by_a_bash_sed_then_typed_by_hand_does_not_pass(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's "last change" of the spec was its last Edit (Done); the Bash sed after it
    put Approved back, the sensors ran on Approved, and Done typed by hand passed."""
    from harness.claude.engines import open_session

    require_real_client()
    reach_step(workspace, "11", "earn-done")
    config = tmp_path / "claude-home"
    with open_session("claude-code", workspace.root, transcript_dir=config) as session:
        session.session_start()
        session.prompt(ASK_DONE)
        session.edit(UC5, APPROVED, DONE)
        session.subagent_stop(AUDITOR, AUDIT_PROMPT, AUDIT_REPORT)
        session.edit(UC5, APPROVED, DONE)
        session.bash(SED_BACK)
        session.bash(SENSORS)
        session.stop("UC-005 is Done ...")
    spec = workspace.root / UC5
    assert APPROVED in spec.read_text()  # the sed ran in the session
    spec.write_text(spec.read_text().replace(APPROVED, DONE))  # typed by hand afterwards

    done, data = check_json(workspace.root, config, monkeypatch)

    assert done.code == 1, done
    live = data["checks"][-1]
    assert live["message"] == "the workspace does not show what the session claims", live
    # the last change named is the sed, and the fix does not say to put Approved back
    assert f"the session's last change of {UC5} (transcript line" in live["found"], live
    assert ", a bash command) does not put **Status:** Done there" in live["found"], live
    assert live["details"]["fix"].startswith("play the step again"), live["details"]["fix"]


# walk-p's AT.record-exempt.java: the honest rule with a kind of type let through.
HONEST_FILTER = '.filter(type -> !type.simpleName().endsWith("Repository"))'
EXEMPTIONS = {
    "record": ' && !type.superName().equals("java.lang.Record")',
    "implements": " && type.interfaces().isEmpty()",
}


@pytest.mark.maven
@pytest.mark.parametrize("kind", ["record", "implements"])
def test_lab08_step1_a_rule_that_exempts_a_kind_of_type_does_not_pass(
    workspace: Workspace, kind: str
) -> None:
    """The rule written with an exemption for records (or for a class that implements an
    interface) passed every probe, each an interface; `public record OwnerDao(String id) {}`
    in repository/ then kept the sensors green."""
    runner = solved_at(workspace, "8", "rule-as-test")
    test = workspace.root / ARCHITECTURE_TEST
    text = test.read_text()
    assert HONEST_FILTER in text, text
    test.write_text(text.replace(HONEST_FILTER, HONEST_FILTER[:-1] + EXEMPTIONS[kind] + ")"))

    sensors = ["./mvnw", "-q", "test", "-Dgroups=sensor"]
    subprocess.run(sensors, cwd=workspace.root, capture_output=True, check=True)  # green

    # The check of every ending and kind alone: the step's five other sensor runs (each a Maven
    # run on a copy) passed the walk's rule, and pass the solve in the labs session.
    failed = [
        r for r in checked(runner, "with repository/{random}Dao.java") if r.status is Status.FAIL
    ]

    assert len(failed) == 1, [(r.name, r.message) for r in failed]
    assert "whatever the type's kind" in failed[0].message, failed[0].message
    unnamed = [line for line in (failed[0].found or "").splitlines() if "names no" in line]
    spared = {"record": "Dao", "implements": "Store"}[kind]  # the record, the implementing class
    assert len(unnamed) == 1 and unnamed[0].endswith(spared), unnamed


# ---- Lab 08 step 2 and Lab 10 step 3: the guard kept elsewhere ---------------------------------
REPOSITORY = "src/main/java/ai/unifiedprocess/petclinic/repository"
SETTINGS = ".claude/settings.json"


def _only_failure(runner: LabRunner) -> CheckResult:
    """The step's one failing check (all of them run, as lab check runs them)."""
    failed = [r for r in runner.check(every=True).results if r.status is Status.FAIL]
    assert len(failed) == 1, [(r.name, r.message) for r in failed]
    return failed[0]


def _user_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: object) -> Path:
    """The person's own ~/.claude/settings.json, in a throwaway HOME (never the real one)."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    user = home / ".claude" / "settings.json"
    user.write_text(json.dumps(data))
    return user


def test_lab08_step2_the_naming_rule_kept_as_a_permissions_deny_rule_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-p: after the honest retirement, "Edit(…/repository/*Dao.java)" appended to
    permissions.deny passed all 8 checks; live, Claude's Write of OwnerDao.java was refused."""
    runner = solved_at(workspace, "8", "drop-hook")
    settings = workspace.root / SETTINGS
    data = json.loads(settings.read_text())
    rule = f"Edit({REPOSITORY}/*Dao.java)"
    data["permissions"]["deny"].append(rule)
    settings.write_text(json.dumps(data, indent=2) + "\n")

    result = _only_failure(runner)

    assert f"{rule} (permissions.deny in {SETTINGS})" in result.message, result.message
    assert f"{SETTINGS}: permissions.deny: {rule}" in (result.found or "")
    assert f"take {rule} out of permissions.deny" in result.details["fix"]
    for width in WIDTHS:  # the rule and the file stay whole at every width
        assert_whole_lines(screen(result, width), width)


def test_lab08_step2_the_naming_hook_moved_to_the_user_settings_does_not_pass(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-p: the *Dao naming hook registered in ~/.claude/settings.json passed "none was
    added": the checks read the workspace only; the real client loads the user's settings."""
    runner = solved_at(workspace, "8", "drop-hook")
    command = '"$CLAUDE_PROJECT_DIR/tools/names.sh"'
    hook = {"type": "command", "command": command, "timeout": 10}
    user = _user_settings(
        tmp_path,
        monkeypatch,
        {"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [hook]}]}},
    )

    result = _only_failure(runner)

    assert f"a hook in your own {user} keeps" in result.message, result.message
    assert f"{user}: hooks.PreToolUse[0].hooks[0]: {command}" in (result.found or "")


def test_lab08_step2_the_naming_hook_kept_under_another_name_for_the_real_folder_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-s F1: the colleague's hook kept as tools/repo-names.sh, its settings entry pointed
    there, and on only where CLAUDE_PROJECT_DIR is the real workspace: the checks' sessions,
    played on a copy, saw it let every write through; in the workspace it still refused."""
    runner = solved_at(workspace, "8", "drop-hook")
    root = workspace.root
    shipped = subprocess.run(
        ["git", "show", "HEAD:.claude/hooks/check-repository-names.sh"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = shipped.splitlines(keepends=True)
    lines.insert(1, f'[ "$CLAUDE_PROJECT_DIR" = {root} ] || exit 0\n')
    (root / "tools").mkdir(exist_ok=True)
    (root / "tools" / "repo-names.sh").write_text("".join(lines))
    (root / "tools" / "repo-names.sh").chmod(0o755)
    command = '"$CLAUDE_PROJECT_DIR/tools/repo-names.sh"'
    settings = root / SETTINGS
    data = json.loads(settings.read_text())
    hook = {"type": "command", "command": command, "timeout": 10}
    data["hooks"]["PreToolUse"].append({"matcher": "Write", "hooks": [hook]})
    settings.write_text(json.dumps(data, indent=2) + "\n")

    result = _only_failure(runner)

    assert result.message.startswith(
        f"{SETTINGS} registers a hook the step's start did not have (hooks.PreToolUse["
    ), result.message
    assert command in (result.found or "")
    assert result.details["fix"].startswith("take hooks.PreToolUse[")
    for width in WIDTHS:
        assert_whole_lines(screen(result, width), width)


def test_lab10_step3_the_judge_moved_to_the_user_settings_does_not_pass(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-p: the prompt hook taken out of .claude/settings.json and put into
    ~/.claude/settings.json passed step 3; it still judged every stop of every session."""
    runner = solved_at(workspace, "10", "evidence")
    prompt = "Did the tests run and pass after the last change? $ARGUMENTS"
    judge = {"type": "prompt", "prompt": prompt, "timeout": 30}
    user = _user_settings(tmp_path, monkeypatch, {"hooks": {"Stop": [{"hooks": [judge]}]}})

    result = _only_failure(runner)

    assert f"{user}: hooks.Stop[0].hooks[0]: Did the tests run" in (result.found or "")
    assert "not a judge" in result.message, result.message


@pytest.mark.parametrize(
    ("rule", "reaches"),
    [
        (f"Edit({REPOSITORY}/*Dao.java)", True),
        ("Write(**/repository/**)", True),
        ("Edit(*Dao.java)", True),  # a bare name matches in every folder
        ("Edit", True),
        ("Edit(target/**)", False),  # the fixture's own deny rule
        ("Edit(docs/**)", False),
        ("Edit(.env)", False),
        ("Edit(//etc/hosts)", False),
        (f"Read({REPOSITORY}/*Dao.java)", False),  # reading is not writing
    ],
)
def test_which_permission_rules_reach_into_the_repository_folder(
    tmp_path: Path, rule: str, reaches: bool
) -> None:
    from harness.engine.checks.no_guard import _rules_into

    data = {"permissions": {"deny": [rule]}}
    found = _rules_into(data, REPOSITORY, tmp_path / "ws", tmp_path / "home")
    assert bool(found) is reaches, found
