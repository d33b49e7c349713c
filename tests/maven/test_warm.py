"""A workspace that starts compiled (harness/maven/warm.py), on real Maven: the first sensor run
compiles nothing, no report is left behind, and the compiler still catches what it must."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.maven import get_backend
from harness.maven.backend import SENSOR_GOALS
from harness.maven.surefire import SENSORS, sensor_reports
from harness.maven.warm import sources_key, warm_compile
from harness.workspace import Workspace

VET = Path("src/main/java/ai/unifiedprocess/petclinic/domain/Vet.java")
VET_CALLER = "VetListView.java"  # calls Vet.getSpecialties()


# A new workspace at tmp_path/NAME, as lab init leaves it (tests/conftest.py fresh_workspace).
Fresh = Callable[[str], Workspace]


@pytest.fixture
def fresh(fresh_workspace: Fresh) -> Fresh:
    return fresh_workspace


def rename_getter(ws: Workspace) -> None:
    """Change a signature that another class calls: only a recompile of the caller sees it."""
    path = ws.root / VET
    text = path.read_text()
    assert "public List<Specialty> getSpecialties()" in text, f"{VET} changed"
    path.write_text(text.replace("getSpecialties()", "specialties()", 1))


def test_sources_key_follows_the_sources_and_nothing_else(fresh: Fresh, tmp_path: Path) -> None:
    one, two = fresh("one"), fresh("two")
    assert sources_key(one.root) == sources_key(two.root)  # another path, the same sources
    (two.root / "docs" / "note.md").write_text("docs are not compiled\n")
    assert sources_key(one.root) == sources_key(two.root)
    rename_getter(two)
    assert sources_key(one.root) != sources_key(two.root)


def test_sources_key_follows_what_mvnw_leaves_in_target(fresh: Fresh, tmp_path: Path) -> None:
    # ./mvnw writes signature records beside the classes: a cached target/ from another
    # ./mvnw may lack them, or hold ones of another form.
    one, two = fresh("one"), fresh("two")
    with (two.root / ".mvn" / "java-abi.awk").open("a") as program:
        program.write("# changed\n")
    assert sources_key(one.root) != sources_key(two.root)
    three = fresh("three")
    with (three.root / "mvnw").open("a") as wrapper:
        wrapper.write("# changed\n")
    assert sources_key(one.root) != sources_key(three.root)


@pytest.mark.maven
def test_a_warm_workspace_compiles_nothing_and_holds_no_report(
    fresh: Fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    backend = get_backend("local")
    first = fresh("first")
    filled = warm_compile(first.root, backend, cache=cache)
    assert filled.how == "compiled", filled.output
    second = fresh("second")
    copied = warm_compile(second.root, backend, cache=cache)
    assert copied.how == "cache"
    for ws in (first, second):
        assert (ws.root / "target" / "classes").is_dir()
        assert not (ws.root / "target" / "surefire-reports").exists()
        assert ws.changed_files() == []  # target/ is ignored: nothing shows up as a change

    # Not -q: Maven names each plugin it runs, and the compiler plugin says what it decided.
    goals = [arg for arg in SENSOR_GOALS if arg != "-q"]
    run = backend.run(second.root, goals)
    assert run.ok, run.output
    assert "maven-compiler-plugin" not in run.output  # ./mvnw found every class up to date
    # The plugin's own checks agree (./mvnw leaving the decision to it, as a plain mvn would).
    monkeypatch.setenv("HOOKLAB_MAVEN_LEAF", "0")
    run = backend.run(second.root, goals)

    assert run.ok, run.output
    assert run.output.count("Nothing to compile - all classes are up to date") == 2, run.output
    assert "Changes detected" not in run.output
    reports = sensor_reports(second.root)
    assert set(reports) == set(SENSORS)
    assert all(r is not None and r.green for r in reports.values())


@pytest.mark.maven
def test_a_changed_signature_is_still_caught_after_a_warm_start(
    fresh: Fresh, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    backend = get_backend("local")
    warm_compile(fresh("filler").root, backend, cache=cache)
    ws = fresh("ws")
    assert warm_compile(ws.root, backend, cache=cache).how == "cache"
    rename_getter(ws)

    run = backend.run(ws.root, SENSOR_GOALS)

    # Only Vet.java is stale; its caller must be compiled again too, or the broken call would
    # hide in an old class file while the sensors run green.
    assert not run.ok, run.output
    assert "COMPILATION ERROR" in run.output
    assert VET_CALLER in run.output
    assert not (ws.root / "target" / "surefire-reports").exists()


@pytest.mark.maven
def test_a_sandbox_of_a_compiled_workspace_compiles_nothing_and_still_catches_a_change(
    fresh: Fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.engine.throwaway import sandbox_copy

    backend = get_backend("local")
    ws = fresh("ws")
    warm_compile(ws.root, backend, cache=tmp_path / "cache")
    goals = [arg for arg in SENSOR_GOALS if arg != "-q"]

    with sandbox_copy(ws.root) as box:
        # Not -q: the compiler plugin says what it decided. The input lists named the
        # workspace, which read as "sources changed" in the copy until they were relocated.
        # ./mvnw leaves the decision to the plugin here, as a plain mvn would.
        monkeypatch.setenv("HOOKLAB_MAVEN_LEAF", "0")
        untouched = backend.run(box, goals)
        monkeypatch.delenv("HOOKLAB_MAVEN_LEAF")
        assert untouched.ok, untouched.output
        assert untouched.output.count("Nothing to compile - all classes are up to date") == 2
        assert "Changes detected" not in untouched.output

        rename_getter(Workspace(box))
        changed = backend.run(box, SENSOR_GOALS)

    assert not changed.ok, changed.output
    assert VET_CALLER in changed.output  # the caller was compiled again, in the copy
    assert not (ws.root / "target" / "surefire-reports").exists()  # the workspace untouched


@pytest.mark.maven
def test_compiling_a_workspace_that_holds_reports_keeps_them(fresh: Fresh, tmp_path: Path) -> None:
    backend = get_backend("local")
    ws = fresh("ws")
    assert backend.run(ws.root, SENSOR_GOALS).ok
    reports = ws.root / "target" / "surefire-reports"
    before = {p.name: p.stat().st_mtime_ns for p in reports.iterdir()}
    rename_getter(ws)
    (ws.root / "src/main/java/ai/unifiedprocess/petclinic/ui" / VET_CALLER).write_text(
        (ws.root / "src/main/java/ai/unifiedprocess/petclinic/ui" / VET_CALLER)
        .read_text()
        .replace("getSpecialties()", "specialties()")
    )

    result = warm_compile(ws.root, backend, cache=tmp_path / "cache")

    # Compiled for real (these sources are new to the cache), and the reports from before
    # the change are there as they were: a step may show them as stale evidence.
    assert result.how == "compiled", result.output
    assert {p.name: p.stat().st_mtime_ns for p in reports.iterdir()} == before


@pytest.mark.maven
def test_a_fixture_that_does_not_compile_is_left_uncompiled_and_uncached(
    fresh: Fresh, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    ws = fresh("ws")
    (ws.root / VET).write_text("not java(\n")

    result = warm_compile(ws.root, get_backend("local"), cache=cache)

    assert result.how == "failed"
    assert "COMPILATION ERROR" in result.output
    assert not (ws.root / "target").exists()
    assert not (cache / result.key).exists()


def test_a_cached_build_lands_with_this_workspaces_paths(fresh: Fresh, tmp_path: Path) -> None:
    """The compiler plugin lists its inputs by absolute path; a copy must name its own."""
    entry = tmp_path / "cache" / "k"
    lists = entry / "maven-status" / "maven-compiler-plugin" / "compile" / "default-compile"
    lists.mkdir(parents=True)
    (entry / "classes").mkdir()
    (entry / "built-at").write_text("/elsewhere/ws\n")
    (lists / "inputFiles.lst").write_text("/elsewhere/ws/src/A.java\n/elsewhere/wsX/B.java\n")
    ws = fresh("ws")
    shutil.rmtree(ws.root / "target", ignore_errors=True)

    from harness.maven.warm import _restore

    _restore(entry, ws.root)

    copied = ws.root / "target" / lists.relative_to(entry) / "inputFiles.lst"
    # Only whole path prefixes are rewritten: /elsewhere/wsX is another directory.
    assert copied.read_text().splitlines() == [
        f"{ws.root}/src/A.java",
        "/elsewhere/wsX/B.java",
    ]


@pytest.mark.maven
def test_sensor_runs_print_nothing_and_write_nothing_outside_the_workspace(
    fresh: Fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """-q stays quiet on a compiling run and on an up-to-date one, and ./mvnw keeps nothing in
    Hook Lab's cache: its class-data archive is made by lab init, never by a run."""
    import subprocess

    cache = tmp_path / "cache"
    monkeypatch.setenv("HOOKLAB_CACHE", str(cache))

    def cached() -> list[Path]:
        return sorted(p.relative_to(cache) for p in cache.rglob("*"))

    ws = fresh("one")
    before = cached()
    for _ in range(2):  # the first run compiles, the second finds everything up to date
        done = subprocess.run(
            ["./mvnw", *SENSOR_GOALS], cwd=ws.root, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout == "" and done.stderr == ""
    assert cached() == before


@pytest.mark.maven
def test_starting_a_lab_leaves_the_fixture_compiled_and_no_report(
    fresh: Fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lab start` rewinds to the fixture and drops target/ (an earlier lab's reports must not
    pass this lab's checks); the fixture's classes come back from the cache `lab init` filled,
    so the lab's first sensor run compiles nothing."""
    from harness.engine.lab_runner import LabRunner

    monkeypatch.setenv("HOOKLAB_CACHE", str(tmp_path / "cache"))
    backend = get_backend("local")
    ws = fresh("ws")
    assert warm_compile(ws.root, backend).how == "compiled"  # as lab init leaves it
    # An earlier lab's leftovers: an edit, a class of it, a report.
    rename_getter(ws)
    leftover = ws.root / "target" / "classes" / "Leftover.class"
    leftover.write_bytes(b"\xca\xfe\xba\xbe")
    (ws.root / "target" / "surefire-reports").mkdir()
    (ws.root / "target" / "surefire-reports" / "TEST-x.xml").write_text("<testsuite/>\n")

    # Lab 04: not Lab 01, whose first step starts with no target/ on purpose (its sensors must
    # be compiled by the person's own run: walk-r's hand-written reports).
    LabRunner(ws).start("4")

    assert (ws.root / "target" / "classes").is_dir()
    assert not leftover.exists()
    assert not (ws.root / "target" / "surefire-reports").exists()
    goals = [arg for arg in SENSOR_GOALS if arg != "-q"]
    run = backend.run(ws.root, goals)
    assert run.ok, run.output
    assert "maven-compiler-plugin" not in run.output  # ./mvnw found every class up to date
    reports = sensor_reports(ws.root)
    assert set(reports) == set(SENSORS)
    assert all(r is not None and r.green for r in reports.values())


def test_a_workspace_whose_sources_are_not_cached_stays_as_it_was(
    fresh: Fresh, tmp_path: Path
) -> None:
    from harness.maven.warm import restore_cached

    ws = fresh("ws")
    shutil.rmtree(ws.root / "target", ignore_errors=True)

    assert restore_cached(ws.root, cache=tmp_path / "empty") is False
    assert not (ws.root / "target").exists()  # no Maven ran, nothing was made up


@pytest.mark.maven
def test_a_reset_step_compiles_only_what_it_changed_back(
    fresh: Fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lab reset` writes back only the files that differ from the step's start: the rest keep
    their mtimes, so ./mvnw finds their classes up to date."""
    from harness.engine.lab_runner import LabRunner

    monkeypatch.setenv("HOOKLAB_CACHE", str(tmp_path / "cache"))
    backend = get_backend("local")
    ws = fresh("ws")
    assert warm_compile(ws.root, backend).how == "compiled"
    runner = LabRunner(ws)
    runner.start("4")  # not Lab 01: its first step starts with no target/ on purpose
    (ws.root / "docs" / "notes.md").write_text("work in progress\n")

    runner.reset()

    goals = [arg for arg in SENSOR_GOALS if arg != "-q"]
    run = backend.run(ws.root, goals)
    assert run.ok, run.output
    assert "maven-compiler-plugin" not in run.output  # ./mvnw found every class up to date
    assert not (ws.root / "docs" / "notes.md").exists()


def fake_entry(cache: Path, project: Path, class_name: str) -> Path:
    """A cache entry for ``project``'s sources holding one class file (no Maven needed)."""
    entry = cache / sources_key(project)
    (entry / "classes").mkdir(parents=True)
    (entry / "classes" / class_name).write_bytes(b"\xca\xfe\xba\xbe")
    (entry / "built-at").write_text(f"{project}\n")
    return entry


def old_report(project: Path) -> Path:
    report = project / "target" / "surefire-reports" / "TEST-x.xml"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("<testsuite/>\n")
    os.utime(report, (1_000_000, 1_000_000))
    return report


def test_classes_from_the_cache_leave_a_report_beside_them_as_old_as_it_was(
    fresh: Fresh,
    tmp_path: Path,
) -> None:
    """Only what came from the cache is made new: an old report made new would pass for
    evidence of a run that never happened."""
    from harness.maven.warm import restore_cached

    ws = fresh("ws")
    leftover = ws.root / "target" / "classes" / "Leftover.class"
    leftover.parent.mkdir(parents=True, exist_ok=True)
    leftover.write_bytes(b"\xca\xfe\xba\xbe")
    report = old_report(ws.root)
    fake_entry(tmp_path / "cache", ws.root, "Cached.class")

    assert restore_cached(ws.root, cache=tmp_path / "cache") is True

    assert report.stat().st_mtime == 1_000_000
    cached = ws.root / "target" / "classes" / "Cached.class"
    assert cached.stat().st_mtime > (ws.root / "pom.xml").stat().st_mtime
    assert not leftover.exists()  # another state's class does not outlive it


def test_a_replay_start_state_is_compiled_from_the_cache_and_its_reports_stay_old(
    fresh: Fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.engine.session_replay import start_state

    monkeypatch.setenv("HOOKLAB_CACHE", str(tmp_path / "cache"))
    ws = fresh("ws")
    old_report(ws.root)
    fake_entry(tmp_path / "cache" / "compiled", ws.root, "Cached.class")

    with start_state(ws.root, ws.head() or "") as copy:
        pom = (copy / "pom.xml").stat().st_mtime
        assert (copy / "target" / "classes" / "Cached.class").stat().st_mtime > pom
        assert (copy / "target" / "surefire-reports" / "TEST-x.xml").stat().st_mtime < pom


@pytest.mark.maven
def test_completing_a_lab_re_verifies_its_steps_on_classes_from_the_cache(
    fresh: Fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last `lab next` re-runs each passed step at the state it passed at, in a sandbox
    without the workspace's reports; with the fixture's sources there, its sensor run starts
    compiled (./mvnw then tells Maven every class is up to date)."""
    from harness.engine.lab_runner import LabRunner
    from harness.results import Status
    from harness.workspace.maven_found import META_KEY, as_meta, maven_found

    real = shutil.which("mvn")
    assert real is not None
    log = tmp_path / "mvn.log"
    shim = tmp_path / "bin" / "mvn"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\necho "$PWD $*" >>"{log}"\nexec "{real}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOOKLAB_CACHE", str(tmp_path / "cache"))
    ws = fresh("ws")
    # The logging shim is the Maven this workspace runs, as `lab init` again records it (a
    # check refuses another mvn than the one recorded).
    ws.update_meta({META_KEY: as_meta(maven_found(ws.root))})
    assert warm_compile(ws.root, get_backend("local")).how == "compiled"
    runner = LabRunner(ws)
    runner.start("1")
    for _ in range(3):  # Lab 01: the sensors, answers about a report, a forged one
        runner.solve(apply=True)
        assert runner.check().status is Status.PASS
        moved = runner.next()
    assert moved.step is None, "lab 01 should be complete"

    reverified = [line for line in log.read_text().splitlines() if "hooklab-sandbox-" in line]
    assert reverified, "the sensors step was not re-run at its state"
    assert all("-Dhooklab.upToDate" in line for line in reverified), reverified
