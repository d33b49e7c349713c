"""Hand-written files that are not what their loader reads: bytes that are not UTF-8, binary
files, nesting deeper than any hand-written file needs, and the wrong type where a loader looks
first. Through the real CLI, for a scenario, a lab manifest, the .claude settings and the quiz
answers alike: exit 1, no traceback, the file named and what to do."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.builders import lab as build_lab
from tests.builders import step, write_lab
from tests.reliability.cli import assert_clean_error, lab, project
from tests.reliability.participant import assert_intact, state
from tests.reliability.plugin import fault

STOP_STEP = b'[[step]]\ndo = "stop"\n'
# Each class as bytes for a TOML file, with the words the error must say.
TOML_FILES: dict[str, tuple[bytes, str]] = {
    "Latin-1 bytes, not UTF-8": (b"# caf\xe9\n" + STOP_STEP, "line 1, column 6: is not UTF-8"),
    "a UTF-16 save": ("# notes\n".encode("utf-16") + STOP_STEP, "is UTF-16 text"),
    "a binary file": (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), "is not a text file"),
    "inline tables 400 deep": (
        b"x = " + b"{ a = " * 400 + b"1" + b" }" * 400 + b"\n",
        "nested more than 64 levels",
    ),
    "dotted keys 2000 deep": (b".".join([b"a"] * 2000) + b" = 1\n", "nested more than 64 levels"),
}
# The wrong type where the scenario loader looks before any field is checked.
SCENARIOS: dict[str, tuple[str, str]] = {
    "steps that are numbers": ("step = [1, 2]\n", "step[1]: expected a table"),
    "a single [step] table": ('[step]\ndo = "stop"\n', "step: expected an array, found a table"),
    "an action that is an array": ('[[step]]\ndo = ["stop"]\n', "step[1].do"),
    "a negative bash timeout": (
        '[[step]]\ndo = "bash"\ncommand = "true"\ntimeout = -5\n',
        "step[1].timeout: -5 is out of range",
    ),
    "a bash timeout of a billion seconds": (
        '[[step]]\ndo = "bash"\ncommand = "true"\ntimeout = 1e9\n',
        "step[1].timeout",
    ),
}


def each_case(table: Mapping[str, tuple[object, str]]) -> pytest.MarkDecorator:
    """One run per case of ``table`` (its name is the test id), given ``case`` and ``said``:
    the words the error must say."""
    return pytest.mark.parametrize(
        ("case", "said"), [(case, said) for case, (_, said) in table.items()], ids=list(table)
    )


@fault(
    "bad input",
    "scenario file: {case}",
    tried="lab simulate scenario.toml in a project with valid settings; the file is {case}",
    held='exit 1, no traceback; the error names scenario.toml and says "{said}"',
)
@each_case(TOML_FILES)
def test_unreadable_scenario(tmp_path: Path, case: str, said: str) -> None:
    root = project(tmp_path / "project", {"hooks": {}})
    scenario = tmp_path / "scenario.toml"
    scenario.write_bytes(TOML_FILES[case][0])
    assert_clean_error(lab(root, "simulate", str(scenario)), "scenario.toml", said)


@fault(
    "bad input",
    "scenario file: {case}",
    tried="lab simulate scenario.toml in a project with valid settings; the scenario has {case}",
    held='exit 1, no traceback, no step run; the error names scenario.toml and says "{said}"',
)
@each_case(SCENARIOS)
def test_scenario_of_wrong_types(tmp_path: Path, case: str, said: str) -> None:
    root = project(tmp_path / "project", {"hooks": {}})
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(SCENARIOS[case][0])
    done = lab(root, "simulate", str(scenario))
    assert_clean_error(done, "scenario.toml", said)
    assert "turn ended" not in done.stdout


@fault(
    "bad input",
    "lab manifest: {case}",
    tried="lab list with a labs folder whose 01-bad/lab.toml is {case}",
    held='exit 1, no traceback; the error names 01-bad/lab.toml and says "{said}"',
)
@each_case(TOML_FILES)
def test_unreadable_manifest(tmp_path: Path, case: str, said: str) -> None:
    (tmp_path / "labs" / "01-bad").mkdir(parents=True)
    (tmp_path / "labs" / "01-bad" / "lab.toml").write_bytes(TOML_FILES[case][0])
    done = lab(tmp_path, "list", env={"HOOKLAB_LABS": str(tmp_path / "labs")})
    assert_clean_error(done, "01-bad/lab.toml", said)


@fault(
    "bad input",
    "lab manifest: a check kind that is an array",
    tried='lab list with a labs folder whose 01-bad/lab.toml has kind = ["file"] in a check',
    held="exit 1, no traceback; the error names 01-bad/lab.toml and step[1].check[1].kind",
)
def test_manifest_kind_of_wrong_type(tmp_path: Path) -> None:
    (tmp_path / "labs" / "01-bad").mkdir(parents=True)
    (tmp_path / "labs" / "01-bad" / "lab.toml").write_text(
        'format = 1\nid = "01-bad"\ntitle = "A lab"\nintro = "An intro."\n'
        '[[step]]\nid = "one"\ntitle = "One"\ninstructions = "Write it."\nhints = ["a hint"]\n'
        '[[step.check]]\nkind = ["file"]\npath = "done.txt"\n'
        '[[step.solve]]\ndo = "write"\npath = "done.txt"\ncontent = "x"\n'
    )
    done = lab(tmp_path, "list", env={"HOOKLAB_LABS": str(tmp_path / "labs")})
    assert_clean_error(done, "01-bad/lab.toml", "step[1].check[1].kind")


SETTINGS: dict[str, tuple[bytes, str]] = {
    # The column counts characters: the "é" before the Latin-1 byte is two bytes of UTF-8.
    "Latin-1 bytes, not UTF-8": (
        '{"hooks": {},\n "x": "é '.encode() + b'\xe9"}',
        "line 2, column 10: is not UTF-8",
    ),
    "a UTF-16 save": ('{"hooks": {}}'.encode("utf-16"), "is UTF-16 text"),
    "a binary file": (b"\x00\x01\x02\x03" * 64, "is not a text file"),
    "arrays 3000 deep": (b'{"hooks": ' + b"[" * 3000 + b"]" * 3000 + b"}", "nested more than"),
    "objects 100 deep": (b'{"a": ' * 100 + b"1" + b"}" * 100, "nested more than 64 levels"),
    "an array at the top": (b"[]", "must hold a JSON object"),
}


@fault(
    "bad input",
    "settings file: {case}",
    tried="lab simulate of a one-step scenario in a project whose .claude/settings.json is {case}",
    held='exit 1, no traceback; the error names .claude/settings.json and says "{said}"',
)
@each_case(SETTINGS)
def test_unreadable_settings(tmp_path: Path, case: str, said: str) -> None:
    root = project(tmp_path / "project", {"hooks": {}})
    (root / ".claude" / "settings.json").write_bytes(SETTINGS[case][0])
    scenario = tmp_path / "scenario.toml"
    scenario.write_bytes(STOP_STEP)
    assert_clean_error(lab(root, "simulate", str(scenario)), ".claude/settings.json", said)


QUIZ = "answers/adr-quiz.toml"
ANSWERS: dict[str, tuple[bytes, str]] = {
    "Latin-1 bytes, not UTF-8": (b'q1 = "b" # s\xfbr\n', "is not UTF-8"),
    "a binary file": (b"\x89PNG\r\n\x1a\n\x00\x00", "is not a text file"),
    "arrays 400 deep": (b"q1 = " + b"[" * 400 + b"]" * 400 + b"\n", "nested more than"),
    "an answer nested in arrays": (b'q4 = [["b"]]\n', "4 of 5 questions still to answer"),
}


@fault(
    "bad input",
    "quiz answers: {case}",
    tried="lab check at lab 09 (the ADR quiz) with answers/adr-quiz.toml as {case}",
    held="the check fails (exit 1, no traceback), naming answers/adr-quiz.toml and saying "
    '"{said}"; the participant\'s files, progress and backups intact',
)
@each_case(ANSWERS)
def test_unreadable_quiz_answers(participant: Workspace, case: str, said: str) -> None:
    root = participant.root
    (root / QUIZ).parent.mkdir(parents=True, exist_ok=True)
    (root / QUIZ).write_bytes(ANSWERS[case][0])
    before = state(root)
    done = lab(root, "check")
    assert_clean_error(done, QUIZ, said)
    assert_intact(before, root)


# A dev-check report as lab dev merge meets it, with the words the error must say.
REPORTS: dict[str, tuple[bytes, str]] = {
    "Latin-1 bytes, not UTF-8": (b'{"labs": [], "note": "caf\xe9"}\n', "is not UTF-8"),
    "a binary file": (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), "is not a text file"),
    "arrays 100,000 deep": (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
}


@fault(
    "bad input",
    "dev-check report: {case}",
    tried="lab dev merge report.json where report.json is {case}",
    held='exit 1, no traceback; the error names report.json and says "{said}"',
)
@each_case(REPORTS)
def test_unreadable_dev_check_report(tmp_path: Path, case: str, said: str) -> None:
    (tmp_path / "report.json").write_bytes(REPORTS[case][0])
    assert_clean_error(lab(tmp_path, "dev", "merge", "report.json"), "report.json", said)


@fault(
    "bad input",
    "a replace action on a file that is not UTF-8",
    tried="lab solve --apply of a step whose solve replaces text in notes.txt, which the "
    "participant saved as Latin-1",
    held='the action errs (exit 1, no traceback) naming notes.txt and saying "is not UTF-8"; '
    "notes.txt is left byte for byte as it was",
)
def test_replace_in_a_file_that_is_not_utf8(participant: Workspace, tmp_path: Path) -> None:
    root = participant.root
    labs = tmp_path / "labs"
    replaces = step(
        "one", solve={"do": "replace", "path": "notes.txt", "old": "cafe", "new": "bar"}
    )
    write_lab(labs, "01-bad", build_lab("01-bad", replaces))
    env = {"HOOKLAB_LABS": str(labs)}
    started = lab(root, "start", "1", env=env)
    assert started.returncode == 0, started.stdout + started.stderr
    latin1 = b"caf\xe9 au lait\n"
    (root / "notes.txt").write_bytes(latin1)
    assert_clean_error(lab(root, "solve", "--apply", env=env), "notes.txt", "is not UTF-8")
    assert (root / "notes.txt").read_bytes() == latin1
