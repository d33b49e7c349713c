"""A small declared schema for TOML tables: every field named, typed and documented.

Manifests are written by hand, so every problem must name the file, the field path
(``step[2].check[0].kind``) and the fix, and a typo must suggest the field that was meant.
"""

from __future__ import annotations

import builtins
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.errors import ConfigError
from harness.paths import escape_problem

_TYPE_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    bool: "true or false",
    float: "a number",
    list: "an array",
    dict: "a table",
}


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

    def describe(self) -> str:
        kind = _TYPE_NAMES.get(self.type, self.type.__name__)
        if self.item_type is not None:
            kind += f" of {_TYPE_NAMES.get(self.item_type, self.item_type.__name__)}s"
        need = "required" if self.required else "optional"
        return f"{self.name} ({kind}, {need}): {self.doc}"


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
) -> dict[str, Any]:
    """Validate ``data`` against ``fields``; return it with defaults filled in."""
    if not isinstance(data, Mapping):
        raise ConfigError(path, where, f"expected a {what}, found {type(data).__name__}")
    known = {f.name: f for f in fields}
    out: dict[str, Any] = {}
    for key in data:
        if key not in known:
            names = ", ".join(known) or "none"
            raise ConfigError(
                path,
                _join(where, key),
                f"unknown field{suggest(key, list(known))}",
                fix=f"remove it or use one of: {names}",
            )
    for field in fields:
        here = _join(where, field.name)
        if field.name not in data:
            if field.required:
                raise ConfigError(
                    path, here, "missing required field", fix=f"add {field.describe()}"
                )
            out[field.name] = field.default
            continue
        value = data[field.name]
        if not _is(value, field.type):
            raise ConfigError(
                path,
                here,
                f"expected {_TYPE_NAMES.get(field.type, field.type.__name__)}, "
                f"found {type(value).__name__} {value!r}"[:200],
                fix=field.describe(),
            )
        if field.item_type is not None:
            for i, item in enumerate(value):
                if not _is(item, field.item_type):
                    raise ConfigError(
                        path,
                        f"{here}[{i}]",
                        f"expected {_TYPE_NAMES.get(field.item_type, '?')}, found {item!r}"[:200],
                        fix=field.describe(),
                    )
        if field.inside:
            for i, item in enumerate(value if isinstance(value, list) else [value]):
                problem = escape_problem(item, field.inside)
                if problem:
                    raise ConfigError(
                        path,
                        f"{here}[{i}]" if isinstance(value, list) else here,
                        problem,
                        fix=f"write a path relative to {field.inside}, without '..'",
                    )
        if field.choices and value not in field.choices:
            raise ConfigError(
                path,
                here,
                f'unknown value "{value}"{suggest(str(value), field.choices)} '
                f"(known: {', '.join(field.choices)})",
                fix=f"use one of: {', '.join(field.choices)}",
            )
        out[field.name] = value
    return out


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key
