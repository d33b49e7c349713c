"""A line matcher for what a command printed, after pytester's ``LineMatcher.fnmatch_lines``.

A substring test (``"passed" in out``) passes on any line, and on a line that says
"not passed"; a pattern here is an fnmatch glob (``*``, ``?``, ``[...]``) that must match a
whole line, the patterns in order, so a test names the line it expects and where it stands.
A failure shows each pattern beside the line it matched, the first it did not find, and the
whole output.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase


def _lines(output: str | Iterable[str]) -> list[str]:
    rows = output.splitlines() if isinstance(output, str) else list(output)
    return [row.rstrip() for row in rows]


def fnmatch_lines(
    output: str | Iterable[str], patterns: Iterable[str], *, consecutive: bool = False
) -> list[str]:
    """Each of ``patterns`` matches a whole line of ``output`` (trailing spaces dropped), in
    order, each below the line the one before matched; ``consecutive``: on the very next line.
    Returns the matched lines; raises AssertionError naming the first pattern not found."""
    __tracebackhide__ = True  # a failure points at the test that called it
    lines = _lines(output)
    found: list[str] = []
    log: list[str] = []
    start = 0
    for pattern in patterns:
        window = lines[start : start + 1] if consecutive and found else lines[start:]
        hit = next((i for i, line in enumerate(window) if fnmatchcase(line, pattern)), None)
        if hit is None:
            where = "on the next line" if consecutive and found else "below"
            log.append(f"no line {where} matches {pattern!r}")
            raise AssertionError("\n".join([*log, "in the output:", *lines]))
        start += hit
        log.append(f"{pattern!r} matched line {start + 1}: {lines[start]!r}")
        found.append(lines[start])
        start += 1
    return found


def no_fnmatch_line(output: str | Iterable[str], pattern: str) -> None:
    """No whole line of ``output`` matches ``pattern``."""
    __tracebackhide__ = True
    lines = _lines(output)
    for number, line in enumerate(lines, start=1):
        if fnmatchcase(line, pattern):
            raise AssertionError(
                "\n".join(
                    [f"{pattern!r} matches line {number}: {line!r}", "in the output:", *lines]
                )
            )


def joined(output: str) -> str:
    """``output`` with every run of whitespace one space: for a sentence a screen wraps."""
    return " ".join(output.split())


def shell_joined(screen: str) -> str:
    """The screen as the shell reads a command copied from it: a line ending in `` \\`` goes
    on with the next (how a command wider than the terminal is shown); runs of spaces one."""
    return " ".join(screen.replace(" \\\n", " ").split())
