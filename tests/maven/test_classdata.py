"""Maven's class-data archive (harness/maven/classdata.py and ./mvnw), on real Maven and the real
JVM: made once outside the workspace, mapped by every run, and never in the way of a sensor's
verdict (a class changed since it was made runs from its new bytes)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.maven import get_backend
from harness.maven.backend import SENSOR_GOALS
from harness.maven.classdata import archive_path, ensure_class_data
from harness.workspace import Workspace

SENSOR_TEST = Path("src/test/java/ai/unifiedprocess/petclinic/UseCaseTraceabilityTest.java")
REPORT = Path(
    "target/surefire-reports/TEST-ai.unifiedprocess.petclinic.UseCaseTraceabilityTest.xml"
)
# How -Xlog:class+load names a class the JVM mapped from a dynamic (top-layer) archive.
FROM_ARCHIVE = "source: shared objects file (top)"

pytestmark = pytest.mark.maven


@pytest.fixture
def compiled(tmp_path: Path, _compiled_template: Path) -> Callable[[str], Workspace]:
    """``compiled(name)``: a copy of the workspace compiled once per worker, as ``lab init``
    leaves one (its compile is no part of what is tested here; the archive each test makes in
    its own cache is)."""

    def copy(name: str) -> Workspace:
        shutil.copytree(_compiled_template, tmp_path / name, symlinks=True)
        return Workspace(tmp_path / name)

    return copy


def sensor_run(
    ws: Workspace, tmp_path: Path, **env: str
) -> tuple[subprocess.CompletedProcess[str], str]:
    """./mvnw's sensor run, with the JVM's class-load log: (the run, the log)."""
    import os

    log = tmp_path / "classes.log"
    log.unlink(missing_ok=True)
    done = subprocess.run(
        ["./mvnw", *SENSOR_GOALS],
        cwd=ws.root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "MAVEN_OPTS": f"-Xlog:class+load:file={log}", **env},
    )
    return done, log.read_text() if log.exists() else ""


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file of the workspace (its git dir too) with its size and mtime."""
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HOOKLAB_CACHE", str(cache))
    yield cache


def test_the_archive_is_made_once_outside_the_workspace_which_keeps_no_report(
    compiled: Callable[[str], Workspace], tmp_path: Path, own_cache: Path
) -> None:
    ws = compiled("one")
    before = snapshot(ws.root)
    made = ensure_class_data(ws.root, get_backend("local"))
    assert made.how == "made", made.output
    assert made.archive is not None and made.archive.parent == own_cache / "classdata"
    assert made.archive == archive_path(ws.root)
    # The training run ran in a scratch copy: no report and no change in the workspace.
    assert not (ws.root / "target" / "surefire-reports").exists()
    assert snapshot(ws.root) == before
    made_at = made.archive.stat().st_mtime_ns
    again = ensure_class_data(compiled("two").root, get_backend("local"))
    assert again.how == "present" and again.archive == made.archive
    assert made.archive.stat().st_mtime_ns == made_at
    assert sorted(p.name for p in (own_cache / "classdata").iterdir()) == [made.archive.name]


def test_a_sensor_run_maps_the_archive_stays_quiet_and_can_be_turned_off(
    compiled: Callable[[str], Workspace], tmp_path: Path, own_cache: Path
) -> None:
    ws = compiled("ws")
    done, log = sensor_run(ws, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert FROM_ARCHIVE not in log  # no archive yet: nothing mapped from one
    assert ensure_class_data(ws.root, get_backend("local")).how == "made"
    done, log = sensor_run(ws, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "" and done.stderr == ""
    # Maven's own classes, Surefire's and the JUnit platform's come from the archive.
    mapped = [line for line in log.splitlines() if FROM_ARCHIVE in line]
    for name in (
        "org.apache.maven.cli.MavenCli",
        "org.apache.maven.plugin.surefire",
        "org.junit.platform.launcher",
    ):
        assert any(name in line for line in mapped), name
    off, log = sensor_run(ws, tmp_path, HOOKLAB_MAVEN_CDS="0")
    assert off.returncode == 0 and FROM_ARCHIVE not in log


def test_a_class_changed_after_the_archive_runs_from_its_new_bytes(
    compiled: Callable[[str], Workspace], tmp_path: Path, own_cache: Path
) -> None:
    ws = compiled("ws")
    assert ensure_class_data(ws.root, get_backend("local")).how == "made"
    path = ws.root / SENSOR_TEST
    text = path.read_text()
    end = text.rstrip().rfind("}")
    path.write_text(
        text[:end]
        + "    @Test\n    void addedAfterTheArchive() {\n"
        + '        org.junit.jupiter.api.Assertions.fail("run from the new bytes");\n    }\n}\n'
    )
    done, log = sensor_run(ws, tmp_path)
    assert done.returncode != 0, "the new failing sensor test did not run"
    report = (ws.root / REPORT).read_text()
    assert "addedAfterTheArchive" in report and "run from the new bytes" in report
    assert FROM_ARCHIVE in log  # the archive was in use all the same


def test_an_unusable_archive_is_ignored_silently(
    compiled: Callable[[str], Workspace], tmp_path: Path, own_cache: Path
) -> None:
    ws = compiled("ws")
    archive = archive_path(ws.root)
    assert archive is not None
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"not an archive\n" * 1000)
    done, log = sensor_run(ws, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert FROM_ARCHIVE not in log
    assert (ws.root / REPORT).is_file()


def test_the_docker_backend_makes_no_archive(
    compiled: Callable[[str], Workspace], tmp_path: Path, own_cache: Path
) -> None:
    """The container's Maven runs on the image's Java, which never sees this cache."""
    ws = compiled("ws")

    class Docker:
        name = "docker"

    result = ensure_class_data(ws.root, Docker())  # type: ignore[arg-type]
    assert result.how == "off" and not (own_cache / "classdata").exists()
