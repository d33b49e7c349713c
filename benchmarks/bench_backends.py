"""What does the container cost? A warm sensor run in Docker against the machine's Maven.

One workspace (provisioned with the docker backend), the same command both ways, alternating
so both see the same machine load:
  local   LocalBackend().run(ws, ["-q", "test", "-Dgroups=sensor"])   (./mvnw, host JVM)
  docker  DockerBackend().run(ws, same args)   (container create/start/logs/wait/remove)
After one warm-up run each (compiles the classes, fills the page cache), prints both medians,
min/max and the ratio docker/local. Both runs must be green or the numbers are not comparable.
Usage: python benchmarks/bench_backends.py [-n 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

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
        sys.exit(f"{backend.name}: ./mvnw {' '.join(SENSOR_GOALS)} failed:\n{run.output}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="repetitions of each (default 5)")
    args = parser.parse_args()

    backends: list[MavenBackend] = [LocalBackend(), DockerBackend()]
    for backend in backends:
        status = backend.status()
        if not status.usable:
            sys.exit(f"{backend.name} backend unusable: {status.detail} (fix: {status.fix})")

    with tempfile.TemporaryDirectory(prefix="bench-backends-") as tmp:
        try:
            ws = provision(Path(tmp) / "ws", backend="docker").workspace
        except HarnessError as err:
            sys.exit(str(err))
        times: dict[str, list[float]] = {b.name: [] for b in backends}
        for backend in backends:
            warm = timed(backend, ws.root)
            print(f"warm-up {backend.name:6} {warm:6.2f} s", flush=True)
        for i in range(args.n):
            # Alternate the order too, so neither always runs right after the other.
            for backend in backends if i % 2 == 0 else reversed(backends):
                times[backend.name].append(timed(backend, ws.root))
            print(
                f"round {i + 1}/{args.n}: "
                + "  ".join(f"{name} {t[-1]:.2f} s" for name, t in times.items()),
                flush=True,
            )

    local, docker = (statistics.median(times[name]) for name in ("local", "docker"))
    print()
    print(f"sensor run ./mvnw {' '.join(SENSOR_GOALS)}, {args.n} warm runs each")
    print(f"{'backend':8} {'median':>8} {'min':>8} {'max':>8}")
    for name, values in times.items():
        print(f"{name:8} {statistics.median(values):7.2f}s {min(values):7.2f}s {max(values):7.2f}s")
    print(f"ratio docker/local: {docker / local:.2f}x  (+{docker - local:.2f} s per run)")


if __name__ == "__main__":
    main()
