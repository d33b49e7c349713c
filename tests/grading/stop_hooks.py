"""Builders for grading tests: a tiny project whose artefact ``build/app.txt`` is built from
``src/app.src``, and bash Stop hooks for it — one correct, the others each wrong in one way."""

from __future__ import annotations

import os
import stat
from pathlib import Path

BREAK = "rm -rf build"
FIX = "mkdir -p build && cp src/app.src build/app.txt"
STALE = "touch -d '1 hour ago' build/app.txt"

_HEAD = """#!/usr/bin/env bash
# Claim: build/app.txt is built from src/app.src after its last change.
set -u
input=$(cat)
active=$(printf '%s' "$input" | jq -r '.stop_hook_active // false' 2>/dev/null || echo false)
cd "$CLAUDE_PROJECT_DIR" || exit 0
"""

_BLOCK = """block() {
  if [ "$active" = "true" ]; then
    printf '{"systemMessage": "Stop check still fails: %s. CI stays required."}\\n' "$1"
    exit 0
  fi
  echo "Stop check blocked: $1" >&2
  exit 2
}
"""

_CHECKS = """[ -s build/app.txt ] || block "build/app.txt is missing: run make-app"
[ build/app.txt -nt src/app.src ] || block "build/app.txt is older than src/app.src: rebuild"
echo "Stop check passed: build/app.txt is fresh"
exit 0
"""

CORRECT = _HEAD + _BLOCK + _CHECKS

# Each wrong hook differs from CORRECT in one place; the value is the set of checks it fails.
WRONG: dict[str, tuple[str, set[str]]] = {
    "exit-1": (
        CORRECT.replace("  exit 2\n", "  exit 1\n"),
        {"blocks-when-broken", "session-shows-reason"},
    ),
    "set-e-crash": (
        _HEAD.replace("set -u", "set -eu")
        + _BLOCK
        + """test -s build/app.txt
[ build/app.txt -nt src/app.src ] || block "build/app.txt is older than src/app.src"
exit 0
""",
        {"blocks-when-broken", "reason-on-stderr", "session-shows-reason", "lets-go-when-active"},
    ),
    "ignores-active": (
        CORRECT.replace('if [ "$active" = "true" ]', "if false"),
        {"lets-go-when-active"},
    ),
    "reason-on-stdout": (
        CORRECT.replace('echo "Stop check blocked: $1" >&2', 'echo "Stop check blocked: $1"'),
        {"reason-on-stderr", "session-shows-reason"},
    ),
    "never-blocks": (
        _HEAD + 'echo "Stop check: build/app.txt looks fine"\nexit 0\n',
        {"blocks-when-broken", "session-shows-reason"},
    ),
    "too-slow": (
        CORRECT.replace(
            'cd "$CLAUDE_PROJECT_DIR" || exit 0\n', 'cd "$CLAUDE_PROJECT_DIR" || exit 0\nsleep 3\n'
        ),
        {"within-timeout"},
    ),
    "leaks-env": (
        CORRECT.replace(
            'echo "Stop check blocked: $1" >&2',
            'echo "Stop check blocked: $1 (debug: $(env | grep KEY))" >&2',
        ),
        {"no-leak"},
    ),
    "trusts-stale": (
        CORRECT.replace(
            '[ build/app.txt -nt src/app.src ] || block "build/app.txt is older than src/app.src: '
            'rebuild"\n',
            "",
        ),
        {"blocks-on-stale"},
    ),
    "whole-log": (
        CORRECT.replace(
            'echo "Stop check blocked: $1" >&2',
            'echo "Stop check blocked: $1" >&2; cat build.log >&2',
        ),
        {"reason-on-stderr"},
    ),
}


def make_project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.src").write_text("print('hello')\n")
    (root / "build.log").write_text("".join(f"[INFO] compiling unit {i}\n" for i in range(60)))
    (root / "build").mkdir()
    (root / "build" / "app.txt").write_text("print('hello')\n")
    return root


def write_hook(root: Path, text: str, rel: str = "scripts/check-before-stop.sh") -> Path:
    __tracebackhide__ = True  # a failure points at the test that called it
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    assert os.access(path, os.X_OK)
    return path
