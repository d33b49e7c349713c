"""Shared fixtures. Workspaces are real: the fixture copied and committed with dulwich."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders import REPO_ROOT


@pytest.fixture(autouse=True, scope="session")
def _isolated_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep tests away from the real $HOME (git config, ~/.m2, docker config)."""
    real_home = os.environ.get("HOME")
    fake_home = tmp_path_factory.mktemp("home")
    os.environ["HOME"] = str(fake_home)
    # Tests commit with git; give them an identity that never leaks into the real config.
    os.environ.setdefault("GIT_AUTHOR_NAME", "Hook Lab Tests")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "tests@hooklab.invalid")
    os.environ.setdefault("GIT_COMMITTER_NAME", "Hook Lab Tests")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "tests@hooklab.invalid")
    os.environ.pop("NO_COLOR", None)
    yield
    if real_home is not None:
        os.environ["HOME"] = real_home


@pytest.fixture(scope="session")
def fixture_root() -> Path:
    root = REPO_ROOT / "petclinic_fixture"
    if not (root / "pom.xml").is_file():
        pytest.fail("petclinic_fixture/pom.xml is missing")
    return root


@pytest.fixture(scope="session")
def _compiled_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from harness.workspace import provision

    return provision(tmp_path_factory.mktemp("template") / "ws").workspace.root


@pytest.fixture
def workspace(tmp_path: Path, _compiled_template: Path):  # type: ignore[no-untyped-def]
    """A fresh provisioned workspace (a copy of one provisioned per session, .git included)."""
    from harness.workspace import Workspace

    root = tmp_path / "ws"
    shutil.copytree(_compiled_template, root, symlinks=True)
    return Workspace(root)
