"""A check's or a setup action's name as a person reads it on ``lab check``'s screen.

A result a check builds itself carries the name it chose (its ``title``, ``file X``). A result
built around a check (a refusal before it ran, an error while it ran, a setup action that
failed) used to carry the kind's id: ``✘ FAIL hook_session: mvnw is not as the lab shipped
it``, ``live_session``, ``play_session failed``. Those ids are the lab author's words; a person
reads what the check looks at: "your Claude Code session", "the scripted session".
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

# Check kinds (harness.engine.checks) and action kinds (harness.engine.actions), each named
# as what it looks at or does; tests/ui/test_screens_round12.py keeps every kind listed.
CHECK_WORDS = {
    "contract": "the Stop hook's contract",
    "file": "a file",
    "git": "your changes",
    "hook_session": "the scripted session",
    "live_session": "your Claude Code session",
    "no_guard": "no guard left",
    "quiz": "the quiz",
    "renamed_flow": "the renamed flow",
    "scenario": "your scenario file",
    "sensors": "the sensors",
    "settings": "Claude Code's settings",
    "shell": "a command's result",
    "shipped": "the lab's own files",
    "since_start": "what changed since the lab started",
    "verify_hook": "the hook's grade",
}
ACTION_WORDS = {
    "write": "writing a file",
    "append": "adding to a file",
    "replace": "a change to a file",
    "copy": "copying a file",
    "delete": "deleting a file",
    "patch": "a patch",
    "run": "a setup command",
    "sensors": "the sensor run",
    "compile": "compiling the workspace",
    "play_session": "the session Hook Lab plays on Claude Code",
    "commit": "a commit",
}
# Kinds whose result is named after the file they read, as the check names it itself.
_BY_FILE = {"file": "file", "contract": "contract", "quiz": "quiz", "scenario": "scenario"}


def check_name(kind: str, params: dict[str, Any], *, action: bool = False) -> str:
    """What a result about this check (or setup action) is called on the screen: the title
    its lab gave it, else what the kind looks at, in words (never the kind's id)."""
    title = params.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    if action:
        return ACTION_WORDS.get(kind, "a setup step")
    scenario = params.get("scenario")
    if kind == "hook_session" and isinstance(scenario, str) and scenario:
        return PurePosixPath(scenario).name  # as the check names its own results
    path = params.get("path") or params.get("file")
    if kind in _BY_FILE and isinstance(path, str) and path:
        return f"{_BY_FILE[kind]} {path}"
    return CHECK_WORDS.get(kind, "a check")


# The names results carry that are ids (a check's ``git``, ``shipped``, ``settings``; a setup
# action's ``compile``, ``session``): kept in results and ``--json``, which tests and tools
# read, and said in words wherever a person reads them.
RESULT_WORDS = {**CHECK_WORDS, **ACTION_WORDS, "session": ACTION_WORDS["play_session"]}


def shown_name(name: str) -> str:
    """A result's name as a screen shows it: an id in words, any other name as it is."""
    return RESULT_WORDS.get(name, name)


__all__ = ["ACTION_WORDS", "CHECK_WORDS", "RESULT_WORDS", "check_name", "shown_name"]
