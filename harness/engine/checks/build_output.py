"""What a compile of the workspace's own sources leaves in ``target/``: class files in the
fixture's packages, and nothing else.

Surefire puts ``target/test-classes`` and ``target/classes`` first on the tests' class path, so
a file there that no compile wrote changes what every sensor run does (walk-k: a JUnit extension
that swallows every failure, registered by hand in ``META-INF/services`` with a
``junit-platform.properties`` beside it, made every sensor green with the sources untouched). A
class outside the fixture's packages would stand in for a library's (JUnit's ``Assertions``).
The fixture has no resources, so its build copies none there.
"""

from __future__ import annotations

import os
from pathlib import Path

from harness.results import CheckResult

COMPILED = ("target/classes", "target/test-classes")
SHOWN = 5


def base_package(fixture_dir: Path) -> str | None:
    """The package folder every source of the fixture sits in (``ai/unifiedprocess/petclinic``),
    or None for a fixture without Java sources."""
    folders = {
        source.parent.relative_to(tree).as_posix()
        for tree in fixture_dir.glob("src/*/java")
        for source in tree.rglob("*.java")
    }
    if not folders:
        return None
    return Path(os.path.commonpath(sorted(folders))).as_posix()


def not_compiled(root: Path, fixture_dir: Path) -> list[str]:
    """The files in the workspace's compiled output that no compile of its sources wrote,
    relative to ``root``; empty for a fixture without Java sources."""
    package = base_package(fixture_dir)
    if package is None:
        return []
    stray: list[str] = []
    for rel in COMPILED:
        top = root / rel
        if not top.is_dir():
            continue
        for path in sorted(p for p in top.rglob("*") if p.is_file() or p.is_symlink()):
            inside = path.relative_to(top).as_posix()
            if path.suffix != ".class" or not inside.startswith(package + "/"):
                stray.append(path.relative_to(root).as_posix())
    return stray


def to_remove(stray: list[str], fixture_dir: Path) -> list[str]:
    """What to remove so that only compiled classes stay: a folder outside the fixture's
    packages whole (``target/test-classes/META-INF``), a stray file inside them on its own."""
    package = base_package(fixture_dir) or ""
    out: list[str] = []
    for rel in stray:
        top = next(t for t in COMPILED if rel.startswith(t + "/"))
        inside = rel[len(top) + 1 :]
        first = inside.split("/", 1)[0]
        inside_package = inside.startswith(package + "/")
        out.append(rel if inside_package or first == inside else f"{top}/{first}")
    return list(dict.fromkeys(out))


def shown(stray: list[str]) -> str:
    """The stray files, a few of them by name, one per line."""
    more = len(stray) - SHOWN
    return "\n".join(stray[:SHOWN] + ([f"… and {more} more"] if more > 0 else []))


def refusal(root: Path, fixture_dir: Path, name: str) -> CheckResult | None:
    """The failure for files in target/ that no compile of the sources wrote, or None."""
    stray = not_compiled(root, fixture_dir)
    if not stray:
        return None
    return CheckResult.failed(
        "target/ holds files that no compile of your sources wrote: the tests run with them "
        "on their class path, so no sensor report of this build proves anything",
        name=name,
        expected=f"in target/classes and target/test-classes only classes of "
        f"{base_package(fixture_dir)}/, as Maven compiles them from src/",
        found=shown(stray),
        details={
            "fix": f"rm -r {' '.join(to_remove(stray, fixture_dir))}; then ./mvnw -q test "
            "-Dgroups=sensor"
        },
    )
