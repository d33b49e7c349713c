"""The members of a Java class, read from its text as far as ``since_start`` needs: where
each method starts and ends, by line, so a line can be said to sit inside one.

A small scanner, not a parser: it skips comments, string and char literals while it counts
braces, and calls a member at the top class's depth a method when its head ends in
``name(...)`` (``throws ...`` allowed). Enough for the fixture's sensors and what a person adds
to them; a text it cannot read simply yields fewer methods, so more lines are named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEAD = re.compile(r"(\w+)\s*\(([^()]*)\)\s*(?:throws\s+[\w.,\s]+)?$")
_NOT_NAMES = frozenset({"if", "for", "while", "switch", "catch", "synchronized", "new", "return"})
_SKIP = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)


@dataclass(frozen=True)
class JavaMember:
    """A method of the top class: ``key`` is its name and parameter types; its lines run from
    its first annotation or comment to its closing brace (1-based, inclusive)."""

    name: str
    key: str
    first: int
    last: int


def _blanked(text: str) -> str:
    """The text with comments and literals turned to spaces (new lines kept): braces in them
    no longer count, and every offset still falls on the same line."""
    return _SKIP.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _key(name: str, params: str) -> str:
    types = [" ".join(p.split()[:-1]) for p in params.split(",") if p.strip()]
    return f"{name}({', '.join(types)})"


def methods(text: str) -> list[JavaMember]:
    """Each method declared in the first top-level class's body, in file order."""
    code = _blanked(text)
    found: list[JavaMember] = []
    depth, head_start, body_start = 0, 0, 0
    for at, char in enumerate(code):
        if char == "{":
            depth += 1
            if depth == 1:
                head_start = at + 1
            elif depth == 2:
                body_start = at
        elif char == "}":
            depth -= 1
            if depth == 1:
                member = _member(text, code, head_start, body_start, at)
                if member is not None:
                    found.append(member)
                head_start = at + 1
            elif depth == 0:
                break
        elif char == ";" and depth == 1:
            head_start = at + 1
    return found


def _member(text: str, code: str, head_start: int, body_start: int, end: int) -> JavaMember | None:
    head = " ".join(
        re.sub(r"@\w+(?:\.\w+)*(?:\s*\([^()]*\))?", " ", code[head_start:body_start]).split()
    )
    match = _HEAD.search(head)
    if match is None or match.group(1) in _NOT_NAMES:
        return None
    lead = len(text[head_start:]) - len(text[head_start:].lstrip())
    first = text.count("\n", 0, head_start + lead) + 1
    return JavaMember(match.group(1), _key(*match.groups()), first, text.count("\n", 0, end) + 1)


def sitting_in(members: list[JavaMember], line: int) -> JavaMember | None:
    """The method a line (1-based) sits in, None outside every method."""
    return next((m for m in members if m.first <= line <= m.last), None)
