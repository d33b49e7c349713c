"""Plugins' hooks, loaded the way the pinned client (2.1.332) loads them.

A plugin is a folder with ``.claude-plugin/plugin.json``; its hooks are in ``hooks/hooks.json``
(``{"description": ..., "hooks": {EVENT: [matcher groups]}}``, the settings' hook format).
Observed on 2.1.332 with ``--plugin-dir``:
- a plugin's hooks run beside the settings' hooks of the same event, in parallel, and an
  identical command in both runs twice (the client dedupes a command within one source only);
- ``${CLAUDE_PLUGIN_ROOT}`` in a plugin's command is replaced by the plugin folder before the
  shell sees it (the client's own messages name the filled-in command), and the hook gets
  ``CLAUDE_PLUGIN_ROOT`` in its environment too;
- in settings.json such a command is not run at all: the client answers for it with exit 1
  and ``Failed to run: <its message> Command: <the command>``, a non-blocking error;
- ``--plugin-dir`` takes a folder without ``.claude-plugin/plugin.json`` too (named after the
  folder); a hooks.json with a guard event at its top level (outside ``"hooks"``), a hook of an
  unknown type or an invalid entry (a timeout that is no number) loads nothing of the plugin,
  and the client names it in its init message's ``plugin_errors``; an unknown event is ignored.

The plugins a project brings: the project itself when it is a plugin (Hook Lab hands it to the
client with ``--plugin-dir``), and those its ``.claude/settings.json`` enables
(``enabledPlugins``) from a directory marketplace it declares (``extraKnownMarketplaces``),
which a trusted client loads by itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.claude.settings import HOOK_TYPES, HOOKS, MatcherGroup, Settings, parse_hooks
from harness.errors import ConfigError, HarnessError
from harness.schema import check_value
from harness.userfiles import json_object, read_json

MANIFEST = Path(".claude-plugin") / "plugin.json"
PLUGIN_HOOKS = Path("hooks") / "hooks.json"
MARKETPLACE = Path(".claude-plugin") / "marketplace.json"
ROOT_VARIABLE = "${CLAUDE_PLUGIN_ROOT}"
# ${CLAUDE_PLUGIN_ROOT} or $CLAUDE_PLUGIN_ROOT; ${CLAUDE_PLUGIN_ROOT:-.} has a fallback and runs.
ROOT_REFERENCE = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b")
NOT_A_PLUGIN_SAID = (
    "Hook command references ${CLAUDE_PLUGIN_ROOT} but the hook is not associated with a "
    "plugin. This variable is only available in hooks defined in a plugin's hooks/hooks.json "
    "file, not in settings.json."
)


def not_run_said(command: str) -> str:
    """The client's whole answer (its hook_response stderr) for a settings hook naming
    ``${CLAUDE_PLUGIN_ROOT}``, which it does not run."""
    return f"Failed to run: {NOT_A_PLUGIN_SAID} Command: {command}"


def is_plugin(folder: Path) -> bool:
    return (folder / MANIFEST).is_file()


def plugin_hooks(folder: Path) -> Settings:
    """The hooks of the plugin in ``folder`` as the client's ``--plugin-dir`` loads them: each
    command with ``${CLAUDE_PLUGIN_ROOT}`` filled in, and run with it in the environment. A
    plugin without ``hooks/hooks.json`` brings none. A hooks.json the client cannot load
    brings none either (the client then loads nothing of the plugin): its warning says why,
    in the client's words where they are known."""
    folder = folder.resolve()
    if not folder.is_dir():
        raise HarnessError(
            f"{folder} is not a folder",
            fix="give --plugin-dir the plugin's own folder (the one holding hooks/hooks.json)",
        )
    path = folder / PLUGIN_HOOKS
    if not path.is_file():
        return Settings()
    where = str(path)
    try:
        data = read_json(path, where)
        problem = _not_loaded(data)
        if problem is None:
            assert isinstance(data, dict)  # _not_loaded refused anything else
            warnings: list[str] = []
            raw = check_value(data.get("hooks", {}), HOOKS, path=where, where="hooks")
            hooks = parse_hooks(raw, where, warnings)
            return in_plugin(Settings(hooks, files=(where,), warnings=tuple(warnings)), folder)
    except ConfigError as exc:
        problem = f"{exc.field}: {exc.problem}" if exc.field else exc.problem
    return Settings(files=(where,), warnings=(f"{where}: Failed to load plugin: {problem}",))


# What the client (2.1.332) refuses a whole plugin for, in its words: one of these events at
# the top level of hooks.json, outside "hooks" (observed; other names there it ignores).
_GUARD_EVENTS = ("PreToolUse", "PermissionRequest", "PreSkillShellCommand")


def _not_loaded(data: object) -> str | None:
    """Why the client loads none of this hooks.json, or None. Observed on 2.1.332: a hook of
    an unknown type fails the whole plugin (in settings.json only the entry is dropped)."""
    if not isinstance(data, dict):
        return "must hold a JSON object"
    if any(data.get(name) for name in _GUARD_EVENTS):  # an empty list there is let through
        return (
            "hooks.json declares " + "/".join(_GUARD_EVENTS) + " at its top level, outside the "
            '"hooks" object'
        )
    hooks = data.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for gi, group in enumerate(groups if isinstance(groups, list) else ()):
            entries = group.get("hooks") if isinstance(group, dict) else None
            for hi, entry in enumerate(entries if isinstance(entries, list) else ()):
                kind = entry.get("type") if isinstance(entry, dict) else None
                if isinstance(kind, str) and kind not in HOOK_TYPES:
                    return f'hooks.{event}.{gi}.hooks.{hi}: Unknown hook type "{kind}"'
    return None


def in_plugin(settings: Settings, folder: Path) -> Settings:
    """``settings``' hooks as hooks of the plugin in ``folder``: ``${CLAUDE_PLUGIN_ROOT}``
    filled in, and set when they run."""
    root = str(folder.resolve())
    hooks = {
        event: tuple(_in_plugin(g, root) for g in groups)
        for event, groups in settings.hooks.items()
    }
    return replace(settings, hooks=hooks)


def plugin_holding(path: Path, folders: Iterable[Path]) -> Path | None:
    """The plugin folder among ``folders`` that ``path`` lies in (the innermost), or None."""
    path = path.resolve()
    holding = [f for f in folders if path.is_relative_to(f.resolve())]
    return max(holding, key=lambda f: len(f.parts)) if holding else None


def _in_plugin(group: MatcherGroup, root: str) -> MatcherGroup:
    def fill(text: str) -> str:
        return text.replace(ROOT_VARIABLE, root)

    hooks = tuple(
        replace(
            hook,
            command=fill(hook.command),
            args=None if hook.args is None else tuple(fill(a) for a in hook.args),
            plugin_root=root,
        )
        for hook in group.hooks
    )
    return MatcherGroup(group.matcher, hooks)


def _settings_json(project: Path) -> dict[str, Any]:
    try:
        data = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _marketplace_folders(project: Path, declared: object) -> dict[str, Path]:
    """The project's directory marketplaces inside it, by name."""
    found: dict[str, Path] = {}
    if not isinstance(declared, dict):
        return found
    for name, entry in declared.items():
        source = entry.get("source") if isinstance(entry, dict) else None
        if not isinstance(source, dict) or source.get("source") != "directory":
            continue
        where = source.get("path")
        if isinstance(where, str) and where:
            folder = (project / where).resolve()
            if folder.is_relative_to(project.resolve()):
                found[str(name)] = folder
    return found


def enabled_marketplace_plugins(project: Path) -> list[Path]:
    """The plugin folders the project's settings enable from a marketplace in the project."""
    settings = _settings_json(project)
    markets = _marketplace_folders(project, settings.get("extraKnownMarketplaces"))
    enabled = settings.get("enabledPlugins")
    folders: list[Path] = []
    for entry, on in enabled.items() if isinstance(enabled, dict) else ():
        name, _, market = str(entry).partition("@")
        if on is not True or market not in markets:
            continue
        listing = json_object(markets[market] / MARKETPLACE)
        for plugin in listing.get("plugins", []):
            if isinstance(plugin, dict) and plugin.get("name") == name:
                source = plugin.get("source")
                if isinstance(source, str) and is_plugin(markets[market] / source):
                    folders.append((markets[market] / source).resolve())
    return folders


def flag_folders(project: Path, given: Iterable[Path] = ()) -> list[Path]:
    """The folders to load as ``--plugin-dir`` does: the ones given, and the project itself
    when it is a plugin (the client loads a folder as a plugin only when told to)."""
    folders = [Path(folder).resolve() for folder in given]
    project = project.resolve()
    if is_plugin(project) and project not in folders:
        folders.append(project)
    return folders


def project_plugins(project: Path, given: Sequence[Path] = ()) -> list[Path]:
    """Every plugin folder whose hooks a session in ``project`` runs, once each."""
    folders: list[Path] = []
    for folder in [*flag_folders(project, given), *enabled_marketplace_plugins(project)]:
        if folder not in folders:
            folders.append(folder)
    return folders


def with_plugins(settings: Settings, project: Path, given: Sequence[Path] = ()) -> Settings:
    """``settings`` with the hooks of every plugin a session in ``project`` loads, after the
    settings' own (they run in parallel: the order only orders the report)."""
    for folder in project_plugins(project, given):
        settings = settings.merged(plugin_hooks(folder))
    return settings
