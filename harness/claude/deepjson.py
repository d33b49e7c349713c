"""JSON at any depth, as a hook prints it.

The real client reads a hook's stdout with V8's ``JSON.parse``, which has no depth limit a hook
can reach: JSON nested 100,000 levels deep is still JSON to it, and a decision beside such a
field still counts (observed on the pinned client, tests/differential). Python's ``json``
recurses per level and raises RecursionError near 1,000. So ``loads`` tries ``json.loads``
first and, only when that runs out of stack, parses again with an explicit stack. Errors are
``json.JSONDecodeError`` either way, so callers handle one exception.
"""

from __future__ import annotations

import json
import json.decoder
import re
from collections.abc import Callable
from typing import Any

# json's own string reader (escapes, surrogates, its error texts); the stubs do not declare it.
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")
# The constants Python's json accepts, NaN and the infinities included, so both paths agree.
_CONSTANTS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}

Container = dict[str, Any] | list[Any]


def loads(text: str) -> Any:
    """``json.loads``, at any depth."""
    try:
        return json.loads(text)
    except RecursionError:
        return _parse(text)


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def _key(text: str, pos: int) -> tuple[str, int]:
    """An object's key and the position of its value."""
    if text[pos : pos + 1] != '"':
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
    key, pos = scanstring(text, pos + 1)
    pos = _skip(text, pos)
    if text[pos : pos + 1] != ":":
        raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
    return key, _skip(text, pos + 1)


def _scalar(text: str, pos: int) -> tuple[Any, int]:
    if text[pos : pos + 1] == '"':
        return scanstring(text, pos + 1)
    for word, value in _CONSTANTS.items():
        if text.startswith(word, pos):
            return value, pos + len(word)
    number = _NUMBER.match(text, pos)
    if number is None:
        raise json.JSONDecodeError("Expecting value", text, pos)
    if number.group(1) or number.group(2):
        return float(number.group()), number.end()
    return int(number.group()), number.end()


def _parse(text: str) -> Any:
    """One JSON document with an explicit stack of the containers still open."""
    open_: list[Container] = []
    keys: list[str] = []  # the pending key of every open object, innermost last
    pos = _skip(text, 0)
    while True:
        opener = text[pos : pos + 1]
        value: Any
        if opener in ("{", "["):
            pos = _skip(text, pos + 1)
            if text[pos : pos + 1] != ("}" if opener == "{" else "]"):
                open_.append({} if opener == "{" else [])
                if opener == "{":
                    key, pos = _key(text, pos)
                    keys.append(key)
                continue
            value, pos = ({} if opener == "{" else []), pos + 1
        else:
            value, pos = _scalar(text, pos)
        # Put the value in its container; close every container that ends here.
        while True:
            if not open_:
                end = _skip(text, pos)
                if end != len(text):
                    raise json.JSONDecodeError("Extra data", text, end)
                return value
            top = open_[-1]
            if isinstance(top, dict):
                top[keys[-1]] = value
            else:
                top.append(value)
            pos = _skip(text, pos)
            here = text[pos : pos + 1]
            if here == ",":
                pos = _skip(text, pos + 1)
                if isinstance(top, dict):
                    keys[-1], pos = _key(text, pos)
                break
            if here != ("}" if isinstance(top, dict) else "]"):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
            pos += 1
            value = open_.pop()
            if isinstance(value, dict):
                keys.pop()
