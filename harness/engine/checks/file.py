"""``file``: a workspace file exists or is absent, contains text, matches a pattern."""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from harness.claude.settings import SETTINGS_FILES
from harness.engine.checks.live_evidence import participant_root
from harness.engine.checks.local_settings import found_elsewhere
from harness.engine.context import CheckContext
from harness.engine.excerpt import excerpt
from harness.engine.kinds import Worded, check_kind
from harness.errors import ConfigError
from harness.results import CheckResult
from harness.schema import param
from harness.userfiles import json_fix, json_trouble

ASSERTIONS = (
    "exists",
    "absent",
    "contains",
    "contains_all",
    "not_contains",
    "matches",
    "executable",
)


@dataclass(frozen=True, kw_only=True)
class FileParams(Worded):
    """A ``file`` check's parameters, typed (``KIND.params`` is derived from them)."""

    path: str = param(doc="file relative to the workspace root", inside="the workspace")
    exists: bool = param(default=False, doc="the file must exist")
    absent: bool = param(default=False, doc="the file must not exist")
    executable: bool = param(default=False, doc="the file must be executable")
    contains: str | None = param(default=None, doc="text the file must contain")
    contains_all: list[str] = param(default=[], doc="pieces of text the file must all contain")
    not_contains: str | None = param(default=None, doc="text the file must not contain")
    matches: str | None = param(
        default=None, doc="a regular expression (multiline) the file must match"
    )
    means: str | None = param(
        default=None,
        doc="what matches asks for, in words (a person reads this, never the pattern); "
        "required with matches; without matches, what not_contains asks for",
    )
    line_with: str | None = param(
        default=None,
        doc="text (any case) that picks the line found: shows when matches fails: a line "
        "starting with it first, else one containing it",
    )
    code_only: bool = param(
        default=False,
        doc="contains, not_contains and matches read only the lines that are not comments "
        "(a line starting with #): a comment that names a file is no code that tests it",
    )


def _validate(p: FileParams) -> str | None:
    if not any(getattr(p, a) not in (None, False) for a in ASSERTIONS):
        return f"say what to assert: one or more of {', '.join(ASSERTIONS)}"
    if p.matches is not None and not p.means:
        return "say in words what matches asks for (means = ...): a person never reads the pattern"
    if p.matches is not None:
        try:
            re.compile(p.matches, re.MULTILINE)
        except re.error as exc:
            return f"matches is not a valid regular expression: {exc}"
    return None


def run(ctx: CheckContext, p: FileParams) -> CheckResult:
    rel = p.path
    name = f"file {rel}"
    path = ctx.path(rel)
    if p.absent:
        return _absent(p, path.exists(), name)
    if not path.is_file():
        # Named as missing, whatever the check then reads in it: "no Claim: line yet" of a
        # file not written sends a person looking for a line instead of making the file.
        return CheckResult.missing_file(rel, name=name, expected="the file exists", root=ctx.root)
    if p.executable and not os.access(path, os.X_OK):
        return CheckResult.failed(
            p.message or f"{rel} is not executable",
            name=name,
            expected="executable",
            found="not executable",
            details={"fix": f"chmod +x {rel}"},
        )
    text = path.read_text(errors="replace")
    unread = _unreadable_json(rel, text, name)
    if unread is not None:
        return unread
    if p.code_only:
        text = "".join(ln for ln in text.splitlines(True) if not ln.lstrip().startswith("#"))
    if p.contains is not None and p.contains not in text:
        failed = CheckResult.failed(
            p.message or f"{rel} does not contain the expected text",
            name=name,
            expected=f"contains {p.contains!r}",
            found=_nearest(text, p.contains),
        )
        return _elsewhere(ctx, p, failed, piece=p.contains)
    missing = [t for t in p.contains_all or [] if t not in text]
    if missing:
        return CheckResult.failed(
            p.message or f"{rel} lacks {len(missing)} of the expected pieces",
            name=name,
            expected="contains " + ", ".join(repr(t) for t in p.contains_all),
            found="missing: " + ", ".join(repr(t) for t in missing),
        )
    if p.not_contains is not None and p.not_contains in text:
        line = next((ln for ln in text.splitlines() if p.not_contains in ln), p.not_contains)
        return CheckResult.failed(
            p.message or f"{rel} still contains {p.not_contains!r}",
            name=name,
            # In words where the lab gives them: a bare 'npm test -- --runInBand >' read as
            # a riddle (walk-j, Lab 12 step 2).
            expected=p.means if p.means and p.matches is None else _without(rel, p),
            found=excerpt(line, p.not_contains),
        )
    if p.matches is not None and not re.search(p.matches, text, re.MULTILINE):
        failed = CheckResult.failed(
            p.message or f"{rel} does not match the expected pattern",
            name=name,
            expected=p.means,
            found=_relevant_line(text, p.line_with),
        )
        return _elsewhere(ctx, p, failed, pattern=p.matches)
    return CheckResult.passed(p.pass_message or "as expected", name=name)


def _elsewhere(
    ctx: CheckContext,
    p: FileParams,
    failed: CheckResult,
    *,
    piece: str | None = None,
    pattern: str | None = None,
) -> CheckResult:
    """A settings file's failure, told where the wanted entry is instead when another settings
    file Claude Code reads has it (the local file, the person's own): found there (the
    ``piece`` of text, or the ``pattern``), named, and moved by the fix."""
    if p.path not in SETTINGS_FILES:
        return failed

    def has(other: str) -> bool:
        if pattern is not None:
            return re.search(pattern, other, re.MULTILINE) is not None
        return piece is not None and piece in other

    user = participant_root(ctx) / "settings.json"
    there = found_elsewhere(ctx.root, p.path, user, has, p.line_with or p.contains)
    if there is None:
        return failed
    line, fix = there
    found = f"{failed.found}\n{line}" if failed.found else line
    return replace(failed, found=found, details={**failed.details, "fix": fix})


def _without(rel: str, p: FileParams) -> str:
    """What a not_contains check wants, in words (walk-n, Lab 13 step 2: ``expected: no
    'dist/missing.js'``)."""
    if p.code_only:
        return f"{rel} whose code (its comments aside) no longer names {p.not_contains}"
    return f"{rel} without the text {p.not_contains!r}"


def _absent(p: FileParams, exists: bool, name: str) -> CheckResult:
    if exists:
        return CheckResult.failed(
            p.message or f"{p.path} should not exist",
            name=name,
            expected="no such file",
            found="the file exists",
        )
    # The result's name already carries the path: the message does not repeat it.
    return CheckResult.passed(p.pass_message or "gone, as expected", name=name)


def _unreadable_json(rel: str, text: str, name: str) -> CheckResult | None:
    """A .json file that does not parse fails here, before its text is matched: a piece of
    text found in a file nothing can load is no pass."""
    if not rel.endswith(".json"):
        return None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}: {json_trouble(exc)}"
        hooks = "; Claude Code would run none of its hooks" if rel.endswith("settings.json") else ""
        return CheckResult.failed(
            f"{rel} is not valid JSON ({where}), so its contents were not checked{hooks}",
            name=name,
            expected=f"{rel} as valid JSON",
            found=where,
            details={"fix": json_fix(rel, where)},
        )
    except RecursionError:
        return None  # nested past the parser's depth: not a participant's typo to explain
    return None


def _nearest(text: str, wanted: str) -> str:
    """The lines most like the expected text: what the participant wrote instead."""
    first = wanted.strip().splitlines()[0] if wanted.strip() else wanted
    close = difflib.get_close_matches(first, text.splitlines(), n=2, cutoff=0.5)
    if close:
        return "\n".join(line.strip() for line in close)
    return "the file is empty" if not text.strip() else f"no line like {first.strip()!r}"


def _relevant_line(text: str, wanted: str | None) -> str:
    """The line a failed pattern is about: the first that starts with ``wanted`` (after list
    marks, bold or a comment sign), else the first containing it; never the file's head."""
    lines = [line.strip() for line in text.splitlines()]
    if not wanted:
        return f"no line as asked, in {len(lines)} line{'s' if len(lines) != 1 else ''}"
    key = wanted.lower()
    starting = [ln for ln in lines if ln.lower().lstrip("-*#>` \t").startswith(key)]
    containing = [ln for ln in lines if key in ln.lower()]
    hits = starting or containing
    return excerpt(hits[0], wanted) if hits else f"no line with {wanted!r}"


T = TypeVar("T")


def read_participant_file(
    ctx: CheckContext,
    rel: str,
    read: Callable[[Path], T],
    *,
    name: str,
    wanted: str,
    form: str,
    said: Callable[[ConfigError], str] = lambda exc: exc.message,
) -> T | CheckResult:
    """A file the participant writes in the workspace, as ``read`` parses it; or the failure
    that says it is not there (``wanted``: what should be) or not in its ``form``."""
    path = ctx.path(rel)
    if not path.is_file():
        return CheckResult.missing_file(rel, name=name, expected=wanted, root=ctx.root)
    try:
        return read(path)
    except ConfigError as exc:
        return CheckResult.failed(
            said(exc),
            name=name,
            expected=form,
            found=exc.problem,
            details={"fix": exc.fix} if exc.fix else {},
        )


KIND = check_kind(
    "file",
    "a workspace file exists/is absent, contains or matches text",
    run,
    rules=_validate,
)
