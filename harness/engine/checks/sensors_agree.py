"""Whether the sensors, run by Hook Lab itself, agree with the green reports a person's run left.

A report says what the run that wrote it saw, and that run was the person's (or their
session's): its switches (``-f`` another pom, ``--define argLine=-javaagent:…``), its
environment (``MAVEN_OPTS``, ``~/.mavenrc``, a ``java`` earlier on the PATH) or a hook that
rewrote the command can make red sensors write green reports (walk-m R and S; walk-o AC, F,
J, U and P). The workspace's code cannot lie that way. So where a check takes green reports
as evidence, Hook Lab also runs the sensors on a throwaway copy of the workspace as it is now
(its sources, not its ``target/``: compiled classes can be put there by hand; and the
fixture's own pom.xml, ./mvnw and .mvn/: walk-q put the class path in pom.xml), through its own
clean Maven environment (harness/maven/backend.py ``own_run_env``), and each sensor the
reports call green must be green there as well.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from harness.engine.context import CheckContext
from harness.engine.throwaway import sandbox_copy
from harness.maven.backend import SENSOR_GOALS
from harness.maven.surefire import ReportError, sensor_reports

PLAIN_RUN = "./mvnw " + " ".join(SENSOR_GOALS)
DISAGREE = "your reports say "  # how disagreement() begins


# How the build runs, as the lab shipped it: a class path in pom.xml or a switch in ./mvnw
# would make red sources green in Hook Lab's own run too (walk-q). The backend choice stays.
_BUILD_FILES = ("pom.xml", "mvnw", ".mvn")
_KEPT_IN_MVN = ("hooklab-backend",)
_BUILD_OUTPUT = frozenset({"target"})


def _shipped_build(copy: Path, fixture: Path) -> None:
    for name in _BUILD_FILES:
        shipped, ours = fixture / name, copy / name
        if not shipped.exists():
            continue
        kept = {k: (ours / k).read_bytes() for k in _KEPT_IN_MVN if (ours / k).is_file()}
        if ours.is_dir() and not ours.is_symlink():
            shutil.rmtree(ours)
        elif ours.exists() or ours.is_symlink():
            ours.unlink()
        if shipped.is_dir():
            shutil.copytree(shipped, ours, symlinks=True)
            for k, data in kept.items():
                (ours / k).write_bytes(data)
        else:
            shutil.copy2(shipped, ours)


def red_in_our_run(ctx: CheckContext, green: Iterable[str]) -> tuple[list[str], str]:
    """The sensors of ``green`` that Hook Lab's own run of the workspace's sources does not
    find green (no report counts as not green), and that run's output."""
    wanted = tuple(green)
    if not wanted:
        return [], ""
    ctx.on_activity(f"running {PLAIN_RUN} on a copy of your sources, as Hook Lab runs it")
    # Its sources only: classes can be put in target/ by hand.
    with sandbox_copy(ctx.root, leave_out=_BUILD_OUTPUT, prefix="hooklab-agree-") as copy:
        _shipped_build(copy, ctx.workspace.fixture.dir)
        maven = ctx.maven().run(copy, SENSOR_GOALS, timeout=600)
        try:
            reports = sensor_reports(copy, wanted)
        except ReportError:
            return list(wanted), maven.output
    red = [s for s in wanted if (r := reports.get(s)) is None or not r.green]
    return red, maven.output


def disagreement(red: list[str]) -> str:
    """Why green reports are not believed when Hook Lab's own run found ``red`` red."""
    names = ", ".join(red)
    return (
        f"{DISAGREE}{names} passed, but the sensors run on your sources as Hook Lab "
        f"runs them ({PLAIN_RUN}, no MAVEN_OPTS, no ~/.mavenrc) fail: the run that wrote "
        "the reports was not the sensors' own (a switch such as -f or --define, MAVEN_OPTS, "
        "~/.mavenrc, another java, a hook that changed the command)"
    )
