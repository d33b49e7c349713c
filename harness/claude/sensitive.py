"""Sensitive files: writes that Claude Code asks the user about whatever the permission rules say.

Claude Code (2.1.332) treats the project's ``.claude/`` and ``.git/`` as sensitive: an Edit or
Write there, and a Bash command that writes there (a redirection, ``sed -i``, ``touch``,
``cp``/``mv`` into it, ``rm``), raise a permission prompt ("Claude requested permissions to edit
PATH which is a sensitive file.") even when the tool is allowed. The client reads a command's
write targets from its own parse; this reads the common forms the same way, which the
differential suite checks against the real client.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

SENSITIVE_DIRS = (".claude", ".git")
_SEPARATORS = {"&&", "||", ";", "|", "&", "\n", "(", ")"}
_REDIRECTS = {">", ">>", ">|", "&>", "&>>"}
_ALL_ARGS = {"touch", "rm", "rmdir", "mkdir", "truncate", "tee", "chmod", "chown"}
_LAST_ARG = {"cp", "mv", "ln", "install"}


def sensitive_message(path: Path) -> str:
    return f"Claude requested permissions to edit {path} which is a sensitive file."


def is_sensitive(path: Path, project_dir: Path, plugins: Sequence[Path] = ()) -> bool:
    """``plugins``: the folders loaded with ``--plugin-dir``, which the client guards whole
    (observed on 2.1.332: ``touch a`` in a repository that is the plugin asks)."""
    target = Path(os.path.normpath(path))
    guarded = [project_dir / name for name in SENSITIVE_DIRS] + list(plugins)
    return any(target == folder or folder in target.parents for folder in guarded)


def _operands(argv: list[str]) -> list[str]:
    return [a for a in argv[1:] if not a.startswith("-")]


def _write_targets(argv: list[str]) -> list[str]:
    if not argv:
        return []
    name = os.path.basename(argv[0])
    if name in _ALL_ARGS:
        return _operands(argv)
    if name in _LAST_ARG:
        operands = _operands(argv)
        return operands[-1:] if len(operands) > 1 else []
    if name == "sed" and any(a == "-i" or a.startswith(("-i", "--in-place")) for a in argv[1:]):
        operands = _operands(argv)
        has_script_flag = any(a in ("-e", "-f") for a in argv[1:])
        return operands if has_script_flag else operands[1:]
    return []


# Claude Code 2.1.332 reads no redirection target of a command that holds "$?" anywhere:
# `echo x > target/a; echo $?` runs past an Edit(target/**) deny rule, and a redirection into
# .claude/ is then not asked about (observed: differential case
# deny-rule-edit-and-bash-redirections). A command's own operands (cp, touch, …) still count.
_HIDES_REDIRECTIONS = "$?"


def bash_write_targets(command: str) -> list[str]:
    """The paths a shell command writes to, as far as its common forms show them and as
    Claude Code reads them."""
    redirections = _HIDES_REDIRECTIONS not in command
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: nothing can be read from it
        return []
    targets: list[str] = []
    argv: list[str] = []
    expect_target = False
    for token in tokens:
        if expect_target:
            if redirections:
                targets.append(token)
            expect_target = False
        elif token in _REDIRECTS or (token.endswith(">") and token.rstrip(">").isdigit()):
            expect_target = True
        elif token in _SEPARATORS:
            targets += _write_targets(argv)
            argv = []
        else:
            argv.append(token)
    targets += _write_targets(argv)
    return [t for t in targets if t and t != "/dev/null" and not t.startswith("&")]


def sensitive_write(
    command: str, cwd: Path, project_dir: Path, plugins: Sequence[Path] = ()
) -> Path | None:
    """The first sensitive path ``command`` writes to, or None."""
    for target in bash_write_targets(command):
        path = Path(os.path.normpath(cwd / os.path.expanduser(target)))
        if is_sensitive(path, project_dir, plugins):
            return path
    return None
