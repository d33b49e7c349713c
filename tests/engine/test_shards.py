"""Splitting ``lab dev check`` across machines: --shard K/N, --report and ``lab dev merge``."""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from harness.engine.devcheck import Shard, select_shard
from harness.engine.lab_shards import junit_xml, merge_reports
from harness.errors import ConfigError
from tests.builders import REPO_ROOT, Table, run_lab_process, toml_text, write_lab
from tests.engine.test_devcheck import trivial


def honest(lab_id: str) -> Table:
    """A lab whose steps fail before their solve and pass after it."""
    return trivial(lab_id, first_checks="x.txt")


@pytest.mark.parametrize("total", [1, 2, 3, 7, 9])
def test_the_shards_of_a_split_deal_every_lab_exactly_once(total: int) -> None:
    labs = [f"{n:02d}-lab" for n in (5, 1, 3, 2, 7, 4, 6)]
    parts = [select_shard(labs, Shard(k, total)) for k in range(1, total + 1)]
    dealt = [lab for part in parts for lab in part]
    assert sorted(dealt) == sorted(labs)  # each once: no lab dropped, none twice
    assert max(map(len, parts)) - min(map(len, parts)) <= 1  # balanced
    assert select_shard(labs, None) == sorted(labs)


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0", "-1/2", ""])
def test_a_malformed_shard_says_how_to_write_one(text: str) -> None:
    with pytest.raises(ValueError, match="write K/N"):
        Shard.parse(text)


def test_two_shards_prove_exactly_the_labs_of_the_full_run_and_merge_into_its_report(
    tmp_path: Path,
) -> None:
    course = tmp_path / "labs"
    for lab_id in ("01-one", "02-two", "03-three"):
        write_lab(course, lab_id, honest(lab_id))
    # A broken manifest counts as a lab: some shard must report it, not drop it.
    write_lab(
        course,
        "04-broken",
        toml_text(honest("04-broken")).replace('kind = "file"', 'kind = "flie"'),
    )
    env = {"HOOKLAB_LABS": str(course), "NO_COLOR": "1"}

    def dev(*args: str) -> int:
        done = run_lab_process("dev", *args, cwd=tmp_path, env=env)
        assert "Traceback" not in done.stderr, done.stderr
        return done.returncode

    assert dev("check", "--report", "full.json") == 1  # 04-broken
    assert dev("check", "--shard", "1/2", "--report", "s1.json") == 0  # 01, 03
    assert dev("check", "--shard", "2/2", "--report", "s2.json") == 1  # 02, 04-broken
    full, first, second = (
        json.loads((tmp_path / name).read_text()) for name in ("full.json", "s1.json", "s2.json")
    )

    def verdicts(report: dict[str, object]) -> dict[str, bool]:
        labs = report["labs"]
        assert isinstance(labs, list)
        return {lab["lab"]: lab["ok"] for lab in labs}

    assert set(verdicts(full)) == {"01-one", "02-two", "03-three", "04-broken"}
    assert not set(verdicts(first)) & set(verdicts(second))
    assert verdicts(first) | verdicts(second) == verdicts(full)
    assert (first["shard"], second["shard"]) == ("1/2", "2/2")

    merged = run_lab_process(
        "dev", "merge", "s1.json", "s2.json", "--json", "--junit", "labs.xml", cwd=tmp_path, env=env
    )
    assert merged.returncode == 1, merged.stderr  # the broken lab stays a failure
    report = json.loads(merged.stdout)
    assert verdicts(report) == verdicts(full)
    assert report["missing"] == []
    assert [lab["lab"] for lab in report["labs"]] == [lab["lab"] for lab in full["labs"]]
    # The same as JUnit: a suite per lab, a case per step walked, the broken manifest failing.
    suites = {s.get("name"): s for s in ET.parse(tmp_path / "labs.xml").getroot()}
    assert set(suites) == set(verdicts(full))
    failing = {name for name, suite in suites.items() if suite.get("failures") != "0"}
    assert failing == {lab for lab, ok in verdicts(full).items() if not ok} == {"04-broken"}
    assert [c.get("name") for c in suites["04-broken"]] == ["manifest"]
    walked = {lab["lab"]: [s["step"] for s in lab["steps"]] for lab in full["labs"]}
    assert [c.get("name") for c in suites["01-one"]] == walked["01-one"]

    # What the merge refuses, each with the file and the fix.
    alone = run_lab_process("dev", "merge", "s1.json", cwd=tmp_path, env=env)
    assert alone.returncode == 1
    assert "s1.json: shard: shard 2/2 is missing" in alone.stderr
    twice = run_lab_process("dev", "merge", "s1.json", "full.json", cwd=tmp_path, env=env)
    assert twice.returncode == 1
    assert "full.json: labs: lab 01-one is also proven in s1.json" in twice.stderr
    (tmp_path / "junk.json").write_text("{not json")
    junk = run_lab_process("dev", "merge", "junk.json", cwd=tmp_path, env=env)
    assert junk.returncode == 1 and "junk.json: is not JSON" in junk.stderr

    # A lab added to the course that no report proves fails the merge by name.
    write_lab(course, "05-new", honest("05-new"))
    late = run_lab_process("dev", "merge", "s1.json", "s2.json", cwd=tmp_path, env=env)
    assert late.returncode == 1
    assert "no report proves 05-new" in late.stdout


def test_a_bad_shard_on_the_command_line_is_a_usage_error(tmp_path: Path) -> None:
    done = run_lab_process("dev", "check", "--shard", "3/2", cwd=tmp_path)
    assert done.returncode == 2
    assert "write K/N with 1 <= K <= N" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_workflows_matrix_lists_every_lab_of_the_course(tmp_path: Path) -> None:
    """The step of .github/workflows/labs.yml that feeds the matrix, run as CI runs it."""
    workflow = (REPO_ROOT / ".github" / "workflows" / "labs.yml").read_text(encoding="utf-8")
    (step,) = [line.strip() for line in workflow.splitlines() if line.strip().startswith("labs=$(")]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = bin_dir / "python"  # a symlink would lose the venv: python finds it by its path
    python.write_text(f'#!/bin/sh\nexec {REPO_ROOT / ".venv/bin/python"} "$@"\n')
    python.chmod(0o755)
    output = tmp_path / "github-output"
    subprocess.run(
        ["bash", "-euo", "pipefail", "-c", step + '\necho "labs=$labs" >> "$GITHUB_OUTPUT"'],
        cwd=REPO_ROOT,
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GITHUB_OUTPUT": str(output)},
        check=True,
    )
    key, _, value = output.read_text(encoding="utf-8").strip().partition("=")
    on_disk = sorted(p.parent.name for p in (REPO_ROOT / "labs").glob("[0-9][0-9]-*/lab.toml"))
    assert key == "labs"
    assert json.loads(value) == on_disk


def part(
    *labs: tuple[str, bool], shard: str | None = None, duration: float = 1.0
) -> dict[str, Any]:
    return {
        "ok": all(ok for _lab, ok in labs),
        "shard": shard,
        "duration": duration,
        "labs": [{"lab": lab, "ok": ok, "maven_seconds": 0.5, "steps": []} for lab, ok in labs],
    }


def test_per_lab_reports_merge_into_the_course_with_wall_and_machine_time() -> None:
    course = ["01-a", "02-b", "03-c"]
    parts = [
        (Path("b.json"), part(("02-b", True), duration=4.0)),
        (Path("a.json"), part(("01-a", True), duration=2.0)),
        (Path("c.json"), part(("03-c", True), duration=3.0)),
    ]
    merged = merge_reports(parts, course)
    assert merged["ok"] is True
    assert [lab["lab"] for lab in merged["labs"]] == course
    assert (merged["duration"], merged["machine_seconds"], merged["maven_seconds"]) == (
        4.0,
        9.0,
        1.5,
    )
    failing = [*parts[:2], (Path("c.json"), part(("03-c", False)))]
    assert merge_reports(failing, course)["ok"] is False
    partial = merge_reports(parts[:2], course)
    assert partial["missing"] == ["03-c"]
    suites = {s.get("name"): s for s in ET.fromstring(junit_xml(partial))}
    assert suites["03-c"].get("failures") == "1"
    assert suites["01-a"].get("failures") == "0"


def test_shards_of_different_splits_are_refused() -> None:
    parts = [
        (Path("s1.json"), part(("01-a", True), shard="1/2")),
        (Path("t2.json"), part(("02-b", True), shard="2/3")),
    ]
    with pytest.raises(ConfigError, match=r"different splits \(/2, /3\)"):
        merge_reports(parts, ["01-a", "02-b"])
