"""A guard's case table: the tool calls and prompts its author expects it to block, allow or
send to the user, written by hand in TOML and checked field by field (harness/schema.py).

    [[case]]
    name = "rm -rf of the home folder"     # optional; the row's name in the grade
    tool = "Bash"                          # a tool call: the tool, as the model names it
    input = { command = "rm -rf ~" }       # its input, as the model sends it
    want = "blocked"                       # blocked | allowed | asked

    [[case]]
    prompt = "deploy to production"        # or a prompt the user types
    want = "blocked"
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.claude.vocabulary import StepKind
from harness.errors import ConfigError
from harness.schema import Field, check_table, found, item_path
from harness.userfiles import read_toml

BLOCKED = "blocked"
ALLOWED = "allowed"
ASKED = "asked"
VERDICTS = (BLOCKED, ALLOWED, ASKED)

# The tools a case may call. Bash, Edit and Write are played by both engines; a case table
# asks for no more, so a grade never depends on a tool one engine does not carry out.
CASE_TOOLS = ("Bash", "Edit", "Write")
_INPUT_KEYS = {
    "Bash": ("command",),
    "Edit": ("file_path", "old_string", "new_string"),
    "Write": ("file_path", "content"),
}

CASE_FIELDS = (
    Field("name", str, doc="what the case is, shown on its row"),
    Field("tool", str, choices=CASE_TOOLS, doc="the tool called, as the model names it"),
    Field("input", dict, doc='the tool\'s input, e.g. { command = "rm -rf /" }'),
    Field("prompt", str, doc="a prompt the user types (instead of tool and input)"),
    Field("want", str, required=True, choices=VERDICTS, doc="the verdict the guard should give"),
)
TABLE_FIELDS = (Field("case", list, required=True, doc="the cases, one [[case]] table each"),)


@dataclass(frozen=True)
class Case:
    number: int  # from 1, as the file's [[case]] tables are counted
    name: str
    want: str
    tool: str | None = None
    tool_input: dict[str, Any] | None = None
    prompt: str | None = None

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        if self.prompt is not None:
            return f"prompt {self.prompt!r}"[:80]
        given = self.tool_input or {}
        shown = given.get("command") or given.get("file_path") or ""
        return f"{self.tool} {shown}"[:80]

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.number,
            "name": self.label,
            StepKind.TOOL.value: self.tool,
            "input": self.tool_input,
            StepKind.PROMPT.value: self.prompt,
            "want": self.want,
        }


def load_cases(path: Path) -> tuple[Case, ...]:
    """The case table in ``path``; a ConfigError naming the file, the field and the fix."""
    if not path.is_file():
        raise ConfigError(
            path, "", "no such file", fix="give the case table's path, e.g. --cases cases.toml"
        )
    return parse_cases(read_toml(path), path)


def parse_cases(data: dict[str, Any], path: Path) -> tuple[Case, ...]:
    top = check_table(data, TABLE_FIELDS, path=path, where="", what="case table")
    raw = top["case"]
    if not raw:
        raise ConfigError(path, "case", "no cases", fix='add [[case]] tables with want = "..."')
    return tuple(_case(item, i, path) for i, item in enumerate(raw))


def _case(item: object, index: int, path: Path) -> Case:
    here = item_path("case", index)
    if not isinstance(item, dict):
        raise ConfigError(
            path, here, f"expected a case table, found {found(item)}", fix='want = "blocked"'
        )
    checked = check_table(item, CASE_FIELDS, path=path, where=here, what="case table")
    tool, tool_input, prompt = checked["tool"], checked["input"], checked["prompt"]
    if (tool is None) == (prompt is None):
        raise ConfigError(
            path,
            here,
            "a case is a tool call or a prompt, and this one is "
            + ("both" if prompt is not None else "neither"),
            fix='write tool = "Bash" with input = { command = "..." }, or prompt = "..."',
        )
    if prompt is not None and tool_input is not None:
        raise ConfigError(
            path, f"{here}.input", "a prompt takes no input", fix="remove input, or write tool"
        )
    if tool is not None:
        _check_input(tool, tool_input, path, f"{here}.input")
    return Case(index + 1, checked["name"] or "", checked["want"], tool, tool_input, prompt)


def _check_input(tool: str, tool_input: dict[str, Any] | None, path: Path, here: str) -> None:
    needs = _INPUT_KEYS[tool]
    example = ", ".join(f'{k} = "..."' for k in needs)
    if tool_input is None:
        raise ConfigError(path, here, "missing required field", fix=f"input = {{ {example} }}")
    for key in needs:
        value = tool_input.get(key)
        if not isinstance(value, str):
            problem = "missing" if value is None else f"expected a string, found {found(value)}"
            raise ConfigError(path, f"{here}.{key}", problem, fix=f"input = {{ {example} }}")
