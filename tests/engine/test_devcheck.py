from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.engine.devcheck import dev_check
from harness.workspace import Workspace
from tests.builders import Table, file_check, lab, run_cli, step, write_action, write_lab


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
    assert "02-broken/lab.toml: step[1].check[1].kind" in error and 'did you mean "file"' in error
    assert not report.ok


def test_every_check_runs_before_and_after_and_one_that_never_changes_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the solve a participant's check stops at the first failure; lab dev check runs
    them all, so the second check here (the fixture's pom.xml, true all along) is seen to
    pass before and after: it proves nothing in its step, and the author is told."""
    checks = [file_check("x.txt"), file_check("pom.xml")]
    one = step("write-x", check=checks, solve=write_action("x.txt", "x"))
    write_lab(tmp_path / "labs", "01-guard", lab("01-guard", one))
    monkeypatch.setenv("HOOKLAB_LABS", str(tmp_path / "labs"))

    done = run_cli("dev", "check", "--jobs", "1", cwd=tmp_path)

    said = " ".join(done.out.split())
    assert done.code == 0, done  # a warning, not a failure: a guard may mean to keep passing
    assert "step write-x: file pom.xml (step[1].check[2]) passes before and after the solve" in said
    assert "proves nothing" in said
    data = json.loads(run_cli("dev", "check", "--jobs", "1", "--json", cwd=tmp_path).out)
    walked = data["labs"][0]["steps"][0]
    assert [c["status"] for c in walked["before"]["checks"]] == ["fail", "pass"]
    assert walked["unchanged"] == ["file pom.xml (step[1].check[2])"]


def test_a_check_declared_a_guard_is_named_a_guard_not_one_that_proves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same pom.xml check, declared ``guard = true``: it must hold before and after, and
    dev check (and lab demo, which shares its view) says so neutrally."""
    checks = [file_check("x.txt"), {**file_check("pom.xml"), "guard": True}]
    one = step("write-x", check=checks, solve=write_action("x.txt", "x"))
    write_lab(tmp_path / "labs", "01-guard", lab("01-guard", one))
    monkeypatch.setenv("HOOKLAB_LABS", str(tmp_path / "labs"))

    done = run_cli("dev", "check", "--jobs", "1", cwd=tmp_path)

    said = " ".join(done.out.split())
    assert done.code == 0, done
    assert "proves nothing" not in said
    assert (
        "step write-x: file pom.xml (step[1].check[2]) is a guard: it held before and after "
        "the solve" in said
    )
    data = json.loads(run_cli("dev", "check", "--jobs", "1", "--json", cwd=tmp_path).out)
    walked = data["labs"][0]["steps"][0]
    assert walked["unchanged"] == []
    assert walked["guards"] == ["file pom.xml (step[1].check[2])"]


def test_a_guard_that_fails_before_the_solve_is_a_problem(tmp_path: Path) -> None:
    checks = [file_check("x.txt"), {**file_check("y.txt"), "guard": True}]
    one = step(
        "write-x", check=checks, solve=[write_action("x.txt", "x"), write_action("y.txt", "y")]
    )
    write_lab(tmp_path, "01-no-guard", lab("01-no-guard", one))
    (walked,) = dev_check(tmp_path).labs[0].steps
    assert walked.problems == [
        "a check declared a guard (guard = true) does not hold on the starting state: file "
        "y.txt: y.txt does not exist yet: create it (found: no such file) (a guard passes "
        "before and after "
        "the solve; drop guard = true if it is to fail)"
    ]


def test_guard_must_be_true_or_false(tmp_path: Path) -> None:
    from harness.engine.manifest import load_lab
    from harness.errors import ConfigError

    checks = [{**file_check("x.txt"), "guard": "yes"}]
    write_lab(tmp_path, "01-bad", lab("01-bad", step("s", check=checks)))
    with pytest.raises(ConfigError) as caught:
        load_lab(tmp_path / "01-bad")
    assert "step[1].check[1].guard" in str(caught.value)


def test_engine_both_says_per_step_that_both_engines_ran_and_agreed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's edit is refused (no such file) before the solve and runs after it, on
    the emulator and on the real client; the step says both ran and agreed."""
    from tests.conftest import require_real_client

    require_real_client()
    edit = {"do": "edit", "file": "x.txt", "old": "a", "new": "b", "expect": "allowed"}
    session = {"kind": "hook_session", "steps": [{"do": "session_start"}, edit]}
    one = step("edit-x", check=session, solve=write_action("x.txt", "a\n"))
    write_lab(tmp_path / "labs", "01-both", lab("01-both", one))
    monkeypatch.setenv("HOOKLAB_LABS", str(tmp_path / "labs"))

    done = run_cli("dev", "check", "--jobs", "1", "--engine", "both", cwd=tmp_path)

    said = " ".join(done.out.split())
    assert done.code == 0, done
    assert (
        "step edit-x behaves: fails before, passes after, on the emulator and real Claude "
        "Code, which agreed" in said
    )
    assert "ok, on the emulator and real Claude Code, which agreed" in said


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
    from harness.engine.lab_runner import LabRunner
    from harness.engine.manifest import load_lab

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
    assert ctx.lab_start_commit is not None and given.lab_start_commit is None


def rendezvous(lab_id: str, other: str, meeting: Path) -> Table:
    """A lab of one step whose setup says it is here, then waits (5 s at most) for ``other``:
    only labs proven at the same time can both get past it."""
    waits = (
        f"touch {meeting}/{lab_id}\n"
        f"for i in $(seq 50); do [ -f {meeting}/{other} ] && exit 0; sleep 0.1; done; exit 1"
    )
    return lab(
        lab_id,
        step(
            "meet",
            title="Meet",
            instructions=f"write {lab_id}.txt",
            hints=["x"],
            setup={"do": "run", "command": waits, "exit": 0},
            check=[
                file_check(f"{lab_id}.txt"),
                file_check(
                    f"{other}.txt",
                    absent=True,
                    message="the other lab's file is here: the two labs share a workspace",
                ),
            ],
            solve=write_action(f"{lab_id}.txt", "x"),
        ),
        title="Meets the other lab",
    )


def test_labs_are_proven_side_by_side_each_on_its_own_workspace_heard_in_order(
    tmp_path: Path,
) -> None:
    from harness.engine.devcheck import Observer, StepWalk
    from harness.engine.manifest import Lab

    meeting = tmp_path / "meeting"
    meeting.mkdir()
    labs = tmp_path / "labs"
    for lab_id, other in (("01-first", "02-second"), ("02-second", "01-first")):
        write_lab(labs, lab_id, rendezvous(lab_id, other, meeting))
    heard: list[tuple[str, str]] = []

    class Ear(Observer):
        def lab_started(self, lab: Lab) -> None:
            heard.append((lab.id, "started"))

        def step_done(self, walk: StepWalk) -> None:
            heard.append((walk.step.id, "done"))

    report = dev_check(labs, observer=Ear(), jobs=2)

    assert [lab.lab_id for lab in report.labs] == ["01-first", "02-second"]
    assert report.ok, [s.problems for lab in report.labs for s in lab.steps]
    # Told lab by lab, in the labs' order, whichever finished first.
    assert heard == [
        ("01-first", "started"),
        ("meet", "done"),
        ("02-second", "started"),
        ("meet", "done"),
    ]


def test_one_job_proves_the_labs_one_after_the_other(tmp_path: Path) -> None:
    """The same two labs in series: the first waits for the second in vain, so it fails."""
    meeting = tmp_path / "meeting"
    meeting.mkdir()
    labs = tmp_path / "labs"
    for lab_id, other in (("01-first", "02-second"), ("02-second", "01-first")):
        write_lab(labs, lab_id, rendezvous(lab_id, other, meeting))

    report = dev_check(labs, jobs=1)

    first, second = report.labs
    assert any("setup did not complete" in p for s in first.steps for p in s.problems)
    assert second.ok


def test_the_labs_start_longest_first_by_their_last_times_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.engine.devcheck import LabWalk, longest_first, remember_durations
    from harness.engine.manifest import load_lab

    monkeypatch.setenv("HOOKLAB_CACHE", str(tmp_path / "cache"))
    labs = [
        load_lab(write_lab(tmp_path / "labs", lab_id, trivial(lab_id, first_checks="x.txt")))
        for lab_id in ("01-a", "02-b", "03-c")
    ]
    assert [lab.id for lab in longest_first(labs)] == ["01-a", "02-b", "03-c"]  # none timed

    remember_durations([LabWalk("02-b", duration=50.0), LabWalk("01-a", duration=5.0)])

    order = [lab.id for lab in longest_first(labs)]
    # 03-c never timed: first; then 02-b before 01-a.
    assert order == ["03-c", "02-b", "01-a"]
