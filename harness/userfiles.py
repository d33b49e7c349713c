"""Reading the files people write by hand: lab.toml, scenarios, .claude/settings.json, quiz
answers, differential cases.

Whatever is in them, the reader answers with a ``ConfigError`` that names the file and the fix,
never a traceback: a file that cannot be read, bytes that are not UTF-8 (a UTF-16 save, a
binary file), a NUL byte, a syntax error, and nesting too deep for Python's recursive parsers
and for the code that walks the result.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.errors import ConfigError

# A hand-written file needs a few levels (settings: hooks.Event[0].hooks[0].field). Far more is
# a mistake, and the parsers and the validators after them recurse per level.
MAX_DEPTH = 64
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
SAVE_AS_UTF8 = "save it as UTF-8 text (in your editor: save with encoding UTF-8)"


def read_text(path: Path, shown: object | None = None) -> str:
    """The file's text, strictly UTF-8."""
    where = path if shown is None else shown
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            where,
            "",
            f"cannot be read ({exc.strerror or exc})",
            fix="check the path, and that it is a file you may read",
        ) from None
    if data.startswith(UTF16_BOMS):
        raise ConfigError(where, "", "is UTF-16 text, not UTF-8", fix=SAVE_AS_UTF8)
    nul = data.find(b"\0")
    if nul >= 0:
        raise ConfigError(
            where,
            "",
            f"is not a text file (a NUL byte at offset {nul})",
            fix="replace it with the text it should hold, or name the right file",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[line_start : exc.start].decode("utf-8")) + 1  # in characters
        raise ConfigError(
            where,
            f"line {line}, column {column}",
            f"is not UTF-8 text (byte 0x{data[exc.start]:02x})",
            fix=SAVE_AS_UTF8,
        ) from None


def read_toml(path: Path, shown: object | None = None) -> dict[str, Any]:
    """The file's TOML document as a dict."""
    data: dict[str, Any] = _document(path, shown, tomllib.loads, tomllib.TOMLDecodeError, _bad_toml)
    return data


def read_json(path: Path, shown: object | None = None) -> object:
    """The file's JSON document (any JSON value: the caller checks its type)."""
    return _document(path, shown, json.loads, json.JSONDecodeError, _bad_json)


def json_object(path: Path) -> dict[str, Any]:
    """The JSON object in a file the client keeps, read as leniently as the client reads it:
    {} when the file is missing, unreadable, not JSON or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _document(
    path: Path,
    shown: object | None,
    loads: Callable[[str], Any],
    syntax_error: type[ValueError],
    bad: Callable[[object, Any, str], ConfigError],
) -> Any:
    """What ``loads`` reads from the file: a syntax error is ``bad``'s words for it, a
    document nested too deep is refused (``check_depth``)."""
    where = path if shown is None else shown
    text = read_text(path, shown)
    try:
        data = loads(text)
    except syntax_error as exc:
        raise bad(where, exc, text) from None
    except RecursionError:
        raise _too_deep(where) from None
    check_depth(data, where)
    return data


def _bad_toml(where: object, exc: tomllib.TOMLDecodeError, text: str = "") -> ConfigError:
    twice = _given_twice(str(exc), text)
    if twice is not None:
        key, line = twice
        return ConfigError(
            where,
            f"line {line}",
            f"invalid TOML: {key} is given twice",
            fix=f"keep one {key} line (the one you mean) and delete the other",
        )
    return ConfigError(where, "", f"invalid TOML ({exc})", fix="fix the TOML syntax at that line")


_TWICE = re.compile(r"Cannot (?:overwrite a value|declare \((.*?),?\) twice) \(at line (\d+),")


def _given_twice(said: str, text: str) -> tuple[str, int] | None:
    """The key tomllib refuses as a duplicate, named as a person wrote it, and its line:
    "Cannot overwrite a value (at line 2, column 9)" says neither."""
    match = _TWICE.search(said)
    if match is None:
        return None
    line = int(match.group(2))
    if match.group(1):  # a [table] declared twice: its name, as tomllib quotes it
        return ".".join(part.strip(" '\"") for part in match.group(1).split(",")), line
    lines = text.splitlines()
    written = lines[line - 1] if 0 < line <= len(lines) else ""
    key = written.split("=", 1)[0].strip()
    return (key, line) if key and "=" in written else None


def _bad_json(where: object, exc: json.JSONDecodeError, text: str = "") -> ConfigError:
    return ConfigError(
        where,
        f"line {exc.lineno}, column {exc.colno}",
        f"invalid JSON ({json_trouble(exc)})",
        fix=f"check the JSON syntax near line {exc.lineno} "
        "(trailing commas and comments are not allowed)",
    )


def json_trouble(exc: json.JSONDecodeError) -> str:
    """The parser's complaint in a person's words: a control character is named, since
    Python's own message for it ends mid-sentence ("Invalid control character at")."""
    if not exc.msg.startswith("Invalid control character"):
        return exc.msg
    char = exc.doc[exc.pos] if exc.pos < len(exc.doc) else ""
    if char in "\r\n":
        return "a line break inside a string: a JSON string stays on one line"
    if char == "\t":
        return "a tab inside a string: write \\t or a space"
    return f"a control character (U+{ord(char):04X}) inside a string"


def json_fix(rel: object, problem: str) -> str:
    """How to find and mend a JSON file a person edits."""
    if "line break inside a string" in problem:
        return (
            f"join the string back onto one line (a pasted line that wrapped did this); "
            f"jq . {rel} shows where it breaks"
        )
    return (
        f"jq . {rel} shows where it breaks (line and column); a missing or extra comma, "
        "or a quote without its backslash, is the usual cause"
    )


def check_depth(data: object, where: object) -> None:
    """Refuse tables and arrays nested deeper than MAX_DEPTH (walked without recursing)."""
    level: list[object] = [data]
    for _ in range(MAX_DEPTH):
        level = [
            child
            for node in level
            if isinstance(node, dict | list)
            for child in (node.values() if isinstance(node, dict) else node)
        ]
        if not level:
            return
    if any(isinstance(node, dict | list) for node in level):
        raise _too_deep(where)


def _too_deep(where: object) -> ConfigError:
    return ConfigError(
        where,
        "",
        f"is nested more than {MAX_DEPTH} levels deep",
        fix="flatten it: a hand-written file needs only a few levels",
    )
