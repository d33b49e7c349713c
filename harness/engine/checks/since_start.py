"""``since_start``: one file compared with itself as the lab started, for a step that asks for
a small change to it. ``rules_kept``: every line of the @Test methods it had is still there
(a rule added, none hollowed out), and so is every other line, with nothing added outside the
new methods: an old rule switched off in a helper it calls (walk-l: ``if
(rule.startsWith("ui classes")) { return; }`` in ``report``) guards as little as a hollow one.
``no_new_code``: it holds no code line it did not have
then (lines taken out, not new ones put in)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from harness.engine.checks.java_members import JavaMember, methods, sitting_in
from harness.engine.context import CheckContext
from harness.engine.kinds import Worded, check_kind
from harness.results import CheckResult
from harness.schema import param
from harness.workspace.snapshot import read_blob


@dataclass(frozen=True, kw_only=True)
class SinceStartParams(Worded):
    """A ``since_start`` check's parameters, typed (``KIND.params`` is derived from them)."""

    path: str = param(doc="the file, relative to the workspace root", inside="the workspace")
    rules_kept: bool = param(
        default=False,
        doc="a Java test class: every line it had at the lab's start is still in it, in order "
        "(a rule's body emptied or changed is named by its method), and each line added lies "
        "in a method that is new, or is an import, a comment or blank (others are named)",
    )
    no_new_code: bool = param(
        default=False,
        doc="a shell script: no line but a blank or # comment line that it did not have at "
        "the lab's start (each such line is named with its number)",
    )


def _validate(p: SinceStartParams) -> str | None:
    if p.rules_kept == p.no_new_code:
        return "say one thing to compare: rules_kept = true or no_new_code = true"
    return None


_TEST_START = re.compile(r"@Test\b[^;{}]*?\bvoid\s+(\w+)\s*\([^)]*\)[^{;]*\{")


def test_bodies(text: str) -> dict[str, list[str]]:
    """Each @Test method's lines, whitespace folded, from its braces' contents (a brace in a
    string literal would miscount; the fixture's sensors have none)."""
    bodies: dict[str, list[str]] = {}
    for found in _TEST_START.finditer(text):
        depth, end = 1, found.end()
        while depth and end < len(text):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        lines = [" ".join(line.split()) for line in text[found.end() : end - 1].splitlines()]
        bodies[found.group(1)] = [line for line in lines if line]
    return bodies


def _changed_rules(then: str, now: str) -> list[str]:
    """A line per @Test method of ``then`` whose body ``now`` does not hold line for line."""
    bodies = test_bodies(now)
    lines = []
    for method, body in test_bodies(then).items():
        if method not in bodies:
            lines.append(f"{method}(): gone (or no longer a @Test)")
            continue
        if bodies[method] == body:
            continue
        matcher = difflib.SequenceMatcher(None, body, bodies[method], autojunk=False)
        gone = len(body) - sum(block.size for block in matcher.get_matching_blocks())
        added = len(bodies[method]) - len(body) + gone
        lines.append(
            f"{method}(): {gone} of its {len(body)} lines changed or gone"
            + (f", {added} new" if added else "")
        )
    return lines


# Lines that may come and go anywhere: they change what no rule does.
_FREE = re.compile(r"^(?:import\s|//|/\*|\*|$)")
# What a new method may not be or do: run before or after the rules, or change what they read.
# (reflection reaches a field by its name, past the field check below).
_LIFECYCLE = re.compile(
    r"@(?:BeforeAll|BeforeEach|AfterAll|AfterEach)\b"
    r"|\b(?:setAccessible|getDeclaredFields?|MethodHandles|VarHandle)\b"
)
_FIELD = re.compile(
    r"^\s*(?:(?:private|protected|public|static|final)\s+)+[\w<>\[\], .?]+?\s(\w+)\s*[=;]"
)
_WRITES = (
    r"(?<![\w.])(?:\w+\.)?{}\s*"
    r"(?:[-+*/]?=(?!=)|\.\s*(?:clear|add\w*|remove\w*|retainAll|set|sort|replaceAll)\s*\()"
)


def _code_lines(text: str, skip: set[int]) -> list[tuple[int, str]]:
    """Each line that is code (not an import, comment or blank), whitespace folded, with its
    number; the lines in ``skip`` left out."""
    folded = ((n, " ".join(line.split())) for n, line in enumerate(text.splitlines(), 1))
    return [(n, line) for n, line in folded if n not in skip and not _FREE.match(line)]


def _where(member: JavaMember | None) -> str:
    return f" (in {member.name}())" if member else " (outside every method)"


def _added_elsewhere(then: str, now: str) -> list[str]:
    """Each line added or gone outside the new methods and the old rules' bodies (those are
    judged rule by rule), and each line of a new method that runs around the rules or changes
    what they read."""
    old, new = methods(then), methods(now)
    had = {m.key for m in old}
    added = [m for m in new if m.key not in had]
    inside = {n for m in added for n in range(m.first, m.last + 1)}
    rules = set(test_bodies(then))
    before, after = _code_lines(then, set()), _code_lines(now, inside)
    matcher = difflib.SequenceMatcher(
        None, [t for _, t in before], [t for _, t in after], autojunk=False
    )
    found = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for n, line in before[i1:i2]:
            member = sitting_in(old, n)
            if member is None or member.name not in rules:
                found.append(f"line {n} as the lab started{_where(member)}, gone: {_cut(line)}")
        for n, line in after[j1:j2]:
            member = sitting_in(new, n)
            if member is None or member.name not in rules:
                found.append(f"line {n}{_where(member)}: {_cut(line)}")
    return found + _new_methods_reach(then, now, added)


def _new_methods_reach(then: str, now: str, added: list[JavaMember]) -> list[str]:
    """Lines of the new methods that run around the old rules or change what they read."""
    fields = [m.group(1) for m in map(_FIELD.match, then.splitlines()) if m]
    writes = re.compile(_WRITES.format(f"(?:{'|'.join(fields)})")) if fields else None
    lines = now.splitlines()
    found = []
    for member in added:
        for n in range(member.first, member.last + 1):
            line = " ".join(lines[n - 1].split())
            if _LIFECYCLE.search(line) or (writes and writes.search(line)):
                found.append(f"line {n}{_where(member)}: {_cut(line)}")
    return found


def _is_code(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _new_code(then: str, now: str) -> list[str]:
    """Each code line of ``now`` that ``then`` does not have, with its line number."""
    had = {" ".join(line.split()) for line in then.splitlines()}
    return [
        f"line {n}: {_cut(line.strip())}"
        for n, line in enumerate(now.splitlines(), 1)
        if _is_code(line) and " ".join(line.split()) not in had
    ]


def _cut(line: str, width: int = 76) -> str:
    """A code line as its start: enough to find it, never wider than a row."""
    return line if len(line) <= width else line[: width - 1] + "…"


def rules_kept_problems(then: str, now: str) -> list[str]:
    """What a ``rules_kept`` look names: the old rules changed, else the lines elsewhere."""
    return _changed_rules(then, now) or _added_elsewhere(then, now)


def _rules_kept(path: str, then: str, now: str) -> tuple[list[str], str, str]:
    """What differs, the headline and the expected line of a ``rules_kept`` comparison."""
    file = path.rsplit("/", 1)[-1]
    found = _changed_rules(then, now)
    if found:
        rules = ", ".join(line.split(":", 1)[0] for line in found)
        headline = (
            f"{rules} in {file} not as when the lab started: a rule with its body changed "
            "guards less; put it back (git diff shows how) and add yours beside"
        )
        return (
            found,
            headline,
            "every @Test method it had when the lab started, line for line, and yours",
        )
    found = _added_elsewhere(then, now)
    headline = (
        f"{file} changed where the old rules reach: a line added to or taken from what they "
        "run (a helper such as report(), a field), or a new method that runs before them or "
        "changes what they read, can switch a rule off; put it back (git diff shows how) and "
        "keep your change to the new rule"
    )
    return (
        found,
        headline,
        "every line it had when the lab started, in order; new lines only in new methods "
        "(imports and comments aside)",
    )


def run(ctx: CheckContext, p: SinceStartParams) -> CheckResult:
    name = f"since the lab started: {p.path.rsplit('/', 1)[-1]}"
    base = ctx.lab_start_commit
    if not base:
        return CheckResult.errored("no lab start commit recorded; start the lab first", name=name)
    repo = ctx.workspace.repo
    blob = read_blob(repo, repo[base.encode()].tree, p.path)
    path = ctx.path(p.path)
    if blob is None or not path.is_file():
        missing = "was not there when the lab started" if blob is None else "is gone"
        return CheckResult.failed(
            p.message or f"{p.path} {missing}: lab reset puts it back (and backs up your files)",
            name=name,
            expected=f"{p.path} as the lab started, with the step's change",
            found=f"{p.path} {missing}",
        )
    then, now = blob.decode("utf-8", "replace"), path.read_text(errors="replace")
    if p.rules_kept:
        found, headline, expected = _rules_kept(p.path, then, now)
    else:
        found = _new_code(then, now)
        headline = f"{p.path} has code it did not have: the step only takes lines out"
        expected = "only lines taken out: no code line it did not have when the lab started"
    if found:
        return CheckResult.failed(
            p.message or headline,
            name=name,
            expected=expected,
            found="\n".join(found[:10]),
            details={"fix": f"git diff -- {p.path}"},
        )
    return CheckResult.passed(p.pass_message or "as the step asks", name=name)


KIND = check_kind(
    "since_start",
    "one file against itself as the lab started: its test rules kept, or no new code",
    run,
    rules=_validate,
)
