"""harness.lazy: a package's names imported from their modules on first use, so that a
command needing one module of harness.claude or harness.workspace does not load the rest."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from harness.lazy import lazy_names


def test_a_name_comes_from_its_module_and_an_unknown_one_is_an_attribute_error() -> None:
    getattr_ = lazy_names("pkg", {"dumps": "json"})
    assert getattr_("dumps") is json.dumps
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'loads'"):
        getattr_("loads")


@pytest.mark.parametrize(
    ("package", "name", "home"),
    [
        ("harness.workspace", "Workspace", "harness.workspace.workspace"),
        ("harness.claude", "Settings", "harness.claude.settings"),
    ],
)
def test_a_package_loads_a_module_only_when_its_name_is_used(
    package: str, name: str, home: str
) -> None:
    probe = (
        "import importlib, sys\n"
        f"package = importlib.import_module({package!r})\n"
        f"before = {home!r} in sys.modules\n"
        f"getattr(package, {name!r})\n"
        f"print(before, {home!r} in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


@pytest.mark.parametrize("package", ["harness.claude", "harness.workspace"])
def test_every_exported_name_has_a_home_that_defines_it(package: str) -> None:
    """``__all__`` and the table of homes name the same names, and each home defines its
    name: a name added to one and not the other fails here, not at a user's first use."""
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(module._HOMES)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
