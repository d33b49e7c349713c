"""The prose layout: commands, paths and ids are never split; wrapped lines keep their indent;
nothing is cut."""

from __future__ import annotations

import argparse
import io

import pytest
from rich.console import Console
from rich.text import Text

from harness.cli.main import build_parser
from harness.ui.prose import (
    LAB_SUBCOMMANDS,
    Block,
    Prose,
    command_spans,
    markdown,
    print_prose,
    prose,
)


def shown(renderable: object, width: int) -> list[str]:
    out = io.StringIO()
    print_prose(Console(file=out, width=width, no_color=True), renderable)  # type: ignore[arg-type]
    return out.getvalue().splitlines()


def spans(text: str) -> list[str]:
    return [text[a:b] for a, b in command_spans(text)]


@pytest.mark.parametrize(
    ("text", "commands"),
    [
        ("then run ./mvnw -q test -Dgroups=sensor.", ["./mvnw -q test -Dgroups=sensor"]),
        (
            "(run ./mvnw -q test -Dgroups=sensor). Hooks changed (run ./.claude/hooks/smoke.sh).",
            ["./mvnw -q test -Dgroups=sensor", "./.claude/hooks/smoke.sh"],
        ),
        ("fix: lab check (lab hint if you are stuck)", ["lab check", "lab hint"]),
        ("lab list, then lab start 1", ["lab list", "lab start 1"]),
        ("the lab is complete; see lab list to pick", ["lab list"]),
        (
            "(or: git checkout refs/hooklab/backups/x-before-reset -- .)",
            ["git checkout refs/hooklab/backups/x-before-reset -- ."],
        ),
        (
            "use lab restore 20261130-092411-before-reset now",
            ["lab restore 20261130-092411-before-reset"],
        ),
        (
            "grade it: lab verify-hook SCRIPT --break 'rm -rf target' --fix CMD",
            ["lab verify-hook SCRIPT --break 'rm -rf target' --fix CMD"],
        ),
        ("a plain sentence with no command in it", []),
        ("not submitted (fix: lab submit --cohort NAME)", ["lab submit --cohort NAME"]),
        ("then lab trainer verify URL NAME", ["lab trainer verify URL NAME"]),
    ],
)
def test_commands_are_found_in_running_text(text: str, commands: list[str]) -> None:
    assert spans(text) == commands


def test_lab_subcommands_are_the_parsers_own() -> None:
    """ui/ may not import the CLI, so the word list is a copy; this keeps it the parser's."""
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    assert set(actions[0].choices) == LAB_SUBCOMMANDS


@pytest.mark.parametrize("width", [30, 40, 60])
def test_a_command_is_never_split_and_wrapped_lines_keep_the_indent(width: int) -> None:
    text = (
        "Sensors: the report is from before this session. Run the sensors in the foreground: "
        "./mvnw -q test -Dgroups=sensor and read target/surefire-reports/ afterwards."
    )
    lines = shown(prose(text, indent=6), width)
    assert len(lines) > 1
    # A command wider than the indent leaves moves left just enough to fit whole; every
    # other line keeps the indent, and no line is left for the terminal to break.
    assert all(line.startswith("      ") for line in lines if "./mvnw" not in line), lines
    assert any("./mvnw -q test -Dgroups=sensor" in line for line in lines), lines
    assert all(len(line) <= width for line in lines), lines


def test_a_unit_wider_than_the_terminal_is_left_whole() -> None:
    path = "target/surefire-reports/TEST-ai.unifiedprocess.petclinic.UseCaseTraceabilityTest.xml"
    lines = shown(prose(f"open {path} now", indent=2), 40)
    assert f"  {path}" in lines  # on a line of its own, longer than 40: the terminal wraps it
    assert lines[0] == "  open" and lines[-1] == "  now"


def test_backticks_mark_a_command_and_vanish() -> None:
    lines = shown(prose("Then run `lab check` again; `lab hint` gives a nudge."), 16)
    assert "lab check" in "\n".join(lines) and "`" not in "\n".join(lines)
    assert not any(line.endswith("lab") for line in lines), lines


def test_runs_of_spaces_survive_so_columns_stay_aligned() -> None:
    row = Text("⚙ stop           → blocked")
    assert shown(Prose([Block(row, Text("  "))]), 80) == ["  ⚙ stop           → blocked"]


def test_preformatted_blocks_keep_their_lines() -> None:
    code = Text("for i in 1 2 3; do\n  echo $i\ndone")
    assert shown(Prose([Block(code, Text("> "), Text("> "), wrap=False)]), 12) == [
        "> for i in 1 2 3; do",
        ">   echo $i",
        "> done",
    ]


def test_markdown_numbers_items_as_written_and_keeps_code_blocks_whole() -> None:
    source = (
        "Steps:\n\n3. first thing\n4. second thing that is long enough to wrap\n\n"
        "```\nlab verify-hook scripts/check-before-stop.sh --break 'rm -rf target'\n```\n\nEnd."
    )
    lines = shown(markdown(source), 30)
    assert lines[:2] == ["Steps:", ""]
    assert lines[2] == "3. first thing"
    assert lines[3].startswith("4. second") and lines[4].startswith("   ")
    code = "  lab verify-hook scripts/check-before-stop.sh --break 'rm -rf target'"
    assert code in lines
    index = lines.index(code)
    assert lines[index - 1] == "" and lines[index + 1] == "" and lines[index - 2] != ""
    assert lines[-1] == "End."
