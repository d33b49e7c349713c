"""Fixtures as data: the manifests, provisioning the Node fixture, lab fixtures, the labs a
workspace of each fixture takes, and lab doctor asking for what the fixture needs."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from harness.engine.manifest import load_labs, parse_lab
from harness.errors import ConfigError, HarnessError
from harness.workspace import Workspace, all_fixtures, get_fixture, provision
from harness.workspace.fixture import SHIPPED, load_fixture
from tests.builders import REPO_ROOT, git, run_cli


def test_every_shipped_fixture_has_a_manifest_that_names_it() -> None:
    fixtures = all_fixtures()
    assert [f.name for f in fixtures] == ["petclinic", "node"]
    node = get_fixture("node")
    assert node.needs == ("git", "bash", "node", "npm") and not node.maven
    assert node.build_output == ("dist", "node_modules")
    assert get_fixture("petclinic").maven and get_fixture("petclinic").compile_cache


def test_the_wheel_maps_every_shipped_fixture() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    for folder in SHIPPED.values():
        assert folder in wheel["only-include"]
        assert wheel["sources"][folder] == f"harness/_bundled/{folder}"


def test_an_unknown_need_names_the_file_field_and_fix(tmp_path: Path) -> None:
    shutil.copytree(REPO_ROOT / "node_fixture", tmp_path / "f")
    manifest = tmp_path / "f" / "fixture.toml"
    manifest.write_text(manifest.read_text().replace('"npm"]', '"nmp"]'))
    with pytest.raises(ConfigError) as caught:
        load_fixture(tmp_path / "f")
    assert "needs" in str(caught.value) and "nmp" in str(caught.value)


def test_provisioning_the_node_fixture(tmp_path: Path) -> None:
    result = provision(tmp_path / "ws", fixture_name="node")
    ws = result.workspace
    root = ws.root
    assert ws.fixture_name == "node" and ws.meta["fixture_name"] == "node"
    assert (root / "package.json").is_file() and (root / "test" / "cart.test.js").is_file()
    assert not (root / "fixture.toml").exists(), "the manifest is Hook Lab's, not the project's"
    assert not (root / "dist").exists(), "build output is never copied"
    hook = root / "scripts" / "check-before-stop.sh"
    assert hook.stat().st_mode & 0o111
    settings = json.loads((root / ".claude" / "settings.json").read_text())
    (entry,) = settings["hooks"]["Stop"][0]["hooks"]
    assert entry == {
        "type": "command",
        "command": "./scripts/check-before-stop.sh",
        "timeout": 30,
    }
    assert git(root, "log", "--format=%s").strip() == "Provision the node workshop fixture"
    assert git(root, "status", "--porcelain") == ""


def test_an_existing_workspace_of_another_fixture_is_refused_untouched(tmp_path: Path) -> None:
    provision(tmp_path / "ws", fixture_name="node")
    with pytest.raises(HarnessError) as caught:
        provision(tmp_path / "ws", fixture_name="petclinic")
    assert "already a workspace of the node fixture" in caught.value.message
    assert "--fixture petclinic" in (caught.value.fix or "")


def test_lab_init_fixture_node_then_list_and_fixtures(tmp_path: Path) -> None:
    done = run_cli("init", "ws", "--fixture", "node", "--json", cwd=tmp_path)
    assert done.code == 0, done
    assert json.loads(done.out)["fixture"] == "node"
    ws = tmp_path / "ws"
    listed = run_cli("list", "--json", cwd=ws)
    node_labs = [lab["id"] for lab in json.loads(listed.out)]
    assert node_labs == [lab.id for lab in load_labs() if lab.fixture == "node"]
    assert node_labs and all(not i.startswith(("01", "03")) for i in node_labs)
    fixtures = json.loads(run_cli("fixtures", "--json", cwd=ws).out)
    assert [(f["name"], f["current"]) for f in fixtures] == [("petclinic", False), ("node", True)]
    # Outside a workspace every lab is listed, each naming its fixture.
    everything = json.loads(run_cli("list", "--json", cwd=tmp_path).out)
    assert {lab["fixture"] for lab in everything} == {"petclinic", "node"}


def test_a_lab_of_another_fixture_is_refused_with_the_fix(tmp_path: Path) -> None:
    provision(tmp_path / "ws", fixture_name="node")
    done = run_cli("start", "3", cwd=tmp_path / "ws")
    assert done.code == 1
    assert "works on the petclinic fixture; this workspace holds the node fixture" in done.err
    assert "lab init DIR --fixture petclinic" in done.err
    assert Workspace(tmp_path / "ws").read_progress() == {}


def test_a_lab_naming_an_unknown_fixture_is_refused(tmp_path: Path) -> None:
    data = {"format": 1, "id": "12-x", "title": "t", "intro": "i", "fixture": "nod", "step": []}
    (tmp_path / "12-x").mkdir()
    with pytest.raises(ConfigError) as caught:
        parse_lab(data, tmp_path / "12-x" / "lab.toml")
    text = str(caught.value)
    assert "fixture" in text and "'nod'" in text and 'did you mean "node"' in text


def test_sensors_in_a_node_workspace_name_its_evidence(tmp_path: Path) -> None:
    provision(tmp_path / "ws", fixture_name="node")
    done = run_cli("sensors", cwd=tmp_path / "ws")
    assert done.code == 1 and "no Maven sensors" in done.err and "npm test" in done.err
