"""The fix lab doctor words for each system, from the table the bootstrap reads too."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.doctor.system import System, install_command, needs, packages_for
from harness.paths import CHECKOUT_ROOT, bundled_dir


def test_every_need_names_a_package_for_every_system() -> None:
    table = needs()
    assert {"java", "maven", "jq", "git", "bash", "python", "node", "npm"} == set(table)
    for need in table.values():
        assert all(need.packages[m] for m in ("apt", "dnf", "brew")), need
        assert need.what and need.command


@pytest.mark.parametrize(
    ("system", "line"),
    [
        (System("apt", "Linux"), "apt-get install openjdk-17-jdk-headless jq nodejs npm"),
        (System("dnf", "Linux"), "dnf install java-17-openjdk-devel jq nodejs nodejs-npm"),
        (System("brew", "Darwin"), "brew install openjdk@17 jq node"),
        (
            System(None, "Darwin"),
            "install Homebrew (https://brew.sh), then: brew install openjdk@17 jq node",
        ),
        (
            System(None, "Linux"),
            "install with your system's package manager: a Java 17 JDK (java), jq (jq), "
            "Node.js and npm, for the real Claude Code (node), npm, for the real Claude Code "
            "(npm)",
        ),
    ],
    ids=["apt", "dnf", "brew", "macos-bare", "unknown-linux"],
)
def test_one_install_line_per_system(system: System, line: str) -> None:
    # Asked out of order: the line keeps the table's order and names each package once.
    assert install_command(["npm", "jq", "node", "java"], system) == line


def test_nothing_missing_means_no_line() -> None:
    assert install_command([], System("brew", "Darwin")) == ""
    assert install_command(["claude code"], System("apt", "Linux")) == ""
    assert packages_for(["jq"], System(None, "Linux")) == []


def test_the_shipped_folders_are_the_checkouts_here_and_the_variable_wins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("HOOKLAB_LABS", raising=False)
    assert bundled_dir("labs", "HOOKLAB_LABS") == CHECKOUT_ROOT / "labs"
    monkeypatch.setenv("HOOKLAB_LABS", str(tmp_path))
    assert bundled_dir("labs", "HOOKLAB_LABS") == tmp_path
