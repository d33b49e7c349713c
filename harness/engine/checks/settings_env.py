"""A settings file's ``"env"``, named as the cause when hooks misbehave.

Claude Code sets a settings file's ``"env"`` in its own environment, so every hook and every
tool of a session runs with it (observed on 2.1.332: ``"env": {"PATH": "<a folder without
jq>"}`` is every hook's PATH; the fixture's hooks then find no jq and let everything through).
Hook Lab's emulator does the same (harness/claude/emulator.py); this module says so in words:
which file sets which variable, and for PATH which program the hooks use is not on it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness.claude.settings import SETTINGS_FILES

# Programs the workshop's hooks start; a PATH without one makes them fail (or fail open).
HOOK_PROGRAMS = ("bash", "jq", "git", "node", "npm")
HOOK_FOLDERS = (".claude/hooks", "scripts")


@dataclass(frozen=True)
class EnvCause:
    """Where ``"env"`` is set, which variables, and what that takes from the hooks."""

    file: str
    names: tuple[str, ...]
    lost: tuple[str, ...]  # hook programs found on this machine but not on the new PATH

    def said(self) -> str:
        names = ", ".join(self.names)
        what = f"a PATH without {', '.join(self.lost)}" if self.lost else f"{names} as set there"
        return (
            f'{self.file} sets "env" ({names}): Claude Code runs every hook and tool with it, '
            f"so your hooks run with {what}"
        )

    def fix(self) -> str:
        return f'remove "env" from {self.file} (the hooks need the environment they had)'


def env_cause(root: Path) -> EnvCause | None:
    """The first settings file of ``root`` with a non-empty ``"env"`` (None: none has one,
    or the file cannot be read: the settings checks name that)."""
    for rel in SETTINGS_FILES:
        try:
            data = json.loads((root / rel).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        env = data.get("env") if isinstance(data, dict) else None
        if not isinstance(env, dict) or not env:
            continue
        path = env.get("PATH")
        lost: tuple[str, ...] = ()
        if isinstance(path, str):
            used = _hook_words(root)
            lost = tuple(
                program
                for program in HOOK_PROGRAMS
                if program in used
                and shutil.which(program)
                and not shutil.which(program, path=path or os.defpath)
            )
        names = tuple(sorted(env, key=lambda name: (name != "PATH", name)))
        return EnvCause(rel, names, lost)
    return None


def _hook_words(root: Path) -> set[str]:
    """The words of the workspace's hook scripts (which programs they may start)."""
    words: set[str] = set()
    for folder in HOOK_FOLDERS:
        for script in sorted((root / folder).rglob("*.sh")):
            try:
                words |= set(re.findall(r"[\w.-]+", script.read_text(errors="replace")))
            except OSError:
                continue
    return words
