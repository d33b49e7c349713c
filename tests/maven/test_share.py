"""The dev check's shared Maven run (harness/maven/share.py), on real Maven: two copies of one
workspace, one ``./mvnw`` call per engine through the shim, as two engines' sessions make it."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from harness.maven.share import MavenShare, maven_share
from harness.maven.surefire import SENSORS
from harness.workspace import Workspace

pytestmark = pytest.mark.maven

SENSOR_RUN = ["./mvnw", "-q", "test", "-Dgroups=sensor"]
REPORTS = Path("target/surefire-reports")


def copies(ws: Workspace, tmp_path: Path) -> tuple[Path, Path]:
    """Two sandboxes of ``ws`` as hook_session makes them (mtimes kept)."""
    first, second = tmp_path / "a" / "ws", tmp_path / "b" / "ws"
    for target in (first, second):
        shutil.copytree(ws.root, target, symlinks=True)
    return first, second


def mvnw(share: MavenShare, engine: str, root: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **share.environment(engine, {}))
    return subprocess.run(SENSOR_RUN, cwd=root, env=env, capture_output=True, text=True)


def tree(root: Path, under: Path = Path("target")) -> dict[str, bytes]:
    """Every file under ``root/under``, its project path written as ROOT."""
    mark = str(root).encode()
    return {
        p.relative_to(root).as_posix(): p.read_bytes().replace(mark, b"ROOT")
        for p in (root / under).rglob("*")
        if p.is_file()
    }


def assert_own_paths(restored: Path, producer: Path) -> None:
    """The producer's project path never leaks into the restored copy."""
    for kept in (restored / "target").rglob("*"):
        if kept.is_file():
            assert str(producer).encode() not in kept.read_bytes(), kept


def test_the_other_engines_identical_call_is_restored_as_fresh_files(
    workspace: Workspace, tmp_path: Path
) -> None:
    first, second = copies(workspace, tmp_path)
    with maven_share() as share:
        real = mvnw(share, "emulator", first)
        before_restore = time.time_ns()
        restored = mvnw(share, "claude-code", second)
        calls = share.calls()

    assert [(c.engine, c.how) for c in calls] == [("emulator", "real"), ("claude-code", "restored")]
    assert restored.returncode == real.returncode == 0
    assert restored.stdout == real.stdout and restored.stderr == real.stderr
    assert tree(second) == tree(first)  # reports, classes, Maven's lists; paths of its own
    for name in SENSORS:
        report = second / REPORTS / f"TEST-ai.unifiedprocess.petclinic.{name}.xml"
        assert report.stat().st_mtime_ns >= before_restore  # fresh, as a run ending now
    assert_own_paths(second, first)


def test_a_failing_run_is_restored_with_its_status_and_its_output(
    workspace: Workspace, tmp_path: Path
) -> None:
    test = workspace.root / "src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java"
    test.write_text(test.read_text().replace("A1: Missing Description", "A1: Missing Text"))
    first, second = copies(workspace, tmp_path)
    with maven_share() as share:
        real = mvnw(share, "emulator", first)
        restored = mvnw(share, "claude-code", second)
        hows = [c.how for c in share.calls()]

    assert hows == ["real", "restored"]
    assert real.returncode != 0 and restored.returncode == real.returncode
    assert "A1: Missing Text" in real.stdout + real.stderr
    assert tree(second) == tree(first)  # the broken test's class as Maven compiled it
    assert_own_paths(second, first)
    assert (restored.stdout + restored.stderr).replace(str(second), "ROOT") == (
        real.stdout + real.stderr
    ).replace(str(first), "ROOT")


def test_a_changed_file_gets_a_real_run_even_with_the_same_content(
    workspace: Workspace, tmp_path: Path
) -> None:
    """An edit on one copy only moves that file past every other's mtime: the order of the
    inputs' times differs (Maven would find the doc newer than its last run), so each runs."""
    first, second = copies(workspace, tmp_path)
    doc = second / "docs/use_cases/UC-002-edit-owner.md"
    doc.write_bytes(doc.read_bytes())  # what an edit to the same text leaves: a new mtime
    with maven_share() as share:
        mvnw(share, "emulator", first)
        assert mvnw(share, "claude-code", second).returncode == 0
        hows = [(c.engine, c.how) for c in share.calls()]

    assert hows == [("emulator", "real"), ("claude-code", "real")]


def test_the_same_edit_at_two_moments_shares_and_another_order_does_not(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Maven compares file times with each other, never by their distance: the same two
    edits made later on one copy leave the same order, and the run is shared; the same edits
    in the other order leave another one, and it is not."""
    first, second = copies(workspace, tmp_path)
    third = tmp_path / "c" / "ws"
    shutil.copytree(workspace.root, third, symlinks=True)
    doc = Path("docs/use_cases/UC-002-edit-owner.md")
    test = Path("src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java")

    def edit(root: Path, *paths: Path) -> None:
        for path in paths:
            time.sleep(0.02)  # past a kernel tick: the second edit is strictly newer
            (root / path).write_bytes((root / path).read_bytes() + b"\n")

    edit(first, doc, test)
    with maven_share() as share:
        real = mvnw(share, "emulator", first)
        time.sleep(0.05)
        edit(second, doc, test)
        edit(third, test, doc)
        restored = mvnw(share, "claude-code", second)
        other_order = mvnw(share, "claude-code", third)
        hows = [(c.engine, c.how) for c in share.calls()]

    assert real.returncode == restored.returncode == other_order.returncode == 0
    assert hows == [("emulator", "real"), ("claude-code", "restored"), ("claude-code", "real")]
    assert tree(second) == tree(first)


def test_an_engine_never_takes_its_own_earlier_run(workspace: Workspace, tmp_path: Path) -> None:
    first, second = copies(workspace, tmp_path)
    with maven_share() as share:
        mvnw(share, "emulator", first)
        mvnw(share, "emulator", second)
        hows = [c.how for c in share.calls()]

    assert hows == ["real", "real"]


def test_calls_at_once_run_maven_once_the_other_waits(workspace: Workspace, tmp_path: Path) -> None:
    """As in the dev check: both engines' sessions call Maven at the same moment."""
    first, second = copies(workspace, tmp_path)
    results: dict[str, subprocess.CompletedProcess[str]] = {}
    with maven_share() as share:
        threads = [
            threading.Thread(
                target=lambda e=engine, r=root: results.__setitem__(e, mvnw(share, e, r))
            )
            for engine, root in (("emulator", first), ("claude-code", second))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        hows = sorted(c.how for c in share.calls())

    assert hows == ["real", "restored"]
    assert results["emulator"].returncode == results["claude-code"].returncode == 0
    assert tree(first) == tree(second)
