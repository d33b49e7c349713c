"""One benchmark report: every ``benchmarks/bench_*.py`` module measured in one run, one table,
``build/bench.json``. The interface a benchmark module implements is in benchmarks/README.md.

Usage: python -m benchmarks [--quick] [--only NAME ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import pkgutil
import platform
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = REPO_ROOT / "build" / "bench.json"


@dataclass(frozen=True)
class Row:
    """One figure. ``value`` is measured against ``floor`` (same unit: the hook run by hand,
    Maven's own time, the linear extrapolation of a smaller size); ``aim`` is the highest
    acceptable ``value / floor``. Without a floor or an aim the row is for information only."""

    name: str
    value: float
    unit: str
    floor: float | None = None
    aim: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.floor is None or self.floor <= 0:
            return None
        return self.value / self.floor

    @property
    def met(self) -> bool | None:
        ratio = self.ratio
        return None if ratio is None or self.aim is None else ratio <= self.aim

    def to_json(self) -> dict[str, Any]:
        ratio = self.ratio
        return {
            "name": self.name,
            "value": round(self.value, 4),
            "unit": self.unit,
            "ratio": None if ratio is None else round(ratio, 3),
            "floor": None if self.floor is None else round(self.floor, 4),
            "aim": self.aim,
            "met": self.met,
            "note": self.note,
        }


@dataclass(frozen=True)
class Options:
    """What every benchmark gets. ``scale`` shrinks repetition counts (``--quick``)."""

    scale: float = 1.0

    def times(self, default: int, least: int = 3) -> int:
        return max(least, round(default * self.scale))


class Unavailable(Exception):
    """Raised by a benchmark that cannot run here (no Docker, no Claude Code); says why."""


Measure = Callable[[Options], Sequence[Row]]


def median(samples: Iterable[float]) -> float:
    return statistics.median(list(samples))


def alternate(runs: dict[str, Callable[[], float]], repetitions: int) -> dict[str, list[float]]:
    """Time each callable ``repetitions`` times, interleaved and in alternating order, so every
    one of them sees the same machine load. Each callable returns its own duration in seconds."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    order = list(runs)
    for i in range(repetitions):
        for name in order if i % 2 == 0 else reversed(order):
            samples[name].append(runs[name]())
    return samples


def timed_command(
    argv: Sequence[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run a command to its end, its output captured as text, with ``env`` over this process's
    environment: its wall time in seconds, and what it did (the caller judges the exit status,
    so each benchmark can say what failed in its own words)."""
    started = time.perf_counter()
    done = subprocess.run(
        list(argv),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    return time.perf_counter() - started, done


# ---- the runner ----------------------------------------------------------------------------


@dataclass
class Outcome:
    benchmark: str
    title: str
    rows: Sequence[Row] = ()
    skipped: str = ""  # why the benchmark cannot run here (Unavailable)
    failed: str = ""  # the error of a benchmark that broke
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "title": self.title,
            "seconds": round(self.seconds, 1),
            "skipped": self.skipped or None,
            "failed": self.failed or None,
            "rows": [r.to_json() for r in self.rows],
        }


def benchmark_modules(only: Sequence[str] = ()) -> list[ModuleType]:
    import benchmarks

    names = sorted(
        info.name
        for info in pkgutil.iter_modules(benchmarks.__path__)
        if info.name.startswith("bench_")
    )
    if only:
        names = [n for n in names if any(o in n for o in only)]
    return [importlib.import_module(f"benchmarks.{name}") for name in names]


def run_module(module: ModuleType, options: Options) -> Outcome:
    name = module.__name__.rsplit(".", 1)[-1]
    title = (module.__doc__ or name).strip().splitlines()[0]
    measure: Measure = module.measure
    started = time.monotonic()
    try:
        rows = list(measure(options))
    except Unavailable as exc:
        return Outcome(name, title, skipped=str(exc), seconds=time.monotonic() - started)
    except Exception as exc:  # a broken benchmark must not hide the others' figures
        traceback.print_exc()
        problem = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        return Outcome(name, title, failed=problem, seconds=time.monotonic() - started)
    return Outcome(name, title, rows, seconds=time.monotonic() - started)


def _figure(value: float | None, unit: str = "") -> str:
    if value is None or math.isnan(value):
        return "—"
    text = f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return f"{text} {unit}".strip()


def table(outcomes: Sequence[Outcome]) -> str:
    header = ("benchmark", "value", "floor", "ratio", "aim", "met")
    lines: list[tuple[str, ...]] = []
    for outcome in outcomes:
        if outcome.skipped:
            lines.append((outcome.title, f"skipped: {outcome.skipped}", "", "", "", ""))
            continue
        if outcome.failed:
            lines.append((outcome.title, f"FAILED: {outcome.failed}", "", "", "", ""))
            continue
        for row in outcome.rows:
            met = {True: "yes", False: "NO", None: "—"}[row.met]
            lines.append(
                (
                    row.name,
                    _figure(row.value, row.unit),
                    _figure(row.floor, row.unit),
                    _figure(row.ratio, "×") if row.ratio is not None else "—",
                    f"≤ {row.aim:g}×" if row.aim is not None else "—",
                    met,
                )
            )
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
    out = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip()
        for r in [header, tuple("-" * w for w in widths), *lines]
    ]
    return "\n".join(out)


def machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def write_json(path: Path, outcomes: Sequence[Outcome], started: float, options: Options) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "scale": options.scale,
        "machine": machine(),
        "rows": [row.to_json() for o in outcomes for row in o.rows],
        "benchmarks": [o.to_json() for o in outcomes],
    }
    path.write_text(json.dumps(data, indent=2) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a fifth of the repetitions")
    parser.add_argument("--only", nargs="*", default=[], help="benchmark modules to run")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write JSON")
    args = parser.parse_args(argv)
    options = Options(scale=0.2 if args.quick else 1.0)
    started = time.time()
    outcomes: list[Outcome] = []
    modules = benchmark_modules(args.only)
    if not modules:
        print(f"no benchmark matches {' '.join(args.only)}", file=sys.stderr)
        return 2
    for module in modules:
        print(f"… {module.__name__}", file=sys.stderr, flush=True)
        outcomes.append(run_module(module, options))
        write_json(args.json, outcomes, started, options)  # a crash later keeps what was measured
    print(table(outcomes))
    print(
        f"\n{os.cpu_count()} CPUs, load average at the end {os.getloadavg()[0]:.2f}; "
        f"written to {args.json}"
    )
    return 1 if any(o.failed for o in outcomes) else 0


def run_standalone(measure: Measure) -> None:
    """``python -m benchmarks.bench_x``: one module's rows as a table."""
    options = Options(scale=0.2 if "--quick" in sys.argv[1:] else 1.0)
    try:
        rows = list(measure(options))
    except Unavailable as exc:
        print(f"skipped: {exc}")
        return
    print(table([Outcome("standalone", "standalone", rows)]))
