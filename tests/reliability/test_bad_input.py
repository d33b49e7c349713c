"""Bad input through the real CLI: malformed lab manifests, scenario files and settings files,
and paths that lead out of the workspace. Each gets exit 1, no traceback, and an error that
names the file and the field."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.workspace import Workspace
from tests.builders import Table, file_check, lab, step, toml_text, write_action, write_lab
from tests.reliability.cli import assert_clean_error, project
from tests.reliability.cli import lab as run_lab
from tests.reliability.participant import assert_intact, state
from tests.reliability.plugin import fault


def good_lab() -> Table:
    return lab(
        "01-bad",
        step(
            "one",
            title="One",
            instructions="Write done.txt.",
            hints=["a hint"],
            check=file_check("done.txt"),
            solve=write_action("done.txt", "x"),
        ),
        title="A lab",
        intro="An intro.",
    )


Change = Callable[[Table], Table | str]


def _top(**fields: Any) -> Change:
    """Set (or, with None, remove) top-level fields."""

    def change(manifest: Table) -> Table:
        for key, value in fields.items():
            if value is None:
                manifest.pop(key)
            else:
                manifest[key] = value
        return manifest

    return change


def _first_step(**fields: Any) -> Change:
    def change(manifest: Table) -> Table:
        manifest["step"][0].update(fields)
        return manifest

    return change


def _check(**check: Any) -> Change:
    return _first_step(check=[check])


def _solve(**action: Any) -> Change:
    return _first_step(solve=[action])


def _file_check(**fields: Any) -> Change:
    return _check(**{"kind": "file", "path": "done.txt", "exists": True, **fields})


def _without_exists(**fields: Any) -> Change:
    return _check(kind="file", path="done.txt", **fields)


MANIFESTS: dict[str, Change] = {
    "broken TOML syntax": lambda m: toml_text(m).replace('title = "A lab"', 'title = "A lab'),
    "no format": _top(format=None),
    "a format from the future": _top(format=2),
    "an id that is not its folder's": _top(id="01-other"),
    "no title": _top(title=None),
    "no step": _top(step=None),
    "a step id with spaces": _first_step(id="Step One"),
    "empty hints": _first_step(hints=[]),
    "hints that are not text": _first_step(hints=[1, 2]),
    "no check": _first_step(check=[]),
    "a misspelt check kind": _file_check(kind="flie"),
    "an unknown check field": _without_exists(exits=True),
    "a check field of the wrong type": _file_check(exists="yes"),
    "a misspelt action": _solve(do="wirte", path="done.txt", content="x"),
    "a missing asset": _solve(**{"do": "copy", "from": "missing.txt", "to": "done.txt"}),
    "a path with ..": _solve(do="write", path="../escaped.txt", content="x"),
    "an absolute path": _solve(do="write", path="/tmp/escaped.txt", content="x"),
    "an asset out of the lab folder": _solve(
        **{"do": "copy", "from": "../outside.txt", "to": "done.txt"}
    ),
    "a checked path with ..": _file_check(path="../../etc/passwd"),
    "a session step without do": _check(kind="hook_session", steps=[{"expect": "blocked"}]),
    "a session marker out of .git": _check(
        kind="hook_session", steps=[{"do": "stop", "marker_exists": "../../x"}]
    ),
    "session steps that are numbers": _check(kind="hook_session", steps=[1, 2]),
    "a session bash step with a negative timeout": _check(
        kind="hook_session", steps=[{"do": "bash", "command": "ls", "timeout": -1}]
    ),
    "a negative count": _check(
        kind="hook_session", steps=[{"do": "stop"}], blocked_stops_at_least=-3
    ),
    "steps that are a table": _top(step={"id": "one"}),
    "a step that is a number": _top(step=[7]),
}
MANIFEST_FIELDS = {
    "broken TOML syntax": "line 3",
    "no format": "format",
    "a format from the future": "format",
    "an id that is not its folder's": "id",
    "no title": "title",
    "no step": "step",
    "a step id with spaces": "step[1].id",
    "empty hints": "step[1].hints",
    "hints that are not text": "step[1].hints[1]",
    "no check": "step[1].check",
    "a misspelt check kind": "step[1].check[1].kind",
    "an unknown check field": "step[1].check[1].exits",
    "a check field of the wrong type": "step[1].check[1].exists",
    "a misspelt action": "step[1].solve[1].do",
    "a missing asset": "step[1].solve[1]",
    "a path with ..": "step[1].solve[1].path",
    "an absolute path": "step[1].solve[1].path",
    "an asset out of the lab folder": "step[1].solve[1].from",
    "a checked path with ..": "step[1].check[1].path",
    "a session step without do": "step[1].check[1].steps[1].do",
    "a session marker out of .git": "step[1].check[1].steps[1].marker_exists",
    "session steps that are numbers": "step[1].check[1].steps[1]",
    "a session bash step with a negative timeout": "step[1].check[1].steps[1].timeout",
    "a negative count": "step[1].check[1].blocked_stops_at_least",
    "steps that are a table": "step",
    "a step that is a number": "step[1]",
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
    write_lab(labs, "01-bad", MANIFESTS[case](good_lab()))
    (labs / "outside.txt").write_text("not the lab's\n")
    done = run_lab(tmp_path, "list", env={"HOOKLAB_LABS": str(labs)})
    assert_clean_error(done, "01-bad/lab.toml", f"{field}:" if field != "line 3" else field)


SCENARIOS = {
    "broken TOML syntax": ("[[step]\ndo = 'stop'\n", "invalid TOML"),
    "no steps": ("[session]\nauto_approve = true\n", "step"),
    "an unknown action": ('[[step]]\ndo = "deploy"\n', "step[1].do"),
    "a required field left out": (
        '[[step]]\ndo = "edit"\nfile = "a.md"\nold = "x"\n',
        "step[1].new",
    ),
    "a field of the wrong type": (
        '[[step]]\ndo = "bash"\ncommand = "ls"\ntimeout = "long"\n',
        "step[1].timeout",
    ),
    "an unknown field": ('[[step]]\ndo = "stop"\nnmae = "x"\n', "step[1].nmae"),
    "an unknown expectation": ('[[step]]\ndo = "stop"\nexpect = "blokced"\n', "step[1].expect"),
    "an unknown session setting": (
        '[session]\nauto = true\n[[step]]\ndo = "stop"\n',
        "session.auto",
    ),
    "a file path with ..": (
        '[[step]]\ndo = "write"\nfile = "../escaped.txt"\ncontent = "x"\n',
        "step[1].file",
    ),
    "an absolute file path": (
        '[[step]]\ndo = "edit"\nfile = "/etc/hostname"\nold = "a"\nnew = "b"\n',
        "step[1].file",
    ),
    "steps that are numbers, not tables": ("step = [1, 2, 3]\n", "step[1]"),
    "a step that is a string": ('step = ["stop"]\n', "step[1]"),
    "a session that is not a table": ('session = 3\n[[step]]\ndo = "stop"\n', "session"),
    "a negative bash timeout": (
        '[[step]]\ndo = "bash"\ncommand = "ls"\ntimeout = -5\n',
        "step[1].timeout",
    ),
    "an absurd bash timeout": (
        '[[step]]\ndo = "bash"\ncommand = "ls"\ntimeout = 1e12\n',
        "step[1].timeout",
    ),
    "a timeout that is not a number (nan)": (
        '[[step]]\ndo = "bash"\ncommand = "ls"\ntimeout = nan\n',
        "step[1].timeout",
    ),
    "an action that is not a string": ("[[step]]\ndo = 3\n", "step[1].do"),
    "a step without an action": ('[[step]]\ntext = "hi"\n', "step[1].do"),
}


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
    done = run_lab(root, "simulate", str(scenario))
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
    assert_clean_error(run_lab(root, "simulate", str(scenario)), f".claude/{file}", field)


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
    held="exit 1, no traceback, the error names scenario.toml and step[1].file; nothing written "
    "outside; the participant's files, progress and backups intact but for the symlink",
)
def test_scenario_symlink_out(participant: Workspace, outside: Path, tmp_path: Path) -> None:
    root = participant.root
    (root / "link").symlink_to(outside)
    before = state(root)
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('[[step]]\ndo = "write"\nfile = "link/x.txt"\ncontent = "x"\n')
    assert_clean_error(run_lab(root, "simulate", str(scenario)), "scenario.toml", "step[1].file")
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
    writes_through_link = _first_step(setup=[write_action("link/x.txt", "x")])
    write_lab(labs, "01-bad", writes_through_link(good_lab()))
    (root / "link").symlink_to(outside)
    (root / ".gitignore").write_text("target/\nlink\n")  # so `lab start` leaves the link
    done = run_lab(root, "start", "1", env={"HOOKLAB_LABS": str(labs)})
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
    copies = _first_step(setup=[{"do": "copy", "from": "solution.txt", "to": "copied.txt"}])
    folder = write_lab(labs, "01-bad", copies(good_lab()))
    (folder / "solution.txt").symlink_to(outside / "secret.txt")
    done = run_lab(root, "start", "1", env={"HOOKLAB_LABS": str(labs)})
    assert_clean_error(done, "solution.txt", "leads out of")
    assert not (root / "copied.txt").exists()
