"""The shape every check kind and every action kind shares: a frozen dataclass that declares
its parameters once (``harness.schema.param``), the table schema derived from it
(``fields_of``), and one function that reads that dataclass. A new kind is one module plus
one line in its registry."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from harness.engine.context import CheckContext
from harness.results import CheckResult
from harness.schema import Field, attribute, build, fields_of, param

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Params = dict[str, Any]  # a validated table, before it is typed
P = TypeVar("P", bound="DataclassInstance")


def _never(_: object) -> bool:
    return False


def _no_assets(_: object) -> list[str]:
    return []


def _no_problem(_: object) -> str | None:
    return None


def _no_tables(_: object, path: object, where: str) -> None:
    return None


@dataclass(frozen=True)
class Kind(Generic[P]):
    name: str
    summary: str
    params: tuple[Field, ...]  # the tag (kind or do), then fields_of(typed)
    typed: type[P]  # the frozen dataclass that declares the parameters
    call: Callable[[CheckContext, P], CheckResult]
    slow: Callable[[P], bool] = _never  # needs Maven or a JVM: the view shows progress
    assets: Callable[[P], list[str]] = _no_assets  # files it needs from the lab folder
    # Cross-field rules the table schema cannot say ("exactly one of …"); returns the problem.
    rules: Callable[[P], str | None] = _no_problem
    # The tables inside a parameter (inline steps, expected items), validated when the
    # manifest loads: raises ConfigError naming the file (``path``) and the field under
    # ``where`` (the check's or action's own field path).
    tables: Callable[[P, object, str], None] = _no_tables

    def build(self, table: Params) -> P:
        """The typed parameters of a table ``check_table`` validated against ``params``."""
        return build(self.typed, table, self.params)

    def _typed(self, p: P | Params) -> P:
        return self.build(p) if isinstance(p, dict) else p

    def validate(self, p: P | Params) -> str | None:
        return self.rules(self._typed(p))

    def check_tables(self, p: P | Params, path: object, where: str) -> None:
        self.tables(self._typed(p), path, where)

    def run(self, ctx: CheckContext, p: P | Params) -> CheckResult:
        """Run on typed parameters (a manifest's, built once) or on a validated table."""
        return self.call(ctx, self._typed(p))


@dataclass(frozen=True, kw_only=True)
class Worded:
    """The two texts every check kind lets a lab's author word: a check's parameters inherit
    them (``fields_of`` lists them after the kind's own)."""

    PARAMS_LAST: ClassVar[bool] = True

    message: str | None = param(default=None, doc="what the participant reads when the check fails")
    pass_message: str | None = param(default=None, doc="what the participant reads when it passes")


CHECK_TAG = Field("kind", str, required=True)  # a check's table names its kind


def tagged_kind(
    tag: Field,
    name: str,
    summary: str,
    call: Callable[[CheckContext, P], CheckResult],
    **options: Any,
) -> Kind[P]:
    """A kind whose parameters are ``tag`` (a check's ``kind``, an action's ``do``), then the
    fields of the dataclass ``call`` reads (its second parameter's annotation), so the type is
    named once."""
    second = list(inspect.signature(call).parameters)[1]
    typed = typing.get_type_hints(call)[second]
    return Kind(name, summary, (tag, *fields_of(typed)), typed, call, **options)


def check_kind(
    name: str, summary: str, call: Callable[[CheckContext, P], CheckResult], **options: Any
) -> Kind[P]:
    """A check kind: its parameters are the ``kind`` tag, then the fields ``call`` reads."""
    return tagged_kind(CHECK_TAG, name, summary, call, **options)


def one_of(params: object, *names: str) -> str | None:
    given = [n for n in names if getattr(params, attribute(n)) is not None]
    if len(given) != 1:
        return f"give exactly one of {', '.join(names)} (found {', '.join(given) or 'none'})"
    return None
