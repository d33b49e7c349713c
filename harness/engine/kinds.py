"""The shape every check kind and every action kind shares: a declared parameter schema and
one function. A new kind is one module plus one line in its registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.engine.context import CheckContext
from harness.results import CheckResult
from harness.schema import Field

Params = dict[str, Any]


def _never(_: Params) -> bool:
    return False


def _no_assets(_: Params) -> list[str]:
    return []


def _no_problem(_: Params) -> str | None:
    return None


@dataclass(frozen=True)
class Kind:
    name: str
    summary: str
    params: tuple[Field, ...]
    run: Callable[[CheckContext, Params], CheckResult]
    slow: Callable[[Params], bool] = _never  # needs Maven or a JVM: the view shows progress
    assets: Callable[[Params], list[str]] = _no_assets  # files it needs from the lab folder
    # Cross-field rules the table schema cannot say ("exactly one of …"); returns the problem.
    validate: Callable[[Params], str | None] = _no_problem


def one_of(params: Params, *names: str) -> str | None:
    given = [n for n in names if params.get(n) is not None]
    if len(given) != 1:
        return f"give exactly one of {', '.join(names)} (found {', '.join(given) or 'none'})"
    return None
