"""Issue 51 item 1, round 8: a check tests the thing, not the person's instrument. Each free
pass of the newcomer walks walk-g and walk-h, played as the walker did it, fails its check
and names the cause and what to do next.

Real: the shipped labs' own setup and checks on a provisioned workspace, the workspace's bash
hooks fed real JSON by the emulator, real git, real Maven where a step reads reports, real
npm for the Node fixture.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from harness.results import CheckResult, Status
from harness.workspace import Workspace
from tests.builders import git, reach_step, run_cli
from tests.conftest import require_real_client
from tests.labs.solved import checked, solved_at
from tests.labs.test_free_passes import at_step

HOOKS = ".claude/hooks"


def _said(results: list[CheckResult]) -> list[tuple[Status, str]]:
    return [(r.status, r.message) for r in results]


def _failed(results: list[CheckResult], start: str) -> CheckResult:
    said = [r for r in results if r.message.startswith(start)]
    assert said and said[0].status is Status.FAIL, _said(results)
    return said[0]


def _write_hook(ws: Workspace, name: str, text: str) -> None:
    path = ws.root / HOOKS / name
    path.write_text(text)
    os.chmod(path, 0o755)


def _checkout(ws: Workspace, *paths: str) -> None:
    subprocess.run(["git", "checkout", "--", *paths], cwd=ws.root, check=True)


# ---- Lab 06 step 1: require-sensors.sh and smoke.sh both replaced (walk-g FREE PASS 9) ----
# walk-g's pair: the Stop hook lets go once a marker file exists, and "smoke.sh" only leaves
# that marker and prints a green count.
FAKE_REQUIRE = """#!/usr/bin/env bash
in=$(cat)
echo "$in" | grep -q '"stop_hook_active": *true' && exit 0
[ -f "$CLAUDE_PROJECT_DIR/.git/walkg-smoked" ] && exit 0
echo "A hook changed: run ./.claude/hooks/smoke.sh" >&2
exit 2
"""
FAKE_SMOKE = """#!/usr/bin/env bash
touch "$(git rev-parse --git-dir)/walkg-smoked"
echo "smoke: 40 passed, 0 failed"
"""


def test_lab06_step1_a_fake_smoke_sh_and_stop_hook_do_not_pass(workspace: Workspace) -> None:
    runner = at_step(workspace, "6", "hook-change-held")
    _write_hook(workspace, "require-sensors.sh", FAKE_REQUIRE)
    _write_hook(workspace, "smoke.sh", FAKE_SMOKE)

    results = list(runner.check(every=True).results)

    said = _failed(results, f"{HOOKS}/smoke.sh is not as the lab shipped it")
    assert said.details["fix"] == f"git checkout -- {HOOKS}/smoke.sh"
    assert "checks run smoke.sh" in said.message
    # The walker's fake Stop hook, with smoke.sh put back: the hook changed after a green run
    # lets the next turn go (its marker is all it reads).
    _checkout(workspace, f"{HOOKS}/smoke.sh")
    (workspace.root / ".git" / "walkg-smoked").touch()  # the fake smoke.sh ran here once
    results = list(runner.check(every=True).results)
    assert not any(r.name == "shipped" and r.status is Status.FAIL for r in results)
    said = _failed(results, "after a green smoke.sh and then another hook change")
    assert "git checkout -- .claude/hooks/require-sensors.sh" in said.message
    _checkout(workspace, f"{HOOKS}/require-sensors.sh")
    runner.solve(apply=True)


# ---- Lab 06 step 2: the planted bug undone by git, smoke.sh never run (walk-g FREE PASS 10) -
GUARD = f"{HOOKS}/guard-spec-status.sh"
BROKEN, FIXED = '[ -n "$problem" ] && exit 0', '[ -n "$problem" ] || exit 0'


def _smoke(ws: Workspace) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [f"./{HOOKS}/smoke.sh"], cwd=ws.root, capture_output=True, text=True, timeout=300
    )


NO_GREEN_SMOKE = "smoke.sh has not run green on the guard as it is now"
GUARD_BROKEN = "guard-spec-status.sh does not refuse Done without an audit"


@pytest.mark.slow
def test_lab06_step2_git_checkout_does_not_undo_the_planted_bug(workspace: Workspace) -> None:
    runner = at_step(workspace, "6", "broken-hook")
    root = workspace.root
    # walk-g: git checkout -- .claude/hooks/, no smoke.sh run. The bug is a commit now.
    _checkout(workspace, f"{HOOKS}/")
    assert BROKEN in (root / GUARD).read_text()
    assert "Simplify the status guard" in git(root, "log", "-1", "--format=%s")

    # The two checks it fails, not the step's every check (the workshop's whole smoke.sh too).
    results = checked(runner, NO_GREEN_SMOKE, GUARD_BROKEN)

    said = _failed(results, NO_GREEN_SMOKE)
    assert said.found == "no green smoke.sh run recorded since this step began"
    assert "run ./.claude/hooks/smoke.sh" in said.message
    _failed(results, GUARD_BROKEN)


@pytest.mark.slow
def test_lab06_step2_the_line_put_back_from_git_without_smoke_sh_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-g's other way: git shows the planted line (now in git show HEAD, not git diff);
    put back by hand, the guard is right, but smoke.sh never ran on it."""
    runner = at_step(workspace, "6", "broken-hook")
    guard = workspace.root / GUARD
    assert BROKEN in git(workspace.root, "show", "HEAD")
    guard.write_text(guard.read_text().replace(BROKEN, FIXED))

    (said,) = checked(runner, NO_GREEN_SMOKE)

    assert said.status is Status.FAIL, said
    assert said.found == "no green smoke.sh run recorded since this step began"
    # The honest way: smoke.sh red, the line fixed, smoke.sh green.
    guard.write_text(guard.read_text().replace(FIXED, BROKEN))
    red = _smoke(workspace)
    assert red.returncode != 0 and "FAIL" in red.stdout
    guard.write_text(guard.read_text().replace(BROKEN, FIXED))
    assert _smoke(workspace).returncode == 0
    done = runner.check(every=True)
    assert done.status is Status.PASS, _said(list(done.results))


def test_lab06_step2_reset_backs_up_and_plants_the_bug_once(workspace: Workspace) -> None:
    at_step(workspace, "6", "broken-hook")
    root = workspace.root
    guard = root / GUARD
    guard.write_text(guard.read_text().replace(BROKEN, FIXED))  # the person's fix

    said = run_cli("reset", cwd=root)

    assert said.code == 0, said.out + said.err
    assert "backup" in (said.out + said.err).lower()
    assert BROKEN in guard.read_text()
    log = git(root, "log", "--format=%s").splitlines()
    assert log.count("Simplify the status guard") == 1, log
    assert git(root, "status", "--porcelain", "--", GUARD) == ""


# ---- Lab 04 step 3: a 4-line status check that always names UC-002 (walk-g FREE PASS 17) ---
ALWAYS_UC002 = """#!/usr/bin/env bash
cd "$CLAUDE_PROJECT_DIR" || exit 0
git diff -U0 -- docs | grep -q '^+\\*\\*Status:\\*\\* Done' || exit 0
echo "UC-002 now reads Done without a coverage audit" >&2; exit 2
"""


def test_lab04_step3_a_status_check_that_always_names_uc002_does_not_pass(
    workspace: Workspace,
) -> None:
    runner = solved_at(workspace, "4", "sed")  # the scenario the step asks for
    _write_hook(workspace, "check-spec-status.sh", ALWAYS_UC002)

    results = list(runner.check(every=True).results)

    # The walk's pass, as it was: the session and the real-or-none check hold.
    assert [r.status for r in results[:2]] == [Status.PASS, Status.PASS], _said(results)
    said = _failed(results, "check-spec-status.sh does not read the audit markers")
    assert "git checkout -- .claude/hooks/check-spec-status.sh" in said.message
    _checkout(workspace, f"{HOOKS}/check-spec-status.sh")
    assert runner.check().status is Status.PASS


# ---- Lab 03 step 3, live: ./mvnw taught to forge the reports (walk-g FREE PASS 16) ----------
# walk-g's forge2.sh, as .mvn/f.sh: the five sensor reports written from the @Test names in
# the sources, green, with no Maven run.
FORGE = r"""#!/bin/bash
out=${1:-target/surefire-reports}; mkdir -p "$out"
for s in ArchitectureTest TestLayerConventionsTest UseCaseTraceabilityTest \
    BusinessRuleTraceabilityTest TestCaseTraceabilityTest; do
  src=$(find src/test -name "$s.java"); pkg=$(sed -n 's/^package \(.*\);/\1/p' "$src")
  names=$(grep -A3 '@Test' "$src" | grep -oE 'void [a-zA-Z0-9_]+' | awk '{print $2}')
  n=$(echo "$names" | wc -l)
  { echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuite name=\"$pkg.$s\" time=\"0.05\" tests=\"$n\" errors=\"0\" skipped=\"0\"" \
      "failures=\"0\">"
    for m in $names; do echo "  <testcase name=\"$m\" classname=\"$pkg.$s\" time=\"0.001\"/>"; done
    echo "</testsuite>"; } > "$out/TEST-$pkg.$s.xml"
done
"""
# l03s3-mvnw-live.diff: after the line that finds the project.
FORGING_MVNW = (
    'if [[ "$*" == *-Dgroups=sensor* ]]; then cd "$project_dir"; rm -rf target/surefire-reports;'
    " bash .mvn/f.sh >/dev/null; exit 0; fi\n"
)
UC005_TEST = "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"


@pytest.mark.maven
@pytest.mark.slow
def test_lab03_step3_live_a_session_through_a_forging_mvnw_does_not_pass(
    workspace: Workspace,
) -> None:
    """The honest turns played on the real client 2.1.332 with the scripted model (lab solve's
    play_session), as walk-g's live session: the note, held, the sensors through ./mvnw, the
    stop; the annotation broken, so a real run would be red."""
    require_real_client()
    runner = at_step(workspace, "3", "your-session")
    runner.reset()
    test = workspace.root / UC005_TEST
    test.write_text(test.read_text().replace("A1: Missing Description", "A1: Missing Text"))
    (workspace.root / ".mvn" / "f.sh").write_text(FORGE)
    mvnw = workspace.root / "mvnw"
    lines = mvnw.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("project_dir="))
    mvnw.write_text("".join([*lines[: at + 1], FORGING_MVNW, *lines[at + 1 :]]))
    runner.solve(apply=True)

    *_, said = runner.check(every=True).results  # the shipped hooks first: they are

    assert said.status is Status.FAIL
    assert said.message.startswith(".mvn/f.sh, mvnw are not as the lab shipped them"), said
    assert "this check runs Maven through ./mvnw and .mvn/, so it did not run" in said.message
    assert said.found == ".mvn/f.sh: not shipped\nmvnw: changed"
    assert said.details["fix"] == "git checkout -- mvnw; rm .mvn/f.sh"


# ---- Lab 07 step 4: a stub swapped in after step 3 passed holds the session (walk-g) -------
# walk-g's stub: every first stop blocked with the sensors' command, the second let go.
BLOCKS_ONCE = """#!/usr/bin/env bash
if grep -q '"stop_hook_active": *true'; then echo '{"systemMessage": "let go"}'; exit 0; fi
echo "Stop check blocked: run ./mvnw -q test -Dgroups=sensor" >&2
exit 2
"""


@pytest.mark.maven
@pytest.mark.slow
def test_lab07_step4_a_session_held_by_a_stub_swapped_in_after_step3_does_not_pass(
    workspace: Workspace,
) -> None:
    """The session played on the real client 2.1.332 with the scripted model (lab solve's
    play_session), as walk-g's live session: held by the stub, let go on the second stop."""
    require_real_client()
    runner = at_step(workspace, "7", "your-session")
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    hook.write_text(BLOCKS_ONCE)
    os.chmod(hook, 0o755)
    runner.solve(apply=True)

    results = list(runner.check(every=True).results)

    session = next(r for r in results if r.message.startswith("held by your own hook"))
    assert session.status is Status.PASS, _said(results)  # the walk's pass, as it was
    said = _failed(results, "the hook that holds your session no longer passes step 2's")
    assert "it changed since step 3 passed" in said.message
    assert "then start a new session" in said.message


# ---- Lab 13 steps 2 and 5: the hook pointed back, dist/app.js removed, no build (walk-h) ----
def _pointed_back_unbuilt(ws: Workspace) -> None:
    hook = ws.root / "scripts" / "check-before-stop.sh"
    hook.write_text(hook.read_text().replace("test -s dist/missing.js", "test -s dist/app.js"))
    (ws.root / "dist" / "app.js").unlink(missing_ok=True)


@pytest.mark.parametrize("step", ["pass-after-fix", "turn-ends"])
def test_lab13_the_hook_pointed_back_without_a_build_does_not_pass(
    node_ws: Workspace, step: str
) -> None:
    runner = reach_step(node_ws, "13", step)
    _pointed_back_unbuilt(node_ws)

    # The step's check of the build (its others, sessions and copies, are the labs session's).
    results = checked(runner, "dist/app.js is built from src/ as it is now")

    said = _failed(results, "not so: run npm run build")
    assert said.found == "dist/app.js: missing"
    # lab check built nothing for the person: a second check finds it missing too.
    assert not (node_ws.root / "dist" / "app.js").exists()
    subprocess.run(["npm", "run", "build"], cwd=node_ws.root, check=True, capture_output=True)
    assert runner.check().status is Status.PASS
