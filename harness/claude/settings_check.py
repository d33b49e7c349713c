"""Hooks that would never fire: every settings entry the pinned client ignores or cannot run.

One check for ``lab doctor``, ``lab simulate``, ``lab replay``, ``lab verify-hook`` and the
labs' ``settings`` check. It reads the project's settings files as written (the loader drops
what the client drops, so it cannot see it) and names, each with its file, field path and fix:

- an unknown hook type and an unknown event (the client's Settings Warning, 2.1.332);
- a command hook naming ``${CLAUDE_PLUGIN_ROOT}`` in settings.json (the client does not run it);
- a matcher naming no tool the client has (the client says nothing: the hook just never runs);
- a deny or ask rule that never matches, or names no tool (the client's ⚠ lines after trust);
- a command whose program does not exist or is not executable (``/bin/sh`` exits 127 or 126).

Where the client has words for it, ``said`` holds them as the client prints them (observed on
2.1.332, proved in tests/claude/test_settings_check_client.py).
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.claude.events import KNOWN_EVENTS
from harness.claude.matchers import is_exact, is_match_all, regex_error
from harness.claude.plugins import NOT_A_PLUGIN_SAID, ROOT_REFERENCE
from harness.claude.settings import HOOK_TYPES, SETTINGS_FILES
from harness.claude.tools import CLIENT_TOOLS
from harness.errors import ConfigError, HarnessError
from harness.userfiles import read_json

# The events whose matcher is compared with a tool's name.
TOOL_MATCHED = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
# The tool names a permission rule may name without "matches no tool" (2.1.332 accepts Task,
# Grep and Glob in a rule although it offers none of them; MultiEdit, LS and NotebookRead it
# names as typos).
RULE_TOOLS = CLIENT_TOOLS | {"Task", "Grep", "Glob"}
# The tool names a hook matcher can meet: the tools the client offers (Task: the Agent tool's
# other name, which its init message lists).
MATCHER_TOOLS = CLIENT_TOOLS | {"Task"}
# Rules the client reads for a path only under another tool's name, and that name.
_PATH_RULE_OWNER = {"Write": "Edit", "NotebookEdit": "Edit", "MultiEdit": "Edit", "Glob": "Read"}
_RULE = re.compile(r"^(?P<tool>[^()\s]+)(?:\((?P<spec>.*)\))?$", re.DOTALL)
# /bin/sh's own words, which run every command hook: what it prints before exit 127 and 126.
_SH_BUILTINS = frozenset(
    {
        *(":", ".", "[", "cd", "command", "echo", "eval", "exec", "exit", "export", "false"),
        *("printf", "read", "set", "shift", "test", "trap", "true", "type", "unset", "wait"),
        *("if", "for", "while", "case", "{", "(", "!"),
    }
)
_PROJECT_VAR = re.compile(r"\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b")
_PLUGIN_ROOT = ROOT_REFERENCE
PLUGIN_ROOT_SAID = NOT_A_PLUGIN_SAID


@dataclass(frozen=True)
class SettingsWarning:
    """One entry the pinned client ignores or cannot run. ``client`` is True when ``said`` is
    the client's own words."""

    file: str  # ".claude/settings.json"
    path: str  # "hooks.Stop[0].hooks[1].type"
    said: str
    fix: str
    client: bool = False

    @property
    def where(self) -> str:
        return f"{self.file}: {self.path}" if self.path else self.file

    def __str__(self) -> str:
        return f"{self.where}: {self.said}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def check_settings(project_dir: Path, *, unreadable: bool = True) -> tuple[SettingsWarning, ...]:
    """Every entry of the project's settings files the pinned client ignores or cannot run,
    in file order. A file that cannot be read is one warning (its reader's words), unless
    ``unreadable`` is False: a command that loads the settings next names it as its error."""
    found: list[SettingsWarning] = []
    project_dir = project_dir.resolve()
    for name in SETTINGS_FILES:
        path = project_dir / name
        if not path.is_file():
            continue
        try:
            data = read_json(path, name)
        except ConfigError as exc:
            if unreadable:
                said = f"{exc.field}: {exc.problem}" if exc.field else exc.problem
                said += "; Claude Code runs none of this file's hooks"
                found.append(SettingsWarning(name, "", said, exc.fix or ""))
            continue
        except HarnessError as exc:
            if unreadable:
                found.append(SettingsWarning(name, "", exc.message, exc.fix or ""))
            continue
        if isinstance(data, dict):
            found.extend(_file_warnings(data, name, project_dir))
    return tuple(found)


def _file_warnings(data: dict[str, Any], name: str, root: Path) -> Iterator[SettingsWarning]:
    if data.get("disableAllHooks") is True:
        yield SettingsWarning(
            name,
            "disableAllHooks",
            "is true: Claude Code runs no hook at all",
            'remove "disableAllHooks" (or set it to false)',
        )
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        yield from _hook_warnings(hooks, name, root)
    permissions = data.get("permissions")
    if isinstance(permissions, dict):
        for behaviour in ("deny", "ask"):
            rules = permissions.get(behaviour)
            if isinstance(rules, list):
                yield from _rule_warnings(rules, behaviour, name)


def _hook_warnings(hooks: dict[str, Any], name: str, root: Path) -> Iterator[SettingsWarning]:
    for event, groups in hooks.items():
        if event not in KNOWN_EVENTS:
            yield _unknown_event(str(event), name)
            continue
        if not isinstance(groups, list):
            continue  # the loader names it
        for gi, group in enumerate(groups):
            if not isinstance(group, dict):
                continue
            gpath = f"hooks.{event}[{gi}]"
            if event in TOOL_MATCHED:
                yield from _matcher_warnings(group.get("matcher"), name, f"{gpath}.matcher")
            entries = group.get("hooks")
            for hi, entry in enumerate(entries if isinstance(entries, list) else ()):
                if isinstance(entry, dict):
                    yield from _entry_warnings(entry, name, f"{gpath}.hooks[{hi}]", root)


def _unknown_event(event: str, name: str) -> SettingsWarning:
    known = sorted(KNOWN_EVENTS)
    close = [e for e in known if e.lower() == event.lower()]
    close += difflib.get_close_matches(event, known, n=1, cutoff=0.6)
    fix = (
        f'rename it to "{close[0]}"'
        if close
        else "use an event Claude Code knows: PreToolUse, PostToolUse, UserPromptSubmit, "
        "SessionStart, Stop, SubagentStop, … (the client's warning lists them all)"
    )
    said = f'Unknown hook event "{event}" was ignored'
    return SettingsWarning(name, f"hooks.{event}", said, fix, client=True)


def _entry_warnings(
    entry: dict[str, Any], name: str, hpath: str, root: Path
) -> Iterator[SettingsWarning]:
    kind = entry.get("type")
    if isinstance(kind, str) and kind not in HOOK_TYPES:
        close = difflib.get_close_matches(kind, HOOK_TYPES, n=1, cutoff=0.6)
        fix = (
            f'write "type": "{close[0]}"'
            if close
            else "use one of the types Claude Code runs: " + ", ".join(HOOK_TYPES)
        )
        said = f'Unknown hook type "{kind}"; entry ignored'
        yield SettingsWarning(name, f"{hpath}.type", said, fix, client=True)
        return
    command = entry.get("command")
    if kind != "command" or not isinstance(command, str) or not command.strip():
        return
    if _PLUGIN_ROOT.search(command):
        yield SettingsWarning(
            name,
            f"{hpath}.command",
            PLUGIN_ROOT_SAID,
            "load the plugin as a plugin (claude --plugin-dir DIR, or install it), or name the "
            "script from the project: $CLAUDE_PROJECT_DIR/…",
            client=True,
        )
        return
    args = entry.get("args")
    missing = _missing_program(command, root, exec_form=isinstance(args, list))
    if missing is not None:
        yield SettingsWarning(name, f"{hpath}.command", missing[0], missing[1])


def _missing_program(command: str, root: Path, *, exec_form: bool) -> tuple[str, str] | None:
    """What ``/bin/sh`` says when the command's program is not there or cannot run, and the
    fix; None when it is there, or cannot be told before the hook runs (another variable)."""
    try:
        written = command if exec_form else shlex.split(command)[0]
    except (ValueError, IndexError):
        return None  # the shell will say what is wrong with the quoting
    program = _PROJECT_VAR.sub(lambda _: str(root), written)
    if not program or any(c in program for c in "$=`"):
        return None
    not_found = f"{written}: not found (/bin/sh exits 127: the hook runs and checks nothing)"
    if "/" not in program:
        if program in _SH_BUILTINS or shutil.which(program):
            return None
        return not_found, f"install {program}, or name the script by its path"
    path = Path(program) if os.path.isabs(program) else root / program
    if not path.exists():
        return not_found, "create the script there, or correct the path"
    if path.is_file() and os.access(path, os.X_OK):
        return None
    denied = f"{written}: Permission denied (/bin/sh exits 126: the hook checks nothing)"
    if not path.is_file():
        return denied, "name a file, not a folder"
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    return denied, f"chmod +x {shlex.quote(str(shown))}"


def _matcher_warnings(matcher: object, name: str, mpath: str) -> Iterator[SettingsWarning]:
    if not isinstance(matcher, str) or is_match_all(matcher):
        return
    if is_exact(matcher):
        names = [part.strip() for part in re.split(r"[|,]", matcher) if part.strip()]
        unknown = [n for n in names if n not in MATCHER_TOOLS and not n.startswith("mcp__")]
        if not unknown:
            return
        whole = len(unknown) == len(names)
        listed = ", ".join(unknown)
        said = (
            f"{listed}: no tool Claude Code has by "
            + ("that name" if len(unknown) == 1 else "these names")
            + "; the hooks here never run"
            + ("" if whole else " for it")
        )
        yield SettingsWarning(name, mpath, said, _tool_fix(unknown))
        return
    if regex_error(matcher) is not None:
        return  # the loader names it
    pattern = re.compile(matcher)
    if "mcp" in matcher or any(pattern.search(tool) for tool in MATCHER_TOOLS):
        return
    yield SettingsWarning(
        name,
        mpath,
        f"/{matcher}/ matches no tool Claude Code has; the hooks here never run",
        _tool_fix([]),
    )


def _tool_fix(unknown: list[str]) -> str:
    searching = [n for n in unknown if n in ("Grep", "Glob")]
    if searching:
        return (
            f"the pinned client has no {' or '.join(searching)} tool (Claude searches with "
            'Bash): match "Bash" and read tool_input.command'
        )
    return "name a tool the client has: Bash, Edit, Write, Read, WebFetch, WebSearch, Agent, …"


def _rule_warnings(rules: list[Any], behaviour: str, name: str) -> Iterator[SettingsWarning]:
    label = behaviour.capitalize()
    for ri, text in enumerate(rules):
        if not isinstance(text, str):
            continue
        found = _RULE.match(text.strip())
        if found is None:
            continue  # the loader names it
        tool, spec = found.group("tool"), found.group("spec")
        rpath = f"permissions.{behaviour}[{ri}]"
        if tool not in RULE_TOOLS and "_" not in tool:
            said = f"{label} rule {text} matches no tool · check for typos"
            yield SettingsWarning(name, rpath, said, _tool_fix([]), client=True)
        owner = _PATH_RULE_OWNER.get(tool)
        if owner is not None and spec is not None and ":*" not in spec:
            use = f"{owner}({spec})"
            said = f"{label} rule {text} never matches · use {use}"
            covers = (
                "an Edit rule covers every file-editing tool"
                if owner == "Edit"
                else "a Read rule covers every file-reading tool"
            )
            yield SettingsWarning(name, rpath, said, f"write {use}: {covers}", client=True)
