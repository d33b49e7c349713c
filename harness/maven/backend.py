"""The Maven backend interface: run Maven in a workspace, somewhere.

``local`` runs the machine's Maven through the workspace's ``./mvnw``; ``docker`` runs the
same wrapper inside a container. Everything above this layer sees only ``MavenBackend``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SENSOR_GOALS = ("-q", "test", "-Dgroups=sensor")

# What a person's shell may hand Maven or its JVM besides the command line: extra switches
# (MAVEN_ARGS), JVM options that can load an agent or a class path (walk-m S, walk-o S').
# Hook Lab's own runs leave them out, and read no mavenrc (MAVEN_SKIP_RC), so that what they
# find is the workspace's code, not the person's setup.
FOREIGN_MAVEN_ENV = (
    "MAVEN_OPTS",
    "MAVEN_ARGS",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
)


def own_run_env(inherited: Mapping[str, str]) -> dict[str, str]:
    """The environment of a Maven run of Hook Lab's own: ``inherited`` without what may change
    how the tests run, and no ``~/.mavenrc`` or ``/etc/mavenrc`` sourced."""
    env = {k: v for k, v in inherited.items() if k not in FOREIGN_MAVEN_ENV}
    env["MAVEN_SKIP_RC"] = "1"
    return env


OutputSink = Callable[[str], None]


@dataclass(frozen=True)
class MavenRun:
    argv: tuple[str, ...]
    returncode: int
    output: str  # the tail of the combined output, capped
    duration: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass(frozen=True)
class BackendStatus:
    """What ``lab doctor`` shows for a backend: usable or not, and the fix when not."""

    name: str
    usable: bool
    detail: str
    fix: str | None = None
    facts: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MavenRequest:
    """One ``./mvnw ARGS`` run asked of a backend, as ``MavenBackend.run`` received it."""

    project_dir: Path
    args: tuple[str, ...]
    on_output: OutputSink | None = None
    timeout: float | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # more environment, for the run only

    @property
    def argv(self) -> tuple[str, ...]:
        return ("./mvnw", *self.args)


class MavenBackend(ABC):
    """A place Maven runs: each backend says how usable it is and runs one request."""

    name: str

    @abstractmethod
    def status(self) -> BackendStatus: ...

    def run(
        self,
        project_dir: Path,
        args: Sequence[str],
        *,
        on_output: OutputSink | None = None,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> MavenRun:
        """Run ``./mvnw ARGS`` for the project; stream lines to ``on_output`` as they come."""
        return self._run(MavenRequest(project_dir, tuple(args), on_output, timeout, env or {}))

    @abstractmethod
    def _run(self, request: MavenRequest) -> MavenRun: ...
