"""A fixture's manifest says what builds its output again (``rebuild``), where a passed step is
checked again in a copy whose build output was cleared: the Node fixture's dist/, nothing for
the PetClinic (its classes come from the compile cache). Bad input names file, field and fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.engine.reverify import build_again
from harness.errors import ConfigError
from harness.workspace import get_fixture
from harness.workspace.fixture import load_fixture
from tests.builders import REPO_ROOT, run_cli


def _node_copy(tmp_path: Path, rebuild: str) -> Path:
    """The Node fixture's manifest copied, its rebuild line replaced by ``rebuild``."""
    folder = tmp_path / "fixture"
    folder.mkdir()
    text = (REPO_ROOT / "node_fixture" / "fixture.toml").read_text()
    line = next(x for x in text.splitlines() if x.startswith("rebuild ="))
    (folder / "fixture.toml").write_text(text.replace(line, rebuild))
    return folder


def test_the_shipped_manifests_say_what_rebuilds_them() -> None:
    assert get_fixture("node").rebuild == ("npm", "run", "build")
    assert get_fixture("petclinic").rebuild == ()


def test_build_again_runs_what_the_manifest_names_in_the_copy(tmp_path: Path) -> None:
    folder = _node_copy(
        tmp_path, 'rebuild = ["bash", "-c", "echo \\"$CLAUDE_PROJECT_DIR\\" > out"]'
    )
    copy = tmp_path / "copy"
    copy.mkdir()
    build_again(load_fixture(folder), copy)
    assert (copy / "out").read_text().strip() == str(copy)


def test_a_fixture_that_names_no_rebuild_builds_nothing(tmp_path: Path) -> None:
    folder = _node_copy(tmp_path, "")
    text = (folder / "fixture.toml").read_text()
    (folder / "fixture.toml").write_text(text.replace("npm run build", "touch built"))
    copy = tmp_path / "copy"
    copy.mkdir()
    build_again(load_fixture(folder), copy)
    assert not (copy / "built").exists()


@pytest.mark.parametrize(
    ("rebuild", "said"),
    [
        ('rebuild = "npm run build"', "rebuild"),
        ('rebuild = ["npm", 3]', "rebuild"),
        ('rebuild = ["npm", " "]', "has an empty word"),
    ],
)
def test_a_bad_rebuild_names_the_file_the_field_and_the_fix(
    tmp_path: Path, rebuild: str, said: str
) -> None:
    folder = _node_copy(tmp_path, rebuild)
    with pytest.raises(ConfigError) as caught:
        load_fixture(folder)
    assert said in str(caught.value), str(caught.value)
    assert str(folder / "fixture.toml") in str(caught.value)
    assert caught.value.fix


def test_lab_says_so_without_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _node_copy(tmp_path, 'rebuild = ["npm", ""]')
    shutil.copytree(
        REPO_ROOT / "node_fixture",
        tmp_path / "whole",
        ignore=shutil.ignore_patterns("node_modules", "dist"),
    )
    shutil.copy(folder / "fixture.toml", tmp_path / "whole" / "fixture.toml")
    monkeypatch.setenv("HOOKLAB_FIXTURE", str(tmp_path / "whole"))
    done = run_cli("init", "ws", cwd=tmp_path)
    assert done.code == 1, done
    text = done.out + done.err
    assert "rebuild" in text and "fixture.toml" in text, text
    assert "Traceback" not in text, text
