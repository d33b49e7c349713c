"""Set-ups that several benchmarks share (not a benchmark itself: the runner takes bench_*)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.report import Unavailable
from harness.claude.client.install import find_client
from harness.workspace import provision


def require_claude_code() -> None:
    """Skip the benchmark (not fail it) on a machine without the pinned client."""
    if find_client() is None:
        raise Unavailable("Claude Code is not installed (lab doctor --fix installs it)")


@contextmanager
def provisioned_template(prefix: str) -> Iterator[tuple[Path, Path]]:
    """A temporary folder and a workspace provisioned once in it (``template``): benchmarks
    copy it for every run, so provisioning is not timed and every run starts alike."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = Path(tmp)
        yield work, provision(work / "template").workspace.root
