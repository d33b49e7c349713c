"""Loading and validating ``.claude/settings.json`` and ``.claude/settings.local.json``.

The two files are merged the way Claude Code layers them: hook lists are concatenated per event
(project file first), permission rules are joined. Every problem is a ``ConfigError`` naming the
file, the field path (``hooks.PreToolUse[0].hooks[1].timeout``) and the fix.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.events import KNOWN_EVENTS, Event
from harness.claude.matchers import matches, regex_error
from harness.claude.permissions import PermissionRule, Permissions, parse_rule, rule_matches
from harness.errors import ConfigError, HarnessError
from harness.schema import Field
from harness.userfiles import read_json

DEFAULT_TIMEOUT = 600.0
# Events whose hooks the client gives a shorter default (observed on the pinned client: a
# UserPromptSubmit hook without "timeout" is cancelled after 30 s and decides nothing).
EVENT_DEFAULT_TIMEOUTS = {"UserPromptSubmit": 30.0}
SETTINGS_FILES = (".claude/settings.json", ".claude/settings.local.json")


@dataclass(frozen=True)
class HookCondition:
    """A handler's ``if``: a permission rule (``Bash(git commit:*)``, ``Edit(docs/**)``) the
    tool call must match for the hook to run."""

    rule: PermissionRule

    def covers(self, tool_name: str, tool_input: dict[str, Any], project_dir: Path) -> bool:
        return rule_matches(self.rule, tool_name, tool_input, project_dir)


@dataclass(frozen=True)
class HookCommand:
    """One ``{"type": "command", ...}`` entry, with where it came from."""

    command: str
    timeout: float = DEFAULT_TIMEOUT
    source: str = ""  # e.g. ".claude/settings.json: hooks.Stop[0].hooks[0]"
    run_async: bool = False  # "async": true — runs in the background, decides nothing
    condition: HookCondition | None = None
    # "args": [...] — the exec form: ``command`` is started directly with these arguments, no
    # shell, so nothing in either is expanded ($CLAUDE_PROJECT_DIR included).
    args: tuple[str, ...] | None = None

    @property
    def label(self) -> str:
        """How the client names the hook in messages: the command, then its args, by spaces."""
        return " ".join((self.command, *self.args)) if self.args is not None else self.command


@dataclass(frozen=True)
class MatcherGroup:
    matcher: str | None
    hooks: tuple[HookCommand, ...]


@dataclass(frozen=True)
class Settings:
    hooks: Mapping[str, tuple[MatcherGroup, ...]] = field(default_factory=dict)
    permissions: Permissions = field(default_factory=Permissions)
    disable_all_hooks: bool = False
    files: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # what Claude Code accepts but ignores, e.g. unknown events

    def commands_for(self, event: Event, match_value: str | None) -> list[HookCommand]:
        """Hooks registered for ``event`` whose matcher accepts ``match_value`` (None: the event
        ignores matchers), identical command strings once, in settings order."""
        if self.disable_all_hooks:
            return []
        seen: set[str] = set()
        found: list[HookCommand] = []
        for group in self.hooks.get(event.value, ()):
            if match_value is not None and not matches(group.matcher, match_value):
                continue
            for hook in group.hooks:
                if hook.label not in seen:
                    seen.add(hook.label)
                    found.append(hook)
        return found

    def merged(self, other: Settings) -> Settings:
        hooks = {k: tuple(v) for k, v in self.hooks.items()}
        for event, groups in other.hooks.items():
            hooks[event] = hooks.get(event, ()) + groups
        return Settings(
            hooks,
            self.permissions.merged(other.permissions),
            self.disable_all_hooks or other.disable_all_hooks,
            self.files + other.files,
            self.warnings + other.warnings,
        )


_TIMEOUT = Field("timeout", float, positive=True, doc="seconds before the hook is killed")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# Over 60 lines on purpose: settings are the client's format, which tolerates unknown keys,
# so they keep their own reader (not harness.schema's, which refuses them); each check is
# one rule of that format, named by its field path.
def _parse_hooks(
    data: object, where: str, warnings: list[str]
) -> dict[str, tuple[MatcherGroup, ...]]:
    if not isinstance(data, dict):
        raise ConfigError(
            where,
            "hooks",
            "must be an object mapping event names to lists",
            fix='write "hooks": {"Stop": [{"hooks": [...]}]}',
        )
    # Claude Code (2.1.332) loads a file with an unknown event name and runs the other hooks;
    # the unknown ones never run. A typo ("stop", "PreToolUSE") is worth a warning.
    for name in sorted(set(data) - KNOWN_EVENTS):
        close = difflib.get_close_matches(name, sorted(KNOWN_EVENTS), n=1, cutoff=0.6)
        close += [e for e in KNOWN_EVENTS if e.lower() == str(name).lower()]
        hint = f"; did you mean {close[-1]!r}?" if close else ""
        warnings.append(
            f"{where}: hooks.{name}: not an event Claude Code knows; its hooks never run{hint}"
        )
    data = {k: v for k, v in data.items() if k in KNOWN_EVENTS}
    result: dict[str, tuple[MatcherGroup, ...]] = {}
    for event, groups in data.items():
        path = f"hooks.{event}"
        if not isinstance(groups, list):
            raise ConfigError(
                where,
                path,
                "must be a list of matcher groups",
                fix=f'write "{event}": [{{"matcher": "...", "hooks": [...]}}]',
            )
        parsed: list[MatcherGroup] = []
        for gi, group in enumerate(groups):
            gpath = f"{path}[{gi}]"
            if not isinstance(group, dict):
                raise ConfigError(
                    where,
                    gpath,
                    'must be an object with "hooks"',
                    fix='write {"matcher": "Edit|Write", "hooks": [...]}',
                )
            matcher = group.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                raise ConfigError(
                    where,
                    f"{gpath}.matcher",
                    "must be a string",
                    fix='use a name list like "Edit|Write" or a regex like "mcp__.*"',
                )
            if isinstance(matcher, str):
                problem = regex_error(matcher)
                if problem:
                    raise ConfigError(
                        where,
                        f"{gpath}.matcher",
                        f"is not a valid regular expression ({problem})",
                        fix="escape special characters or use a plain name list",
                    )
            entries = group.get("hooks")
            if not isinstance(entries, list) or not entries:
                raise ConfigError(
                    where,
                    f"{gpath}.hooks",
                    "must be a non-empty list",
                    fix='add {"type": "command", "command": "..."}',
                )
            commands: list[HookCommand] = []
            for hi, entry in enumerate(entries):
                hpath = f"{gpath}.hooks[{hi}]"
                default = EVENT_DEFAULT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)
                commands.append(_parse_hook(entry, where, hpath, default))
            parsed.append(MatcherGroup(matcher, tuple(commands)))
        result[event] = tuple(parsed)
    return result


def _parse_hook(
    entry: object, where: str, hpath: str, default_timeout: float = DEFAULT_TIMEOUT
) -> HookCommand:
    if not isinstance(entry, dict):
        raise ConfigError(
            where, hpath, "must be an object", fix='write {"type": "command", "command": "..."}'
        )
    kind = entry.get("type")
    if kind != "command":
        problem = "is missing" if kind is None else f"is {kind!r}, which the simulator does not run"
        raise ConfigError(
            where, f"{hpath}.type", problem, fix='use "type": "command" with a shell command'
        )
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(
            where,
            f"{hpath}.command",
            "must be a non-empty string",
            fix='e.g. "command": "\\"$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh\\""',
        )
    timeout = entry.get("timeout", default_timeout)
    if not _is_number(timeout) or _TIMEOUT.number_problem(timeout):
        # JSON as Python reads it takes NaN and Infinity too: neither is a timeout.
        raise ConfigError(
            where,
            f"{hpath}.timeout",
            "must be a positive number",
            fix='give the timeout in seconds, e.g. "timeout": 10',
        )
    run_async = entry.get("async", False)
    if not isinstance(run_async, bool):
        raise ConfigError(
            where, f"{hpath}.async", "must be true or false", fix='write "async": true or drop it'
        )
    condition = None
    if "if" in entry:
        rule = parse_rule(entry["if"]) if isinstance(entry["if"], str) else None
        if rule is None:
            raise ConfigError(
                where,
                f"{hpath}.if",
                f"{entry['if']!r} is not a permission rule",
                fix='write a rule the call must match, e.g. "if": "Bash(git commit:*)"',
            )
        condition = HookCondition(rule)
    args = entry.get("args")
    if args is not None and not (
        isinstance(args, list) and all(isinstance(arg, str) for arg in args)
    ):
        raise ConfigError(
            where,
            f"{hpath}.args",
            "must be a list of strings",
            fix='e.g. "args": ["--strict", "docs"] (each string is one argument, no shell)',
        )
    return HookCommand(
        command,
        float(timeout),
        f"{where}: {hpath}",
        run_async,
        condition,
        tuple(args) if args is not None else None,
    )


def _parse_rules(data: object, where: str, name: str) -> tuple[PermissionRule, ...]:
    fpath = f"permissions.{name}"
    if not isinstance(data, list):
        raise ConfigError(
            where,
            fpath,
            "must be a list of rules",
            fix=f'write "{name}": ["Edit(target/**)", "Bash(git status)"]',
        )
    rules: list[PermissionRule] = []
    for i, text in enumerate(data):
        rule = parse_rule(text) if isinstance(text, str) else None
        if rule is None:
            raise ConfigError(
                where,
                f"{fpath}[{i}]",
                f"{text!r} is not a permission rule",
                fix='write "Tool" or "Tool(specifier)", e.g. "Bash(rm -rf:*)"',
            )
        rules.append(rule)
    return tuple(rules)


def parse_settings(data: object, where: str) -> Settings:
    """Validate one decoded settings document; ``where`` names it in errors."""
    if not isinstance(data, dict):
        raise ConfigError(where, "", "must hold a JSON object", fix='start the file with "{"')
    warnings: list[str] = []
    hooks = _parse_hooks(data["hooks"], where, warnings) if "hooks" in data else {}
    perms = Permissions()
    if "permissions" in data:
        raw = data["permissions"]
        if not isinstance(raw, dict):
            raise ConfigError(
                where,
                "permissions",
                "must be an object",
                fix='write "permissions": {"allow": [...], "deny": [...]}',
            )
        perms = Permissions(
            *(_parse_rules(raw[k], where, k) if k in raw else () for k in ("allow", "ask", "deny"))
        )
    disable = data.get("disableAllHooks", False)
    if not isinstance(disable, bool):
        raise ConfigError(
            where, "disableAllHooks", "must be true or false", fix="remove it or write true/false"
        )
    return Settings(hooks, perms, disable, (where,), tuple(warnings))


def load_settings_file(path: Path, label: str | None = None) -> Settings:
    where = label or str(path)
    return parse_settings(read_json(path, where), where)


def load_settings(project_dir: Path) -> Settings:
    """The merged project settings. ``.claude/settings.json`` is required; the local file is not."""
    main_file = project_dir / SETTINGS_FILES[0]
    if not main_file.is_file():
        raise HarnessError(
            f"{main_file} does not exist",
            fix="run inside a workspace whose .claude/settings.json registers hooks",
        )
    settings = load_settings_file(main_file, SETTINGS_FILES[0])
    local = project_dir / SETTINGS_FILES[1]
    if local.is_file():
        settings = settings.merged(load_settings_file(local, SETTINGS_FILES[1]))
    return settings


def find_project_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` holding ``.claude/settings.json``."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / SETTINGS_FILES[0]).is_file():
            return candidate
    raise HarnessError(
        f"no .claude/settings.json in {start} or any parent directory",
        fix="cd into the workspace (the project that holds .claude/settings.json)",
    )
