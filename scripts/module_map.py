"""Write the "Every module's job" section of docs/architecture.md from the modules' own
docstrings: one line a module, the docstring's first sentence (or, when that runs long, its
heading before the colon). tests/test_module_map.py fails while the page and the code differ,
and when a module has no line to give.

    python scripts/module_map.py          (from the checkout, with any python 3.11)
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harness"
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- module map: written by scripts/module_map.py -->"
END = "<!-- end of the module map -->"
# Longer than this, a first sentence is no longer one row a reader takes in at a glance.
LONGEST = 180
# Shorter than this, a heading ("Provisioning.") names the module again rather than its job.
SHORTEST = 25


class NoJob(ValueError):
    """A module whose docstring gives no one-line job."""


def job_of(path: Path) -> str:
    """The module's job in one line, from its docstring."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split()).replace("``", "`")
    paragraph = re.sub(r":\w+:`", "`", paragraph)  # :func:`run` reads as `run`
    sentence = _first_sentence(paragraph)
    if len(sentence) > LONGEST:
        sentence = next((s for s in _shorter(sentence) if len(s) >= SHORTEST), sentence)
    if len(sentence) < SHORTEST or len(sentence) > LONGEST:
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        raise NoJob(
            f"{where}: start its docstring with its job in one sentence of "
            f"{SHORTEST} to {LONGEST} characters"
        )
    return sentence


def _first_sentence(paragraph: str) -> str:
    """Up to the first full stop outside brackets ("(watchfiles.awatch)" goes on)."""
    depth = 0
    for at, char in enumerate(paragraph):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "." and depth == 0 and paragraph[at + 1 : at + 2] in ("", " "):
            return paragraph[: at + 1]
    return paragraph


def _shorter(sentence: str) -> list[str]:
    """A long sentence cut short, best first: its heading (before a colon), its first clause
    (before a semicolon), then the sentence without its asides in brackets."""
    cuts = [sentence[:at].rstrip(",") + "." for at in _outside(sentence, (": ", "; "))]
    plain = re.sub(r" \([^()]*\)", "", sentence)
    return [*cuts, plain] if len(plain) <= LONGEST else cuts


def _outside(text: str, marks: tuple[str, ...]) -> list[int]:
    """Where each of ``marks`` first stands outside brackets and backticks, in that order."""
    found: dict[str, int] = {}
    depth, quoted = 0, False
    for at, char in enumerate(text):
        quoted ^= char == "`"
        depth += {"(": 1, ")": -1}.get(char, 0)
        for mark in marks:
            if mark not in found and not depth and not quoted and text.startswith(mark, at):
                found[mark] = at
    return [found[mark] for mark in marks if mark in found]


def module_map() -> str:
    """The section's body: a table a package, its modules in order."""
    packages: dict[str, list[Path]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_bundled" in path.parts:
            continue
        packages.setdefault(str(path.parent.relative_to(ROOT)), []).append(path)
    parts = []
    for package in sorted(packages):
        rows = [f"| `{p.name}` | {_cell(job_of(p))} |" for p in packages[package]]
        parts.append(f"`{package}/`\n\n| module | job |\n|---|---|\n" + "\n".join(rows))
    return "\n\n".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", r"\|")


def with_map(page: str) -> str:
    """The page with its module map written anew between the markers."""
    start, end = page.index(BEGIN) + len(BEGIN), page.index(END)
    return page[:start] + "\n\n" + module_map() + "\n\n" + page[end:]


def write_page(doc: Path, new: str, what: str) -> None:
    """Write ``new`` over ``doc`` when they differ, and say which (scripts/lab_reference.py
    writes its section the same way)."""
    if new != doc.read_text(encoding="utf-8"):
        doc.write_text(new, encoding="utf-8")
        print(f"wrote {what} into {doc.relative_to(ROOT)}")
    else:
        print(f"{doc.relative_to(ROOT)} is up to date")


def main() -> int:
    try:
        new = with_map(DOC.read_text(encoding="utf-8"))
    except NoJob as error:
        print(error, file=sys.stderr)
        return 1
    write_page(DOC, new, "the module map")
    return 0


if __name__ == "__main__":
    sys.exit(main())
