"""Both engines are one ``ScriptedSession``: each step's signature and shaping is written once
(scripted.py), and each engine keeps only what differs, in modules of a readable size."""

from __future__ import annotations

import ast
from pathlib import Path

from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.emulator import EmulatedSession
from harness.claude.scripted import ScriptedSession

ENGINE_MODULES = (
    "claude/scripted.py",
    "claude/engines.py",
    "claude/emulator.py",
    "claude/emulated_tools.py",
    "claude/client/driver.py",
    "claude/client/launch.py",
    "claude/client/turns.py",
    "claude/client/process.py",
)
HARNESS = Path(__file__).resolve().parents[2] / "harness"
# The steps whose shaping both engines share; ``prompt`` alone differs whole.
SHARED_STEPS = ("session_start", "edit", "write", "bash", "tool", "subagent_stop", "stop")


def test_the_shared_steps_are_written_once() -> None:
    for engine in (EmulatedSession, ClaudeCodeSession):
        assert issubclass(engine, ScriptedSession)
        again = [name for name in SHARED_STEPS if name in vars(engine)]
        assert not again, f"{engine.__name__} writes {again} again; scripted.py has them"


def test_the_engine_modules_stay_readable() -> None:
    for name in ENGINE_MODULES:
        text = (HARNESS / name).read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 600, f"{name} is over 600 lines"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
                assert len(methods) <= 25, f"{name}: {node.name} has {len(methods)} methods"


def test_no_two_session_modules() -> None:
    named = sorted(str(p.relative_to(HARNESS)) for p in HARNESS.rglob("session.py"))
    assert len(named) <= 1, named
