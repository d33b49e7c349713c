"""The layering of harness/, checked by reading the code (a test, not a convention)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.builders import REPO_ROOT

PACKAGE = REPO_ROOT / "harness"
# A layer may import the layers listed for it, and nothing above.
ALLOWED = {
    "claude": {"claude"},
    "workspace": {"workspace"},
    "maven": {"maven"},
    # it checks the Maven backends and the real client, and proves a client on a workspace
    "doctor": {"doctor", "maven", "claude", "workspace"},
    "engine": {"engine", "claude", "workspace", "maven", "grading"},
    "grading": {"grading", "claude"},
    "trainer": {"trainer", "engine", "claude", "workspace", "maven", "grading"},
    "ui": {"ui", "claude", "workspace", "maven", "engine", "grading", "doctor", "trainer"},
    "cli": {"cli", "ui", "claude", "workspace", "maven", "engine", "grading", "doctor", "trainer"},
}
SHARED = {
    "errors",
    "results",
    "proc",
    "paths",
    "schema",
    "userfiles",
    "jail",
    "jail_forward",
    "lazy",
    "__init__",
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def layer_files() -> list[tuple[str, Path]]:
    return [
        (path.relative_to(PACKAGE).parts[0], path)
        for path in sorted(PACKAGE.rglob("*.py"))
        if len(path.relative_to(PACKAGE).parts) > 1
    ]


@pytest.mark.parametrize(("layer", "path"), layer_files(), ids=lambda v: str(v))
def test_a_layer_imports_only_what_is_below_it(layer: str, path: Path) -> None:
    allowed = ALLOWED[layer]
    wrong = sorted(
        name
        for name in imports_of(path)
        if name.startswith("harness.") and name.split(".")[1] not in allowed | SHARED
    )
    assert not wrong, f"{path.relative_to(REPO_ROOT)} ({layer}) imports {wrong}"


def test_only_the_ui_layer_imports_rich() -> None:
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for layer, path in layer_files()
        if layer != "ui" and any(n == "rich" or n.startswith("rich.") for n in imports_of(path))
    ]
    assert not offenders, f"rich is imported outside harness/ui: {offenders}"


def test_the_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from harness.cli.main import main\nimport rich.table\n")
    assert {"harness.cli.main", "rich.table"} <= imports_of(bad)
