"""Functions in harness/ over 60 lines of code (docstrings, comments and blank lines not
counted), with the reason their ``# Long because:`` comment gives.

    python scripts/long_functions.py [--limit 60] [--missing]   (--missing: exit 1 when one
    has no reason)
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REASON = "# Long because:"


def code_lines(source: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of ``node`` that hold code: not blank, not only a comment, not a docstring."""
    lines = set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    text = "\n".join(source.splitlines()[node.lineno - 1 : node.end_lineno])
    code: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in (
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        ):
            code.update(range(tok.start[0] + node.lineno - 1, tok.end[0] + node.lineno))
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and body:
            first = body[0]
            constant = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if constant and isinstance(first.value.value, str):
                code -= set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return len(code & lines)


def reason(source: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The ``# Long because:`` comment just above the def (or its decorators)."""
    top = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    i = top - 2
    while i >= 0 and source[i].strip().startswith("#"):
        if source[i].strip().startswith(REASON):
            return source[i].strip()[len(REASON) :].strip()
        i -= 1
    return ""


def long_functions(limit: int) -> list[tuple[str, int, str]]:
    found = []
    for path in sorted((ROOT / "harness").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = code_lines(source, node)
                if n > limit:
                    name = f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"
                    found.append((name, n, reason(source.splitlines(), node)))
    return sorted(found, key=lambda f: -f[1])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--missing", action="store_true", help="fail when a reason is missing")
    args = parser.parse_args(argv)
    found = long_functions(args.limit)
    for name, n, why in found:
        print(f"{n:4}  {name}  — {why or '(no reason given)'}")
    return 1 if args.missing and any(not why for *_, why in found) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
