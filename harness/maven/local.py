"""The ``local`` backend: the machine's Java and Maven, through the workspace's ``./mvnw``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from harness import proc
from harness.maven.backend import (
    BackendStatus,
    MavenBackend,
    MavenRequest,
    MavenRun,
    own_run_env,
)
from harness.maven.streaming import run_streaming

DEBIAN_MAVEN_REPO = Path("/usr/share/maven-repo")


class LocalBackend(MavenBackend):
    name = "local"

    def status(self) -> BackendStatus:
        mvn = shutil.which("mvn")
        java = shutil.which("java")
        if not mvn or not java:
            missing = " and ".join(n for n, p in (("java", java), ("mvn", mvn)) if not p)
            return BackendStatus(
                self.name,
                False,
                f"{missing} not on PATH",
                fix="apt-get install openjdk-17-jdk-headless maven "
                "(or use the container: lab init --backend docker)",
            )
        version = proc.run([mvn, "-v"], timeout=60)
        first = version.stdout.splitlines()[0] if version.stdout else "unknown version"
        return BackendStatus(self.name, True, first, facts={"mvn": mvn, "java": java})

    def _run(self, request: MavenRequest) -> MavenRun:
        wrapper = request.project_dir / "mvnw"
        env = {**own_run_env(os.environ), **request.env}
        # The wrapper would hand over to the container when the workspace is set to docker;
        # asking for the local backend explicitly must mean the machine's Maven.
        env["HOOKLAB_BACKEND"] = "local"
        return run_streaming(
            [str(wrapper), *request.args],
            cwd=request.project_dir,
            env=env,
            on_output=request.on_output,
            timeout=request.timeout,
        )
