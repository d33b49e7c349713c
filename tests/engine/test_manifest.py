from __future__ import annotations

from pathlib import Path

import pytest

from harness.engine.manifest import find_lab, load_lab, load_labs
from harness.errors import ConfigError
from tests.builders import write_lab

GOOD = """
format = 1
id = "01-demo"
title = "Demo"
intro = "hi"
[[step]]
id = "one"
title = "One"
instructions = "do it"
hints = ["a", "b"]
[[step.check]]
kind = "file"
path = "x.txt"
exists = true
[[step.solve]]
do = "write"
path = "x.txt"
content = "x"
"""


def _error(tmp_path: Path, body: str, lab_id: str = "01-demo") -> ConfigError:
    lab = write_lab(tmp_path, lab_id, body)
    with pytest.raises(ConfigError) as info:
        load_lab(lab)
    return info.value


def test_good_manifest_loads(tmp_path: Path) -> None:
    lab = load_lab(write_lab(tmp_path, "01-demo", GOOD))
    assert [s.id for s in lab.steps] == ["one"]
    assert lab.steps[0].checks[0].params["exists"] is True
    assert lab.step("1").id == "one"


def test_unknown_check_kind_names_file_field_and_known_kinds(tmp_path: Path) -> None:
    err = _error(tmp_path, GOOD.replace('kind = "file"', 'kind = "foo"'))
    assert err.field == "step[1].check[1].kind"
    assert 'unknown kind "foo"' in err.problem and "known: file, git, sensors" in err.problem
    assert err.path.endswith("01-demo/lab.toml")
    assert err.fix and "use one of" in err.fix


def test_typo_in_a_field_suggests_the_right_one(tmp_path: Path) -> None:
    err = _error(tmp_path, GOOD.replace("exists = true", "exist = true"))
    assert err.field == "step[1].check[1].exist"
    assert 'did you mean "exists"' in err.problem


def test_empty_hints_are_refused(tmp_path: Path) -> None:
    err = _error(tmp_path, GOOD.replace('hints = ["a", "b"]', "hints = []"))
    assert err.field == "step[1].hints"


def test_duplicate_step_ids_are_refused(tmp_path: Path) -> None:
    second = GOOD[GOOD.index("[[step]]") :]
    err = _error(tmp_path, GOOD + second)
    assert err.field == "step[2].id" and "duplicate" in err.problem


def test_unsupported_format_version(tmp_path: Path) -> None:
    err = _error(tmp_path, GOOD.replace("format = 1", "format = 2"))
    assert err.field == "format" and "not supported" in err.problem


def test_missing_asset_is_named(tmp_path: Path) -> None:
    copy = 'do = "copy"\nfrom = "sol/x.txt"\nto = "x.txt"'
    body = GOOD.replace('content = "x"', "").replace('do = "write"\npath = "x.txt"', copy)
    err = _error(tmp_path, body)
    assert err.field == "step[1].solve[1]" and "sol/x.txt" in err.problem


def test_id_must_match_folder(tmp_path: Path) -> None:
    err = _error(tmp_path, GOOD, lab_id="02-other")
    assert err.field == "id" and "folder" in err.problem


def test_wrong_type_is_named(tmp_path: Path) -> None:
    err = _error(tmp_path, GOOD.replace("exists = true", 'exists = "yes"'))
    assert err.field == "step[1].check[1].exists" and "true or false" in err.problem


def test_inline_session_steps_are_validated(tmp_path: Path) -> None:
    body = GOOD.replace(
        'kind = "file"\npath = "x.txt"\nexists = true',
        'kind = "hook_session"\nsteps = [{ do = "edit", file = "a" }]',
    )
    err = _error(tmp_path, body)
    assert err.field.startswith("step[1].check[1].steps[1]")


def test_the_shipped_labs_all_load() -> None:
    labs = load_labs()
    assert len(labs) >= 9
    assert find_lab("3").id == "03-stop-hook"
    assert find_lab("07-own-stop-hook").id == "07-own-stop-hook"


FILE_CHECK = 'kind = "file"\npath = "x.txt"\nexists = true'
SESSION = 'kind = "hook_session"\nsteps = [{ do = "stop" }]\n'
LIVE = 'kind = "live_session"\nexpect = [{ do = "stop" }]\n'


def _check(check: str) -> str:
    return GOOD.replace(FILE_CHECK, check)


@pytest.mark.parametrize(
    ("check", "field", "said", "known"),
    [
        # a misspelt outcome loaded fine and failed only after the solve, as an edit "that is
        # blokced" the session lacked
        (
            SESSION + 'expect_sequence = [{ do = "stop" }, { do = "edit", outcome = "blokced" }]',
            "step[1].check[1].expect_sequence[2].outcome",
            'unknown value "blokced" (did you mean "blocked"?)',
            "allowed, blocked, asked, stopped, error",
        ),
        # the inline steps' assertion, not a key of expect_sequence: the error names it
        (
            SESSION + 'expect_sequence = [{ do = "stop", marker_absent = "x" }]',
            "step[1].check[1].expect_sequence[1].marker_absent",
            'unknown field (did you mean "marker_exists"?)',
            "do, outcome, feedback_contains",
        ),
        (
            SESSION + 'expect_sequence = [{ do = "stpo" }]',
            "step[1].check[1].expect_sequence[1].do",
            'unknown value "stpo" (did you mean "stop"?)',
            "prompt, edit, write, bash",
        ),
        (
            LIVE + 'steps = [{ do = "stop", expect = "alowed" }]',
            "step[1].check[1].steps[1].expect",
            'unknown value "alowed" (did you mean "allowed"?)',
            "allowed, blocked",
        ),
        (
            LIVE + 'engine = "claude"',
            "step[1].check[1].engine",
            'unknown value "claude"',
            "emulator, claude-code, auto",
        ),
        (
            LIVE.replace('{ do = "stop" }', '{ do = "stop", outcome = "blocked", asks = "x" }'),
            "step[1].check[1].expect[1].asks",
            'unknown field (did you mean "ask"?)',
            "ended, foreground, ask",
        ),
    ],
    ids=["outcome", "sequence-key", "sequence-do", "live-steps", "live-engine", "live-expect"],
)
def test_every_value_of_a_check_is_checked_at_load(
    tmp_path: Path, check: str, field: str, said: str, known: str
) -> None:
    err = _error(tmp_path, _check(check))
    assert err.path.endswith("01-demo/lab.toml")
    assert err.field == field
    assert said in err.problem
    assert err.fix and known in err.fix


def test_a_play_session_steps_are_checked_at_load_in_their_own_place(tmp_path: Path) -> None:
    solve = 'do = "write"\npath = "x.txt"\ncontent = "x"'
    play = 'do = "play_session"\nsteps = [{ do = "edit", file = "a.txt", old = "a" }]'
    err = _error(tmp_path, GOOD.replace(solve, play))
    assert err.path.endswith("01-demo/lab.toml")  # not a made-up "lab.toml"
    assert err.field == "step[1].solve[1].steps[1].new"
    assert "missing required field" in err.problem
