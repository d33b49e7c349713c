from __future__ import annotations

from pathlib import Path

from harness.engine.devcheck import dev_check
from harness.workspace import Workspace
from tests.engine.conftest import write_lab

TRIVIAL = """
format = 1
id = "01-trivial"
title = "Passes before it is solved"
intro = "x"
[[step]]
id = "already-true"
title = "Already true"
instructions = "nothing to do"
hints = ["none"]
[[step.check]]
kind = "file"
path = "pom.xml"
exists = true
[[step.solve]]
do = "write"
path = "x.txt"
content = "x"

[[step]]
id = "honest"
title = "Fails, then passes"
instructions = "write y"
hints = ["y"]
[[step.check]]
kind = "file"
path = "y.txt"
exists = true
[[step.solve]]
do = "write"
path = "y.txt"
content = "y"
"""

BROKEN_SOLVE = TRIVIAL.replace('path = "pom.xml"', 'path = "z.txt"').replace(
    'id = "01-trivial"', 'id = "02-bad-solve"'
)


def test_dev_check_reports_a_step_that_passes_before_solving(tmp_path: Path) -> None:
    write_lab(tmp_path, "01-trivial", TRIVIAL)
    report = dev_check(tmp_path)
    assert not report.ok
    (lab,) = report.labs
    step = lab.steps[0]
    assert step.step.id == "already-true"
    assert any("pass before the step is solved" in p for p in step.problems)


def test_dev_check_reports_a_solve_that_does_not_solve(tmp_path: Path) -> None:
    write_lab(tmp_path, "02-bad-solve", BROKEN_SOLVE)
    report = dev_check(tmp_path)
    (lab,) = report.labs
    assert any("after the solve" in p for p in lab.steps[0].problems)


def test_dev_check_passes_an_honest_lab_and_reports_manifest_errors(tmp_path: Path) -> None:
    honest = TRIVIAL.replace('path = "pom.xml"', 'path = "x.txt"').replace(
        'id = "01-trivial"', 'id = "01-honest"'
    )
    write_lab(tmp_path, "01-honest", honest)
    write_lab(
        tmp_path,
        "02-broken",
        TRIVIAL.replace('kind = "file"', 'kind = "flie"').replace(
            'id = "01-trivial"', 'id = "02-broken"'
        ),
    )
    report = dev_check(tmp_path)
    by_id = {lab.lab_id: lab for lab in report.labs}
    assert by_id["01-honest"].ok
    error = by_id["02-broken"].manifest_error or ""
    assert "02-broken/lab.toml: step[0].check[0].kind" in error and 'did you mean "file"' in error
    assert not report.ok


def test_checks_get_the_context_they_were_given(ws: Workspace, tmp_path: Path) -> None:
    """The engine, the backend and the live-view callbacks reach every check, whatever fields
    CheckContext grows (a positional copy once handed the root to on_hook_event)."""
    from harness.engine.context import CheckContext
    from harness.engine.manifest import load_lab
    from harness.engine.runner import LabRunner

    lab = load_lab(write_lab(tmp_path / "labs", "01-trivial", TRIVIAL))
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
