"""Every check and action kind reads its parameters from a frozen dataclass the schema builds:
the dataclass names exactly the declared fields, and a loaded lab carries them typed."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from harness.engine.actions import ACTION_KINDS, WriteParams
from harness.engine.checks import CHECK_KINDS
from harness.engine.checks.file import FileParams
from harness.engine.kinds import Kind
from harness.engine.manifest import load_lab
from harness.schema import attribute
from tests.builders import file_check, lab, step, write_action, write_lab

TAGS = {"kind", "do"}  # what selects the kind is no parameter of it
ALL: dict[str, Kind[Any]] = {f"check {n}": k for n, k in CHECK_KINDS.items()}
ALL.update({f"action {n}": k for n, k in ACTION_KINDS.items()})


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_dataclass_names_exactly_the_declared_fields(name: str) -> None:
    kind = ALL[name]
    declared = {attribute(f.name) for f in kind.params if f.name not in TAGS}
    typed = {f.name for f in dataclasses.fields(kind.typed)}
    assert typed == declared
    assert kind.typed.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_a_loaded_lab_carries_typed_parameters_with_defaults(tmp_path: Path) -> None:
    manifest = lab(
        "01-typed",
        step(
            "one",
            check=file_check("README.md", contains="x"),
            solve=write_action("README.md", "x"),
        ),
    )
    loaded = load_lab(write_lab(tmp_path / "labs", "01-typed", manifest))
    check = loaded.steps[0].checks[0].typed
    action = loaded.steps[0].solve[0].typed
    assert isinstance(check, FileParams) and isinstance(action, WriteParams)
    assert (check.path, check.contains, check.contains_all, check.absent) == (
        "README.md",
        "x",
        [],
        False,
    )
    assert (action.from_, action.content, action.executable) == (None, "x", False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        check.path = "elsewhere"  # type: ignore[misc]
