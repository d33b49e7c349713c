"""``no_guard``: a rule the step retired from the session layer is kept in no other guard there.

No permission rule (deny or ask) for editing files reaches into a folder, and the person's own
``~/.claude/settings.json`` registers no hook the step took away.

walk-p (Lab 08 step 2) kept the naming rule as ``"Edit(src/main/java/…/repository/*Dao.java)"``
in permissions.deny: Claude's Write of OwnerDao.java was refused live, "no hook added" passed.
They also moved the naming hook (Lab 08) and the judge (Lab 10 step 3) into their USER
settings, which the real client loads in every project and the checks' sessions, run with a
throwaway HOME, never see. The user settings are read only, never changed.

    [[step.check]]
    kind = "no_guard"
    folder = "src/main/java/ai/unifiedprocess/petclinic/repository"
    user_hooks = ["PreToolUse:Write"]
    why = "the rule lives in ArchitectureTest now"
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import proc
from harness.claude.settings import MODEL_TYPES, PROMPT_TYPE
from harness.engine.checks.live_evidence import participant_root
from harness.engine.context import CheckContext
from harness.engine.kinds import check_kind
from harness.results import CheckResult
from harness.schema import param

PROJECT_FILES = (".claude/settings.json", ".claude/settings.local.json")
# The tools whose permission rules govern writing a file (Edit rules cover every such tool).
_EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
_RULE = re.compile(r"^\s*(\w+)\s*(?:\((.*)\))?\s*$", re.S)
_GLOB = re.compile(r"[*?\[{]")
_AGENT_TYPES = MODEL_TYPES


@dataclass(frozen=True, kw_only=True)
class NoGuardParams:
    """A ``no_guard`` check's parameters, typed (``KIND.params`` is derived from them)."""

    folder: str | None = param(
        default=None,
        doc="a workspace folder no permission rule (deny or ask) for editing files may reach "
        "into, in .claude/settings.json, .claude/settings.local.json or the person's "
        "~/.claude/settings.json",
    )
    user_hooks: list[str] = param(
        default=[],
        doc='hooks the person\'s ~/.claude/settings.json may not register: "Event:Tool" (a '
        'matcher that selects the tool, e.g. "PreToolUse:Write") or "Event:prompt" (a prompt '
        'or agent hook, e.g. "Stop:prompt")',
    )
    new_hooks: list[str] = param(
        default=[],
        doc="hooks .claude/settings.json and settings.local.json may register only if they "
        "did as the step began, in user_hooks' form",
    )
    why: str = param(doc="where the rule lives now, said in the failure")
    pass_message: str | None = param(default=None, doc="the headline when nothing is found")


def _validate(p: NoGuardParams) -> str | None:
    if not p.folder and not p.user_hooks and not p.new_hooks:
        return "give a folder, user_hooks, new_hooks, or more of them"
    for field, items in (("user_hooks", p.user_hooks), ("new_hooks", p.new_hooks)):
        for item in items:
            if not isinstance(item, str) or item.count(":") != 1:
                return f'{field}: "{item}" must be "Event:Tool" or "Event:prompt"'
    return None


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # absent or unreadable: the settings check names a broken file
    return data if isinstance(data, dict) else None


def _reaches(spec: str, folder: str, root: Path, home: Path) -> bool:
    """Whether a rule's path pattern can name a file in ``folder`` (workspace-relative):
    gitignore-style, "//" absolute, "~/" in HOME, "/" and "./" from the project."""
    absolute = spec[1:] if spec.startswith("//") else None
    if spec.startswith("~/"):
        absolute = str(home / spec[2:])
    if absolute is not None:
        if not absolute.startswith(str(root) + "/"):
            return False  # a path elsewhere on the machine
        spec = absolute[len(str(root)) + 1 :]
    spec = spec.removeprefix("./").lstrip("/")
    if "/" not in spec.rstrip("/"):  # a bare name matches in any folder
        return bool(_GLOB.search(spec)) or spec.endswith(".java")
    glob = _GLOB.search(spec)
    literal = spec[: glob.start()] if glob else spec
    target = folder.strip("/") + "/"
    return target.startswith(literal) or literal.startswith(target)


def _rules_into(data: dict[str, Any], folder: str, root: Path, home: Path) -> list[tuple[str, str]]:
    """(list, rule) of each deny or ask rule in ``data`` that refuses an edit in ``folder``."""
    perms = data.get("permissions")
    found = []
    for kind in ("deny", "ask"):
        rules = perms.get(kind) if isinstance(perms, dict) else None
        for rule in rules if isinstance(rules, list) else ():
            match = _RULE.match(rule) if isinstance(rule, str) else None
            if not match or match.group(1) not in _EDIT_TOOLS:
                continue
            spec = (match.group(2) or "").strip()
            if not spec or spec in ("*", "**") or _reaches(spec, folder, root, home):
                found.append((f"permissions.{kind}", rule))
    return found


def _selects(matcher: object, tool: str) -> bool:
    if matcher in (None, "", "*"):
        return True
    try:
        return re.fullmatch(str(matcher), tool) is not None
    except re.error:
        return str(matcher) == tool


def _user_hooks(data: dict[str, Any], wanted: list[str]) -> list[str]:
    """Each hook of the user settings ``data`` that ``wanted`` forbids, as where: what."""
    return list(dict.fromkeys(f"{where}: {said[:70]}" for where, said in _hooks(data, wanted)))


def _hooks(data: dict[str, Any], wanted: list[str]) -> list[tuple[str, str]]:
    """(where, its command or prompt) of each hook of the settings ``data`` that ``wanted``
    names."""
    hooks = data.get("hooks")
    found = []
    for item in wanted:
        event, what = item.split(":")
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            entries = group.get("hooks") if isinstance(group, dict) else None
            for h, hook in enumerate(entries if isinstance(entries, list) else ()):
                if not isinstance(hook, dict):
                    continue
                hit = (
                    hook.get("type") in _AGENT_TYPES
                    if what == PROMPT_TYPE
                    else _selects(group.get("matcher"), what)
                )
                said = str(hook.get("command") or hook.get("prompt") or hook.get("type"))
                if hit:
                    found.append((f"hooks.{event}[{g}].hooks[{h}]", said))
    return found


def _added_hooks(ctx: CheckContext, wanted: list[str]) -> list[tuple[str, str]]:
    """(file, where: what) of each hook of the project settings that ``wanted`` names and that
    the file did not register as the step began (walk-s, Lab 08 step 2: the retired hook kept
    as tools/repo-names.sh, on only in the real workspace, which the checks' copies are not;
    whatever a hook does, being registered anew is what retiring it rules out)."""
    found = []
    for rel in PROJECT_FILES:
        before = proc.run(
            ["git", "-C", str(ctx.root), "show", f"{ctx.step.start_ref or 'HEAD'}:{rel}"]
        )
        try:
            then = json.loads(before.stdout) if before.returncode == 0 else {}
        except ValueError:
            then = {}
        known = {said for _, said in _hooks(then if isinstance(then, dict) else {}, wanted)}
        for where, said in _hooks(_read(ctx.root / rel) or {}, wanted):
            if said not in known:
                found.append((rel, f"{where}: {said[:70]}"))
    return found


def _headline(rule: tuple[str, str, str] | None, hook: str | None, user: Path, why: str) -> str:
    """What the first guard found is, where, and why it goes."""
    if rule is not None:
        rel, where, text = rule
        return (
            f"a permission rule still refuses what the step retired: {text} ({where} in "
            f"{rel}); Claude Code applies it in every session, and {why}"
        )
    return (
        f"a hook in your own {user} keeps what the step retired ({hook}); Claude Code runs "
        f"it in every project, this one too, and {why}"
    )


def run(ctx: CheckContext, p: NoGuardParams) -> CheckResult:
    name = "no guard left"
    user = participant_root(ctx) / "settings.json"
    rules: list[tuple[str, str, str]] = []
    if p.folder:
        person = ctx.person_home or Path.home()
        for rel, path in [*((f, ctx.root / f) for f in PROJECT_FILES), (str(user), user)]:
            for where, rule in _rules_into(_read(path) or {}, p.folder, ctx.root, person):
                rules.append((rel, where, rule))
    hooks = _user_hooks(_read(user) or {}, p.user_hooks) if p.user_hooks else []
    added = _added_hooks(ctx, p.new_hooks) if p.new_hooks else []
    if added:
        rel, hook = added[0]
        return CheckResult.failed(
            f"{rel} registers a hook the step's start did not have ({hook}); Claude Code runs "
            f"it in every session, and {p.why}",
            name=name,
            expected="no hook on Claude's writes added to the project's settings",
            found="\n".join(f"{r}: {h}" for r, h in added),
            details={"fix": "; ".join(f"take {h.split(':')[0]} out of {r}" for r, h in added)},
        )
    if not rules and not hooks:
        return CheckResult.passed(
            p.pass_message or "no permission rule or hook of your own keeps the rule", name=name
        )
    fixes = [f"take {rule} out of {where} in {rel}" for rel, where, rule in rules]
    fixes += [f"take {hook.split(':')[0]} out of {user}" for hook in hooks]
    return CheckResult.failed(
        _headline(rules[0] if rules else None, hooks[0] if hooks else None, user, p.why),
        name=name,
        expected="no permission rule nor hook of your own settings that keeps the rule",
        found="\n".join(
            [f"{rel}: {where}: {rule}" for rel, where, rule in rules]
            + [f"{user}: {hook}" for hook in hooks]
        ),
        details={"fix": "; ".join(dict.fromkeys(fixes))},
    )


KIND = check_kind(
    "no_guard",
    "no permission rule reaches into a folder, and the person's own settings register no hook "
    "the step retired",
    run,
    rules=_validate,
)
