"""A small declared schema for tables written by hand: every field named, typed and
documented. Lab manifests, scenario files and the inline steps of a check all use it.

Each problem names the file, the field path in one style (``step[2].check[1].kind``: tables
by name, array items by their number counted from 1, as ``lab`` counts steps: ``step[7]`` is
the seventh ``[[step]]``, the one a run calls step 7) and the fix; a typo suggests the field
that was meant; a number must be finite and inside its bounds.
"""

from __future__ import annotations

import builtins
import dataclasses
import difflib
import inspect
import keyword
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from harness.errors import ConfigError
from harness.paths import escape_problem

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")

_TYPE_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    bool: "true or false",
    float: "a number",
    list: "an array",
    dict: "a table",
}


_PLURALS: dict[type, str] = {
    str: "strings",
    int: "integers",
    bool: "booleans",
    float: "numbers",
    list: "arrays",
    dict: "tables",
}


def found(value: object) -> str:
    """A value as an error shows it: its kind, then itself (cut short)."""
    kind = _TYPE_NAMES.get(type(value), type(value).__name__)
    return f"{kind} {value!r}"[:160]


@dataclass(frozen=True)
class Field:
    name: str
    type: builtins.type
    required: bool = False
    default: Any = None
    doc: str = ""
    choices: tuple[str, ...] = ()
    item_type: builtins.type | None = None  # for arrays: the type of every element
    inside: str = ""  # a file path that must stay inside this folder, e.g. "the workspace"
    minimum: float | None = None  # numbers: the smallest allowed value
    maximum: float | None = None  # numbers: the largest allowed value
    positive: bool = False  # numbers: above zero (a timeout, a duration)
    # A format with its own words (the client's settings): what a wrong value is told, with
    # {value} for the value; what a missing one is told; the fix for either.
    problem: str = ""
    missing: str = ""
    fix: str = ""
    # A rule on the value beyond its type (a regular expression that compiles); returns the
    # problem, told with ``check_fix`` (else ``fix``).
    check: Callable[[Any], str | None] | None = None
    check_fix: str = ""
    # A rule on every element of an array, told at the element's own path (with check_fix).
    item_check: Callable[[Any], str | None] | None = None
    nullable: bool = False  # null stands for the field left out (the client's settings)
    # An array of the client's JSON settings: its items counted from 0, as jq counts them.
    json_items: bool = False

    def describe(self) -> str:
        kind = _TYPE_NAMES.get(self.type, self.type.__name__)
        if self.item_type is not None:
            kind += f" of {_PLURALS.get(self.item_type, self.item_type.__name__)}"
        need = "required" if self.required else "optional"
        bounds = self.bounds()
        return f"{self.name} ({kind}{', ' + bounds if bounds else ''}, {need}): {self.doc}"

    def bounds(self) -> str:
        said = []
        if self.positive:
            said.append("above 0")
        if self.minimum is not None:
            said.append(f"at least {self.minimum:g}")
        if self.maximum is not None:
            said.append(f"at most {self.maximum:g}")
        return " and ".join(said)

    def number_problem(self, value: object) -> str | None:
        """What is wrong with a number for this field (None when it is fine)."""
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return f"{value} is not a finite number"
        low_ok = self.minimum is None or value >= self.minimum
        high_ok = self.maximum is None or value <= self.maximum
        if (self.positive and value <= 0) or not low_ok or not high_ok:
            return f"{value:g} is out of range (it must be {self.bounds()})"
        return None


def _is(value: object, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, kind)


def suggest(word: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""


def check_table(
    data: object,
    fields: Sequence[Field],
    *,
    path: object,
    where: str,
    what: str = "table",
    open_: bool = False,
    problem: str = "",
    fix: str = "",
) -> dict[str, Any]:
    """Validate ``data`` against ``fields``; return it with defaults filled in. ``open_``: keys
    not declared are let through (a format that tolerates them); ``problem`` and ``fix``: what
    a value that is no table is told."""
    if not isinstance(data, Mapping):
        raise ConfigError(
            path,
            where,
            problem or f"expected a {what}, found {found(data)}",
            fix=fix or f"write {where or 'it'} as a {what}",
        )
    known = {f.name: f for f in fields}
    for key in data:
        if key not in known and not open_:
            names = ", ".join(known) or "none"
            raise ConfigError(
                path,
                _join(where, key),
                f"unknown field{suggest(key, list(known))}",
                fix=f"remove it or use one of: {names}",
            )
    out: dict[str, Any] = {}
    for field in fields:
        here = _join(where, field.name)
        if field.name in data and not (field.nullable and data[field.name] is None):
            out[field.name] = check_value(data[field.name], field, path=path, where=here)
        elif field.required:
            raise ConfigError(
                path,
                here,
                field.missing or "missing required field",
                fix=field.fix or f"add {field.describe()}",
            )
        else:
            out[field.name] = field.default
    return out


def check_value(value: object, field: Field, *, path: object, where: str) -> Any:
    """One field's value: its type, its items' types, its bounds, its paths, its choices."""

    def refuse(problem: str, at: str = where, fix: str = "") -> ConfigError:
        said = field.problem.format(value=value) if field.problem else problem
        return ConfigError(path, at, said, fix=field.fix or fix or field.describe())

    if not _is(value, field.type):
        raise refuse(
            f"expected {_TYPE_NAMES.get(field.type, field.type.__name__)}, found {found(value)}"
        )
    problem = field.number_problem(value)
    if problem:
        raise refuse(problem)
    items = value if isinstance(value, list) else [value]
    if field.item_type is not None:
        for i, item in enumerate(items):
            if not _is(item, field.item_type):
                kind = _TYPE_NAMES.get(field.item_type, "?")
                at = item_path(where, i, json=field.json_items)
                raise refuse(f"expected {kind}, found {found(item)}", at)
    if field.inside:
        for i, item in enumerate(items):
            problem = escape_problem(item, field.inside)
            if problem:
                raise ConfigError(
                    path,
                    item_path(where, i, json=field.json_items)
                    if isinstance(value, list)
                    else where,
                    problem,
                    fix=f"write a path relative to {field.inside}, without '..'",
                )
    if field.choices and value not in field.choices:
        raise refuse(
            f'unknown value "{value}"{suggest(str(value), field.choices)} '
            f"(known: {', '.join(field.choices)})",
            fix=f"use one of: {', '.join(field.choices)}",
        )
    _check_rules(value, field, path=path, where=where)
    return value


def _check_rules(value: object, field: Field, *, path: object, where: str) -> None:
    fix = field.check_fix or field.fix or field.describe()
    problem = field.check(value) if field.check else None
    if problem:
        raise ConfigError(path, where, problem, fix=fix)
    if field.item_check and isinstance(value, list):
        for i, item in enumerate(value):
            problem = field.item_check(item)
            if problem:
                at = item_path(where, i, json=field.json_items)
                raise ConfigError(path, at, problem, fix=fix)


def item_path(where: str, index: int, *, json: bool = False) -> str:
    """The field path of an array's item at ``index`` (from 0, as Python's): numbered from 1,
    as a person counts and as runs name steps (``step[7]`` is step 7); an item of the client's
    JSON settings from 0, as jq, which a person types it into, counts."""
    return f"{where}[{index if json else index + 1}]"


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def attribute(name: str) -> str:
    """A field's attribute on its typed dataclass: a Python keyword gets a trailing underscore
    (``from`` is ``from_``)."""
    return f"{name}_" if keyword.iskeyword(name) else name


def build(cls: type[T], table: Mapping[str, Any], fields: Sequence[Field]) -> T:
    """The typed form of a table ``check_table`` validated against ``fields``: one attribute
    per declared field the dataclass names (a tag such as ``kind`` is not a parameter)."""
    by_attribute = {attribute(f.name): f for f in fields}
    return cls(
        **{
            a.name: table.get(by_attribute[a.name].name, by_attribute[a.name].default)
            for a in dataclasses.fields(cls)
        }
    )


_SPEC = "hooklab.field"  # the key of a dataclass field's metadata that holds its Field


def param(
    *,
    default: Any = dataclasses.MISSING,
    doc: str = "",
    **rules: Any,
) -> Any:
    """A parameter of a kind's dataclass, declared once: the attribute is the field, its
    annotation the type, ``default`` (no default: required) and ``rules`` (``choices``,
    ``inside``, ``minimum``, …: :class:`Field`'s) what the table schema checks.
    :func:`fields_of` reads them back as the kind's :class:`Field` tuple."""
    required = default is dataclasses.MISSING
    spec = {"doc": doc, "required": required, "default": None if required else default, **rules}
    if required:
        return dataclasses.field(metadata={_SPEC: spec})
    if isinstance(default, list | dict):
        return dataclasses.field(
            default_factory=lambda: type(default)(default), metadata={_SPEC: spec}
        )
    return dataclasses.field(default=default, metadata={_SPEC: spec})


def _schema_type(hint: Any) -> tuple[builtins.type, builtins.type | None]:
    """``str | None`` → (str, None); ``list[str]`` → (list, str); ``dict[str, Any]`` →
    (dict, None): the table type of an annotation, and its items' when they are plain."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    origin = typing.get_origin(hint) or hint
    if origin is list:
        (item,) = typing.get_args(hint) or (Any,)
        return list, item if item in _TYPE_NAMES else None
    if origin in _TYPE_NAMES:
        return origin, None
    raise TypeError(f"no table type for {hint!r}")


def fields_of(cls: builtins.type[Any]) -> tuple[Field, ...]:
    """The :class:`Field` of each :func:`param` of ``cls``, in declaration order, except that
    the fields of a base marked ``PARAMS_LAST`` (texts every kind shares) come after the rest; a
    field named like a Python keyword is its attribute without the trailing underscore."""
    hints = typing.get_type_hints(cls)
    shared = {
        name
        for base in cls.__mro__[1:]
        if base.__dict__.get("PARAMS_LAST")
        for name in inspect.get_annotations(base)
    }
    out = []
    for attr in sorted(dataclasses.fields(cls), key=lambda a: a.name in shared):
        spec = attr.metadata.get(_SPEC)
        if spec is None:
            raise TypeError(f"{cls.__name__}.{attr.name} is not declared with param()")
        kind, item = _schema_type(hints[attr.name])
        rules = {"item_type": item, **spec}
        name = attr.name[:-1] if keyword.iskeyword(attr.name[:-1]) else attr.name
        out.append(Field(name, kind, **rules))
    return tuple(out)


def pick(obj: object, names: str) -> dict[str, Any]:
    """The attributes of ``obj`` named in ``names`` (split on white space), keyed by name in
    that order: the fields a ``to_json`` hands on as they are, each named once."""
    return {name: getattr(obj, name) for name in names.split()}
