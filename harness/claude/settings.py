"""Loading and validating ``.claude/settings.json`` and ``.claude/settings.local.json``.

The two files are merged the way Claude Code layers them: hook lists are concatenated per event
(project file first), permission rules are joined. Every problem is a ``ConfigError`` naming the
file, the field path (``hooks.PreToolUse[0].hooks[1].timeout``) and the fix.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.events import KNOWN_EVENTS, Event
from harness.claude.matchers import matches, regex_error
from harness.claude.permissions import PermissionRule, Permissions, parse_rule, rule_matches
from harness.errors import ConfigError, HarnessError
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


# The hook types the pinned client's settings accept (2.1.332: its settings schema is a union
# of these five). ``command``, ``prompt``, ``agent`` and ``http`` are played on both engines;
# ``mcp_tool`` calls a tool of a configured MCP server, which a scripted session has none of.
HOOK_TYPES = ("command", "prompt", "agent", "http", "mcp_tool")
PLAYED_TYPES = ("command", "prompt", "agent", "http")
# Types whose answer comes from the model: a one-shot judgement (prompt) or a verifier agent.
PROMPT_TYPE = "prompt"
AGENT_TYPE = "agent"
MODEL_TYPES = (PROMPT_TYPE, AGENT_TYPE)


@dataclass(frozen=True)
class HookCommand:
    """One hook entry, with where it came from. ``command`` is what the client names the hook
    by: the command line, a prompt hook's prompt, an http hook's URL."""

    command: str
    timeout: float = DEFAULT_TIMEOUT
    source: str = ""  # e.g. ".claude/settings.json: hooks.Stop[0].hooks[0]"
    run_async: bool = False  # "async": true — runs in the background, decides nothing
    condition: HookCondition | None = None
    # "args": [...] — the exec form: ``command`` is started directly with these arguments, no
    # shell: only ``${CLAUDE_PROJECT_DIR}`` in braces is filled in, as plain text in each part;
    # ``$CLAUDE_PROJECT_DIR`` and every other variable stay as written.
    args: tuple[str, ...] | None = None
    kind: str = "command"  # the entry's "type"
    headers: tuple[tuple[str, str], ...] = ()  # http: extra request headers
    allowed_env_vars: tuple[str, ...] = ()  # http: the variables a header may name
    rewake: bool = False  # "asyncRewake": true — async, and an exit 2 wakes the model
    # The plugin folder of a hook from a plugin's hooks/hooks.json (harness/claude/plugins.py):
    # its CLAUDE_PLUGIN_ROOT. Empty for a settings file's hook.
    plugin_root: str = ""

    @property
    def label(self) -> str:
        """How the client names the hook in messages: the command, then its args, by spaces."""
        return " ".join((self.command, *self.args)) if self.args is not None else self.command

    @property
    def started_script(self) -> str | None:
        """What a command hook starts, as the project names it: its first word, after
        ``bash`` or ``sh``, without ``$CLAUDE_PROJECT_DIR/`` or ``./``
        (``scripts/check-before-stop.sh``). A command that only names a script
        (``exit 0 # require-sensors.sh``) starts ``exit``; another type of hook, nothing."""
        if self.kind != "command":
            return None
        try:
            words = shlex.split(self.label)
        except ValueError:
            return None
        if words[:1] in (["bash"], ["sh"]):
            words = words[1:]
        if not words:
            return None
        first = words[0]
        for root in ("${CLAUDE_PROJECT_DIR}/", "$CLAUDE_PROJECT_DIR/", "./"):
            first = first.removeprefix(root)
        return first


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
    # Hooks Hook Lab does not play (mcp_tool); what the client ignores is settings_check's.
    warnings: tuple[str, ...] = ()
    # "env": variables the client sets in its own environment, so every hook and tool gets
    # them (observed on 2.1.332: a "PATH" there is every hook's PATH); the local file's win.
    env: Mapping[str, str] = field(default_factory=dict)

    def commands_for(self, event: Event, match_value: str | None) -> list[HookCommand]:
        """Hooks registered for ``event`` whose matcher accepts ``match_value`` (None: the event
        ignores matchers), identical command strings once per source (the settings files, each
        plugin: the client runs a plugin's copy of a settings command too), in settings order."""
        if self.disable_all_hooks:
            return []
        seen: set[tuple[str, str]] = set()
        found: list[HookCommand] = []
        for group in self.hooks.get(event.value, ()):
            if match_value is not None and not matches(group.matcher, match_value):
                continue
            for hook in group.hooks:
                if (hook.label, hook.plugin_root) not in seen:
                    seen.add((hook.label, hook.plugin_root))
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
            {**self.env, **other.env},
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


TYPE_FIELD = Field(
    "type",
    str,
    required=True,
    nullable=True,  # "type": null is the type left out
    missing="is missing",
    problem="must be a string",
    fix='use "type": "command" with a shell command, or "prompt", "agent", "http"',
)
HOOK_FIELDS = (
    TYPE_FIELD,
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
    # The client's own words: "runs in background and wakes the model on exit code 2
    # (blocking error). Implies async." The waking is not imitated (see the semantics page).
    Field(
        "asyncRewake",
        bool,
        default=False,
        problem="must be true or false",
        fix='write "asyncRewake": true or drop it',
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
_TIMEOUT = HOOK_FIELDS[2]
_IF = HOOK_FIELDS[5]


def _url(value: str) -> str | None:
    ok = value.startswith(("http://", "https://")) and len(value) > len("https://")
    return None if ok else "must be a URL"


def _header_values(value: dict[str, Any]) -> str | None:
    ok = all(isinstance(v, str) for v in value.values())
    return None if ok else "must map header names to strings"


_PROMPT = Field(
    "prompt",
    str,
    required=True,
    missing="must be a non-empty string",
    problem="must be a non-empty string",
    check=_nonblank,
    fix='e.g. "prompt": "Did the sensors run after the last change? $ARGUMENTS"',
)
_MODEL = Field("model", str, problem="must be a string", fix='e.g. "model": "claude-haiku-5"')
# Each type's own fields; the client lets unknown keys through, and so do these tables.
TYPE_FIELDS: dict[str, tuple[Field, ...]] = {
    "command": HOOK_FIELDS,
    "prompt": (TYPE_FIELD, _PROMPT, _TIMEOUT, _IF, _MODEL),
    "agent": (TYPE_FIELD, _PROMPT, _TIMEOUT, _IF, _MODEL),
    "http": (
        TYPE_FIELD,
        Field(
            "url",
            str,
            required=True,
            missing="must be a URL",
            problem="must be a URL",
            check=_url,
            fix='e.g. "url": "http://127.0.0.1:8080/hook"',
        ),
        _TIMEOUT,
        _IF,
        Field(
            "headers",
            dict,
            problem="must map header names to strings",
            check=_header_values,
            fix='e.g. "headers": {"Authorization": "Bearer $MY_TOKEN"}',
        ),
        Field(
            "allowedEnvVars",
            list,
            problem="must be a list of strings",
            check=_strings,
            fix='e.g. "allowedEnvVars": ["MY_TOKEN"]',
        ),
    ),
    "mcp_tool": (
        TYPE_FIELD,
        Field("server", str, required=True, problem="must be a string", fix='"server": "NAME"'),
        Field("tool", str, required=True, problem="must be a string", fix='"tool": "NAME"'),
        _TIMEOUT,
        _IF,
    ),
}
# Seconds before a model's answer is given up on when the hook sets none (the agent type's
# default of 60 is the client's own documentation; a prompt hook is given 30, as UserPromptSubmit).
TYPE_DEFAULT_TIMEOUTS = {"prompt": 30.0, "agent": 60.0}


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
ENV = Field(
    "env",
    dict,
    problem="must map variable names to strings",
    check=lambda names: _strings(list(names.values())),
    fix='e.g. "env": {"MY_VAR": "value"}, or remove "env"',
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
        json_items=True,
    )


def _event_field(event: str) -> Field:
    return Field(
        event,
        list,
        problem="must be a list of matcher groups",
        fix=f'write "{event}": [{{"matcher": "...", "hooks": [...]}}]',
    )


def parse_hooks(
    data: dict[str, Any], where: str, warnings: list[str]
) -> dict[str, tuple[MatcherGroup, ...]]:
    # Claude Code (2.1.332) loads a file with an unknown event name and runs the other hooks;
    # the unknown ones never run. settings_check names them in the client's words.
    result: dict[str, tuple[MatcherGroup, ...]] = {}
    for event, groups in data.items():
        if event not in KNOWN_EVENTS:
            continue
        path = f"hooks.{event}"
        check_value(groups, _event_field(event), path=where, where=path)
        default = EVENT_DEFAULT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)
        result[event] = tuple(
            _parse_group(group, where, f"{path}[{gi}]", default, warnings)
            for gi, group in enumerate(groups)
        )
    return result


def _parse_group(
    raw: object, where: str, gpath: str, default_timeout: float, warnings: list[str]
) -> MatcherGroup:
    group = check_table(
        raw,
        GROUP_FIELDS,
        path=where,
        where=gpath,
        open_=True,
        problem='must be an object with "hooks"',
        fix='write {"matcher": "Edit|Write", "hooks": [...]}',
    )
    parsed = (
        _parse_hook(entry, where, f"{gpath}.hooks[{hi}]", default_timeout, warnings)
        for hi, entry in enumerate(group["hooks"])
    )
    return MatcherGroup(group["matcher"], tuple(hook for hook in parsed if hook is not None))


def _hook_type(entry: object, where: str, hpath: str, warnings: list[str]) -> str | None:
    """The entry's type, or None (told in ``warnings``) for one the client does not run: the
    client drops that entry and runs the rest of the file (observed on 2.1.332)."""
    if not isinstance(entry, dict):
        raise ConfigError(
            where,
            hpath,
            "must be an object",
            fix='write {"type": "command", "command": "..."}',
        )
    kind = entry.get("type")
    if kind is None:
        raise ConfigError(where, f"{hpath}.type", "is missing", fix=TYPE_FIELD.fix)
    check_value(kind, TYPE_FIELD, path=where, where=f"{hpath}.type")
    if kind not in HOOK_TYPES:
        return None  # settings_check names it in the client's words
    if kind not in PLAYED_TYPES:
        warnings.append(
            f"{where}: {hpath}: an {kind} hook calls a tool of a configured MCP server; a "
            "scripted session has no MCP server, so Hook Lab does not play it"
        )
        return None
    return str(kind)


def _parse_hook(
    entry: object,
    where: str,
    hpath: str,
    default_timeout: float = DEFAULT_TIMEOUT,
    warnings: list[str] | None = None,
) -> HookCommand | None:
    kind = _hook_type(entry, where, hpath, [] if warnings is None else warnings)
    if kind is None:
        return None
    hook = check_table(entry, TYPE_FIELDS[kind], path=where, where=hpath, open_=True)
    condition = parse_rule(hook["if"]) if hook["if"] is not None else None
    fallback = TYPE_DEFAULT_TIMEOUTS.get(kind, default_timeout)
    timeout = float(hook["timeout"] if hook["timeout"] is not None else fallback)
    rule = HookCondition(condition) if condition is not None else None
    source = f"{where}: {hpath}"
    if kind == "command":
        args = tuple(hook["args"]) if hook["args"] is not None else None
        background = hook["async"] or hook["asyncRewake"]
        rewake = bool(hook["asyncRewake"])
        return HookCommand(hook["command"], timeout, source, background, rule, args, rewake=rewake)
    if kind == "http":
        headers = tuple((str(k), str(v)) for k, v in (hook["headers"] or {}).items())
        allowed = tuple(hook["allowedEnvVars"] or ())
        return HookCommand(hook["url"], timeout, source, False, rule, None, kind, headers, allowed)
    return HookCommand(hook["prompt"], timeout, source, False, rule, None, kind)


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
        hooks = parse_hooks(
            check_value(data["hooks"], HOOKS, path=where, where="hooks"), where, warnings
        )
    perms = Permissions()
    if "permissions" in data:
        perms = _parse_permissions(
            check_value(data["permissions"], PERMISSIONS, path=where, where="permissions"), where
        )
    disable = data.get("disableAllHooks", False)
    check_value(disable, DISABLE_ALL_HOOKS, path=where, where="disableAllHooks")
    env = check_value(data.get("env", {}), ENV, path=where, where="env")
    return Settings(hooks, perms, disable, (where,), tuple(warnings), dict(env))


def load_settings_file(path: Path, label: str | None = None) -> Settings:
    where = label or str(path)
    return parse_settings(read_json(path, where), where)


def load_settings(project_dir: Path, plugin_dirs: Sequence[Path] = ()) -> Settings:
    """The merged project settings. ``.claude/settings.json`` is required; the local file is not.
    The hooks of the plugins a session there loads come after theirs: ``plugin_dirs`` (as
    ``--plugin-dir`` gives them), the project itself when it is a plugin, and those its
    settings enable from a marketplace in the project (harness/claude/plugins.py)."""
    from harness.claude.plugins import with_plugins  # it builds on this module

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
    return with_plugins(settings, project_dir, plugin_dirs)


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
