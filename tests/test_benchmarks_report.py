"""The benchmark report: rows derive ratio and met, one broken or unavailable benchmark shows
in the table without hiding the others, and build/bench.json carries every field."""

from __future__ import annotations

import json
import types
from pathlib import Path

from benchmarks.report import Options, Outcome, Row, Unavailable, run_module, table, write_json


def module(measure: object, doc: str = "A benchmark.\n\nMore.") -> types.ModuleType:
    mod = types.ModuleType("benchmarks.bench_fake", doc)
    mod.measure = measure  # type: ignore[attr-defined]
    return mod


def test_a_row_derives_ratio_and_met() -> None:
    assert Row("x", 12.0, "ms", floor=10.0, aim=1.2).met is True
    assert Row("x", 13.0, "ms", floor=10.0, aim=1.2).met is False
    assert Row("x", 13.0, "ms", floor=10.0).met is None
    assert Row("x", 13.0, "ms").ratio is None


def test_unavailable_and_broken_benchmarks_show_in_the_table(tmp_path: Path) -> None:
    def unavailable(options: Options) -> list[Row]:
        raise Unavailable("no Docker here")

    def broken(options: Options) -> list[Row]:
        raise KeyError("oops")

    def fine(options: Options) -> list[Row]:
        return [Row("fine vs floor", 2.5, "s", floor=2.0, aim=1.2, note=f"{options.times(5)}")]

    outcomes = [run_module(module(m), Options(scale=0.2)) for m in (unavailable, broken, fine)]
    text = table(outcomes)
    assert "skipped: no Docker here" in text
    assert "FAILED: KeyError: 'oops'" in text
    assert "fine vs floor" in text and "1.25 ×" in text and "NO" in text

    write_json(tmp_path / "bench.json", outcomes, 0.0, Options(scale=0.2))
    data = json.loads((tmp_path / "bench.json").read_text())
    (row,) = data["rows"]
    assert set(row) == {"name", "value", "unit", "ratio", "floor", "aim", "met", "note"}
    assert row["note"] == "3" and row["met"] is False
    assert [b["failed"] for b in data["benchmarks"]] == [None, "KeyError: 'oops'", None]
    assert isinstance(outcomes[0], Outcome) and outcomes[0].title == "A benchmark."


def test_a_failed_dev_check_names_its_failed_steps_and_their_problems() -> None:
    from benchmarks.bench_dev_check import failed_steps
    from harness.engine.devcheck import DevCheckReport, LabWalk, StepWalk, lint

    labs, _ = lint(only=["01"])
    first, second = labs[0].steps[:2]
    report = DevCheckReport(
        labs=[
            LabWalk(
                labs[0].id,
                steps=[
                    StepWalk(first),
                    StepWalk(second, problems=["the check still fails after the solve"]),
                ],
            ),
            LabWalk("99-broken", manifest_error="lab.toml: step[1].id is missing"),
        ],
        duration=1.0,
    ).to_json()
    text = failed_steps(report)
    assert f"{labs[0].id} / {second.id}:" in text
    assert "the check still fails after the solve" in text
    assert f"/ {first.id}:" not in text
    assert "99-broken: lab.toml: step[1].id is missing" in text
    assert failed_steps(DevCheckReport(labs=[], duration=0.0).to_json()) == ""
