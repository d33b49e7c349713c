"""Bad input through the real CLI: malformed lab manifests, scenario files and settings files,
and paths that lead out of the workspace. Each gets exit 1, no traceback, and an error that
names the file and the field."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.reliability.cli import assert_clean_error, lab
from tests.reliability.participant import assert_intact, state
from tests.reliability.plugin import fault

LAB = """\
format = 1
id = "01-bad"
title = "A lab"
intro = "An intro."

[[step]]
id = "one"
title = "One"
instructions = "Write done.txt."
hints = ["a hint"]
[[step.check]]
kind = "file"
path = "done.txt"
exists = true
[[step.solve]]
do = "write"
path = "done.txt"
content = "x"
"""
CHECK = '[[step.check]]\nkind = "file"\npath = "done.txt"\nexists = true\n'
SOLVE = '[[step.solve]]\ndo = "write"\npath = "done.txt"\ncontent = "x"\n'


def _check(body: str) -> Callable[[str], str]:
    return lambda text: text.replace(CHECK, "[[step.check]]\n" + body)


def _solve(body: str) -> Callable[[str], str]:
    return lambda text: text.replace(SOLVE, "[[step.solve]]\n" + body)


MANIFESTS: dict[str, Callable[[str], str]] = {
    "broken TOML syntax": lambda t: t.replace('title = "A lab"', 'title = "A lab'),
    "no format": lambda t: t.replace("format = 1\n", ""),
    "a format from the future": lambda t: t.replace("format = 1", "format = 2"),
    "an id that is not its folder's": lambda t: t.replace('id = "01-bad"', 'id = "01-other"'),
    "no title": lambda t: t.replace('title = "A lab"\n', ""),
    "no step": lambda t: t[: t.index("[[step]]")],
    "a step id with spaces": lambda t: t.replace('id = "one"', 'id = "Step One"'),
    "empty hints": lambda t: t.replace('hints = ["a hint"]', "hints = []"),
    "hints that are not text": lambda t: t.replace('hints = ["a hint"]', "hints = [1, 2]"),
    "no check": lambda t: t.replace(CHECK, ""),
    "a misspelt check kind": lambda t: t.replace('kind = "file"', 'kind = "flie"'),
    "an unknown check field": lambda t: t.replace("exists = true", "exits = true"),
    "a check field of the wrong type": lambda t: t.replace("exists = true", 'exists = "yes"'),
    "a misspelt action": lambda t: t.replace('do = "write"', 'do = "wirte"'),
    "a missing asset": _solve('do = "copy"\nfrom = "missing.txt"\nto = "done.txt"\n'),
    "a path with ..": _solve('do = "write"\npath = "../escaped.txt"\ncontent = "x"\n'),
    "an absolute path": _solve('do = "write"\npath = "/tmp/escaped.txt"\ncontent = "x"\n'),
    "an asset out of the lab folder": _solve(
        'do = "copy"\nfrom = "../outside.txt"\nto = "done.txt"\n'
    ),
    "a checked path with ..": _check('kind = "file"\npath = "../../etc/passwd"\nexists = true\n'),
    "a session step without do": _check(
        'kind = "hook_session"\nsteps = [{ expect = "blocked" }]\n'
    ),
    "a session marker out of .git": _check(
        'kind = "hook_session"\nsteps = [{ do = "stop", marker_exists = "../../x" }]\n'
    ),
    "session steps that are numbers": _check('kind = "hook_session"\nsteps = [1, 2]\n'),
    "a session bash step with a negative timeout": _check(
        'kind = "hook_session"\nsteps = [{ do = "bash", command = "ls", timeout = -1 }]\n'
    ),
    "a negative count": _check(
        'kind = "hook_session"\nsteps = [{ do = "stop" }]\nblocked_stops_at_least = -3\n'
    ),
    "steps that are a table": lambda t: t[: t.index("[[step]]")] + '[step]\nid = "one"\n',
    "a step that is a number": lambda t: t[: t.index("[[step]]")] + "step = [7]\n",
}
MANIFEST_FIELDS = {
    "broken TOML syntax": "line 3",
    "no format": "format",
    "a format from the future": "format",
    "an id that is not its folder's": "id",
    "no title": "title",
    "no step": "step",
    "a step id with spaces": "step[0].id",
    "empty hints": "step[0].hints",
    "hints that are not text": "step[0].hints[0]",
    "no check": "step[0].check",
    "a misspelt check kind": "step[0].check[0].kind",
    "an unknown check field": "step[0].check[0].exits",
    "a check field of the wrong type": "step[0].check[0].exists",
    "a misspelt action": "step[0].solve[0].do",
    "a missing asset": "step[0].solve[0]",
    "a path with ..": "step[0].solve[0].path",
    "an absolute path": "step[0].solve[0].path",
    "an asset out of the lab folder": "step[0].solve[0].from",
    "a checked path with ..": "step[0].check[0].path",
    "a session step without do": "step[0].check[0].steps[0].do",
    "a session marker out of .git": "step[0].check[0].steps[0].marker_exists",
    "session steps that are numbers": "step[0].check[0].steps[0]",
    "a session bash step with a negative timeout": "step[0].check[0].steps[0].timeout",
    "a negative count": "step[0].check[0].blocked_stops_at_least",
    "steps that are a table": "step",
    "a step that is a number": "step[0]",
}


@fault(
    "bad input",
    "lab manifest: {case}",
    tried="lab list with a labs folder whose 01-bad/lab.toml has {case}",
    held="exit 1, no traceback; the error names 01-bad/lab.toml and {field}",
)
@pytest.mark.parametrize(("case", "field"), MANIFEST_FIELDS.items(), ids=list(MANIFEST_FIELDS))
def test_malformed_manifest(tmp_path: Path, case: str, field: str) -> None:
    labs = tmp_path / "labs"
    (labs / "01-bad").mkdir(parents=True)
    (labs / "outside.txt").write_text("not the lab's\n")
    (labs / "01-bad" / "lab.toml").write_text(MANIFESTS[case](LAB))
    done = lab(tmp_path, "list", env={"HOOKLAB_LABS": str(labs)})
    assert_clean_error(done, "01-bad/lab.toml", f"{field}:" if field != "line 3" else field)


SCENARIOS = {
    "broken TOML syntax": ("[[step]\ndo = 'stop'\n", "invalid TOML"),
    "no steps": ("[session]\nauto_approve = true\n", "step"),
    "an unknown action": ('[[step]]\ndo = "deploy"\n', "step[0].do"),
    "a required field left out": (
        '[[step]]\ndo = "edit"\nfile = "a.md"\nold = "x"\n',
        "step[0].new",
    ),
    "a field of the wrong type": (
        '[[step]]\ndo = "bash"\ncommand = "ls"\ntimeout = "long"\n',
        "step[0].timeout",
    ),
    "an unknown field": ('[[step]]\ndo = "stop"\nnmae = "x"\n', "step[0].nmae"),
    "an unknown expectation": ('[[step]]\ndo = "stop"\nexpect = "blokced"\n', "step[0].expect"),
    "an unknown session setting": (
        '[session]\nauto = true\n[[step]]\ndo = "stop"\n',
        "session.auto",
    ),
    "a file path with ..": (
        '[[step]]\ndo = "write"\nfile = "../escaped.txt"\ncontent = "x"\n',
        "step[0].file",
    ),
    "an absolute file path": (
        '[[step]]\ndo = "edit"\nfile = "/etc/hostname"\nold = "a"\nnew = "b"\n',
        "step[0].file",
    ),
    "steps that are numbers, not tables": ("step = [1, 2, 3]\n", "step[0]"),
    "a step that is a string": ('step = ["stop"]\n', "step[0]"),
    "a session that is not a table": ('session = 3\n[[step]]\ndo = "stop"\n', "session"),
    "a negative bash timeout": (
        '[[step]]\ndo = "bash"\ncommand = "ls"\ntimeout = -5\n',
        "step[0].timeout",
    ),
    "an absurd bash timeout": (
        '[[step]]\ndo = "bash"\ncommand = "ls"\ntimeout = 1e12\n',
        "step[0].timeout",
    ),
    "a timeout that is not a number (nan)": (
        '[[step]]\ndo = "bash"\ncommand = "ls"\ntimeout = nan\n',
        "step[0].timeout",
    ),
    "an action that is not a string": ("[[step]]\ndo = 3\n", "step[0].do"),
    "a step without an action": ('[[step]]\ntext = "hi"\n', "step[0].do"),
}


def project(root: Path, settings: object, local: object | None = None) -> Path:
    (root / ".claude").mkdir(parents=True)
    for name, data in (("settings.json", settings), ("settings.local.json", local)):
        if data is not None:
            text = data if isinstance(data, str) else json.dumps(data)
            (root / ".claude" / name).write_text(text)
    return root


@fault(
    "bad input",
    "scenario file: {case}",
    tried="lab simulate scenario.toml in a project with valid settings; the scenario has {case}",
    held="exit 1, no traceback, nothing written; the error names scenario.toml and {field}",
)
@pytest.mark.parametrize(
    ("case", "field"), [(c, f) for c, (_, f) in SCENARIOS.items()], ids=list(SCENARIOS)
)
def test_malformed_scenario(tmp_path: Path, case: str, field: str) -> None:
    root = project(tmp_path / "project", {"hooks": {}})
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(SCENARIOS[case][0])
    done = lab(root, "simulate", str(scenario))
    assert_clean_error(done, "scenario.toml", field)
    assert not (tmp_path / "escaped.txt").exists()


STOP = {"type": "command", "command": "true"}
SETTINGS: dict[str, tuple[object, object | None, str, str]] = {
    # case: (settings.json, settings.local.json, the file named, the field named)
    "broken JSON": ('{"hooks": {,}}', None, "settings.json", "line 1, column"),
    "hooks that are a list": ({"hooks": []}, None, "settings.json", "hooks"),
    "an event whose hooks are no list": (
        {"hooks": {"Stop": {"hooks": [STOP]}}},
        None,
        "settings.json",
        "hooks.Stop",
    ),
    "disableAllHooks that is no boolean": (
        {"disableAllHooks": "yes"},
        None,
        "settings.json",
        "disableAllHooks",
    ),
    "a hook without type": (
        {"hooks": {"Stop": [{"hooks": [{"command": "true"}]}]}},
        None,
        "settings.json",
        "hooks.Stop[0].hooks[0].type",
    ),
    "an empty command": (
        {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}},
        None,
        "settings.json",
        "hooks.Stop[0].hooks[0].command",
    ),
    "a negative timeout": (
        {"hooks": {"Stop": [{"hooks": [{**STOP, "timeout": -5}]}]}},
        None,
        "settings.json",
        "hooks.Stop[0].hooks[0].timeout",
    ),
    "an infinite timeout": (
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", '
        '"timeout": Infinity}]}]}}',
        None,
        "settings.json",
        "hooks.Stop[0].hooks[0].timeout",
    ),
    "a matcher that is no regex": (
        {"hooks": {"PreToolUse": [{"matcher": "Edit(", "hooks": [STOP]}]}},
        None,
        "settings.json",
        "hooks.PreToolUse[0].matcher",
    ),
    "a malformed permission rule": (
        {"permissions": {"deny": ["Edit(target/**"]}},
        None,
        "settings.json",
        "permissions.deny[0]",
    ),
    "a broken local settings file": (
        {"hooks": {}},
        {"hooks": {"Stop": "require-sensors.sh"}},
        "settings.local.json",
        "hooks.Stop",
    ),
}


@fault(
    "bad input",
    "settings file: {case}",
    tried="lab simulate of a one-step scenario in a project whose .claude settings have {case}",
    held="exit 1, no traceback; the error names {file} and {field}",
)
@pytest.mark.parametrize(
    ("case", "file", "field"),
    [(c, f, fld) for c, (_, _, f, fld) in SETTINGS.items()],
    ids=list(SETTINGS),
)
def test_malformed_settings(tmp_path: Path, case: str, file: str, field: str) -> None:
    settings, local, _file, _field = SETTINGS[case]
    root = project(tmp_path / "project", settings, local)
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('[[step]]\ndo = "stop"\n')
    assert_clean_error(lab(root, "simulate", str(scenario)), f".claude/{file}", field)


# ---- a symlink out: the text stays inside, the file does not -------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("not the workshop's\n")
    return folder


@fault(
    "bad input",
    "a scenario file that a symlink leads out of the project",
    tried="lab simulate with write file = 'link/x.txt', where link is a symlink to a folder "
    "outside the participant's workspace",
    held="exit 1, no traceback, the error names scenario.toml and step[0].file; nothing written "
    "outside; the participant's files, progress and backups intact but for the symlink",
)
def test_scenario_symlink_out(participant: Workspace, outside: Path, tmp_path: Path) -> None:
    root = participant.root
    (root / "link").symlink_to(outside)
    before = state(root)
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('[[step]]\ndo = "write"\nfile = "link/x.txt"\ncontent = "x"\n')
    assert_clean_error(lab(root, "simulate", str(scenario)), "scenario.toml", "step[0].file")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert_intact(before, root)


@fault(
    "bad input",
    "a manifest path that a symlink leads out of the workspace",
    tried="lab start of a lab whose step setup writes 'link/x.txt', where link is a symlink "
    "in the workspace to a folder outside it",
    held="the action is refused (exit 1, no traceback, the message names the path and says "
    "it leads out); nothing written outside",
)
def test_manifest_symlink_out(participant: Workspace, outside: Path, tmp_path: Path) -> None:
    root = participant.root
    labs = tmp_path / "labs"
    (labs / "01-bad").mkdir(parents=True)
    setup = '[[step.setup]]\ndo = "write"\npath = "link/x.txt"\ncontent = "x"\n'
    (labs / "01-bad" / "lab.toml").write_text(LAB.replace(CHECK, setup + CHECK))
    (root / "link").symlink_to(outside)
    (root / ".gitignore").write_text("target/\nlink\n")  # so `lab start` leaves the link
    done = lab(root, "start", "1", env={"HOOKLAB_LABS": str(labs)})
    assert_clean_error(done, "link/x.txt", "leads out of")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


@fault(
    "bad input",
    "a lab asset that is a symlink out of the lab folder",
    tried="lab start of a lab whose setup copies solution.txt, a symlink to a file outside the "
    "lab folder",
    held="the copy is refused (exit 1, no traceback, the message names the asset); the outside "
    "file is not copied into the workspace",
)
def test_asset_symlink_out(participant: Workspace, outside: Path, tmp_path: Path) -> None:
    root = participant.root
    labs = tmp_path / "labs"
    (labs / "01-bad").mkdir(parents=True)
    (labs / "01-bad" / "solution.txt").symlink_to(outside / "secret.txt")
    setup = '[[step.setup]]\ndo = "copy"\nfrom = "solution.txt"\nto = "copied.txt"\n'
    (labs / "01-bad" / "lab.toml").write_text(LAB.replace(CHECK, setup + CHECK))
    done = lab(root, "start", "1", env={"HOOKLAB_LABS": str(labs)})
    assert_clean_error(done, "solution.txt", "leads out of")
    assert not (root / "copied.txt").exists()
