"""Faults around the hooks: missing tools, no repository, a read-only .git, bad stdin, and the
environment Claude Code gives them. Each test first shows the same calls acting without the
fault (so silence under the fault means failing open, not an event the hooks ignore)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.engine.throwaway import path_without
from harness.workspace import Workspace
from tests.hooks.hookrepo import HOOKS
from tests.reliability.hookcalls import (
    HookCall,
    HookResult,
    agent_edits,
    call,
    call_all,
    env_with,
    quiet,
    same_as,
    session,
    without_project_dir,
)
from tests.reliability.participant import assert_intact, copy_workspace, state
from tests.reliability.plugin import fault
from tests.reliability.storage import read_only

INTACT = "the participant's files, progress and backups intact"


def loud(results: list[HookResult]) -> list[HookResult]:
    return [r for r in results if not r.silent]


@dataclass(frozen=True)
class Control:
    root: Path
    results: dict[str, HookResult]


@pytest.fixture(scope="module")
def control(tmp_path_factory: pytest.TempPathFactory, _participant_template: Path) -> Control:
    """The calls on a copy of the participant's workspace without any fault: each one acts."""
    root = copy_workspace(_participant_template, tmp_path_factory.mktemp("control") / "ws").root
    results = {r.script: r for r in call_all(root)}
    quiet = [name for name, r in results.items() if not r.acted]
    assert not quiet, f"without the fault these hooks did nothing: {quiet}"
    return Control(root, results)


def _no_program(name: str) -> Callable[[Path], dict[str, str]]:
    def env(root: Path) -> dict[str, str]:
        with path_without([name]) as path:
            return env_with(root, PATH=path)

    return env


def _no_project_dir(root: Path) -> dict[str, str]:
    return without_project_dir()


def _project_dir_nowhere(root: Path) -> dict[str, str]:
    return env_with(root, CLAUDE_PROJECT_DIR=str(root.parent / "no-such-project"))


ENVIRONMENTS: dict[str, tuple[str, Callable[[Path], dict[str, str]]]] = {
    "no jq": ("hook input and tools", _no_program("jq")),
    "no git": ("hook input and tools", _no_program("git")),
    "CLAUDE_PROJECT_DIR missing": ("environment", _no_project_dir),
    "CLAUDE_PROJECT_DIR pointing nowhere": ("environment", _project_dir_nowhere),
}


def _environment_test(name: str) -> Callable[[Control, Workspace], None]:
    area, make_env = ENVIRONMENTS[name]

    @fault(
        area,
        name,
        tried="the six fixture hooks, each with a real event that makes it act (shown first "
        "without the fault), in a session's order, JSON on a Unix socket",
        held=f"every hook exit 0 and silent, no hook state written; {INTACT}",
    )
    def test(control: Control, participant: Workspace) -> None:
        root = participant.root
        before, edits = state(root), agent_edits(root)
        results = list(call_all(root, env=make_env(root)))
        assert not loud(results), loud(results)
        assert_intact(before, root, agent_edits=edits)

    return test


test_no_jq = _environment_test("no jq")
test_no_git = _environment_test("no git")
test_claude_project_dir_missing = _environment_test("CLAUDE_PROJECT_DIR missing")
test_claude_project_dir_pointing_nowhere = _environment_test("CLAUDE_PROJECT_DIR pointing nowhere")


@fault(
    "hook input and tools",
    "not a git repository",
    tried="the six hooks with their acting events in a copy of the workspace without .git",
    held="every hook exit 0 and silent; the copy's files as they were, the workspace untouched",
)
def test_not_a_git_repository(control: Control, participant: Workspace, tmp_path: Path) -> None:
    loose = tmp_path / "no-repo"
    shutil.copytree(participant.root, loose, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    before_workspace = state(participant.root)
    edits = agent_edits(loose)
    results = list(call_all(loose, git_dir=loose / ".git"))
    assert not loud(results), loud(results)
    assert (loose / ".git").exists() is False
    spec, text = next(iter(edits.items()))
    assert (loose / spec).read_text() == text
    assert_intact(before_workspace, participant.root)


@fault(
    "hook input and tools",
    "a read-only .git",
    tried="the six hooks with their acting events while .git is mounted read-only (chmod "
    "without root)",
    held="hooks that must write their state exit 0 and stay silent; the guards still "
    f"refuse exactly as without the fault, no file-system error shown; {INTACT}",
)
def test_read_only_git(control: Control, participant: Workspace) -> None:
    root = participant.root
    before, edits = state(root), agent_edits(root)
    with read_only(root / ".git"):
        results = list(call_all(root))
    for result in results:
        assert quiet(result) or same_as(result, control.results[result.script], control.root, root)
        assert "Read-only" not in result.stderr + result.stdout
    assert not any(r.state_changed for r in results)
    assert_intact(before, root, agent_edits=edits)


BAD_STDIN = {
    "empty": ("socket", ""),
    "garbage": ("socket", "\x00\x01 this is {not json]\n" * 50),
    "a JSON array": ("socket", "[1, 2, 3]"),
    "closed": ("closed", ""),
    "a terminal": ("terminal", ""),
}


@fault(
    "hook input and tools",
    "hook stdin {kind}",
    tried="each of the six hooks with no usable event on stdin, after the participant's "
    "session started",
    held=f"every hook exit 0 at once and silent; {INTACT}",
)
@pytest.mark.parametrize("kind", list(BAD_STDIN))
def test_bad_stdin(control: Control, participant: Workspace, kind: str) -> None:
    root = participant.root
    call(root, session(root)[0])  # a session is running: the guards would have work to do
    before = state(root)
    carrier, text = BAD_STDIN[kind]
    results = [call(root, HookCall(script, {}), stdin=text, stdin_kind=carrier) for script in HOOKS]
    assert not loud(results), loud(results)
    assert_intact(before, root)


@fault(
    "hook input and tools",
    "hook stdin of 10 MB",
    tried="each hook's acting event padded with a 10 MB field, over a Unix socket",
    held="every hook reads it whole within its timeout and acts exactly as on the small "
    f"event; {INTACT}",
)
def test_ten_megabytes_on_stdin(control: Control, participant: Workspace) -> None:
    root = participant.root
    before, edits = state(root), agent_edits(root)
    padding = "x" * (10 * 1024 * 1024)
    for hook in session(root):
        big = HookCall(hook.script, {**hook.event, "padding": padding}, hook.agent)
        result = call(root, big)
        assert same_as(result, control.results[hook.script], control.root, root), result
    assert_intact(before, root, agent_edits=edits)


@fault(
    "hook input and tools",
    "hook stdin a {carrier}",
    tried="the six acting events handed over on a {carrier} (the real client uses a Unix socket)",
    held="every event is read whole and each hook acts on it",
)
@pytest.mark.parametrize("carrier", ["socket", "pipe", "file"])
def test_every_carrier_delivers_the_event(participant: Workspace, carrier: str) -> None:
    root = participant.root
    quiet = [r.script for r in call_all(root, stdin_kind=carrier) if not r.acted]
    assert not quiet, f"on a {carrier} these hooks did nothing: {quiet}"
