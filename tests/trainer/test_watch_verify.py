"""``lab trainer status --watch`` verifies each submission as it arrives: in the sandbox
(bubblewrap), a bounded pool taking the newest first, only the claims new since the last
verify, recorded; the page it keeps (--html) shows verifying, ✓ and ✗ per claim, and which
check failed and why.

Real git remotes on loopback (git daemon), the real sandbox, the synthetic labs of
tests/trainer/cohort_builder.py (a stand-in mvnw).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from harness.trainer.arrival import RoomVerifier, WatchSettings
from harness.trainer.cohort import CohortReader
from harness.trainer.publish import make_settings, submit
from harness.trainer.verified import load_verdicts
from tests.builders import run_cli, run_lab_process
from tests.trainer.cohort_builder import (
    GREEN_REPORT,
    REPORT_PATH,
    SyntheticLabs,
    participant,
    tiny_workspace,
    walk,
)
from tests.trainer.servers import GitDaemon
from tests.trainer.test_verify_recorded import walk_on

WAIT = 120.0  # a loaded machine: each verify starts a sandbox and a Python


def wait_for(what: str, test: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if test():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {WAIT:.0f} s")


def ver_cell(page: Path, name: str) -> tuple[str, str] | None:
    """(state, commit) of a participant's verify cell on the page."""
    try:
        html = page.read_text()
    except OSError:
        return None
    found = re.search(
        rf'<tr[^>]*data-participant="{name}".*?data-verified="([^"]+)" data-commit="([^"]*)"',
        html,
    )
    return (found[1], found[2]) if found else None


def step_states(page: Path, name: str) -> dict[str, str]:
    return step_states_in(page.read_text(), name)


def test_watch_verifies_as_it_arrives_and_the_page_follows(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    page = tmp_path / "room.html"
    # sam's mvnw takes a while: long enough to see the report step "verifying" on the page
    sam = tiny_workspace(tmp_path / "sam")
    mvnw = sam.root / "mvnw"
    mvnw.write_text(mvnw.read_text().replace("set -eu\n", "set -eu\nsleep 3\n"))
    sam.commit_all("a slower build")
    walk(sam, labs, 2)
    sam_commit = submit(sam, make_settings(url, "sam")).commit
    # fay's report step rests on a leftover report while her build is broken
    fay = participant(tmp_path / "fay", labs, 1)
    (fay.root / "src" / "BROKEN").write_text("the build breaks here\n")
    (fay.root / REPORT_PATH).parent.mkdir(parents=True)
    (fay.root / REPORT_PATH).write_text(GREEN_REPORT)
    assert run_cli("check", cwd=fay.root).code == 0
    fay_commit = submit(fay, make_settings(url, "fay")).commit

    log = (tmp_path / "watch.log").open("w")
    watch = subprocess.Popen(
        [sys.executable, "-m", "harness", "trainer", "status", url, "--watch",
         "--interval", "0.3", "--html", str(page)],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    try:
        wait_for("sam's report step verifying", lambda: "verifying" in _states(page, "sam"))
        wait_for("sam verified", lambda: ver_cell(page, "sam") == ("verified", sam_commit))
        assert step_states(page, "sam") == {"01-warmup/notes": "pass", "01-warmup/report": "pass"}
        wait_for("fay's claim refuted", lambda: ver_cell(page, "fay") == ("failed", fay_commit))
        html = page.read_text()
        assert step_states(page, "fay")["01-warmup/report"] == "fail"
        assert "the build failed before any sensor ran" in html  # which check, and why

        zed = participant(tmp_path / "zed", labs, 2)
        submit(zed, make_settings(url, "zed"))
        wait_for("zed verified", lambda: (ver_cell(page, "zed") or ("",))[0] == "verified")
        walk_on(zed, labs)
        again = submit(zed, make_settings(url, "zed")).commit
        wait_for("zed's new step", lambda: ver_cell(page, "zed") == ("verified", again))
        out = run_cli("trainer", "status", url, "--json")
        zed_json = next(p for p in json.loads(out.out)["participants"] if p["participant"] == "zed")
        assert zed_json["verified"]["reused"] == 2  # only the new step was re-run
        assert zed_json["labs"]["02-practice"]["verification"] == {"one": "pass"}
        fay_json = next(p for p in json.loads(out.out)["participants"] if p["participant"] == "fay")
        failed = [s for s in fay_json["verified"]["steps"] if s["status"] == "fail"]
        assert failed[0]["check"] and "the build failed" in failed[0]["why"]
    finally:
        watch.terminate()
        watch.wait(timeout=30)
        log.close()


def _states(page: Path, name: str) -> set[str]:
    try:
        return set(step_states(page, name).values()) | {(ver_cell(page, name) or ("",))[0]}
    except OSError:
        return set()


def test_the_pool_is_bounded_by_the_cores_and_takes_the_newest_first(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    template = participant(tmp_path / "template", labs, 1)
    for name in ("old", "mid", "new"):
        # a second apart: the commits' times order them
        submit(template, make_settings(url, name))
        time.sleep(1.1)
    cohort = CohortReader(url, journal=False).read()
    settings = WatchSettings("emulator", labs_root=labs.root)
    assert RoomVerifier(url, cohort.name, settings, jobs=64).workers == (os.cpu_count() or 1)
    verifier = RoomVerifier(url, cohort.name, settings, jobs=1)
    assert verifier.offer(cohort) == 3
    verifier.start()
    try:
        wait_for("three verdicts", lambda: len(load_verdicts(url, cohort.name)) == 3)
    finally:
        verifier.stop()
    verdicts = load_verdicts(url, cohort.name)
    assert sorted(verdicts, key=lambda n: verdicts[n].at) == ["new", "mid", "old"]
    assert all(v.state == "verified" for v in verdicts.values())


def test_without_bubblewrap_watch_says_how_to_install_it_or_not_verify(
    tmp_path: Path, daemon: GitDaemon
) -> None:
    bare = tmp_path / "bin"  # a PATH with git and no bwrap
    bare.mkdir()
    for program in ("git",):
        found = shutil.which(program)
        assert found is not None
        (bare / program).symlink_to(found)
    done = run_lab_process(
        "trainer", "status", daemon.url("room.git"), "--watch",
        cwd=tmp_path, env={"PATH": str(bare)}, timeout=60,
    )  # fmt: skip
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, done
    assert "bubblewrap (bwrap) is not installed here" in said
    assert "or --no-verify to only follow the room" in said
    assert "Traceback" not in done.stderr


def test_the_table_and_the_page_show_a_verify_under_way_and_a_refuted_claim(
    tmp_path: Path, labs: SyntheticLabs, served: Path, daemon: GitDaemon
) -> None:
    """What RoomVerifier.mark puts on the members, drawn: one participant half-way through
    (one claim judged of two), another with a claim that does not hold."""
    from rich.console import Console

    from harness.trainer.page import render_page
    from harness.trainer.verified import FAILED, ParticipantVerdict
    from harness.ui.trainer_view import cohort_renderable
    from tests.trainer.cohort_builder import Seeded, seed_cohort

    now = time.time()
    commits = seed_cohort(
        served / "room.git",
        "default",
        [Seeded("amy", 2, now - 900, 60, 30), Seeded("bob", 3, now - 900, 60, 30)],
        now=now,
    )
    cohort = CohortReader(daemon.url("room.git"), journal=False).read()
    amy, bob = sorted(cohort.members, key=lambda m: m.name)
    amy.verifying = {("01-warmup", "notes"): "pass", ("01-warmup", "report"): "verifying"}
    bob.verdict = ParticipantVerdict(
        "bob", commits["bob"], FAILED, 2, 3, ["02-practice/one"],
        steps=[
            {"lab": "01-warmup", "step": "notes", "status": "pass"},
            {"lab": "01-warmup", "step": "report", "status": "pass"},
            {"lab": "02-practice", "step": "one", "status": "fail", "check": "file",
             "why": "practice/one.txt does not contain one"},
        ],
    )  # fmt: skip
    console = Console(width=160, record=True, no_color=True, file=io.StringIO())
    console.print(cohort_renderable(cohort, width=160))
    table = console.export_text()
    amy_row = next(line for line in table.splitlines() if "amy" in line)
    bob_row = next(line for line in table.splitlines() if "bob" in line)
    assert "⋯ 1/2" in amy_row and "⋯" in amy_row.split("│")[2]  # ver, and lab 01's cell
    assert "✗" in bob_row.split("│")[3]  # after lab 02's cell
    assert "verify: 1 of 3 claims do not hold: 02-practice/one" in bob_row

    html = render_page(cohort)
    assert step_states_in(html, "amy") == {
        "01-warmup/notes": "pass",
        "01-warmup/report": "verifying",
    }
    assert step_states_in(html, "bob")["02-practice/one"] == "fail"
    assert ">verifying 1/2</td>" in html
    assert "verify: does not hold (a file: practice/one.txt does not contain one)" in html
    assert "(02-practice/one: a file: practice/one.txt does not contain one)" in html


def step_states_in(html: str, name: str) -> dict[str, str]:
    return {
        f"{m[1]}/{m[2]}": m[3]
        for m in re.finditer(
            rf'data-participant="{name}" data-lab="([^"]+)" data-step="([^"]+)"[^>]*?'
            r'data-verify="([^"]+)"',
            html,
        )
    }


def test_the_watch_options_without_watch_are_refused(tmp_path: Path) -> None:
    out = run_cli("trainer", "status", str(tmp_path / "room.git"), "--html", "room.html")
    assert out.code == 1
    said = " ".join(out.err.split())
    assert "--html, --jobs and --no-verify go with --watch" in said
    assert "lab trainer report URL --html PAGE" in said
