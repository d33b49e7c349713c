"""What a participant waits for: the sensor run, fresh, warm, after a change, and what pays.

Workspaces as `lab init` leaves them (compiled from the cache, no report, Maven's class-data
archive made for their Java and jvm.config), the commands
alternating so all see the same machine load:
  warm       ./mvnw -q test -Dgroups=sensor, nothing changed since the last run
  first      the same, as the first run in a workspace just provisioned
  started    the same, as the first run after `lab start 1` (which drops target/)
  changed    the same, after a one-line edit inside a method body of a main class that other
             sources name (Vet.java: its signatures stay, so ./mvnw compiles it alone)
  reshaped   the same, after a new method in that class (its signatures change: ./mvnw leaves
             the plugin's incremental mode on, and the module recompiles)
  leaf       the same, after a one-line change to a test class no other source names
             (UC005AddVisitTest.java, the labs' kind of edit: ./mvnw compiles it alone)
  validate   ./mvnw -q validate (Maven's start: the floor of any run)
  no-jvm     warm, without .mvn/jvm.config
  no-cds     warm, without Maven's class-data archive (HOOKLAB_MAVEN_CDS=0)
  tier-only  warm, jvm.config holding only -XX:TieredStopAtLevel=1
  stale      reshaped, in maven-compiler-plugin's stale-file mode forced
             (useIncrementalCompilation=false), which ./mvnw chooses only where no caller can see
             the change
Every timed sensor run must be green with a report per sensor, or the numbers measure
something else. Forced stale-file mode is then tried on a changed signature, and so is ./mvnw
as it is: the first lets it pass, the second must not (see the rows' notes).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from benchmarks.report import Options, Row, alternate, median, run_standalone, timed_command
from harness.engine.lab_runner import LabRunner
from harness.maven import get_backend
from harness.maven.backend import SENSOR_GOALS
from harness.maven.surefire import sensor_reports
from harness.maven.warm import warm_workspace
from harness.workspace import Workspace, provision

SENSORS = ["./mvnw", *SENSOR_GOALS]
VALIDATE = ["./mvnw", "-q", "validate"]
STALE_MODE = "-Dmaven.compiler.useIncrementalCompilation=false"
CHANGED = Path("src/main/java/ai/unifiedprocess/petclinic/domain/Vet.java")
LEAF = Path("src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java")
TIER_ONLY = "-XX:TieredStopAtLevel=1"  # jvm.config before the GC options


def timed(argv: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> float:
    """``argv``'s wall time; it must succeed, and a sensor run must leave green reports."""
    elapsed, done = timed_command(argv, cwd=cwd, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    if "test" in argv:
        missing = [n for n, r in sensor_reports(cwd).items() if r is None or not r.green]
        if missing:
            raise RuntimeError(f"the sensor run left no green report for: {', '.join(missing)}")
    return elapsed


def peak_memory(argv: list[str], cwd: Path) -> float:
    """``argv``'s peak resident memory in MB. On a warm run ./mvnw and mvn exec Maven's JVM,
    so the process waited for is the JVM itself."""
    child = subprocess.Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {child.returncode}")
    return usage.ru_maxrss / 1024  # kilobytes on Linux


class Workspaces:
    """Fresh, compiled workspaces in one folder, as `lab init` makes them."""

    def __init__(self, holder: Path) -> None:
        self.holder = holder
        self.count = 0

    def fresh(self, *, without_jvm_config: bool = False, jvm_config: str | None = None) -> Path:
        self.count += 1
        root = provision(self.holder / f"ws{self.count}").workspace.root
        if without_jvm_config:
            (root / ".mvn" / "jvm.config").unlink()
        if jvm_config is not None:
            (root / ".mvn" / "jvm.config").write_text(jvm_config + "\n")
        warm, class_data = warm_workspace(root, get_backend("local"))
        if class_data is None:
            raise RuntimeError(f"the fixture did not compile:\n{warm.output}")
        if class_data.how == "failed":
            raise RuntimeError(f"no class-data archive was made:\n{class_data.output}")
        return root

    def first_run(self, *, lab_started: bool = False) -> float:
        root = self.fresh()
        try:
            if lab_started:
                LabRunner(Workspace(root)).start("1")
            return timed(SENSORS, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)


BODY = "public List<Specialty> getSpecialties() {"  # in CHANGED


def change_one_line(root: Path, run: int, file: Path = CHANGED) -> None:
    with (root / file).open("a") as out:
        out.write(f"// changed for run {run}\n")


def change_a_body(root: Path, run: int) -> None:
    """One statement in a method body of CHANGED, another each run."""
    path = root / CHANGED
    text = re.sub(r"\n        int run = \d+;", "", path.read_text())
    assert BODY in text, f"{CHANGED} no longer has {BODY!r}"
    path.write_text(text.replace(BODY, f"{BODY}\n        int run = {run};", 1))


def add_a_method(root: Path, run: int) -> None:
    """A new public method in CHANGED, another each run: what its callers see changes."""
    with (root / CHANGED).open("r+") as source:
        text = source.read().rstrip().removesuffix("}")
        source.seek(0)
        source.write(f"{text}    public int probe{run}() {{ return {run}; }}\n}}\n")
        source.truncate()


def catches_a_changed_signature(workspaces: Workspaces, extra: list[str]) -> bool:
    """Does a renamed method that another class calls break the run (``extra``: more
    arguments for ./mvnw)?"""
    root = workspaces.fresh()
    timed(SENSORS, root)
    path = root / CHANGED
    path.write_text(path.read_text().replace("getSpecialties()", "specialties()", 1))
    done = subprocess.run([*SENSORS, *extra], cwd=root, capture_output=True, text=True, check=False)
    return done.returncode != 0


def measure(options: Options) -> list[Row]:
    n = options.times(5)
    with tempfile.TemporaryDirectory(prefix="bench-sensors-") as holder:
        workspaces = Workspaces(Path(holder))
        main = workspaces.fresh()
        no_jvm = workspaces.fresh(without_jvm_config=True)
        tier_only = workspaces.fresh(jvm_config=TIER_ONLY)
        stale = workspaces.fresh()
        # A first run each: the page cache holds Maven, and every workspace is up to date.
        for root in (main, no_jvm, tier_only, stale):
            timed(SENSORS, root)
        edits = itertools.count(1)  # one numbering for both workspaces: every edit differs

        def after(
            change: Callable[[Path, int], None], root: Path, argv: list[str]
        ) -> Callable[[], float]:
            def run() -> float:
                change(root, next(edits))
                return timed(argv, root)

            return run

        def leaf_line(root: Path, run: int) -> None:
            change_one_line(root, run, LEAF)

        samples = alternate(
            {
                "warm": lambda: timed(SENSORS, main),
                "first": workspaces.first_run,
                "started": lambda: workspaces.first_run(lab_started=True),
                "changed": after(change_a_body, main, SENSORS),
                "reshaped": after(add_a_method, main, SENSORS),
                "leaf": after(leaf_line, main, SENSORS),
                "validate": lambda: timed(VALIDATE, main),
                "no-jvm": lambda: timed(SENSORS, no_jvm),
                "no-cds": lambda: timed(SENSORS, main, {"HOOKLAB_MAVEN_CDS": "0"}),
                "tier-only": lambda: timed(SENSORS, tier_only),
                "stale": after(add_a_method, stale, [*SENSORS, STALE_MODE]),
            },
            n,
        )
        memory = alternate(
            {
                "full": lambda: peak_memory(SENSORS, main),
                "tier-only": lambda: peak_memory(SENSORS, tier_only),
            },
            n,
        )
        forced_caught = catches_a_changed_signature(workspaces, [STALE_MODE])
        caught = catches_a_changed_signature(workspaces, [])
    if not caught:
        raise RuntimeError("./mvnw let a renamed method its caller still uses pass (exit 0)")
    m = {name: median(values) for name, values in samples.items()}

    def versus(name: str, value: str, floor: str, why: str, aim: float | None = None) -> Row:
        """``samples[value]`` measured against ``samples[floor]``, both as medians."""
        return Row(
            name, m[value], "s", floor=m[floor], aim=aim, note=f"medians of {n} runs each; {why}"
        )

    return [
        versus(
            "first sensor run in a fresh workspace vs a warm run (nothing changed)",
            "first",
            "warm",
            "lab init leaves the fixture compiled from the cache",
            aim=1.2,
        ),
        versus(
            "first sensor run after lab start vs a warm run (nothing changed)",
            "started",
            "warm",
            "lab start drops target/ (an earlier lab's reports and classes) and puts the "
            "fixture's classes back from the cache",
            aim=1.2,
        ),
        versus(
            "sensor run after a one-line edit inside a method body of a main class others "
            "name vs a warm run",
            "changed",
            "warm",
            "Vet.java: its signatures are as its class was compiled from, so ./mvnw compiles it "
            "alone (a renamed method its caller uses was caught)",
            aim=1.3,
        ),
        versus(
            "sensor run after a new method in a main class others name vs a warm run "
            "(information: its callers compile again)",
            "reshaped",
            "warm",
            "Vet.java: what others compile against changed, and the plugin recompiles all 54 "
            "sources",
        ),
        versus(
            "sensor run after a one-line change to a test class nothing names (a leaf) "
            "vs a warm run",
            "leaf",
            "warm",
            "UC005AddVisitTest.java, the labs' kind of edit: ./mvnw compiles it alone",
            aim=1.3,
        ),
        versus(
            "warm sensor run vs ./mvnw -q validate",
            "warm",
            "validate",
            "both with jvm.config and the class-data archive, which speeds both (above "
            "validate: Surefire's plugin and provider resolution, the JUnit launcher's "
            "discovery and the tests)",
            aim=1.5,
        ),
        versus(
            "warm sensor run with Maven's class-data archive vs without",
            "warm",
            "no-cds",
            "the archive lab init makes once per Java and jvm.config (Maven, its plugins, JUnit "
            "and javac as a compiling sensor run loads them); kept only while it pays",
            aim=1.0,
        ),
        versus(
            "warm sensor run with .mvn/jvm.config vs without",
            "warm",
            "no-jvm",
            "kept only while it pays (ratio below 1)",
            aim=1.0,
        ),
        Row(
            "peak memory of a warm sensor run with jvm.config's short-run GC options vs "
            "-XX:TieredStopAtLevel=1 alone",
            median(memory["full"]),
            "MB",
            floor=median(memory["tier-only"]),
            aim=1.0,
            note=f"medians of {n} runs each; -XX:+UseSerialGC -Xms64m -Xmx512m "
            "-XX:-UsePerfData; kept while they pay: Maven runs side "
            "by side in the dev check, a lab check's turns and the tests",
        ),
        versus(
            "warm sensor run with jvm.config's short-run GC options vs "
            "-XX:TieredStopAtLevel=1 alone (information: kept for memory, row above)",
            "warm",
            "tier-only",
            "both warm",
        ),
        versus(
            "a new method in a main class others name, in forced stale-file mode, vs a warm run "
            "(information: why ./mvnw uses it only where no caller can see the change)",
            "stale",
            "warm",
            "a renamed method its caller still uses "
            + (
                "was caught"
                if forced_caught
                else "passed unnoticed (exit 0): the sensors went wrong"
            ),
        ),
    ]


if __name__ == "__main__":
    run_standalone(measure)
