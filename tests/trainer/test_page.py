"""The cohort page in real headless Chromium, and the numbers it shows."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import time
import zlib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.trainer.cohort import CohortReader
from harness.trainer.page import render_page
from tests.builders import run_cli
from tests.trainer.cohort_builder import STEPS, Seeded, SyntheticLabs, seed_cohort
from tests.trainer.servers import GitDaemon

MINUTE = 60.0


def room(now: float) -> list[Seeded]:
    """Six participants, in minutes: started that long ago, each step took ``step``, ``stuck``
    on the current one when the page is made (``now``: times are relative to the test's run,
    never to when the module was imported)."""

    def member(name: str, passed: int, started: int, step: int, stuck: int) -> Seeded:
        return Seeded(name, passed, now - started * MINUTE, step * MINUTE, stuck * MINUTE)

    return [
        member("ada", 5, started=90, step=8, stuck=0),
        member("bo", 3, started=60, step=10, stuck=2),
        member("cy", 2, started=70, step=12, stuck=25),
        member("di", 0, started=40, step=5, stuck=40),
        member("ed", 1, started=30, step=6, stuck=4),
        member("fay<&>co", 4, started=50, step=9, stuck=1),  # a name that must be escaped
    ]


class Cells(HTMLParser):
    """Collects the grid's cells and all visible text of a dumped DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[tuple[str, str], str] = {}
        self.text: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "td" and "cell" in (a.get("class") or ""):
            key = (a["data-participant"] or "", f"{a['data-lab']}/{a['data-step']}")
            assert key not in self.cells, f"two cells for {key}"
            self.cells[key] = a["data-state"] or ""
        for name in ("src", "href"):
            if a.get(name):
                self.external.append(f"{tag} {name}={a[name]}")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def png_pixels(path: Path) -> tuple[int, int, Counter[tuple[int, int, int]]]:
    """Width, height and a colour histogram of an 8-bit RGB(A) PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours: Counter[tuple[int, int, int]] = Counter()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upleft = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upleft
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upleft)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else upleft
                line[i] = (line[i] + pred) & 0xFF
        colours.update(
            (line[i], line[i + 1], line[i + 2]) for i in range(0, stride, channels * 4)
        )  # every 4th pixel: plenty for a histogram
        previous = line
    return width, height, colours


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail(
            "chromium is not installed: run scripts/bootstrap.sh (apt-get install chromium)"
        )
    return subprocess.run(
        [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_the_page_renders_in_chromium_with_every_participant_and_step(
    tmp_path: Path, labs: SyntheticLabs, served: Path, daemon: GitDaemon
) -> None:
    people = room(time.time())
    seed_cohort(served / "room.git", "thursday", people)
    page = tmp_path / "room.html"
    out = run_cli(
        "trainer",
        "report",
        daemon.url("room.git"),
        "--cohort",
        "thursday",
        "--html",
        str(page),
        "--stuck-after",
        "20",
    )
    assert out.code == 0, out
    assert f"6 participants, {len(STEPS)} steps" in out.out
    html = page.read_text()
    # Self-contained: nothing for a classroom without internet to fetch.
    assert not re.search(r"<(script|link|img|iframe)\b|url\(|@import", html)

    shot = tmp_path / "room.png"
    done = chromium(
        "--window-size=1280,900", f"--screenshot={shot}", page.as_uri(), profile=tmp_path / "p1"
    )
    assert shot.is_file(), done.stderr[-2000:]
    dom = chromium("--dump-dom", page.as_uri(), profile=tmp_path / "p2")
    assert dom.returncode == 0, dom.stderr[-2000:]

    parsed = Cells()
    parsed.feed(dom.stdout)
    assert parsed.external == []
    names = [m.name for m in people]
    steps = [f"{lab}/{step}" for lab, step in STEPS]
    assert set(parsed.cells) == {(n, s) for n in names for s in steps}
    text = " ".join(parsed.text)
    for name in names:
        assert name in text
    for _lab, step in STEPS:
        assert step in text
    assert parsed.cells[("cy", "01-warmup/report")] == "passed"
    assert parsed.cells[("cy", "02-practice/one")] == "stuck"  # 25 min > 20
    assert parsed.cells[("di", "01-warmup/notes")] == "stuck"
    assert parsed.cells[("bo", "02-practice/two")] == "current"
    assert parsed.cells[("ada", "02-practice/three")] == "passed"
    assert Counter(parsed.cells.values()) == {"passed": 15, "stuck": 2, "current": 3, "todo": 10}

    width, height, colours = png_pixels(shot)
    assert (width, height) == (1280, 900)
    # The grid's colours are on screen: passed green, stuck red, working amber.
    assert colours[(0x2E, 0x9E, 0x5B)] > 200
    assert colours[(0xD6, 0x45, 0x45)] > 20
    assert colours[(0xE0, 0xA8, 0x00)] > 20


def test_the_numbers_on_the_page(tmp_path: Path, labs: SyntheticLabs, served: Path) -> None:
    now = time.time()
    seed_cohort(served / "room.git", "thursday", room(now), now=now)
    cohort = CohortReader(str(served / "room.git"), "thursday", labs_root=labs.root).read()
    cohort.read_at = now
    stats = {f"{s.column.lab}/{s.column.step}": s for s in cohort.step_stats()}
    # notes: passed by everyone but di; each took its participant's step_seconds.
    assert (stats["01-warmup/notes"].passed, stats["01-warmup/notes"].of) == (5, 6)
    assert stats["01-warmup/notes"].median_seconds == pytest.approx(9 * MINUTE)
    assert (stats["02-practice/three"].passed, stats["02-practice/three"].of) == (1, 6)
    assert stats["02-practice/three"].median_seconds == pytest.approx(8 * MINUTE)
    stuck = [(m.name, round(s / MINUTE)) for m, s in cohort.stuck(20 * MINUTE)]
    assert stuck == [("di", 40), ("cy", 25)]
    html = render_page(cohort, stuck_after=20 * MINUTE)
    assert "fay&lt;&amp;&gt;co" in html and "fay<&>co" not in html
    assert (
        '<li class="stuck" data-participant="di" data-kind="stuck"><b>di</b> '
        '<span class="kind">stuck</span> 01·notes for 40 min</li>'
    ) in html
