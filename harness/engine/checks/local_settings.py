"""Hooks a failing session ran that ``.claude/settings.local.json`` registers, named with their
place: a check that reads ``.claude/settings.json`` finds nothing there, and the person looks
in the wrong file (walk h, Lab 10 step 3: the prompt hook moved to the local file; the file
check said "as expected" and the failure never named where the hook was)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from harness.claude.settings import PROMPT_TYPE
from harness.engine.stepview import StepView

LOCAL = ".claude/settings.local.json"


def _registered(data: object) -> Iterator[tuple[str, str]]:
    """(where, what) of each hook in a settings document: ``hooks.Stop[0].hooks[1]`` and the
    command, or the prompt of a prompt hook, as a run names it."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for event, groups in (hooks or {}).items() if isinstance(hooks, dict) else ():
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            entries = group.get("hooks") if isinstance(group, dict) else None
            for h, hook in enumerate(entries if isinstance(entries, list) else ()):
                what = hook.get("command") or hook.get("prompt") if isinstance(hook, dict) else ""
                if isinstance(what, str) and what:
                    yield f"hooks.{event}[{g}].hooks[{h}]", what


def local_hooks_that_held(workspace: Path, steps: Sequence[StepView]) -> list[str]:
    """One line per failing step a hook of the local settings held (exit 2), saying where."""
    try:
        data: Any = json.loads((workspace / LOCAL).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    places = dict((what, where) for where, what in _registered(data))
    lines = []
    for entry in steps:
        held = [h for h in entry.hooks if h.exit_code == 2 and h.command in places]
        for hook in held if entry.problems else ():
            kind = "prompt hook" if hook.kind == PROMPT_TYPE else "hook"
            lines.append(
                f"{entry.label} ({entry.do}) was held by a {kind} that {LOCAL} "
                f"registers ({places[hook.command]}), not .claude/settings.json"
            )
    return lines
