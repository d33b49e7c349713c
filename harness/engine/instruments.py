"""A step's instruments: the files its checks rely on that the step does not ask the person to
change (``./mvnw``, ``.mvn/``, the fixture's hooks in a step that only observes them, the
sensor classes). A check that ran an edited instrument would judge the instrument, not the
thing the step teaches, so each must be as the lab shipped it: as in the workspace's commit
when the lab started.
"""

from __future__ import annotations

import fnmatch
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness import proc
from harness.engine.check_names import check_name
from harness.errors import HarnessError
from harness.results import CheckResult
from harness.workspace import Workspace
from harness.workspace.maven_found import MavenFound, as_meta, maven_found, recorded
from harness.workspace.snapshot import read_blob
from harness.workspace.workspace import BACKEND_FILE

if TYPE_CHECKING:
    from harness.engine.manifest import Spec

# What every Maven run of a check goes through: the wrapper, and what it and Maven read.
MAVEN_WRAPPER = ("mvnw", ".mvn/*")
# Hook Lab's own record of where Maven runs (lab init --backend): not the fixture's.
_NOT_INSTRUMENTS = frozenset({BACKEND_FILE.as_posix()})


@dataclass(frozen=True)
class Changed:
    """One instrument not as shipped: ``how`` is "changed", "deleted" or "not shipped";
    ``source`` is what `git checkout` puts it back from ("" for HEAD, None: remove it)."""

    path: str
    how: str
    source: str | None

    def line(self) -> str:
        return f"{self.path}: {self.how}"


def _worktree_files(root: Path, base: str) -> list[str]:
    """Every file in the worktree git tracks or would track. Only what the lab shipped ignores
    is left out (build output): never what the person's own ignore files (.git/info/exclude,
    a global excludesFile, a new .gitignore) hide, or a hook kept there would pass for
    shipped (walk-o P)."""
    shipped = proc.run(["git", "show", f"{base}:.gitignore"], cwd=root, timeout=60)
    with tempfile.NamedTemporaryFile("w", suffix=".gitignore") as ignore:
        ignore.write(shipped.stdout if shipped.returncode == 0 else "")
        ignore.flush()
        done = proc.run(
            ["git", "-c", "core.excludesFile=/dev/null", "ls-files", "--cached", "--others",
             f"--exclude-from={ignore.name}", "-z"],
            cwd=root,
            timeout=60,
        )  # fmt: skip
    return [p for p in done.stdout.split("\0") if p]


def _shipped_files(root: Path, base: str) -> list[str]:
    done = proc.run(["git", "ls-tree", "-r", "--name-only", "-z", base], cwd=root, timeout=60)
    return [p for p in done.stdout.split("\0") if p]


def _matching(paths: list[str], patterns: tuple[str, ...] | list[str]) -> list[str]:
    return sorted(
        {
            p
            for p in paths
            if p not in _NOT_INSTRUMENTS and any(fnmatch.fnmatch(p, pat) for pat in patterns)
        }
    )


def changed_instruments(
    workspace: Workspace, root: Path, base: str, patterns: tuple[str, ...] | list[str]
) -> list[Changed]:
    """Each file matching ``patterns`` (globs; ``*`` crosses folders) that differs from the
    commit ``base`` in the worktree ``root``: changed, deleted, or there but never shipped."""
    repo = workspace.repo
    try:
        tree = repo[base.encode()].tree
    except KeyError:
        raise HarnessError(
            f"the commit this lab started from ({base[:10]}) is not in {root}",
            fix="lab reset (it backs up your files first)",
        ) from None
    head = workspace.head()
    head_tree = repo[head.encode()].tree if head else None
    found = []
    candidates = _matching([*_worktree_files(root, base), *_shipped_files(root, base)], patterns)
    for rel in candidates:
        then = read_blob(repo, tree, rel)
        path = root / rel
        now = path.read_bytes() if path.is_file() else None
        if then == now:
            continue
        if then is None:
            found.append(Changed(rel, "not shipped", None))
            continue
        # `git checkout -- FILE` puts back HEAD's copy: the shipped one unless a commit since
        # the lab started changed it, then the lab's start commit is named.
        at_head = read_blob(repo, head_tree, rel) if head_tree is not None else None
        source = "" if at_head == then else f"{base[:10]} "
        found.append(Changed(rel, "deleted" if now is None else "changed", source))
    return found


def instruments_problem(changed: list[Changed], why: str) -> tuple[str, str, str]:
    """The headline, the found lines and the fix of a failure naming ``changed`` (``why``: what
    the checks use them for)."""
    names = ", ".join(c.path for c in changed)
    one = len(changed) == 1
    headline = (
        f"{names} {'is' if one else 'are'} not as the lab shipped {'it' if one else 'them'}, "
        f"and {why}: put {'it' if one else 'them'} back (lab reset does too, and backs up "
        "your files first)"
    )
    return headline, "\n".join(c.line() for c in changed), put_back(changed)


def put_back(changed: list[Changed]) -> str:
    """The commands that put ``changed`` back: one git checkout per source, one rm."""
    by_source: dict[str, list[str]] = {}
    extra = []
    for c in changed:
        if c.source is None:
            extra.append(c.path)
        else:
            by_source.setdefault(c.source, []).append(c.path)
    commands = [f"git checkout {src}-- {' '.join(paths)}" for src, paths in by_source.items()]
    if extra:
        commands.append("rm " + " ".join(extra))
    return "; ".join(commands)


def maven_wrapper_changed(workspace: Workspace, root: Path, base: str | None) -> list[Changed]:
    """``./mvnw`` and ``.mvn/`` where they differ from the lab's start (none without one)."""
    return changed_instruments(workspace, root, base, MAVEN_WRAPPER) if base else []


def maven_refusal(changed: list[Changed], name: str) -> CheckResult:
    """A check that runs Maven, refused before it runs: ./mvnw is the person's file, and an
    edited one could write any report it likes."""
    headline, found, fix = instruments_problem(
        changed, "this check runs Maven through ./mvnw and .mvn/, so it did not run"
    )
    return CheckResult.failed(
        headline,
        name=name,
        expected="./mvnw and .mvn/ as the lab shipped them",
        found=found,
        details={"fix": fix},
    )


# Kinds that judge what a Maven run wrote even when the check itself runs none (the person's
# reports, a live session's sensor run).
_READS_A_MAVEN_RUN = frozenset({"sensors", "live_session"})


def foreign_maven(workspace: Workspace, root: Path) -> tuple[MavenFound, MavenFound] | None:
    """(what lab init recorded, what ./mvnw runs now) when they differ; None when they agree,
    the fixture has no ./mvnw, or no Maven is found (./mvnw says so itself). A workspace made
    before the record existed records what it finds now."""
    if not (workspace.fixture.dir / "mvnw").is_file():
        return None
    now = maven_found(root)
    then = recorded(workspace.meta)
    if then is None:
        if now is not None:
            workspace.update_meta({"maven_found": as_meta(now)})
        return None
    if now is None or (then.same_program(now) and then.same_java(now)):
        return None
    return then, now


def foreign_maven_refusal(then: MavenFound, now: MavenFound, root: Path, name: str) -> CheckResult:
    """A check that relies on a Maven run, refused: ./mvnw would run another program than the
    one lab init recorded (or Maven another java), and that program could write any report."""
    program = then.program
    if not then.same_program(now):
        if now.resolved == then.resolved:
            what = f"{now.resolved} has changed since lab init (sha256 {now.sha256[:12]})"
        else:
            what = f"./mvnw would run {now.path}, not the {program} lab init found"
        expected = (
            f"./mvnw runs the {program} lab init recorded: {then.path} ({then.resolved}, "
            f"sha256 {then.sha256[:12]}, home {then.home})"
        )
        found, gone, then_path, now_path = (
            f"{now.path} ({now.resolved}, sha256 {now.sha256[:12]})",
            not Path(then.resolved).exists(),
            then.path,
            now.path,
        )
    else:
        what = f"Maven would run the java {now.java}, not the one lab init found"
        expected = (
            f"Maven runs the java lab init recorded: {then.java} (sha256 {then.java_sha256[:12]})"
        )
        found = f"{now.java} (sha256 {now.java_sha256[:12]})"
        gone, then_path, now_path, program = (
            not Path(then.java).exists(),
            then.java,
            now.java,
            "java",
        )
    return CheckResult.failed(
        f"{what}, so this check did not run: a program named {program} first on your PATH runs "
        "instead whenever the sensors run, and it can write any report",
        name=name,
        expected=expected,
        found=found,
        details={"fix": _foreign_fix(gone, then_path, now_path, program, root)},
    )


def _foreign_fix(gone: bool, then_path: str, now_path: str, program: str, root: Path) -> str:
    """The way back: record the new program when the recorded one is gone (never "take
    /usr/bin off your PATH"), else remove the one that came first."""
    if gone:
        return (
            f"{then_path}, which lab init recorded, is gone: if {now_path} is the {program} "
            f"you use now, run lab init {root} again to record it"
        )
    return (
        f"remove {now_path} (or take its folder off your PATH); if you installed it on "
        f"purpose, run lab init {root} again to record it"
    )


def maven_guard(
    workspace: Workspace, root: Path, base: str | None, specs: Sequence[Spec]
) -> Callable[[Spec], CheckResult | None]:
    """For each of a step's checks, its refusal before it runs (None: run it): an edited
    ./mvnw or .mvn/ for a check that runs Maven, a foreign Maven for one that runs or reads
    a Maven run."""
    slow = any(spec.slow for spec in specs)
    wrapper = maven_wrapper_changed(workspace, root, base) if slow else []
    reads = any(spec.slow or spec.name in _READS_A_MAVEN_RUN for spec in specs)
    foreign = foreign_maven(workspace, root) if reads else None

    def refusal(spec: Spec) -> CheckResult | None:
        result = None
        name = check_name(spec.name, spec.params)  # "your Claude Code session", not its id
        if wrapper and spec.slow:
            result = maven_refusal(wrapper, name)
        elif foreign and (spec.slow or spec.name in _READS_A_MAVEN_RUN):
            result = foreign_maven_refusal(*foreign, workspace.root, name)
        if result is not None:
            result.details.setdefault("where", spec.where)
        return result

    return refusal
