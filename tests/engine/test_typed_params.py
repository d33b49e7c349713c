"""Every check and action kind declares its parameters once, on a frozen dataclass: the
table schema's fields are derived from it (harness.schema.param), each documented, and a
loaded lab carries them typed."""

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
from harness.schema import attribute, fields_of, param, pick
from tests.builders import file_check, lab, step, write_action, write_lab

TAGS = {"kind", "do"}  # what selects the kind is no parameter of it
ALL: dict[str, Kind[Any]] = {f"check {n}": k for n, k in CHECK_KINDS.items()}
ALL.update({f"action {n}": k for n, k in ACTION_KINDS.items()})


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_fields_are_the_dataclass_s_own(name: str) -> None:
    kind = ALL[name]
    declared = [f for f in kind.params if f.name not in TAGS]
    assert tuple(declared) == fields_of(kind.typed)
    # Every field once (the texts every kind shares are listed last, fields_of says why).
    assert sorted(attribute(f.name) for f in declared) == sorted(
        f.name for f in dataclasses.fields(kind.typed)
    )
    assert all(f.doc for f in declared), [f.name for f in declared if not f.doc]
    assert kind.typed.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_a_parameter_declared_once_gives_its_field() -> None:
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Sample:
        from_: str = param(inside="the lab folder", doc="an asset")
        paths: list[str] = param(default=[], doc="globs")
        limit: int | None = param(default=None, minimum=0, doc="at most")
        env: dict[str, Any] = param(default={}, doc="variables")

    source, paths, limit, env = fields_of(Sample)
    assert (source.name, source.type, source.required, source.inside) == (
        "from",
        str,
        True,
        "the lab folder",
    )
    assert (paths.type, paths.item_type, paths.default, paths.required) == (list, str, [], False)
    assert (limit.type, limit.minimum, limit.default) == (int, 0, None)
    assert (env.type, env.item_type) == (dict, None)
    assert Sample(from_="x").paths == [] and Sample(from_="x").paths is not paths.default


def test_an_attribute_without_param_is_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Undeclared:
        path: str

    with pytest.raises(TypeError, match=r"Undeclared.path is not declared with param\(\)"):
        fields_of(Undeclared)


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


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_tag_comes_first(name: str) -> None:
    tag = ALL[name].params[0]
    assert (tag.name, tag.required) == ("kind" if name.startswith("check") else "do", True)


def test_pick_hands_on_the_named_fields_in_the_order_named() -> None:
    @dataclasses.dataclass
    class Row:
        a: int
        b: str
        c: float

    assert list(pick(Row(1, "x", 2.0), "c a\nb").items()) == [("c", 2.0), ("a", 1), ("b", "x")]
