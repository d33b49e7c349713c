"""The pinned Claude Code client: where it lives, whether it is there, how to install it.

The version is pinned here, in the repository; the client itself is installed from the npm
registry into Hook Lab's cache outside the repository (never vendored; see
``harness.paths.cache_home``), under ``claude-code/VERSION``.
``HOOKLAB_CLAUDE_CODE_VERSION`` picks another release (the upgrade check does this), and
``HOOKLAB_CLAUDE_CODE`` points at a client binary directly.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness import proc
from harness.errors import HarnessError
from harness.paths import cache_home

PINNED_VERSION = "2.1.332"
PACKAGE = "@anthropic-ai/claude-code"
_VERSION_SHAPE = re.compile(r"^\d+\.\d+\.\d+$")


@dataclass(frozen=True)
class ClientInstall:
    """A Claude Code binary and the version it reports."""

    path: Path
    version: str

    def __repr__(self) -> str:
        return f"<ClientInstall {self.version} at {self.path}>"


def wanted_version() -> str:
    version = os.environ.get("HOOKLAB_CLAUDE_CODE_VERSION", "").strip() or PINNED_VERSION
    if not _VERSION_SHAPE.match(version):
        raise HarnessError(
            f"HOOKLAB_CLAUDE_CODE_VERSION={version!r} is not a release number",
            fix="set it to a version such as 2.1.332, or unset it to use the pinned one",
        )
    return version


def install_dir(version: str) -> Path:
    return cache_home() / "claude-code" / version


def _binary_in(directory: Path) -> Path:
    return directory / "node_modules" / ".bin" / "claude"


def _reported_version(binary: Path) -> str | None:
    result = proc.run([binary, "--version"], timeout=60)
    if not result.ok:
        return None
    match = re.search(r"(\d+\.\d+\.\d+)", result.stdout)
    return match.group(1) if match else None


def find_client(version: str | None = None) -> ClientInstall | None:
    """The installed client of ``version`` (default: the wanted one), or None."""
    explicit = os.environ.get("HOOKLAB_CLAUDE_CODE")
    if explicit:
        path = Path(explicit)
        found = _reported_version(path) if path.is_file() else None
        return ClientInstall(path, found) if found else None
    version = version or wanted_version()
    binary = _binary_in(install_dir(version))
    if binary.exists() and os.access(binary, os.X_OK):
        found = _reported_version(binary)
        if found == version:
            return ClientInstall(binary, found)
    # A participant whose own `claude` is that very version needs no second copy (lab doctor
    # said "not installed" right above "your claude ok · the pinned one"). Hook Lab runs it
    # with a config folder of its own, never the participant's ~/.claude.
    on_path = shutil.which("claude")
    if on_path is not None and Path(on_path).resolve() != binary.resolve():
        found = _reported_version(Path(on_path))
        if found == version:
            return ClientInstall(Path(on_path), found)
    return None


def require_client() -> ClientInstall:
    client = find_client()
    if client is None:
        raise HarnessError(
            f"Claude Code {wanted_version()} is not installed for Hook Lab",
            fix="run: lab doctor --fix   (installs it from the npm registry into "
            f"{install_dir(wanted_version())})",
        )
    return client


def install_client(
    version: str | None = None, on_output: Callable[[str], None] | None = None
) -> ClientInstall:
    """Install ``version`` of the client from the npm registry into the cache."""
    version = version or wanted_version()
    existing = find_client(version)
    if existing is not None:
        return existing
    npm = shutil.which("npm")
    if npm is None:
        raise HarnessError(
            "npm is not installed, so Claude Code cannot be installed",
            fix="install Node.js and npm (Debian: apt-get install nodejs npm), then run "
            "lab doctor --fix",
        )
    target = install_dir(version)
    target.mkdir(parents=True, exist_ok=True)
    if on_output:
        on_output(f"installing {PACKAGE}@{version} into {target}")
    result = proc.run(
        [
            npm,
            "install",
            "--prefix",
            str(target),
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
            f"{PACKAGE}@{version}",
        ],
        timeout=900,
    )
    client = find_client(version)
    if not result.ok or client is None:
        tail = (result.stderr or result.stdout).strip().splitlines()[-5:]
        raise HarnessError(
            f"npm could not install {PACKAGE}@{version}: " + " / ".join(tail),
            fix="check that the npm registry is reachable (npm ping), then run lab doctor --fix",
        )
    return client


def main() -> int:
    """``python -m harness.claude.client.install``: what scripts/bootstrap.sh runs."""
    try:
        client = install_client(on_output=print)
    except HarnessError as exc:
        print(f"claude-code: {exc}")
        return 1
    print(f"claude-code: {client.version} at {client.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
