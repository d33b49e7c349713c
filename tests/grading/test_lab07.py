"""Lab 07's own assets graded for real: the solution passes, the skeleton fails, and a red
report blocks even after the fix. Fast tests write Surefire-shaped reports; one test runs the
real sensors through ./mvnw on a provisioned workspace."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from harness.grading import grade_stop_hook
from harness.maven.surefire import SENSORS
from tests.builders import REPO_ROOT

LAB = REPO_ROOT / "labs" / "07-own-stop-hook"
BREAK = "rm -rf target/surefire-reports"
STALE = "touch src/main/java/ai/unifiedprocess/petclinic/domain/Pet.java"


def fake_fix(failures: int = 0) -> str:
    """A stand-in for the sensor run: a fresh report per sensor, as Surefire writes them."""
    lines = ["rm -rf target/surefire-reports", "mkdir -p target/surefire-reports"]
    for name in SENSORS:
        lines.append(
            "printf '%s\\n' '<?xml version=\"1.0\" encoding=\"UTF-8\"?>' "
            f'\'<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'name="ai.unifiedprocess.petclinic.{name}" time="0.2" tests="4" errors="0" '
            f'skipped="0" failures="{failures}">\' \'</testsuite>\' '
            f"> target/surefire-reports/TEST-ai.unifiedprocess.petclinic.{name}.xml"
        )
    return " && ".join(lines)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    java = root / "src/main/java/ai/unifiedprocess/petclinic/domain"
    java.mkdir(parents=True)
    (java / "Pet.java").write_text("package ai.unifiedprocess.petclinic.domain;\n")
    (root / "docs").mkdir()
    (root / "docs" / "README.md").write_text("docs\n")
    (root / "pom.xml").write_text("<project/>\n")
    (root / "scripts").mkdir()
    return root


def install(root: Path, asset: str) -> Path:
    target = root / "scripts" / "check-before-stop.sh"
    target.parent.mkdir(exist_ok=True)
    shutil.copy2(LAB / asset, target)
    return target


def test_solution_passes_every_check(project: Path) -> None:
    script = install(project, "solution/check-before-stop.sh")
    grade = grade_stop_hook(
        project, script, break_cmd=BREAK, fix_cmd=fake_fix(), stale_cmd=STALE, timeout=10
    )
    assert grade.passed, grade.checks
    assert not any(c.skipped for c in grade.checks)
    assert "no report for ArchitectureTest" in grade.check("reason-on-stderr").found
    assert "Pet.java changed after" in grade.check("blocks-on-stale").found


def test_skeleton_never_blocks(project: Path) -> None:
    script = install(project, "skeleton.sh")
    grade = grade_stop_hook(
        project, script, break_cmd=BREAK, fix_cmd=fake_fix(), stale_cmd=STALE, timeout=10
    )
    assert {c.name for c in grade.failures} == {"blocks-when-broken", "session-shows-reason"}
    assert grade.check("blocks-when-broken").problem == "never blocks"


def test_lab_check_and_verify_hook_count_the_same_checks(project: Path) -> None:
    """Lab 07 step 2 with the skeleton: `lab check` said "2 of 7 checks fail" where `lab
    verify-hook`'s table listed 9 checks (two not judged were left out of the count)."""
    from harness.ui.grading_view import render_grade

    script = install(project, "skeleton.sh")
    grade = grade_stop_hook(
        project, script, break_cmd=BREAK, fix_cmd=fake_fix(), stale_cmd=STALE, timeout=10
    )
    said = "2 of 9 checks fail (2 not judged): never blocks; the session is not held"
    assert len(grade.checks) == 9 and sum(c.skipped for c in grade.checks) == 2
    assert grade.to_check_result().message == f"check-before-stop.sh: {said}"
    out = io.StringIO()
    render_grade(Console(file=out, width=200, no_color=True), grade)
    assert out.getvalue().rstrip().endswith(f"FAIL {said}")


def test_solution_blocks_a_red_report(project: Path) -> None:
    script = install(project, "solution/check-before-stop.sh")
    grade = grade_stop_hook(
        project, script, break_cmd=BREAK, fix_cmd=fake_fix(failures=1), timeout=10
    )
    fixed = grade.check("passes-when-fixed")
    assert fixed.failed and fixed.problem == "blocks although fixed"
    assert "ArchitectureTest is red (1 failures, 0 errors)" in fixed.found
    # The session's cell names the hook's reason, not the client's frame around it.
    ends = grade.check("session-ends-when-fixed")
    assert ends.failed and ends.found.startswith(
        "blocked (exit 2: Stop check blocked: ArchitectureTest is red"
    ), ends.found


@pytest.mark.maven
@pytest.mark.slow
def test_solution_passes_against_the_real_sensors(workspace) -> None:  # type: ignore[no-untyped-def]
    root = workspace.root
    script = install(root, "solution/check-before-stop.sh")
    grade = grade_stop_hook(
        root,
        script,
        break_cmd=BREAK,
        fix_cmd="./mvnw -q test -Dgroups=sensor",
        stale_cmd=STALE,
        timeout=10,
    )
    assert grade.passed, grade.checks
    assert (
        root / "target/surefire-reports" / "TEST-ai.unifiedprocess.petclinic.ArchitectureTest.xml"
    ).is_file()


def test_a_red_report_is_explained_by_the_solutions_own_check(project: Path) -> None:
    script = install(project, "solution/check-before-stop.sh")
    grade = grade_stop_hook(
        project, script, break_cmd=BREAK, fix_cmd=fake_fix(failures=1), timeout=10
    )
    fixed = grade.check("passes-when-fixed")
    # Its check is a test of numbers it read from the report: no command to name, and the
    # solution lets go on stop_hook_active, so no loop either.
    assert fixed.found.endswith("then run ./mvnw -q test -Dgroups=sensor")
    assert "cap" not in fixed.detail and "lets go on stop_hook_active" in fixed.detail
