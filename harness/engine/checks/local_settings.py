"""Hooks a failing session ran that ``.claude/settings.local.json`` or a plugin's
``hooks/hooks.json`` registers, named with their place: a check that reads
``.claude/settings.json`` finds nothing there, and the person looks in the wrong file (walk h,
Lab 10 step 3: the prompt hook moved to the local file; walk n, Labs 08 and 10: a hook moved
into the plugin; the file check said "as expected" and the failure never named where it was)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from harness.claude.plugins import ROOT_REFERENCE
from harness.claude.settings import PROMPT_TYPE
from harness.engine.stepview import StepView

LOCAL = ".claude/settings.local.json"
SHARED = ".claude/settings.json"
# Why a step wants its entry in one settings file and not another the client reads too.
_WHY = {
    SHARED: "the project's file, committed and shared with your team",
    LOCAL: "for you alone on this machine, not committed",
}


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


def _outside_settings(workspace: Path) -> Iterator[tuple[str, str, str]]:
    """(file, where, what) of each hook registered outside .claude/settings.json: the local
    settings, and each plugin's hooks/hooks.json under .claude/plugins/ (walk n: a hook moved
    there was never named), a plugin's command with ``${CLAUDE_PLUGIN_ROOT}`` filled in as the
    client fills it in."""
    files = [workspace / LOCAL]
    plugins = workspace / ".claude" / "plugins"
    if plugins.is_dir():
        files += sorted(plugins.glob("*/hooks/hooks.json"))
    for path in files:
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        name = path.relative_to(workspace).as_posix()
        folder = str(path.parent.parent)
        for where, what in _registered(data):
            if path.name == "hooks.json":
                what = ROOT_REFERENCE.sub(folder.replace("\\", "\\\\"), what)
            yield name, where, what


def _same_hook(ran: str, registered: str) -> bool:
    """The command a run names is the registered one (a plugin's, filled in with a plugin
    folder that may be a copy's: the check runs in a sandbox)."""
    if ran == registered:
        return True
    tail = registered.split("/.claude/plugins/", 1)
    return len(tail) == 2 and ran.endswith("/.claude/plugins/" + tail[1])


def hooks_elsewhere_that_held(
    workspace: Path, steps: Sequence[StepView]
) -> list[tuple[str, str, str]]:
    """(file, where, line) per failing step a hook registered outside .claude/settings.json
    held (exit 2): the file, its place in it, and a line saying so."""
    registered = list(_outside_settings(workspace))
    held: list[tuple[str, str, str]] = []
    for entry in steps:
        for hook in (h for h in entry.hooks if h.exit_code == 2) if entry.problems else ():
            found = next((r for r in registered if _same_hook(hook.command, r[2])), None)
            if found is None:
                continue
            name, where, _ = found
            kind = "prompt hook" if hook.kind == PROMPT_TYPE else "hook"
            held.append(
                (
                    name,
                    where,
                    f"{entry.label} ({entry.do}) was held by a {kind} that {name} registers "
                    f"({where}), not .claude/settings.json",
                )
            )
    return held


def local_hooks_that_held(workspace: Path, steps: Sequence[StepView]) -> list[str]:
    """One line per failing step a hook outside .claude/settings.json held, saying where."""
    return [line for _, _, line in hooks_elsewhere_that_held(workspace, steps)]


def found_elsewhere(
    workspace: Path, rel: str, user: Path, has: Callable[[str], bool], key: str | None
) -> tuple[str, str] | None:
    """Where a settings check that reads ``rel`` would have found what it looks for (``has``
    of a file's text) in another settings file Claude Code reads: (line, fix), or None. The
    place is the hook entry whose command names ``key`` (walk-r F13: a hook registered in the
    local file was told only "no line with 'check-before-stop'" of .claude/settings.json)."""
    others = [(name, workspace / name) for name in (SHARED, LOCAL) if name != rel]
    others.append(("~/.claude/settings.json", user))
    for name, path in others:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not has(text):
            continue
        try:
            data: Any = json.loads(text)
        except ValueError:
            data = None
        places = [w for w, what in _registered(data) if key and key.lower() in what.lower()]
        place = f" ({places[0]})" if places else ""
        why = _WHY.get(name, "yours alone, read in every project")
        return (
            f"{name} has it{place}: Claude Code runs it from there too, but this step wants it "
            f"in {rel}",
            f"move that entry from {name} into {rel}: the step wants it in {rel}, "
            f"{_WHY.get(rel, 'the file the step names')} ({name} is {why})",
        )
    return None
