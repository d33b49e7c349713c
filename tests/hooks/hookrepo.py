"""Builders for the hook tests: throwaway git projects that hold the fixture's real hooks."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.builders import REPO_ROOT, git
from tests.builders import hook_event as event

FIXTURE = REPO_ROOT / "petclinic_fixture"
FIXTURE_CLAUDE = FIXTURE / ".claude"
SENSOR_COMMAND = "./mvnw -q test -Dgroups=sensor"
SMOKE_COMMAND = "./.claude/hooks/smoke.sh"
# The fixture's six hook scripts (.claude/hooks/).
HOOKS = (
    "session-start.sh",
    "guard-spec-status.sh",
    "record-sensor-run.sh",
    "check-spec-status.sh",
    "record-coverage-check.sh",
    "require-sensors.sh",
)
SRC_FILE = "src/main/java/ai/unifiedprocess/petclinic/owner/OwnerService.java"


def commit_all(root: Path, message: str = "fixture") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def init_repo(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    commit_all(root)


def project_with_hooks(tmp_path: Path) -> Path:
    """A small committed project: the fixture's .claude/ plus a pom, a source file, a spec."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURE_CLAUDE, root / ".claude")
    (root / SRC_FILE).parent.mkdir(parents=True)
    (root / SRC_FILE).write_text(
        "package ai.unifiedprocess.petclinic.owner;\nclass OwnerService {}\n"
    )
    (root / "pom.xml").write_text("<project/>\n")
    spec = root / "docs/use_cases/UC-005-add-visit.md"
    spec.parent.mkdir(parents=True)
    spec.write_text("# Use Case: Add visit\n\n**Use Case ID:** UC-005\n**Status:** Approved\n")
    (root / ".gitignore").write_text("target/\n")
    init_repo(root)
    return root


def clean_env(**extra: str) -> dict[str, str]:
    """The test process's environment without a CLAUDE_PROJECT_DIR of its own."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    env.update(extra)
    return env


STDIN_KINDS = ("socket", "pipe", "file", "closed", "terminal")


def run_hook(
    root: Path,
    script: str,
    payload: dict[str, Any],
    env: dict[str, str] | None = None,
    *,
    stdin_kind: str = "socket",
) -> subprocess.CompletedProcess[str]:
    """Run one hook script of the project with the JSON on stdin.

    By default the JSON comes over a Unix socket, as the real Claude Code hands it over; a pipe,
    a regular file, a closed stdin or a terminal can be chosen instead.
    """
    return run_with_stdin(
        [str(root / ".claude" / "hooks" / script)],
        json.dumps(payload),
        stdin_kind,
        cwd=root,
        env=env or clean_env(CLAUDE_PROJECT_DIR=str(root)),
    )


def run_with_stdin(
    argv: list[str], text: str, stdin_kind: str, *, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with ``text`` on stdin handed over as ``stdin_kind`` (see STDIN_KINDS)."""
    data = text.encode()
    common: dict[str, Any] = {"cwd": cwd, "env": env, "capture_output": True, "timeout": 60}
    if stdin_kind == "pipe":
        done = subprocess.run(argv, input=data, **common)
    elif stdin_kind == "file":
        with tempfile.TemporaryFile() as handle:
            handle.write(data)
            handle.seek(0)
            done = subprocess.run(argv, stdin=handle, **common)
    elif stdin_kind == "closed":
        # close_fds keeps 0-2, so close fd 0 in the child itself.
        done = subprocess.run(argv, preexec_fn=lambda: os.close(0), **common)
    elif stdin_kind == "terminal":
        primary, secondary = pty.openpty()
        try:
            done = subprocess.run(argv, stdin=secondary, **common)
        finally:
            os.close(primary)
            os.close(secondary)
    elif stdin_kind == "socket":
        ours, theirs = socket.socketpair()
        with ours, theirs:
            proc = subprocess.Popen(
                argv, stdin=theirs, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env
            )
            theirs.close()
            with contextlib.suppress(OSError):
                ours.sendall(data)
                ours.shutdown(socket.SHUT_WR)
            out, err = proc.communicate(timeout=60)
            done = subprocess.CompletedProcess(argv, proc.returncode, out, err)
    else:
        raise ValueError(f"stdin_kind {stdin_kind!r} is not one of {STDIN_KINDS}")
    return subprocess.CompletedProcess(
        argv, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def start_session(root: Path) -> None:
    __tracebackhide__ = True  # a failure points at the test that called it
    result = run_hook(root, "session-start.sh", event("SessionStart", root, source="startup"))
    assert result.returncode == 0, result.stderr


def stop(root: Path, active: bool = False) -> subprocess.CompletedProcess[str]:
    return run_hook(
        root,
        "require-sensors.sh",
        event("Stop", root, stop_hook_active=active, last_assistant_message="Done."),
    )


def bash_post(root: Path, command: str, stdout: str = "") -> subprocess.CompletedProcess[str]:
    return run_hook(
        root,
        "record-sensor-run.sh",
        event(
            "PostToolUse",
            root,
            tool_name="Bash",
            tool_use_id="t1",
            tool_input={"command": command, "description": "run", "run_in_background": False},
            tool_response={"stdout": stdout, "stderr": "", "interrupted": False},
        ),
    )


def run_smoke(root: Path, *groups: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    """Run the project's smoke.sh (all check groups unless some are named)."""
    return subprocess.run(
        [str(root / ".claude" / "hooks" / "smoke.sh"), *groups],
        cwd=root,
        env=clean_env(**extra_env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def git_dir(root: Path) -> Path:
    return Path(git(root, "rev-parse", "--absolute-git-dir").strip())
