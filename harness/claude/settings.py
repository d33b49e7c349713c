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
from harness.errors import HarnessError
from harness.schema import Field, check_table, check_value
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


# The client's format, declared on harness.schema: its tables let unknown keys through (Claude
# Code does), and every rule keeps the words the client's users know (``must be a positive
# number``), told with the file, the field path (hooks.Stop[0].hooks[1].timeout) and the fix.


def _nonblank(value: str) -> str | None:
    return None if value.strip() else "must be a non-empty string"


def _if_rule(value: str) -> str | None:
    return None if parse_rule(value) else f"{value!r} is not a permission rule"


def _strings(value: list[Any]) -> str | None:
    return None if all(isinstance(arg, str) for arg in value) else "must be a list of strings"


def _regex(value: str) -> str | None:
    problem = regex_error(value)
    return f"is not a valid regular expression ({problem})" if problem else None


def _rule_item(value: object) -> str | None:
    ok = isinstance(value, str) and parse_rule(value) is not None
    return None if ok else f"{value!r} is not a permission rule"


HOOK_FIELDS = (
    Field(
        "type",
        str,
        required=True,
        choices=("command",),
        nullable=True,  # "type": null is the type left out
        missing="is missing",
        problem="is {value!r}, which the simulator does not run",
        fix='use "type": "command" with a shell command',
    ),
    Field(
        "command",
        str,
        required=True,
        missing="must be a non-empty string",
        problem="must be a non-empty string",
        check=_nonblank,
        fix='e.g. "command": "\\"$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh\\""',
    ),
    # JSON as Python reads it takes NaN and Infinity too: neither is a timeout.
    Field(
        "timeout",
        float,
        positive=True,
        problem="must be a positive number",
        fix='give the timeout in seconds, e.g. "timeout": 10',
        doc="seconds before the hook is killed",
    ),
    Field(
        "async",
        bool,
        default=False,
        problem="must be true or false",
        fix='write "async": true or drop it',
    ),
    Field(
        "if",
        str,
        problem="{value!r} is not a permission rule",
        check=_if_rule,
        fix='write a rule the call must match, e.g. "if": "Bash(git commit:*)"',
    ),
    Field(
        "args",
        list,
        nullable=True,
        problem="must be a list of strings",
        check=_strings,
        fix='e.g. "args": ["--strict", "docs"] (each string is one argument, no shell)',
    ),
)
GROUP_FIELDS = (
    Field(
        "matcher",
        str,
        nullable=True,
        problem="must be a string",
        fix='use a name list like "Edit|Write" or a regex like "mcp__.*"',
        check=_regex,
        check_fix="escape special characters or use a plain name list",
    ),
    Field(
        "hooks",
        list,
        required=True,
        missing="must be a non-empty list",
        problem="must be a non-empty list",
        check=lambda entries: None if entries else "must be a non-empty list",
        fix='add {"type": "command", "command": "..."}',
    ),
)
HOOKS = Field(
    "hooks",
    dict,
    problem="must be an object mapping event names to lists",
    fix='write "hooks": {"Stop": [{"hooks": [...]}]}',
)
PERMISSIONS = Field(
    "permissions",
    dict,
    problem="must be an object",
    fix='write "permissions": {"allow": [...], "deny": [...]}',
)
DISABLE_ALL_HOOKS = Field(
    "disableAllHooks",
    bool,
    default=False,
    problem="must be true or false",
    fix="remove it or write true/false",
)
RULE_LISTS = ("allow", "ask", "deny")


def _rules_field(name: str) -> Field:
    return Field(
        name,
        list,
        problem="must be a list of rules",
        fix=f'write "{name}": ["Edit(target/**)", "Bash(git status)"]',
        item_check=_rule_item,
        check_fix='write "Tool" or "Tool(specifier)", e.g. "Bash(rm -rf:*)"',
    )


def _event_field(event: str) -> Field:
    return Field(
        event,
        list,
        problem="must be a list of matcher groups",
        fix=f'write "{event}": [{{"matcher": "...", "hooks": [...]}}]',
    )


def _parse_hooks(
    data: dict[str, Any], where: str, warnings: list[str]
) -> dict[str, tuple[MatcherGroup, ...]]:
    # Claude Code (2.1.332) loads a file with an unknown event name and runs the other hooks;
    # the unknown ones never run. A typo ("stop", "PreToolUSE") is worth a warning.
    for name in sorted(set(data) - KNOWN_EVENTS):
        close = difflib.get_close_matches(name, sorted(KNOWN_EVENTS), n=1, cutoff=0.6)
        close += [e for e in KNOWN_EVENTS if e.lower() == str(name).lower()]
        hint = f"; did you mean {close[-1]!r}?" if close else ""
        warnings.append(
            f"{where}: hooks.{name}: not an event Claude Code knows; its hooks never run{hint}"
        )
    result: dict[str, tuple[MatcherGroup, ...]] = {}
    for event, groups in data.items():
        if event not in KNOWN_EVENTS:
            continue
        path = f"hooks.{event}"
        check_value(groups, _event_field(event), path=where, where=path)
        default = EVENT_DEFAULT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)
        result[event] = tuple(
            _parse_group(group, where, f"{path}[{gi}]", default) for gi, group in enumerate(groups)
        )
    return result


def _parse_group(raw: object, where: str, gpath: str, default_timeout: float) -> MatcherGroup:
    group = check_table(
        raw,
        GROUP_FIELDS,
        path=where,
        where=gpath,
        open_=True,
        problem='must be an object with "hooks"',
        fix='write {"matcher": "Edit|Write", "hooks": [...]}',
    )
    hooks = tuple(
        _parse_hook(entry, where, f"{gpath}.hooks[{hi}]", default_timeout)
        for hi, entry in enumerate(group["hooks"])
    )
    return MatcherGroup(group["matcher"], hooks)


def _parse_hook(
    entry: object, where: str, hpath: str, default_timeout: float = DEFAULT_TIMEOUT
) -> HookCommand:
    hook = check_table(
        entry,
        HOOK_FIELDS,
        path=where,
        where=hpath,
        open_=True,
        problem="must be an object",
        fix='write {"type": "command", "command": "..."}',
    )
    condition = parse_rule(hook["if"]) if hook["if"] is not None else None
    timeout = hook["timeout"] if hook["timeout"] is not None else default_timeout
    return HookCommand(
        hook["command"],
        float(timeout),
        f"{where}: {hpath}",
        hook["async"],
        HookCondition(condition) if condition is not None else None,
        tuple(hook["args"]) if hook["args"] is not None else None,
    )


def _parse_permissions(raw: object, where: str) -> Permissions:
    table = check_table(
        raw,
        [_rules_field(name) for name in RULE_LISTS],
        path=where,
        where="permissions",
        open_=True,
    )
    return Permissions(
        *(
            tuple(rule for text in table[name] or () if (rule := parse_rule(text)) is not None)
            for name in RULE_LISTS
        )
    )


def parse_settings(data: object, where: str) -> Settings:
    """Validate one decoded settings document; ``where`` names it in errors."""
    check_table(
        data,
        (),
        path=where,
        where="",
        open_=True,
        problem="must hold a JSON object",
        fix='start the file with "{"',
    )
    assert isinstance(data, dict)  # check_table refused anything else
    warnings: list[str] = []
    hooks: dict[str, tuple[MatcherGroup, ...]] = {}
    if "hooks" in data:
        hooks = _parse_hooks(
            check_value(data["hooks"], HOOKS, path=where, where="hooks"), where, warnings
        )
    perms = Permissions()
    if "permissions" in data:
        perms = _parse_permissions(
            check_value(data["permissions"], PERMISSIONS, path=where, where="permissions"), where
        )
    disable = data.get("disableAllHooks", False)
    check_value(disable, DISABLE_ALL_HOOKS, path=where, where="disableAllHooks")
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
