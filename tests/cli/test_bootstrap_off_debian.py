"""scripts/bootstrap.sh and lab doctor off Debian: with no package manager Hook Lab knows, and
with Homebrew, both name exactly what to install, in the same words.

The bootstrap runs for real (its own .venv, made in a copy of the checkout, so the real one is
never touched; ``lab`` linked into a temporary HOOKLAB_BIN_DIR), with apt, dpkg and some tools
hidden from PATH: it never reaches apt and installs no system package.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.engine.throwaway import path_without
from tests.builders import REPO_ROOT

pytestmark = pytest.mark.slow

# apt and dpkg gone: this is no Debian. java, mvn and jq gone: there is something to install.
NO_DEBIAN = ["apt-get", "apt", "dpkg", "dpkg-query", "dnf", "brew", "java", "mvn", "jq"]
# A stand-in for Homebrew, since macOS cannot run here: it records its calls and installs
# nothing, so what the bootstrap asked it for stays missing and is reported.
BREW_STAND_IN = """#!/usr/bin/env bash
echo "$*" >> "$BREW_CALLS"
case $1 in
  --prefix) echo "/opt/homebrew/opt/$2" ;;
esac
exit 0
"""


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout's files as they are in the working tree, modes kept, in a new folder."""
    from harness.claude.client.install import find_client

    if find_client() is None:
        # Bootstrap would install the pinned client from npm; this test installs nothing.
        pytest.skip("the pinned Claude Code client is not installed (lab doctor --fix)")
    root = tmp_path_factory.mktemp("checkout") / "hooklab"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    return root


def real_pip_cache() -> dict[str, str]:
    """The tests run with a fake HOME; pip may still reuse the user's download cache."""
    cache = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "pip"
    return {"PIP_CACHE_DIR": str(cache)} if cache.is_dir() else {}


def environment(path: str, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"CI", "VIRTUAL_ENV"}}
    env.update(real_pip_cache())
    env.update(PATH=path, NO_COLOR="1", HOOKLAB_BIN_DIR=str(tmp_path / "bin"))
    return env


def bootstrap(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "scripts/bootstrap.sh"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def doctor(root: Path, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(root / ".venv" / "bin" / "lab"), "doctor", *flags],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def checks(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, object]]:
    return {c["name"]: c for c in json.loads(done.stdout)["checks"]}


def install_line(out: str) -> str:
    prefix = "bootstrap: to install what is missing: "
    lines = [line.removeprefix(prefix) for line in out.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, out
    return lines[0]


@pytest.fixture
def no_debian() -> Iterator[str]:
    with path_without(NO_DEBIAN) as path:
        yield path


def test_without_a_package_manager_both_name_what_to_install(
    checkout: Path, no_debian: str, tmp_path: Path
) -> None:
    env = environment(no_debian, tmp_path)
    done = bootstrap(checkout, env)
    out = done.stdout + done.stderr
    # jq is missing, so the hooks cannot run: the bootstrap says so by its exit status.
    assert done.returncode == 1, out
    assert "apt-get" not in out and "bootstrap: installing with" not in out
    assert "still missing on Linux without apt, dnf or Homebrew: java maven jq" in out
    wanted = (
        "install with your system's package manager: "
        "a Java 17 JDK (java), Maven 3.8 or newer (mvn), jq (jq)"
    )
    assert install_line(out) == wanted
    # No Java: the docker backend is offered.
    assert "lab init ws --backend docker" in out
    # What needs no root was done: the venv, and lab on the (temporary) PATH directory.
    assert (tmp_path / "bin" / "lab").resolve() == (checkout / ".venv" / "bin" / "lab").resolve()

    found = checks(doctor(checkout, env, "--json"))
    assert found["system packages"]["fix"] == wanted
    assert found["jq"]["state"] == "missing"
    assert found["jq"]["fix"] == "install with your system's package manager: jq (jq)"
    table = doctor(checkout, env)
    assert table.returncode == 1
    assert f"To install what is missing: {wanted}" in table.stdout


def test_with_homebrew_both_name_the_brew_packages(checkout: Path, tmp_path: Path) -> None:
    stand_in = tmp_path / "homebrew-bin"
    stand_in.mkdir()
    (stand_in / "brew").write_text(BREW_STAND_IN)
    (stand_in / "brew").chmod(0o755)
    calls = tmp_path / "brew-calls"
    with path_without(NO_DEBIAN) as path:
        env = environment(f"{stand_in}{os.pathsep}{path}", tmp_path)
        env["BREW_CALLS"] = str(calls)
        done = bootstrap(checkout, env)
        found = checks(doctor(checkout, env, "--json"))
        table = doctor(checkout, env)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    # It installed with the one package manager it found, and asked it for exactly this.
    assert calls.read_text().splitlines()[0] == "install openjdk@17 maven jq"
    assert "bootstrap: installing with Homebrew: openjdk@17 maven jq" in out
    # The stand-in installed nothing, so all three are still missing, and named for brew.
    assert install_line(out) == "brew install openjdk@17 maven jq"
    assert 'export PATH="$(brew --prefix openjdk@17)/bin:$PATH"' in out
    assert "apt-get" not in out

    assert found["system packages"]["fix"] == "brew install openjdk@17 maven jq"
    assert str(found["system packages"]["found"]).startswith("Homebrew (brew): ")
    assert found["jq"]["fix"] == "brew install jq"
    assert str(found["java"]["fix"]).startswith("brew install openjdk@17, then put it on PATH")
    assert found["maven"]["fix"] == "brew install maven"
    assert "To install what is missing: brew install openjdk@17 maven jq" in table.stdout


# A stand-in for dnf, since Fedora cannot run here: it records its calls and installs nothing.
DNF_STAND_IN = """#!/usr/bin/env bash
echo "$*" >> "$DNF_CALLS"
exit 0
"""


def test_without_root_it_installs_nothing_and_names_the_dnf_packages(
    checkout: Path, tmp_path: Path
) -> None:
    stand_in = tmp_path / "fedora-bin"
    stand_in.mkdir()
    (stand_in / "dnf").write_text(DNF_STAND_IN)
    (stand_in / "dnf").chmod(0o755)
    calls = tmp_path / "dnf-calls"
    with path_without([*NO_DEBIAN, "sudo"]) as path:
        env = environment(f"{stand_in}{os.pathsep}{path}", tmp_path)
        env["DNF_CALLS"] = str(calls)
        # A user namespace without root in it: a real unprivileged process (uid 65534 inside,
        # no capabilities outside) that can still read this test's files.
        done = subprocess.run(
            ["unshare", "--user", "bash", "scripts/bootstrap.sh"],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        found = checks(doctor(checkout, env, "--json"))
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    wanted = "dnf install java-17-openjdk-devel maven jq"
    assert "bootstrap: not root and no sudo: cannot install java-17-openjdk-devel maven jq" in out
    assert not calls.exists(), calls.read_text()  # dnf was never run
    assert install_line(out) == wanted
    assert "still missing on Fedora/RHEL (dnf): java maven jq" in out
    # What needs no root still happened: lab is linked into the (temporary) bin directory.
    assert "bootstrap: ready (hooklab" in out
    assert found["system packages"]["fix"] == wanted
    assert found["jq"]["fix"] == "dnf install jq"
