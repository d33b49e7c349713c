"""Which package manager this machine has, and the command that installs what is missing.

The package names live in ``system-packages.txt`` beside this file, which
``scripts/bootstrap.sh`` reads too: what the bootstrap installs or asks for, and what
``lab doctor`` gives as the fix, come from one table. ``install_command`` words the fix the
way the bootstrap prints it, so a participant sees the same line from both.
"""

from __future__ import annotations

import platform
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("system-packages.txt")
# The order the bootstrap looks in: the system's own manager before Homebrew on Linux.
MANAGERS = ("apt", "dnf", "brew")
_PROGRAM = {"apt": "apt-get", "dnf": "dnf", "brew": "brew"}
_LABEL = {"apt": "Debian/Ubuntu (apt)", "dnf": "Fedora/RHEL (dnf)", "brew": "Homebrew (brew)"}
_INSTALL = {"apt": "apt-get install", "dnf": "dnf install", "brew": "brew install"}


@dataclass(frozen=True)
class Need:
    name: str
    command: str
    packages: dict[str, tuple[str, ...]]  # manager -> its packages (empty: none packaged)
    what: str


@dataclass(frozen=True)
class System:
    manager: str | None  # apt | dnf | brew, or None when none of them is on PATH
    kernel: str  # platform.system(): Linux, Darwin, ...

    @property
    def label(self) -> str:
        if self.manager:
            return _LABEL[self.manager]
        if self.kernel == "Darwin":
            return "macOS without Homebrew"
        return f"{self.kernel} without apt, dnf or Homebrew"


@cache
def needs() -> dict[str, Need]:
    table: dict[str, Need] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, command, *cells = line.split(maxsplit=2 + len(MANAGERS))
        packages = {
            manager: tuple(p for p in cell.split(",") if p != "-")
            for manager, cell in zip(MANAGERS, cells, strict=False)
        }
        table[name] = Need(name, command, packages, cells[len(MANAGERS)])
    return table


def detect() -> System:
    manager = next((m for m in MANAGERS if shutil.which(_PROGRAM[m])), None)
    return System(manager, platform.system())


def packages_for(names: Sequence[str], system: System) -> list[str]:
    """The system's packages for these needs, each once, in the table's order."""
    if system.manager is None:
        return []
    wanted = [n for n in needs() if n in names]
    found: list[str] = []
    for name in wanted:
        found += [p for p in needs()[name].packages[system.manager] if p not in found]
    return found


def install_command(names: Sequence[str], system: System) -> str:
    """How to install these needs here, as one line ("" when nothing is missing)."""
    wanted = [n for n in needs() if n in names]
    if not wanted:
        return ""
    if system.manager is not None:
        packages = packages_for(wanted, system)
        if packages:
            return f"{_INSTALL[system.manager]} {' '.join(packages)}"
    if system.kernel == "Darwin":
        brew = packages_for(wanted, System("brew", system.kernel))
        return f"install Homebrew (https://brew.sh), then: {_INSTALL['brew']} {' '.join(brew)}"
    described = ", ".join(f"{needs()[n].what} ({needs()[n].command})" for n in wanted)
    return f"install with your system's package manager: {described}"


def java_on_path_hint(system: System) -> str:
    """Homebrew's JDKs are keg-only: installed, but not on PATH until the participant adds it."""
    if system.manager != "brew" and system.kernel != "Darwin":
        return ""
    return 'then put it on PATH: export PATH="$(brew --prefix openjdk@17)/bin:$PATH"'
