"""Maven backends and Surefire reports."""

from __future__ import annotations

from harness.errors import HarnessError
from harness.maven.backend import BackendStatus, MavenBackend, MavenRun

BACKEND_NAMES = ("local", "docker")


def get_backend(name: str) -> MavenBackend:
    if name == "local":
        from harness.maven.local import LocalBackend

        return LocalBackend()
    if name == "docker":
        from harness.maven.docker_backend import DockerBackend

        return DockerBackend()
    raise HarnessError(
        f"unknown Maven backend {name!r}", fix=f"use one of: {', '.join(BACKEND_NAMES)}"
    )


__all__ = ["BACKEND_NAMES", "BackendStatus", "MavenBackend", "MavenRun", "get_backend"]
