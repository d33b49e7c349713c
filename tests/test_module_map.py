"""docs/architecture.md names every module's job in one line, from the module's own docstring:
the page and the code never drift apart (scripts/module_map.py writes the section)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.builders import REPO_ROOT


def _module_map() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "module_map", REPO_ROOT / "scripts" / "module_map.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_names_every_module_as_the_code_does() -> None:
    tool = _module_map()
    page = tool.DOC.read_text(encoding="utf-8")
    assert tool.with_map(page) == page, "run: python scripts/module_map.py"
    modules = [p for p in (REPO_ROOT / "harness").rglob("*.py") if "_bundled" not in p.parts]
    rows = [line for line in page.splitlines() if line.startswith("| `") and ".py` |" in line]
    assert len(rows) == len(modules)


def test_a_module_without_a_job_is_named_with_the_fix(tmp_path: Path) -> None:
    tool = _module_map()
    silent = tmp_path / "silent.py"
    silent.write_text('"""Misc."""\n')
    with pytest.raises(tool.NoJob, match=r"silent\.py: start its docstring with its job"):
        tool.job_of(silent)


def test_a_long_first_sentence_gives_its_heading(tmp_path: Path) -> None:
    tool = _module_map()
    wordy = tmp_path / "wordy.py"
    said = "A module that says a great deal: " + "and more, " * 30 + "then stops."
    wordy.write_text(f'"""{said}"""\n')
    assert tool.job_of(wordy) == "A module that says a great deal."


def test_a_long_sentence_is_cut_outside_its_brackets(tmp_path: Path) -> None:
    """A colon inside an aside is no heading, and a role reads as its name: the rows for
    proc.py and grading/stop_hook.py once ended mid-bracket or on "goes through ."."""
    tool = _module_map()
    aside, role = tmp_path / "aside.py", tmp_path / "role.py"
    aside.write_text('"""Grading a hook against its contract (' + "a: b, " * 30 + ') in full."""\n')
    role.write_text(
        '"""A run goes through :func:`run`, so a missing program is a result; and '
        + "more words " * 20
        + 'after it."""\n'
    )
    assert tool.job_of(aside) == "Grading a hook against its contract in full."
    assert tool.job_of(role) == "A run goes through `run`, so a missing program is a result."
