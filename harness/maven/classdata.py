"""The class-data archive ./mvnw hands the JVM: Maven, its plugins, JUnit and javac, ready to map.

./mvnw reads one archive per Java install and jvm.config from Hook Lab's cache and never
writes it (the reasons are in the fixture's ./mvnw). This module makes it, once: a compiling
sensor run in a scratch copy of a compiled workspace (so javac, both compiler mojos, Surefire
and the JUnit platform are all loaded), with ``HOOKLAB_MAVEN_CDS=make``. The workspace itself
gets no report and no changed file. Only the local backend has one: the container's Maven
runs on the image's Java, which does not see this cache.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from harness import proc
from harness.maven.backend import MavenBackend
from harness.paths import scratch_mkdtemp

TRAINING_GOALS = ("-q", "test", "-Dgroups=sensor")
# The run's sources that are made stale, one main and one test class: each compiler mojo
# then runs javac on one file, and the archive holds the compiler too.
STALE_SOURCES = ("src/main/java", "src/test/java")


@dataclass(frozen=True)
class ClassDataResult:
    how: str  # "present", "made", "failed" or "off" (docker backend, HOOKLAB_MAVEN_CDS=0)
    archive: Path | None
    output: str = ""


def archive_path(project: Path) -> Path | None:
    """Where ./mvnw of ``project`` looks for its archive (None: it uses none)."""
    if os.environ.get("HOOKLAB_MAVEN_CDS") == "0" or not (project / "mvnw").is_file():
        return None
    where = proc.run(
        [project / "mvnw"],
        cwd=project,
        env={**os.environ, "HOOKLAB_MAVEN_CDS": "where", "HOOKLAB_BACKEND": "local"},
        timeout=60,
    )
    line = where.stdout.strip()
    return Path(line) if where.ok and line.endswith(".jsa") else None


def ensure_class_data(
    project: Path, backend: MavenBackend, *, timeout: float = 600
) -> ClassDataResult:
    """The archive for ``project``'s ./mvnw, made now when the cache lacks it. ``project`` must
    be compiled (warm_compile): the scratch copy then compiles only its two stale files."""
    archive = archive_path(project) if backend.name == "local" else None
    if archive is None:
        return ClassDataResult("off", None)
    if archive.is_file():
        return ClassDataResult("present", archive)
    scratch = scratch_mkdtemp("hooklab-classdata-")
    try:
        copy = scratch / "ws"
        shutil.copytree(project, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        later = time.time() + 2
        for top in STALE_SOURCES:
            source = next(iter(sorted((copy / top).rglob("*.java"))), None)
            if source is not None:
                os.utime(source, (later, later))
        run = proc.run(
            [copy / "mvnw", *TRAINING_GOALS],
            cwd=copy,
            env={**os.environ, "HOOKLAB_MAVEN_CDS": "make", "HOOKLAB_BACKEND": "local"},
            timeout=timeout,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if run.ok and archive.is_file():
        return ClassDataResult("made", archive)
    return ClassDataResult("failed", None, run.stdout + run.stderr)
