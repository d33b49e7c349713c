"""Shared fixtures. Workspaces are real: the fixture copied and committed with dulwich."""

from __future__ import annotations

import os
import pwd
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.builders import REPO_ROOT
from tests.recorded_sessions import Played

if TYPE_CHECKING:  # for the annotation only: this file imports harness inside its fixtures
    from harness.workspace import Workspace

# Tests that share something machine-wide, so no two may run at once: each group runs on one
# pytest-xdist worker (--dist loadgroup), beside the independent tests on the others.
SHARED_RESOURCES = {
    "docker": "the Docker engine, the local image and the hooklab-m2 volume",
    "differential": "build/differential.json, written whole from every case of the suite",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = None
        if item.get_closest_marker("docker"):
            group = "docker"
        elif item.nodeid.startswith("tests/differential/test_differential.py"):
            group = "differential"
        elif (serial := item.get_closest_marker("serial")) is not None:
            group = str(serial.args[0]) if serial.args else "serial"
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True, scope="session")
def _isolated_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep tests away from the real $HOME (git config, ~/.m2, docker config)."""
    real_home = os.environ.get("HOME")
    # The pinned Claude Code client lives in the user's cache; keep finding it there.
    from harness.paths import cache_home

    os.environ.setdefault("HOOKLAB_CACHE", str(cache_home()))
    fake_home = tmp_path_factory.mktemp("home")
    os.environ["HOME"] = str(fake_home)
    # Claude Code's own state (sessions, settings, login) of whoever runs the tests is never
    # read or written: the client's config root points into the fake home too.
    real_claude_config = os.environ.get("CLAUDE_CONFIG_DIR")
    os.environ["CLAUDE_CONFIG_DIR"] = str(fake_home / ".claude")
    # Tests commit with git; give them an identity that never leaks into the real config.
    os.environ.setdefault("GIT_AUTHOR_NAME", "Hook Lab Tests")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "tests@hooklab.invalid")
    os.environ.setdefault("GIT_COMMITTER_NAME", "Hook Lab Tests")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "tests@hooklab.invalid")
    os.environ.pop("NO_COLOR", None)
    # pytest-xdist's workers inherit COLUMNS=80 and LINES=24 from execnet; a plain run has
    # neither. Tests that care about the width set COLUMNS themselves, so every run sees the
    # same terminal whatever the runner.
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)
    yield
    if real_home is not None:
        os.environ["HOME"] = real_home
    if real_claude_config is None:
        os.environ.pop("CLAUDE_CONFIG_DIR", None)
    else:
        os.environ["CLAUDE_CONFIG_DIR"] = real_claude_config


@pytest.fixture(autouse=True)
def _no_real_claude_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Each test finds HOME and CLAUDE_CONFIG_DIR in temporary directories, even after an
    earlier test changed them: sessions are looked up there, never in the real ~/.claude."""
    home = Path(os.environ["HOME"])
    config = Path(os.environ.get("CLAUDE_CONFIG_DIR", home / ".claude"))
    real = Path(pwd.getpwuid(os.getuid()).pw_dir)
    if config.resolve() == (real / ".claude").resolve() or home.resolve() == real.resolve():
        os.environ["HOME"] = str(tmp_path_factory.mktemp("home"))
        os.environ["CLAUDE_CONFIG_DIR"] = str(Path(os.environ["HOME"]) / ".claude")
    yield


@pytest.fixture(scope="session")
def fixture_root() -> Path:
    root = REPO_ROOT / "petclinic_fixture"
    if not (root / "pom.xml").is_file():
        pytest.fail("petclinic_fixture/pom.xml is missing")
    return root


@pytest.fixture(scope="session")
def _compiled_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from harness.maven import get_backend
    from harness.maven.warm import warm_compile
    from harness.workspace import provision

    root = provision(tmp_path_factory.mktemp("template") / "ws").workspace.root
    # Compiled as `lab init` leaves a workspace (from the shared cache after the first time).
    warm_compile(root, get_backend("local"))
    return root


@pytest.fixture
def workspace(tmp_path: Path, _compiled_template: Path) -> Workspace:
    """A fresh provisioned workspace (a copy of one provisioned per session, .git included)."""
    from harness.workspace import Workspace

    root = tmp_path / "ws"
    shutil.copytree(_compiled_template, root, symlinks=True)
    return Workspace(root)


def require_real_client() -> None:
    """Skip a test that needs the real Claude Code client when it is not installed here, but
    fail in CI, where .ci/run installs it: a skipped real-client test proves nothing."""
    from harness.claude.client.install import find_client, wanted_version

    if find_client() is not None:
        return
    message = f"Claude Code {wanted_version()} is not installed (lab doctor --fix installs it)"
    if os.environ.get("CI"):
        pytest.fail(message + "; CI must install it")
    pytest.skip(message)


@pytest.fixture(scope="session")
def recorded(
    tmp_path_factory: pytest.TempPathFactory, _compiled_template: Path
) -> Callable[[str], Played]:
    """Sessions played on the real client (tests/recorded_sessions.py), each once per run, in
    a workspace of its own; the transcript stays in that session's own config directory."""
    from tests.recorded_sessions import play

    require_real_client()
    played: dict[str, Played] = {}

    def get(name: str) -> Played:
        if name not in played:
            base = tmp_path_factory.mktemp(f"recorded-{name}")
            root = base / "ws"
            shutil.copytree(_compiled_template, root, symlinks=True)
            played[name] = play(name, root, base / "claude-config")
        return played[name]

    return get


@pytest.fixture(params=["emulator", "claude-code"])
def engine(request: pytest.FixtureRequest) -> str:
    """Both engines: the emulator and the real client, for tests that must hold on each."""
    name = str(request.param)
    if name == "claude-code":
        require_real_client()
    return name
