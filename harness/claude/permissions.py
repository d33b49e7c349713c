"""Permission rules (``permissions.allow|ask|deny``) for the tools the simulator runs.

Rule syntax: ``Tool`` (every call of the tool) or ``Tool(spec)``.
- Edit/Write: ``spec`` is a glob on the file path, written as an ``Edit(...)`` rule: it covers
  every file tool, while a ``Write(path)`` rule covers nothing (as Claude Code 2.1.332 has it).
  ``//abs/**`` is an absolute path, ``~/x`` is under the home directory, anything else
  (``target/**``, ``/target/**``) is relative to the project root; a pattern without ``/``
  matches at any depth (``*.env``). ``**`` crosses directories, ``*`` and ``?`` do not.
- Bash: ``prefix:*`` matches a command that is the prefix or starts with it followed by a space;
  a spec with ``*`` is a glob over the whole command (``*`` crosses spaces); anything else must
  equal the command. Compound commands (``a && b``, ``a; b``, ``a | b``) are split: a deny or
  ask rule hits when any part matches, an allow rule only when every part does.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harness.claude.vocabulary import PermissionDecision

_RULE = re.compile(r"^(?P<tool>[A-Za-z0-9_:.*-]+)(?:\((?P<spec>.*)\))?$", re.DOTALL)
_FILE_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_SPLIT_COMMAND = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")


@dataclass(frozen=True)
class PermissionRule:
    tool: str
    spec: str | None
    text: str  # the rule as written, for messages

    def __str__(self) -> str:
        return self.text


def parse_rule(text: str) -> PermissionRule | None:
    """The rule, or None when ``text`` is not of the form ``Tool`` or ``Tool(spec)``."""
    found = _RULE.match(text.strip())
    if not found:
        return None
    spec = found.group("spec")
    return PermissionRule(found.group("tool"), spec if spec not in (None, "", "*") else None, text)


@lru_cache(maxsize=256)
def _glob(pattern: str, *, cross_slash: bool) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append(".*" if cross_slash else "[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("." if cross_slash else "[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _path_matches(spec: str, file_path: str, project_dir: Path) -> bool:
    target = Path(os.path.normpath(file_path))
    if spec.startswith("//"):
        return bool(_glob(spec[1:], cross_slash=False).match(target.as_posix()))
    if spec.startswith("~/"):
        home = Path(os.path.expanduser("~"))
        return bool(_glob((home / spec[2:]).as_posix(), cross_slash=False).match(target.as_posix()))
    try:
        rel = target.relative_to(Path(os.path.normpath(project_dir))).as_posix()
    except ValueError:
        return False  # outside the project: only absolute rules apply
    pattern = spec.removeprefix("./").lstrip("/")
    if "/" not in pattern:
        pattern = "**/" + pattern
    # ``dir/**`` also covers ``dir`` itself, like gitignore.
    if pattern.endswith("/**") and rel == pattern[:-3]:
        return True
    return bool(_glob(pattern, cross_slash=False).match(rel))


def _command_part_matches(spec: str, command: str) -> bool:
    if spec.endswith(":*"):
        prefix = spec[:-2]
        return (
            command == prefix
            or command.startswith(prefix + " ")
            or (prefix.endswith(" ") and command.startswith(prefix))
        )
    if "*" in spec:
        if spec.endswith(" *") and command == spec[:-2]:
            return True
        return bool(_glob(spec, cross_slash=True).match(command))
    return command == spec


def _command_parts(command: str) -> list[str]:
    return [part for part in _SPLIT_COMMAND.split(command.strip()) if part]


def rule_matches(
    rule: PermissionRule,
    tool_name: str,
    tool_input: dict[str, object],
    project_dir: Path,
    *,
    every_part: bool = False,
) -> bool:
    """Whether ``rule`` covers this call. ``every_part`` is for allow rules on compound commands."""
    if rule.tool != tool_name and not (rule.tool == "Edit" and tool_name in _FILE_TOOLS):
        return False
    if rule.spec is None:
        return True
    if tool_name in _FILE_TOOLS:
        # Path rules for the file tools are Edit(...) rules; Claude Code (2.1.332) applies a
        # Write(path) rule to nothing.
        if rule.tool != "Edit":
            return False
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        return isinstance(path, str) and _path_matches(rule.spec, path, project_dir)
    if tool_name == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str):
            return False
        parts = _command_parts(command) or [command]
        if _command_part_matches(rule.spec, command.strip()):
            return True
        hits = [_command_part_matches(rule.spec, part) for part in parts]
        return all(hits) if every_part else any(hits)
    return False  # specs of other tools (WebFetch(domain:…), …) are not simulated


@dataclass(frozen=True)
class Permissions:
    allow: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()

    def check(
        self,
        tool_name: str,
        tool_input: dict[str, object],
        project_dir: Path,
        cwd: Path | None = None,
    ) -> tuple[str, PermissionRule | None]:
        """``("deny"|"ask"|"allow", rule)`` for the first rule that decides, deny first;
        ``("none", None)`` when no rule covers the call. An ``Edit(path)`` deny rule also
        refuses a Bash command that writes there (``rm``, ``touch``, a redirection), as
        Claude Code (2.1.332) judges each subcommand's file targets."""
        if tool_name == "Bash":
            from harness.claude.sensitive import bash_write_targets

            base = cwd or project_dir
            command = str(tool_input.get("command", ""))
            for target in bash_write_targets(command):
                path = os.path.normpath(base / os.path.expanduser(target))
                for rule in self.deny:
                    if rule.tool == "Edit" and rule_matches(
                        rule, "Edit", {"file_path": path}, project_dir
                    ):
                        return PermissionDecision.DENY, rule
        for kind, rules in (
            (PermissionDecision.DENY, self.deny),
            (PermissionDecision.ASK, self.ask),
            (PermissionDecision.ALLOW, self.allow),
        ):
            for rule in rules:
                if rule_matches(
                    rule,
                    tool_name,
                    tool_input,
                    project_dir,
                    every_part=kind == PermissionDecision.ALLOW,
                ):
                    return kind, rule
        return "none", None

    def merged(self, other: Permissions) -> Permissions:
        def join(
            a: tuple[PermissionRule, ...], b: tuple[PermissionRule, ...]
        ) -> tuple[PermissionRule, ...]:
            seen = {r.text for r in a}
            return a + tuple(r for r in b if r.text not in seen)

        return Permissions(
            join(self.allow, other.allow), join(self.ask, other.ask), join(self.deny, other.deny)
        )
