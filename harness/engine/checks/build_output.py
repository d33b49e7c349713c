"""What the tests' class path may hold: classes of the project's own packages, compiled from
its sources, and nothing else.

Surefire puts ``target/test-classes`` and ``target/classes`` first on the tests' class path, so
a file there changes what every sensor run does (walk-k: a JUnit extension that swallows every
failure, registered by hand in ``META-INF/services`` with a ``junit-platform.properties``
beside it, made every sensor green with the sensors untouched). A class outside the project's
packages could stand in for a library's (JUnit's ``Assertions``), so a source there counts too,
and so does a resource folder (the fixture has none; a build with one copies it there).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from harness.results import CheckResult

COMPILED = ("target/classes", "target/test-classes")
SOURCES = ("src/main/java", "src/test/java")
RESOURCES = ("src/main/resources", "src/test/resources")
SHOWN = 5
RACY_NS = 1_000_000_000


# The base package each fixture folder had, with the folders it was read from (see _folders).
_BASE: dict[Path, tuple[tuple[tuple[str, int], ...], str | None]] = {}


def base_package(fixture_dir: Path) -> str | None:
    """The package folder every source of the fixture sits in (``ai/unifiedprocess/petclinic``),
    or None for a fixture without Java sources. Read once per fixture and kept while its
    folders stay as they were: the checks ask for it several times a step."""
    key = _folders(fixture_dir)
    kept = _BASE.get(fixture_dir)
    if kept is not None and kept[0] == key:
        return kept[1]
    folders = {
        source.parent.relative_to(tree).as_posix()
        for tree in fixture_dir.glob("src/*/java")
        for source in tree.rglob("*.java")
    }
    package = Path(os.path.commonpath(sorted(folders))).as_posix() if folders else None
    # A folder changed in the last second may change again within the same tick of the file
    # system's clock, unseen in its time (git's "racy" files): such a tree is read every time.
    if all(mtime < time.time_ns() - RACY_NS for _top, mtime in key):
        _BASE[fixture_dir] = (key, package)
    return package


def _folders(fixture_dir: Path) -> tuple[tuple[str, int], ...]:
    """Every folder under the fixture's src/ with its modification time. The base package
    changes only when a source is added, removed or moved, or a folder is; each of those
    changes the time of the folder it happens in (a source's text does not matter). The
    fixture is not the participant's to edit, but a trainer may change one given by
    $HOOKLAB_FIXTURE while ``lab watch`` runs."""
    return tuple(
        (top, os.stat(top).st_mtime_ns) for top, _dirs, _files in os.walk(fixture_dir / "src")
    )


def _files(top: Path) -> list[Path]:
    return sorted(p for p in top.rglob("*") if p.is_file() or p.is_symlink())


def not_the_projects(root: Path, fixture_dir: Path) -> list[str]:
    """Every file, relative to ``root``, that puts on the tests' class path what is no class of
    the project's own packages; empty for a fixture without Java sources."""
    package = base_package(fixture_dir)
    if package is None:
        return []
    stray: list[str] = []
    for rel, suffix in [*((c, ".class") for c in COMPILED), *((s, ".java") for s in SOURCES)]:
        top = root / rel
        for path in _files(top) if top.is_dir() else []:
            inside = path.relative_to(top).as_posix()
            if path.suffix != suffix or not inside.startswith(package + "/"):
                stray.append(path.relative_to(root).as_posix())
    for rel in RESOURCES:
        top = root / rel
        stray += [p.relative_to(root).as_posix() for p in (_files(top) if top.is_dir() else [])]
    return stray


def to_remove(stray: list[str], fixture_dir: Path) -> list[str]:
    """What to remove so that only the project's classes stay, as short as it can be said
    (walk-m: a long list broke at 100 columns inside a path, and pasted as shown removed all
    of target/): ``target`` whole when anything in it is stray (Maven builds it again), a
    folder outside the packages whole (``src/test/java/zz``), a stray file inside them alone."""
    package = base_package(fixture_dir) or ""
    out: list[str] = []
    for rel in stray:
        top = next(t for t in (*COMPILED, *SOURCES, *RESOURCES) if rel.startswith(t + "/"))
        inside = rel[len(top) + 1 :]
        first = inside.split("/", 1)[0]
        if top in COMPILED:
            out.append("target")
        elif top in RESOURCES:
            out.append(top)
        else:
            keep = inside.startswith(package + "/") or first == inside
            out.append(rel if keep else f"{top}/{first}")
    return list(dict.fromkeys(out))


def _named(stray: list[str], sep: str) -> str:
    more = len(stray) - SHOWN
    return sep.join(stray[:SHOWN] + ([f"… and {more} more"] if more > 0 else []))


HEADLINE = (
    "the tests' class path holds what is no class of the project: the sensors run with it, so "
    "their reports prove nothing"
)


def problems(stray: list[str], fixture_dir: Path) -> list[str]:
    """The stray files as one problem of a session's evidence (empty: none)."""
    if not stray:
        return []
    remove = " ".join(to_remove(stray, fixture_dir))
    return [f"{HEADLINE} ({_named(stray, ', ')}); remove it with `rm -r {remove}`"]


def refusal(root: Path, fixture_dir: Path, name: str) -> CheckResult | None:
    """The failure for a class path that holds what is no class of the project, or None."""
    stray = not_the_projects(root, fixture_dir)
    if not stray:
        return None
    return CheckResult.failed(
        HEADLINE,
        name=name,
        expected=f"only classes of {base_package(fixture_dir)}/, compiled from src/",
        found=_named(stray, "\n"),
        details={
            "fix": f"rm -r {' '.join(to_remove(stray, fixture_dir))}; then ./mvnw -q test "
            "-Dgroups=sensor"
        },
    )
