"""Hook matchers, the way Claude Code reads them.

A matcher made only of letters, digits, ``_``, ``-``, spaces, ``,`` and ``|`` is a tool name or
a list of names compared exactly (``Edit|Write`` does not match ``MultiEdit``). Anything else is
a regular expression searched anywhere in the value (``Edit.*``, ``mcp__.*``,
``plugin:agent$``). Missing, ``""`` and ``"*"`` match everything.
"""

from __future__ import annotations

import re
from functools import lru_cache

_PLAIN = re.compile(r"^[A-Za-z0-9_\-, |]*$")


def is_match_all(matcher: str | None) -> bool:
    return matcher is None or matcher.strip() in ("", "*")


def is_exact(matcher: str) -> bool:
    """True when the matcher is a name or a ``|``/``,`` list rather than a regex."""
    return bool(_PLAIN.match(matcher))


@lru_cache(maxsize=256)
def _compiled(matcher: str) -> re.Pattern[str]:
    return re.compile(matcher)


def regex_error(matcher: str) -> str | None:
    """The compile error of a regex matcher, or None when it is usable."""
    if is_match_all(matcher) or is_exact(matcher):
        return None
    try:
        _compiled(matcher)
    except re.error as exc:
        return str(exc)
    return None


def matches(matcher: str | None, value: str) -> bool:
    if matcher is None or is_match_all(matcher):
        return True
    if is_exact(matcher):
        names = {part.strip() for part in re.split(r"[|,]", matcher)}
        return value in names - {""}
    return _compiled(matcher).search(value) is not None
