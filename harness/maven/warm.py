"""A workspace that starts compiled: the fixture's classes from a cache keyed by its sources.

Without it the participant's first sensor run compiles all 54 sources and costs almost twice a
warm one. The cache holds what maven-compiler-plugin leaves in ``target/`` (``classes``,
``test-classes`` and its ``maven-status`` lists) for one exact set of sources and pom, so a
copy makes the plugin's own staleness checks answer "Nothing to compile". No test runs while
filling it (``test-compile`` stops before Surefire), so no report is ever left behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from harness.maven.backend import MavenBackend, OutputSink
from harness.maven.classdata import ClassDataResult, ensure_class_data
from harness.paths import cache_home

# What maven-compiler-plugin writes and reads back to decide what is stale.
COMPILED_DIRS = ("classes", "test-classes", "maven-status")
# Everything that changes what a compile leaves in target/: the sources, the build's
# configuration, and ./mvnw with its signature records (.mvn/java-abi.awk).
KEY_INPUTS = ("src", "pom.xml", ".mvn/jvm.config", "mvnw", ".mvn/java-abi.awk")
ROOT_FILE = "built-at"  # the absolute project path the cached build ran in
COMPILE_GOALS = ("-q", "test-compile")


@dataclass(frozen=True)
class WarmResult:
    how: str  # "cache" (copied), "compiled" (Maven ran, cache filled) or "failed"
    key: str
    seconds: float
    output: str = ""

    @property
    def ok(self) -> bool:
        return self.how != "failed"


def sources_key(project: Path) -> str:
    """A hash of every file that decides the compiled output (paths and contents)."""
    digest = hashlib.sha256()
    for name in KEY_INPUTS:
        top = project / name
        files = sorted(p for p in top.rglob("*") if p.is_file()) if top.is_dir() else [top]
        for path in files:
            if not path.is_file():
                continue
            digest.update(path.relative_to(project).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:24]


def warm_compile(
    project: Path,
    backend: MavenBackend,
    *,
    cache: Path | None = None,
    on_output: OutputSink | None = None,
    timeout: float = 600,
) -> WarmResult:
    """Leave ``project`` compiled: from the cache when it holds these sources, else by
    running ``./mvnw -q test-compile`` once and keeping the result for the next workspace."""
    started = time.monotonic()
    key = sources_key(project)
    entry = _entry(key, cache)
    target = project / "target"
    if (entry / ROOT_FILE).is_file():
        _restore(entry, project)
        return WarmResult("cache", key, time.monotonic() - started)
    had_reports = (target / "surefire-reports").exists()
    run = backend.run(project, COMPILE_GOALS, on_output=on_output, timeout=timeout)
    if not run.ok:
        # A half-built target/ would only make the first real run slower or confusing.
        shutil.rmtree(target, ignore_errors=True)
        return WarmResult("failed", key, time.monotonic() - started, run.output)
    if not had_reports and (target / "surefire-reports").exists():  # never: no test ran
        shutil.rmtree(target / "surefire-reports")
    _store(project, entry)
    return WarmResult("compiled", key, time.monotonic() - started)


def warm_workspace(
    project: Path, backend: MavenBackend
) -> tuple[WarmResult, ClassDataResult | None]:
    """A new workspace as `lab init` leaves it: compiled (warm_compile), and Maven's
    class-data archive made when this Java has none yet (None: the compile failed)."""
    warm = warm_compile(project, backend)
    return warm, ensure_class_data(project, backend) if warm.ok else None


def restore_cached(project: Path, *, cache: Path | None = None) -> bool:
    """Leave ``project`` compiled from the cache when it holds these very sources, its
    reports untouched; never runs Maven (False: not cached, ``target/`` as it was)."""
    entry = _entry(sources_key(project), cache)
    if not (entry / ROOT_FILE).is_file():
        return False
    _restore(entry, project)
    return True


def clean_target(project: Path) -> bool:
    """``project/target`` without anything a run left there (reports, classes of another
    state), and the fixture's classes back from the cache when it holds these sources (True):
    a workspace's first sensor run then compiles nothing."""
    shutil.rmtree(project / "target", ignore_errors=True)
    return restore_cached(project)


def _entry(key: str, cache: Path | None) -> Path:
    return (cache or cache_home() / "compiled") / key


def _store(project: Path, entry: Path) -> None:
    """Copy the compiled output into the cache; a rename makes it appear whole or not at all."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{entry.name}-", dir=entry.parent))
    try:
        for name in COMPILED_DIRS:
            source = project / "target" / name
            if source.is_dir():
                shutil.copytree(source, staging / name, symlinks=True)
        (staging / ROOT_FILE).write_text(str(project.resolve()) + "\n")
        # Another process may have filled the same entry first: theirs is as good.
        with contextlib.suppress(OSError):
            staging.rename(entry)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _restore(entry: Path, project: Path) -> None:
    """Copy the cached output into ``project/target``, as if it had been compiled there."""
    built_at = (entry / ROOT_FILE).read_text().strip()
    here = str(project.resolve())
    target = project / "target"
    now = time.time()
    for name in COMPILED_DIRS:
        # Replaced whole: in a merge, classes of another state would outlive their sources.
        shutil.rmtree(target / name, ignore_errors=True)
        source = entry / name
        if source.is_dir():
            shutil.copytree(source, target / name, symlinks=True)
    if built_at != here:
        relocate_compiler_inputs(project, built_at, here)
    for name in COMPILED_DIRS:
        for path in (target / name).rglob("*"):
            if path.is_file():
                # Newer than every source: the copy's sources carry the fixture's older
                # mtimes, and the plugin's stale check compares the two. Only what came from
                # the cache: a report beside it keeps its age (a fresh-looking old report
                # would pass for evidence).
                os.utime(path, (now, now))


def relocate_compiler_inputs(project: Path, built_at: str, here: str) -> None:
    """Point maven-compiler-plugin's input lists at ``here``, a copy of the project built at
    ``built_at``. The plugin lists its inputs by absolute path, so a list naming another
    directory reads as "the set of sources changed" and recompiles the whole module. Each
    list keeps its mtime: the copy must look to the plugin as the original did."""
    status = project / "target" / "maven-status"
    if not status.is_dir():
        return
    prefix = built_at.rstrip("/") + "/"
    for path in status.rglob("inputFiles.lst"):
        if not path.is_file() or path.is_symlink():
            continue
        info = path.stat()
        lines = path.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
        path.write_text(
            "".join(
                (here + "/" + line[len(prefix) :] if line.startswith(prefix) else line) + "\n"
                for line in lines
            ),
            encoding="utf-8",
            errors="surrogateescape",
        )
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
