"""Maven backends and Surefire reports."""

from __future__ import annotations

import os

from harness.errors import HarnessError
from harness.maven.backend import BackendStatus, MavenBackend, MavenRun

BACKEND_NAMES = ("local", "docker")
BROKER_ENV = "HOOKLAB_MAVEN_BROKER"  # harness/maven/broker.py's socket, inside the sandbox


def get_backend(name: str) -> MavenBackend:
    if name == "local":
        from harness.maven.local import LocalBackend

        return LocalBackend()
    if name == "docker":
        broker = os.environ.get(BROKER_ENV)
        if broker:  # inside lab trainer verify's sandbox: Docker is reached through it
            from harness.maven.broker import BrokerBackend

            return BrokerBackend(broker)
        from harness.maven.docker_backend import DockerBackend

        return DockerBackend()
    raise HarnessError(
        f"unknown Maven backend {name!r}", fix=f"use one of: {', '.join(BACKEND_NAMES)}"
    )


__all__ = ["BACKEND_NAMES", "BackendStatus", "MavenBackend", "MavenRun", "get_backend"]
