from __future__ import annotations

from pathlib import Path

from harness.engine.devcheck import dev_check
from harness.workspace import Workspace
from tests.builders import Table, file_check, lab, step, write_action, write_lab


def trivial(lab_id: str = "01-trivial", *, first_checks: str = "pom.xml") -> Table:
    """Two steps; the first checks ``first_checks``, which the fixture already has (so it
    passes before it is solved) unless another file is named."""
    return lab(
        lab_id,
        step(
            "already-true",
            check=file_check(first_checks),
            solve=write_action("x.txt", "x"),
        ),
        step("honest", check=file_check("y.txt"), solve=write_action("y.txt", "y")),
        title="Passes before it is solved",
    )


def test_dev_check_reports_a_step_that_passes_before_solving(tmp_path: Path) -> None:
    write_lab(tmp_path, "01-trivial", trivial())
    report = dev_check(tmp_path)
    assert not report.ok
    (lab,) = report.labs
    step = lab.steps[0]
    assert step.step.id == "already-true"
    assert any("pass before the step is solved" in p for p in step.problems)


def test_dev_check_reports_a_solve_that_does_not_solve(tmp_path: Path) -> None:
    write_lab(tmp_path, "02-bad-solve", trivial("02-bad-solve", first_checks="z.txt"))
    report = dev_check(tmp_path)
    (lab,) = report.labs
    assert any("after the solve" in p for p in lab.steps[0].problems)


def test_dev_check_passes_an_honest_lab_and_reports_manifest_errors(tmp_path: Path) -> None:
    write_lab(tmp_path, "01-honest", trivial("01-honest", first_checks="x.txt"))
    broken = trivial("02-broken")
    broken["step"][0]["check"][0]["kind"] = "flie"
    write_lab(tmp_path, "02-broken", broken)
    report = dev_check(tmp_path)
    by_id = {lab.lab_id: lab for lab in report.labs}
    assert by_id["01-honest"].ok
    error = by_id["02-broken"].manifest_error or ""
    assert "02-broken/lab.toml: step[0].check[0].kind" in error and 'did you mean "file"' in error
    assert not report.ok


TIMED = lab(
    "01-timed",
    step("first"),
    step(
        "second",
        title="Second, entered through a slow setup",
        setup={"do": "run", "command": "sleep 1  # announced like ./mvnw", "slow": True},
    ),
    title="A setup that stands in for a Maven run",
)


def test_a_step_counts_the_maven_time_of_its_own_setup_and_no_more(tmp_path: Path) -> None:
    write_lab(tmp_path, "01-timed", TIMED)
    (lab,) = dev_check(tmp_path).labs
    first, second = lab.steps
    assert lab.ok
    assert first.maven_seconds < 0.5
    assert 1.0 <= second.maven_seconds <= second.duration


def test_checks_get_the_context_they_were_given(ws: Workspace, tmp_path: Path) -> None:
    """The engine, the backend and the live-view callbacks reach every check, whatever fields
    CheckContext grows (a positional copy once handed the root to on_hook_event)."""
    from harness.engine.context import CheckContext
    from harness.engine.manifest import load_lab
    from harness.engine.runner import LabRunner

    lab = load_lab(write_lab(tmp_path / "labs", "01-trivial", trivial()))
    events: list[dict[str, object]] = []
    given = CheckContext(
        ws, lab.dir, backend_name="local", engine="claude-code", on_hook_event=events.append
    )
    runner = LabRunner(ws, labs_root=lab.dir.parent, context=given)

    ctx = runner.context(lab, root=tmp_path)

    assert (ctx.engine, ctx.backend_name, ctx.root) == ("claude-code", "local", tmp_path)
    ctx.on_hook_event({"step": 1})
    assert events == [{"step": 1}]
    assert "lab_start_commit" in ctx.extra and "lab_start_commit" not in given.extra
