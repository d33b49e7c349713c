"""``{random}`` in a hook session's inline steps: one made-up class name per run.

A step whose text names its probe (Lab 08: "Claude writes repository/OwnerStore.java") can be
passed by a rule with an exemption for that one name. A name made up afresh for every check
(as the sensors kind's sandbox files do) is one no exemption can know beforehand.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from harness.engine.checks.sensors import RANDOM_NAME, _made_up_name, _type_names

P = TypeVar("P")


def _fill(value: Any, name: str) -> Any:
    """``value`` (a string, or lists and tables of them) with every ``{random}`` as ``name``."""
    if isinstance(value, str):
        return value.replace(RANDOM_NAME, name)
    if isinstance(value, list):
        return [_fill(v, name) for v in value]
    if isinstance(value, dict):
        return {_fill(k, name): _fill(v, name) for k, v in value.items()}
    return value


def with_made_up_name(params: P, root: Path) -> P:
    """A hook session's ``params`` with ``{random}`` in its steps, title and messages replaced
    by one made-up name that no type in ``root`` has (``params`` itself when none says it)."""
    steps = getattr(params, "steps", None)
    if RANDOM_NAME not in repr(steps):
        return params
    name = _made_up_name(_type_names(root))
    fields = ("steps", "title", "message", "pass_message")
    return replace(params, **{f: _fill(getattr(params, f), name) for f in fields})  # type: ignore[type-var]
