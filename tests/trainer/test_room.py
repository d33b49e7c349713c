"""The trainer's room as participants really make it: real workspaces driven with ``lab``, real
git servers on loopback, the trainer reading with ``lab trainer status``.

Who needs help (a participant stuck on a step after ``lab next``, failed checks and hints; one
idle after finishing a lab), laptop clocks that are off (libfaketime from Debian moves a
participant's ``lab`` process's clock; the trainer's later reading uses an injected clock,
named ``trainer_clock``), secrets in a remote URL, and records replaced or deleted by someone
else.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness.claude.vocabulary import MemberState
from harness.engine.lab_runner import LabRunner
from harness.trainer.cohort import CohortReader
from harness.trainer.publish import make_settings, submit
from harness.trainer.remote import RemoteError
from tests.builders import run_cli, run_lab_process
from tests.trainer.cohort_builder import (
    SyntheticLabs,
    clone_participant,
    participant,
    tiny_workspace,
)
from tests.trainer.servers import GitDaemon, SmartHttpServer, remote_refs

MINUTE = 60.0
FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")


def lab(ws: Path, *argv: str) -> str:
    """One ``lab`` command in a participant's workspace, as they type it."""
    out = run_cli(*argv, cwd=ws)
    return out.out + out.err


def joined(ws: Path, url: str, name: str, cohort: str = "room") -> Path:
    root = tiny_workspace(ws).root
    said = lab(root, "init", ".", "--remote", url, "--participant", name, "--cohort", cohort)
    assert "submitted to cohort" in said, said
    return root


def test_lab_next_failed_checks_and_hints_reach_the_trainer_who_sees_who_is_stuck(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    ada = joined(tmp_path / "ada", url, "ada")
    lab(ada, "start", "01-warmup")
    lab(ada, "solve", "--apply")
    assert "submitted to cohort room" in lab(ada, "check")
    said = lab(ada, "next")  # to step 2: the trainer's clock for it starts here
    assert "submitted to cohort room" in said, said
    for _ in range(2):
        said = lab(ada, "check")  # no report yet: fails
        assert "submitted to cohort room" in said, said
    assert "submitted to cohort room" in lab(ada, "hint")
    # bo finishes Lab 01 and then does nothing more.
    bo = joined(tmp_path / "bo", url, "bo")
    lab(bo, "start", "01-warmup")
    for _ in range(2):
        lab(bo, "solve", "--apply")
        lab(bo, "check")
        lab(bo, "next")

    def trainer_clock() -> float:  # an injected clock: the trainer reads 17 minutes later
        return time.time() + 17 * MINUTE

    cohort = CohortReader(url, "room", clock=trainer_clock).read()
    helped = {m.name: a for m, a in cohort.needs_help(15 * MINUTE)}
    assert helped["ada"].kind == MemberState.STUCK
    assert helped["ada"].text == "01·report for 17 min · 2 failed checks · 1 hint"
    assert helped["bo"].kind == MemberState.IDLE and "finished 01-warmup" in helped["bo"].text
    (ada_m,) = [m for m in cohort.members if m.name == "ada"]
    assert ada_m.current == ("01-warmup", "report")
    assert ada_m.help_on("01-warmup", "notes").solved_with_help
    # Within the 15 minutes, nobody is flagged.
    early = CohortReader(url, "room", clock=time.time, journal=False).read()
    assert early.needs_help(15 * MINUTE) == []


def test_laptop_clocks_off_by_25_minutes_do_not_drive_the_trainers_timers(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    if not FAKETIME.is_file():
        pytest.fail("libfaketime is not installed: scripts/test.sh installs it (apt: faketime)")
    url = daemon.url("room.git")

    def on_laptop(ws: Path, skew: str, *argv: str) -> str:
        # The participant's lab process runs on a clock off by ``skew`` (libfaketime).
        done = run_lab_process(*argv, cwd=ws, env={"LD_PRELOAD": str(FAKETIME), "FAKETIME": skew})
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    slow = tiny_workspace(tmp_path / "slow").root
    fast = tiny_workspace(tmp_path / "fast").root
    for ws, skew, name in ((slow, "-25m", "sam"), (fast, "+20m", "fay")):
        said = on_laptop(
            ws, skew, "init", ".", "--remote", url, "--participant", name, "--cohort", "c"
        )
        assert "submitted to cohort c" in said, said
    # The trainer is reading the room (lab trainer status, its own clock).
    assert run_cli("trainer", "status", url, "--cohort", "c", "--json").code == 0
    for ws, skew in ((slow, "-25m"), (fast, "+20m")):
        assert "submitted to cohort c" in on_laptop(ws, skew, "start", "02-practice")
    out = run_cli("trainer", "status", url, "--cohort", "c", "--json")
    rows = {p["participant"]: p for p in json.loads(out.out)["participants"]}
    now = time.time()
    for name in ("sam", "fay"):
        # Just started Lab 02: on its first step for seconds, active just now.
        assert rows[name]["current_step"] == "one"
        assert rows[name]["stuck_for_seconds"] < MINUTE, rows[name]
        assert abs(now - rows[name]["last_activity"]) < MINUTE, rows[name]
        assert rows[name]["needs_help"] is None
    assert rows["sam"]["clock_offset_seconds"] == pytest.approx(25 * MINUTE, abs=MINUTE)
    assert rows["fay"]["clock_offset_seconds"] == pytest.approx(-20 * MINUTE, abs=MINUTE)
    table = run_cli("trainer", "status", url, "--cohort", "c")
    assert "in the future" not in table.out and "25 min" not in table.out


def test_a_slow_laptop_is_corrected_at_the_trainers_first_read_over_http(
    tmp_path: Path, labs: SyntheticLabs, http: SmartHttpServer, daemon: GitDaemon
) -> None:
    """No read of the trainer's saw the slow laptop's submits arrive; over HTTP its submits
    carried the remote's clock (the server's Date: the test's own, real clock), so the
    trainer's very first read corrects it. Over git:// there is no clock to read, and the
    same laptop reads 25 minutes stuck: the limit the guide names."""
    if not FAKETIME.is_file():
        pytest.fail("libfaketime is not installed: scripts/test.sh installs it (apt: faketime)")
    rows = {}
    for url, kind in ((http.url("room.git"), "http"), (daemon.url("room.git"), "git")):
        ws = tiny_workspace(tmp_path / kind).root
        for argv in (
            ("init", ".", "--remote", url, "--participant", "sam", "--cohort", kind),
            ("start", "02-practice"),
        ):
            # The participant's lab process runs on a clock 25 minutes slow (libfaketime).
            env = {"LD_PRELOAD": str(FAKETIME), "FAKETIME": "-25m"}
            done = run_lab_process(*argv, cwd=ws, env=env)
            assert done.returncode == 0, done.stdout + done.stderr
        out = run_cli("trainer", "status", url, "--cohort", kind, "--json")
        (rows[kind],) = json.loads(out.out)["participants"]
    assert rows["http"]["current_step"] == "one"
    assert rows["http"]["stuck_for_seconds"] < MINUTE, rows["http"]
    assert abs(time.time() - rows["http"]["last_activity"]) < MINUTE
    assert rows["http"]["clock_offset_seconds"] == pytest.approx(25 * MINUTE, abs=MINUTE)
    assert rows["git"]["stuck_for_seconds"] > 24 * MINUTE, json.dumps(rows["git"], indent=1)


SECRET = "s3cret-TOKEN-42"


def test_no_secret_of_a_remote_url_is_ever_printed(
    tmp_path: Path, labs: SyntheticLabs, http: SmartHttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    url = http.url("room.git").replace("http://", f"http://trainer:{SECRET}@")
    token_url = http.url("room.git").replace("http://", f"http://{SECRET}@")
    seen: list[str] = []
    ws = tiny_workspace(tmp_path / "ws").root
    for argv in (
        ("init", ".", "--remote", url, "--participant", "ada", "--cohort", "c"),
        ("init", ".", "--remote", url, "--participant", "ada", "--cohort", "c", "--json"),
        ("start", "01-warmup"),
        ("submit",),
        ("submit", "--json"),
        ("submit", "--remote", token_url, "--participant", "bo", "--cohort", "c"),
    ):
        out = run_cli(*argv, cwd=ws)
        assert out.code == 0, out
        seen += [out.out, out.err]
    assert "trainer:***@" in seen[0] and "***@127.0.0.1" in seen[-2]
    page = tmp_path / "room.html"
    for argv in (
        ("trainer", "status", url, "--cohort", "c"),
        ("trainer", "status", url, "--cohort", "c", "--json"),
        ("trainer", "status", url, "--cohort", "c", "--csv"),
        ("trainer", "report", url, "--cohort", "c", "--html", str(page)),
    ):
        out = run_cli(*argv)
        assert out.code == 0, out
        seen += [out.out, out.err]
    seen.append(page.read_text())
    # A remote that is down: the participant's line and the fix name it, without the secret.
    down = f"http://trainer:{SECRET}@127.0.0.1:1/room.git"
    for argv, where in (
        (("submit", "--remote", down, "--participant", "ada"), ws),
        (("trainer", "status", down), tmp_path),
        (("trainer", "verify", url, "nobody", "--cohort", "c"), tmp_path),
    ):
        out = run_cli(*argv, cwd=where)
        assert out.code == 1, out
        seen += [out.out, out.err]
    run_cli("init", ".", "--remote", down, "--participant", "ada", cwd=ws)
    out = run_cli("hint", cwd=ws)  # an automatic submit to the remote that is down
    assert "not submitted to http://trainer:***@127.0.0.1:1/room.git" in out.out, out
    seen += [out.out, out.err]
    leaked = [text for text in seen if SECRET in text]
    assert leaked == []
    assert any("git ls-remote http://trainer:***@127.0.0.1:1/room.git" in t for t in seen)


def test_a_record_replaced_or_deleted_by_someone_else_shows_on_the_trainers_table(
    tmp_path: Path,
    labs: SyntheticLabs,
    daemon: GitDaemon,
    served: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = daemon.url("room.git")
    ada = joined(tmp_path / "ada", url, "ada")
    lab(ada, "start", "01-warmup")
    lab(ada, "solve", "--apply")
    lab(ada, "check")
    carl = joined(tmp_path / "carl", url, "carl")
    lab(carl, "start", "01-warmup")
    dee = joined(tmp_path / "dee", url, "dee")
    joined(tmp_path / "eve", url, "eve")  # arrived, no lab started
    reader_says = run_cli("trainer", "status", url, "--cohort", "room", "--json")
    assert reader_says.code == 0
    # bob, from his own workspace, tries ada's name: refused, and not told to --force it.
    bob = joined(tmp_path / "bob", url, "bob")
    out = run_cli("submit", "--participant", "ada", cwd=bob)
    said = " ".join((out.out + out.err).split())
    assert out.code == 1
    assert "already holds another workspace's record" in said
    assert "--force" not in said
    assert "lab init . --participant ada-2" in said
    joined(tmp_path / "fay", url, "fay")  # arrives after the trainer's read
    # He forces it anyway; the earlier record is kept and the trainer sees the replacement.
    out = run_cli("submit", "--participant", "ada", "--force", cwd=bob)
    assert out.code == 0, out
    # A raw git push replaces carl's record with bob's history, another deletes dee's.
    # Raw pushes replace eve's record (no lab started) and fay's (the trainer never read it).
    for refspec in (
        "+refs/hooklab/progress:refs/hooklab/cohorts/room/carl",
        ":refs/hooklab/cohorts/room/dee",
        "+refs/hooklab/progress:refs/hooklab/cohorts/room/eve",
        "+refs/hooklab/progress:refs/hooklab/cohorts/room/fay",
    ):
        subprocess.run(["git", "push", "-q", url, refspec], cwd=bob, check=True)
    assert "refs/hooklab/cohorts/room/dee" not in remote_refs(served / "room.git")
    assert dee.is_dir()

    out = run_cli("trainer", "status", url, "--cohort", "room", "--json")
    rows = {p["participant"]: p for p in json.loads(out.out)["participants"]}
    assert rows["ada"]["needs_help"]["kind"] == MemberState.REPLACED
    assert "refs/hooklab/replaced/room/ada/" in rows["ada"]["replaced"]
    assert rows["carl"]["needs_help"]["kind"] == MemberState.REPLACED
    assert "replaced from another workspace" in rows["carl"]["replaced"]
    # eve had no lab started: her workspace's id changed under her name.
    assert rows["eve"]["needs_help"]["kind"] == MemberState.REPLACED
    assert "replaced from another workspace (was" in rows["eve"]["replaced"]
    # fay's record was replaced before the trainer first saw it: it names bob's workspace's
    # name, not hers.
    assert rows["fay"]["needs_help"]["kind"] == MemberState.REPLACED
    assert "made in the workspace that submits as" in rows["fay"]["replaced"]
    assert rows["dee"]["needs_help"]["kind"] == "deleted"
    assert "record deleted from the remote" in rows["dee"]["deleted"]
    # The table lists them first (bob, whose doing it was, after them).
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "160")
    table = run_cli("trainer", "status", url, "--cohort", "room")
    assert "record deleted from the remote" in table.out
    names = [line.split("│")[1].strip() for line in table.out.splitlines() if "│" in line]
    flagged = {"ada", "carl", "dee", "eve", "fay"}
    assert set(names[:5]) == flagged and "bob" in names[5:], names


def test_verify_all_judges_the_room_at_once_and_the_table_and_page_show_it(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = daemon.url("room.git")
    honest = participant(tmp_path / "honest", labs, 3)
    submit(honest, make_settings(url, "hana", "v"))
    # A forger: a passed step's snapshot swapped for the lab's start (it does not pass there).
    # Made in the same second as hana's, the same way: its snapshots are its own all the same
    # (they carry the workspace's id), so fred is no copy of hana.
    forger = participant(tmp_path / "forger", labs, 3)
    document = forger.read_progress()
    step = document["labs"]["02-practice"]["steps"]["one"]["passed"]
    step["snapshot"] = document["labs"]["02-practice"]["start_snapshot"]
    step.pop("tree", None)
    forger.write_progress(document, "edited by hand")
    submit(forger, make_settings(url, "fred", "v"))
    # A copier: hana's workspace folder copied, submitted under another name (same commit).
    copier = clone_participant(honest, tmp_path / "copier")
    submit(copier, make_settings(url, "cory", "v"))

    out = run_cli("trainer", "verify", url, "--all", "--cohort", "v", "--jobs", "2", "--json")
    assert out.code == 1, out  # fred's claim does not hold
    verdicts = {v["participant"]: v for v in json.loads(out.out)["participants"]}
    assert {n: v["state"] for n, v in verdicts.items()} == {
        "cory": "verified",
        "fred": "failed",
        "hana": "verified",
    }
    assert verdicts["fred"]["failed"] == ["02-practice/one"]

    status = run_cli("trainer", "status", url, "--cohort", "v", "--json")
    rows = {p["participant"]: p for p in json.loads(status.out)["participants"]}
    assert rows["hana"]["verification"] == "verified"
    assert rows["fred"]["verification"] == "failed"
    assert rows["fred"]["needs_help"]["kind"] == "verify failed"
    # Copies are flagged both ways: which of the two copied, the trainer asks them.
    assert rows["cory"]["needs_help"]["kind"] == "copy"
    # cory's submit names cory in its document, so the commit is not hana's: the workspace
    # id both documents carry tells the copied folder.
    twins = "copy: made in the same workspace as {} (a copied folder)"
    assert rows["cory"]["copy_of"] == twins.format("hana")
    assert rows["hana"]["copy_of"] == twins.format("cory")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "160")
    table = run_cli("trainer", "status", url, "--cohort", "v", "--all")
    lines = {line.split("│")[1].strip(): line for line in table.out.splitlines() if "│" in line}
    assert "✗" in lines["fred"] and "verify: 1 of" in lines["fred"]
    assert "✓" in lines["hana"].split("│")[5]
    page = tmp_path / "room.html"
    assert run_cli("trainer", "report", url, "--cohort", "v", "--html", str(page)).code == 0
    html = page.read_text()
    assert 'data-verified="failed"' in html and 'data-verified="verified"' in html
    # A later submit makes the verdict stale: that state is not the one judged.
    runner = LabRunner(honest, labs_root=labs.root)
    runner.solve(apply=True)
    assert runner.check().status.value == "pass"
    submit(honest, make_settings(url, "hana", "v"))
    status = run_cli("trainer", "status", url, "--cohort", "v", "--json")
    rows = {p["participant"]: p for p in json.loads(status.out)["participants"]}
    assert rows["hana"]["verification"] == "stale"


def test_a_live_step_passed_on_someone_elses_session_reads_as_a_copy(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    """Files copied into one's own workspace and committed there make snapshots of one's own;
    a live step passed with the copied transcript carries the other's session id, which the
    Claude Code client draws at random. The synthetic labs have no live step, so the claims'
    session ids are written into the records as lab check writes them (not a real session)."""
    url = daemon.url("room.git")
    shared, own = str(uuid.uuid4()), str(uuid.uuid4())
    for name, session in (("ida", shared), ("jo", shared), ("kim", own)):
        ws = participant(tmp_path / name, labs, 3)
        document = ws.read_progress()
        document["labs"]["02-practice"]["steps"]["one"]["passed"]["session_id"] = session
        ws.write_progress(document, "a live step passed")
        submit(ws, make_settings(url, name, "live"))
    members = {m.name: m for m in CohortReader(url, "live", journal=False).read().members}
    assert members["jo"].copy_of == "copy: a live step passed on ida's Claude Code session"
    assert members["ida"].copy_of == "copy: a live step passed on jo's Claude Code session"
    assert members["kim"].copy_of is None  # same labs, same second, own session: no copy


def test_help_and_attendance_show_with_a_roster(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = daemon.url("room.git")
    jose = joined(tmp_path / "jose", url, "José Díaz")  # an accent and a space: welcome
    lab(jose, "start", "01-warmup")
    lab(jose, "hint")
    lab(jose, "solve", "--apply")
    lab(jose, "check")
    # The same name in capitals from the same person's workspace is the same participant.
    out = run_cli("submit", "--participant", "JOSÉ DÍAZ", "--cohort", "room", cwd=jose)
    assert out.code == 0, out
    roster = tmp_path / "roster.txt"
    roster.write_text("# Monday\nJosé Díaz\nAda Lovelace   # late\n\n")
    out = run_cli("trainer", "status", url, "--cohort", "room", "--roster", str(roster), "--json")
    rows = {p["participant"]: p for p in json.loads(out.out)["participants"]}
    assert set(rows) == {"josé-díaz", "ada-lovelace"}
    assert rows["ada-lovelace"]["arrived"] is False
    assert rows["ada-lovelace"]["needs_help"]["kind"] == "not arrived"
    assert rows["josé-díaz"]["hints"] == 1
    assert rows["josé-díaz"]["solved_with_help"] == 1
    assert rows["josé-díaz"]["labs"]["01-warmup"]["solved_with_help"] == ["notes"]
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "120")
    table = run_cli("trainer", "status", url, "--cohort", "room", "--roster", str(roster))
    line = next(x for x in table.out.splitlines() if "josé-díaz" in x)
    assert "1 hint · 1 with lab solve" in line
    assert "not arrived" in next(x for x in table.out.splitlines() if "ada-lovelace" in x)
    page = tmp_path / "room.html"
    made = run_cli(
        "trainer", "report", url, "--cohort", "room", "--roster", str(roster), "--html", str(page)
    )
    assert made.code == 0, made
    html = page.read_text()
    assert 'data-kind="not arrived"' in html
    # the cell's title
    assert "josé-díaz · 01-warmup step 1 (Write your notes): passed · 1 hint, lab solve" in html
    bad = tmp_path / "bad.txt"
    bad.write_text("ada\n../x\n")
    out = run_cli("trainer", "status", url, "--roster", str(bad))
    assert out.code == 1 and "line 2" in out.err and "bad.txt" in out.err


def test_a_typo_in_the_remote_is_told_at_lab_init(tmp_path: Path, daemon: GitDaemon) -> None:
    ws = tiny_workspace(tmp_path / "ws").root
    wrong = daemon.url("room.git").replace("room.git", "rom.git")
    out = run_cli("init", ".", "--remote", wrong, "--participant", "ada", cwd=ws)
    assert out.code == 0, out  # the workspace is fine; the line says what is wrong
    assert "↑ not submitted to" in out.out and "rom.git" in out.out


def test_the_smaller_ones(
    tmp_path: Path, labs: SyntheticLabs, served: Path, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    for interval in ("-1", "0"):
        out = run_cli("trainer", "status", url, "--watch", "--interval", interval)
        assert out.code == 2 and "at least 0.2 seconds" in out.err, out
    # --watch into a pipe prints tables (one per round), not nothing.
    joined(tmp_path / "ada", url, "ada")
    watch = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness",
            "trainer",
            "status",
            url,
            "--cohort",
            "room",
            "--watch",
            "--interval",
            "0.5",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert watch.stdout is not None
    deadline, shown = time.monotonic() + 60, ""
    while shown.count("cohort room · 1 participants") < 2 and time.monotonic() < deadline:
        shown += watch.stdout.readline()
    watch.terminate()
    watch.communicate(timeout=20)
    assert shown.count("cohort room · 1 participants") >= 2, shown
    # A hand-made submission: a row that says so, not a Python attribute.
    repo = served / "room.git"
    blob = subprocess.run(
        ["git", "--git-dir", str(repo), "hash-object", "-w", "--stdin"],
        input='{"labs": {"01-warmup": "oops"}}',
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    tree = subprocess.run(
        ["git", "--git-dir", str(repo), "mktree"],
        input=f"100644 blob {blob}\tprogress.json\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    commit = subprocess.run(
        ["git", "--git-dir", str(repo), "commit-tree", tree, "-m", "forged"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run(
        ["git", "--git-dir", str(repo), "update-ref", "refs/hooklab/cohorts/room/mal", commit],
        check=True,
    )
    cohort = CohortReader(url, "room", journal=False).read()
    (mal,) = [m for m in cohort.members if m.name == "mal"]
    assert mal.problem is not None and "no progress document Hook Lab can read" in mal.problem
    assert "attribute" not in mal.problem


def test_a_shared_disk_stays_writable_for_the_group(tmp_path: Path, labs: SyntheticLabs) -> None:
    room = tmp_path / "room.git"
    subprocess.run(["git", "init", "-q", "--bare", "--shared=group", str(room)], check=True)
    ws = participant(tmp_path / "ws", labs, 1)
    old = os.umask(0o022)
    try:
        submit(ws, make_settings(str(room), "ada", "mon"))
    finally:
        os.umask(old)
    for folder in (room / "refs" / "hooklab", room / "refs" / "hooklab" / "cohorts" / "mon"):
        assert folder.stat().st_mode & 0o070 == 0o070, oct(folder.stat().st_mode)


def test_two_workspaces_taking_one_name_at_the_same_instant(
    tmp_path: Path, labs: SyntheticLabs, daemon: GitDaemon
) -> None:
    url = daemon.url("room.git")
    people = [participant(tmp_path / f"ws{i}", labs, 1) for i in range(4)]

    def go(ws: object) -> str:
        try:
            submit(ws, make_settings(url, "same", "race"))  # type: ignore[arg-type]
        except RemoteError as exc:
            return f"{exc.message} (fix: {exc.fix})"
        return "ok"

    with ThreadPoolExecutor(max_workers=4) as pool:
        said = list(pool.map(go, people))
    assert said.count("ok") >= 1, said
    for text in said:
        assert "whether the remote accepts pushes" not in text, text
        assert (
            text == "ok"
            or "already holds another workspace's record" in text
            or ("landed at the same moment" in text)
        ), text
