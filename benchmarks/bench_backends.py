"""Sensors in the Docker container against the machine's own Maven.

One workspace provisioned with the docker backend, the same warm sensor run both ways,
alternately: LocalBackend().run (./mvnw, host JVM) and DockerBackend().run (container create,
start, logs, wait, remove). Information only: the container is for machines without Java.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.report import Options, Row, Unavailable, alternate, median, run_standalone
from harness.errors import HarnessError
from harness.maven.backend import SENSOR_GOALS, MavenBackend
from harness.maven.docker_backend import DockerBackend
from harness.maven.local import LocalBackend
from harness.workspace import provision


def timed(backend: MavenBackend, root: Path) -> float:
    started = time.perf_counter()
    run = backend.run(root, SENSOR_GOALS, timeout=600)
    elapsed = time.perf_counter() - started
    if not run.ok:
        raise RuntimeError(f"{backend.name}: ./mvnw {' '.join(SENSOR_GOALS)} failed:\n{run.output}")
    return elapsed


def measure(options: Options) -> list[Row]:
    n = options.times(5)
    local, docker = LocalBackend(), DockerBackend()
    for backend in (local, docker):
        status = backend.status()
        if not status.usable:
            raise Unavailable(f"{backend.name} backend: {status.detail} (fix: {status.fix})")
    with tempfile.TemporaryDirectory(prefix="bench-backends-") as tmp:
        try:
            root = provision(Path(tmp) / "ws", backend="docker").workspace.root
        except HarnessError as err:
            raise Unavailable(str(err)) from err
        for backend in (local, docker):
            timed(backend, root)  # warm-up: compiles the classes, fills the page cache
        samples = alternate(
            {"local": lambda: timed(local, root), "docker": lambda: timed(docker, root)}, n
        )
    return [
        Row(
            "sensors in Docker vs local",
            median(samples["docker"]),
            "s",
            floor=median(samples["local"]),
            note=f"medians of {n} warm runs each; no aim (information)",
        )
    ]


if __name__ == "__main__":
    run_standalone(measure)
