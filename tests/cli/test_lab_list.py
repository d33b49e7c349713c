"""lab list with one broken manifest: the course around it is listed, the broken lab named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders import lab, run_cli, step, write_lab


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    labs = tmp_path / "labs"
    write_lab(labs, "01-first", lab("01-first", title="The first lab"))
    broken = lab("02-broken", step("one", check={"kind": "file", "path": "a", "exist": True}))
    write_lab(labs, "02-broken", broken)
    write_lab(labs, "03-third", lab("03-third", title="The third lab"))
    monkeypatch.setenv("HOOKLAB_LABS", str(labs))
    return tmp_path


def test_one_broken_lab_does_not_hide_the_others(course: Path) -> None:
    done = run_cli("list", cwd=course)
    assert done.code == 1
    assert "01-first" in done.out and "03-third" in done.out
    assert "02-broken" in done.out  # in the table, in its place
    said = " ".join(done.err.split())
    assert "02-broken/lab.toml: step[1].check[1].exist" in said
    assert 'did you mean "exists"' in said
    assert "Traceback" not in done.out + done.err


def test_one_broken_lab_in_json(course: Path) -> None:
    done = run_cli("list", "--json", cwd=course)
    assert done.code == 1
    rows = json.loads(done.out)
    assert [row["id"] for row in rows] == ["01-first", "02-broken", "03-third"]
    assert "step[1].check[1].exist" in rows[1]["error"] and rows[1]["fix"]
    assert rows[0]["title"] == "The first lab" and "error" not in rows[0]
