"""``since_start``: one file compared with itself as the lab started, for a step that asks for
a small change to it. ``rules_kept``: every line of the @Test methods it had is still there
(a rule added, none hollowed out). ``no_new_code``: it holds no code line it did not have
then (lines taken out, not new ones put in)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

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
        doc="a Java test class: every line of each @Test method it had at the lab's start "
        "is still in it, in order (a body emptied or changed is named by its method)",
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
        found = _changed_rules(then, now)
        rules = ", ".join(line.split(":", 1)[0] for line in found)
        headline = (
            f"{rules} in {p.path.rsplit('/', 1)[-1]} not as when the lab started: a rule with "
            "its body changed guards less; put it back (git diff shows how) and add yours beside"
        )
        expected = "every @Test method it had when the lab started, line for line, and yours"
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
