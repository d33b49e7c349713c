"""Live and scripted steps apart, wherever a trainer reads the room: ``trainer status --json``,
the table (``trainer status``, with NO_COLOR and a narrow terminal) and the HTML page (its
structure, and in real headless Chromium)."""

from __future__ import annotations

import re
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from harness.engine.progress import LabProgress, Progress, StepProgress
from harness.trainer.cohort import Cohort, CohortReader
from harness.trainer.member import LabColumn, Member, StepColumn
from harness.trainer.page import render_page
from tests.builders import run_cli
from tests.trainer.cohort_builder import Seeded, SyntheticLabs, seed_cohort
from tests.trainer.test_page import chromium, png_pixels

MINUTE = 60.0
SESSION = "26129e5d-f073-487b-a63d-77aaba43c14b"
LIVE = {"evidence_kind": "live", "session_id": SESSION, "client_version": "2.1.332"}
SCRIPTED = {"evidence_kind": "scripted"}
PLAYED = {"evidence_kind": "played by Hook Lab", "session_id": "s1", "client_version": "2.1.332"}


def _member(name: str, kind: str | None) -> Member:
    record = {"commit": "c", "snapshot": "s", "at": 2.0}
    if kind:
        record |= {"evidence_kind": kind, "session_id": "abc", "client_version": "2.1.332"}
    progress = Progress(
        lab="11-try-it-yourself",
        step=None,
        labs={
            "11-try-it-yourself": LabProgress(
                started_at=1.0,
                steps={"earn-done": StepProgress(passed=record), "quiz": StepProgress()},
            )
        },
    )
    return Member(name, f"refs/x/{name}", "c" * 40, progress, 2.0)


def test_status_json_marks_live_and_scripted_steps() -> None:
    column = LabColumn(
        "11-try-it-yourself",
        "Try it",
        (
            StepColumn("11-try-it-yourself", "earn-done", "Earn Done"),
            StepColumn("11-try-it-yourself", "quiz", "Quiz"),
        ),
    )
    members = [_member("ada", "live"), _member("bob", "scripted"), _member("cy", None)]
    data = Cohort("git://x", "c", members, [column]).to_json()
    marks = {
        p["participant"]: p["labs"]["11-try-it-yourself"]["evidence"] for p in data["participants"]
    }
    assert marks == {"ada": {"earn-done": "live"}, "bob": {"earn-done": "scripted"}, "cy": {}}


def room(now: float) -> list[Seeded]:
    """Four participants past 02-practice/two (the third step of the synthetic labs, standing
    in for a live step here: the marks come from the passed records), each passed another way."""

    def member(name: str, live: dict[str, Any] | None) -> Seeded:
        return Seeded(
            name, 4, now - 60 * MINUTE, 5 * MINUTE, 2 * MINUTE, {"two": live} if live else {}
        )

    return [member("ada", LIVE), member("bob", SCRIPTED), member("cy", None), member("dee", PLAYED)]


def _status(served: Path, monkeypatch: pytest.MonkeyPatch, columns: int) -> str:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", str(columns))
    out = run_cli("trainer", "status", str(served / "room.git"), "--cohort", "wed")
    assert out.code == 0, out
    return out.out


def test_the_table_marks_each_passed_live_step_and_explains_the_marks(
    labs: SyntheticLabs, served: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_cohort(served / "room.git", "wed", room(time.time()))
    shown = _status(served, monkeypatch, 160)
    assert "\x1b[" not in shown  # NO_COLOR: no colour codes at all
    rows = {line.split("│")[1].strip(): line for line in shown.splitlines() if "│" in line}
    assert "02·2 live · 2.1.332" in rows["ada"]
    assert "02·2 scripted" in rows["bob"] and "live" not in rows["bob"]
    assert "02·2 played · 2.1.332" in rows["dee"]
    assert "live" not in rows["cy"] and "scripted" not in rows["cy"]
    legend = shown[shown.index("live steps (LAB·STEP") :]
    assert "live · VERSION" in legend and "their own Claude Code session" in legend
    assert "scripted" in legend and "lab check --scripted" in legend
    assert "played · VERSION" in legend and "lab solve" in legend

    # A narrow terminal: the table fits it, one line a participant; the marks (and their
    # legend) wait for a wider one (and are on the page).
    narrow = _status(served, monkeypatch, 72)
    table = [line.rstrip() for line in narrow.splitlines() if line.startswith("│")]
    assert table and all(len(line) <= 72 and line.endswith("│") for line in table)
    for name in ("ada", "bob", "cy", "dee"):
        assert len(re.findall(rf"^│ {name}\b", narrow, re.M)) == 1, name
    assert len(table) == 4, narrow  # four rows: nothing wraps
    assert "live steps" not in narrow


def test_a_room_without_live_steps_has_no_live_column(
    labs: SyntheticLabs, served: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = time.time()
    seed_cohort(served / "room.git", "wed", [Seeded("ed", 3, now - 600, 60, 30)], now=now)
    shown = _status(served, monkeypatch, 160)
    assert "live steps" not in shown and "│ ed" in shown


class LiveCells(HTMLParser):
    """The grid's cells (state, evidence, text) and the live-steps list of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[tuple[str, str], dict[str, str]] = {}
        self.listed: dict[tuple[str, str], str] = {}
        self._cell: tuple[str, str] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        key = (a.get("data-participant", ""), f"{a.get('data-lab')}/{a.get('data-step')}")
        if tag == "td" and "cell" in a.get("class", ""):
            self.cells[key] = {
                "state": a["data-state"],
                "evidence": a.get("data-evidence", ""),
                "title": a.get("title", ""),
                "text": "",
            }
            self._cell = key
        elif tag == "tr" and "data-evidence" in a:
            self.listed[key] = a["data-evidence"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self.cells[self._cell]["text"] += data


def _page(labs: SyntheticLabs, served: Path) -> str:
    now = time.time()
    seed_cohort(served / "room.git", "wed", room(now), now=now)
    cohort = CohortReader(str(served / "room.git"), "wed", labs_root=labs.root).read()
    return render_page(cohort)


def _assert_marks(parsed: LiveCells) -> None:
    step = "02-practice/two"
    assert parsed.cells[("ada", step)] | {"title": ""} == {
        "state": "passed",
        "evidence": "live",
        "title": "",
        "text": "L",
    }
    assert "live · Claude Code 2.1.332 · session 26129e5d" in parsed.cells[("ada", step)]["title"]
    assert (parsed.cells[("bob", step)]["evidence"], parsed.cells[("bob", step)]["text"]) == (
        "scripted",
        "S",
    )
    assert (parsed.cells[("dee", step)]["evidence"], parsed.cells[("dee", step)]["text"]) == (
        "played",
        "P",
    )
    # cy passed it too, with no live mark; other passed steps keep their plain tick
    assert parsed.cells[("cy", step)] == {
        "state": "passed",
        "evidence": "",
        "title": parsed.cells[("cy", step)]["title"],
        "text": "✓",
    }
    assert parsed.cells[("ada", "01-warmup/notes")]["text"] == "✓"
    assert parsed.listed == {
        ("ada", step): "live",
        ("bob", step): "scripted",
        ("dee", step): "played",
    }
    text = " ".join(parsed.text)
    assert "live · 2.1.332" in text and SESSION in text
    assert "L passed live" in text and "S passed scripted" in text
    assert "P played by Hook Lab (lab solve)" in text  # the grid's third letter, explained
    assert "lab check --scripted" in text and "replays a live step's submitted timeline" in text


def test_the_page_marks_live_and_scripted_cells_and_lists_them(
    labs: SyntheticLabs, served: Path
) -> None:
    parsed = LiveCells()
    parsed.feed(_page(labs, served))
    _assert_marks(parsed)


def test_a_page_without_live_steps_has_no_live_section(labs: SyntheticLabs, served: Path) -> None:
    now = time.time()
    seed_cohort(served / "room.git", "wed", [Seeded("ed", 3, now - 600, 60, 30)], now=now)
    html = render_page(CohortReader(str(served / "room.git"), "wed", labs_root=labs.root).read())
    assert 'id="live"' not in html and "passed live" not in html and "data-evidence" not in html


@pytest.mark.slow
def test_the_live_marks_in_chromium(tmp_path: Path, labs: SyntheticLabs, served: Path) -> None:
    page = tmp_path / "room.html"
    page.write_text(_page(labs, served))
    dom = chromium("--dump-dom", page.as_uri(), profile=tmp_path / "p1")
    assert dom.returncode == 0, dom.stderr[-2000:]
    parsed = LiveCells()
    parsed.feed(dom.stdout)
    _assert_marks(parsed)
    shot = tmp_path / "room.png"
    done = chromium(
        "--window-size=1280,900", f"--screenshot={shot}", page.as_uri(), profile=tmp_path / "p2"
    )
    assert shot.is_file(), done.stderr[-2000:]
    _, _, colours = png_pixels(shot)
    # on screen: the live cell's dark green and the scripted cells' light green beside the
    # plain passed green
    assert colours[(0x17, 0x66, 0x3A)] > 10
    assert colours[(0x8F, 0xCF, 0xA8)] > 10
    assert colours[(0x2E, 0x9E, 0x5B)] > 100
