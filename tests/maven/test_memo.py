"""The test suite's Maven memo (harness/maven/memo.py), on real Maven: an identical call is
restored, and any changed input (a byte, an mtime order, a switch, a Maven setting) runs Maven
for real. Each test gives the memo a folder of its own, so that the run's memo
(tests/conftest.py) neither serves nor records these calls."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from harness.maven.memo import MEMO_ENV, THROWAWAY_ENV, memo_shim_dir
from harness.maven.share import maven_share
from harness.maven.surefire import SENSORS
from harness.workspace import Workspace

pytestmark = pytest.mark.maven

SENSOR_RUN = ["./mvnw", "-q", "test", "-Dgroups=sensor"]
REPORTS = Path("target/surefire-reports")
TEST_CLASS = Path("src/test/java/ai/unifiedprocess/petclinic/UC005AddVisitTest.java")


def copies(ws: Workspace, tmp_path: Path, n: int = 2) -> list[Path]:
    """``n`` copies of ``ws`` as the harness's sandboxes are made (mtimes kept)."""
    roots = [tmp_path / f"copy{i}" / "ws" for i in range(n)]
    for root in roots:
        shutil.copytree(ws.root, root, symlinks=True)
    return roots


def memo_env(store: Path, **more: str) -> dict[str, str]:
    """This process's environment with ``store`` as the memo and its shim first on PATH, for
    a check's own run on a throwaway copy (the only run the memo may stand in for)."""
    store.mkdir(exist_ok=True)
    path = os.environ["PATH"].split(os.pathsep)
    path = [entry for entry in path if Path(entry) != memo_shim_dir()]
    return {
        **os.environ,
        MEMO_ENV: str(store),
        "PATH": os.pathsep.join([str(memo_shim_dir()), *path]),
        THROWAWAY_ENV: "1",
        **more,
    }


def mvnw(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    argv = [*SENSOR_RUN, *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def hows(store: Path) -> list[str]:
    ledger = store / "ledger.jsonl"
    lines = ledger.read_text().splitlines() if ledger.is_file() else []
    return [json.loads(line)["how"] for line in lines]


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root/target``, its project path written as ROOT."""
    mark = str(root).encode()
    return {
        p.relative_to(root).as_posix(): p.read_bytes().replace(mark, b"ROOT")
        for p in (root / "target").rglob("*")
        if p.is_file()
    }


def test_an_identical_call_is_restored_as_a_fresh_run(workspace: Workspace, tmp_path: Path) -> None:
    first, second = copies(workspace, tmp_path)
    env = memo_env(tmp_path / "memo")
    real = mvnw(first, env)
    before_restore = time.time_ns()
    restored = mvnw(second, env)

    assert hows(tmp_path / "memo") == ["real", "restored"]
    assert restored.returncode == real.returncode == 0, real.stdout + real.stderr
    assert restored.stdout.replace(str(second), "ROOT") == real.stdout.replace(str(first), "ROOT")
    assert tree(second) == tree(first)
    for name in SENSORS:
        report = second / REPORTS / f"TEST-ai.unifiedprocess.petclinic.{name}.xml"
        assert report.stat().st_mtime_ns >= before_restore  # as a run ending now leaves it
        assert str(first).encode() not in report.read_bytes()


def test_a_participants_run_is_restored_only_into_a_workspace_it_never_served(
    workspace: Workspace, tmp_path: Path
) -> None:
    """A real run's reports differ from every earlier run's (their test times), and a check
    takes reports byte for byte equal to a run it read before in that workspace as no new
    run (Lab 01: reports kept aside and copied back). So a participant's identical run in the
    same workspace is real; in another workspace, or on a check's throwaway copy, the kept
    run stands in."""
    first, second, third = copies(workspace, tmp_path, 3)
    env = memo_env(tmp_path / "memo")
    person = {name: value for name, value in env.items() if name != THROWAWAY_ENV}
    mvnw(first, person)
    mvnw(first, person)  # the same inputs again: ./mvnw clears the reports first
    mvnw(second, person)
    mvnw(second, person)
    mvnw(third, env)
    mvnw(third, env)

    assert hows(tmp_path / "memo") == ["real", "real", "restored", "real", "restored", "restored"]


def test_a_changed_test_gets_a_real_run_and_its_own_red_result(
    workspace: Workspace, tmp_path: Path
) -> None:
    """The defect a memo could hide: a participant's broken sensor passed by an earlier green
    run of the same project. One changed byte is another key, and Maven runs."""
    first, second = copies(workspace, tmp_path)
    env = memo_env(tmp_path / "memo")
    # The same file edited on both copies: ./mvnw passes Maven the same switches for each.
    kept = first / TEST_CLASS
    kept.write_text(kept.read_text() + "// read again\n")
    broken = second / TEST_CLASS
    broken.write_text(broken.read_text().replace("A1: Missing Description", "A1: Missing Text"))
    green, red = mvnw(first, env), mvnw(second, env)

    ledger = (tmp_path / "memo" / "ledger.jsonl").read_text().splitlines()
    assert json.loads(ledger[0])["argv"] == json.loads(ledger[1])["argv"]
    assert hows(tmp_path / "memo") == ["real", "real"]
    assert green.returncode == 0, green.stdout + green.stderr
    assert red.returncode != 0
    assert "A1: Missing Text" in red.stdout + red.stderr


def test_the_same_bytes_in_another_mtime_order_get_a_real_run(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Maven decides what to compile by comparing file times: a file written again with the
    same bytes is newer than its class, so it is another input."""
    first, second = copies(workspace, tmp_path)
    env = memo_env(tmp_path / "memo")
    mvnw(first, env)
    test = second / TEST_CLASS
    test.write_bytes(test.read_bytes())
    mvnw(second, env)

    assert hows(tmp_path / "memo") == ["real", "real"]


def test_another_switch_or_maven_setting_gets_a_real_run(
    workspace: Workspace, tmp_path: Path
) -> None:
    first, second, third = copies(workspace, tmp_path, 3)
    env = memo_env(tmp_path / "memo")
    mvnw(first, env)
    mvnw(second, env, "-Dsurefire.printSummary=false")
    mvnw(third, memo_env(tmp_path / "memo", MAVEN_OPTS="-Xmx256m"))

    assert hows(tmp_path / "memo") == ["real", "real", "real"]


def test_without_its_folder_the_shim_is_the_real_maven(
    workspace: Workspace, tmp_path: Path
) -> None:
    """As in a jail that clears the environment: nothing kept, nothing restored."""
    (root,) = copies(workspace, tmp_path, 1)
    env = memo_env(tmp_path / "memo")
    env[MEMO_ENV] = str(tmp_path / "no-such-folder")
    done = mvnw(root, env)

    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / REPORTS).is_dir()
    assert not (tmp_path / "no-such-folder").exists()
    assert hows(tmp_path / "memo") == []


def test_a_logging_mvn_before_the_memo_reaches_the_real_maven(
    workspace: Workspace, tmp_path: Path
) -> None:
    """A test's own mvn first on PATH that execs the mvn it found (the memo's shim): the shim
    takes the Maven after its own folder, not the logging one again."""
    (root,) = copies(workspace, tmp_path, 1)
    env = memo_env(tmp_path / "memo")
    found = shutil.which("mvn", path=env["PATH"])
    log = tmp_path / "mvn.log"
    logging = tmp_path / "bin" / "mvn"
    logging.parent.mkdir()
    logging.write_text(f'#!/bin/sh\necho "$*" >>"{log}"\nexec "{found}" "$@"\n')
    logging.chmod(0o755)
    env["PATH"] = f"{logging.parent}{os.pathsep}{env['PATH']}"
    done = mvnw(root, env)

    assert done.returncode == 0, done.stdout + done.stderr
    assert len(log.read_text().splitlines()) == 1
    assert hows(tmp_path / "memo") == ["real"]


def test_under_the_dev_checks_share_each_engine_still_makes_its_call(
    workspace: Workspace, tmp_path: Path
) -> None:
    """Engines: the share pairs the two engines' calls and the memo keys no engine. Below the
    share, the memo only answers for the real Maven: with an identical run memoized, the
    emulator's call through the share is still its own call (the share's ledger), served
    from the memo, and the real client's is the share's restore of it."""
    first, second, third = copies(workspace, tmp_path, 3)
    env = memo_env(tmp_path / "memo")
    mvnw(first, env)
    with maven_share() as share:
        for engine, root in (("emulator", second), ("claude-code", third)):
            done = subprocess.run(
                SENSOR_RUN,
                cwd=root,
                env={**env, **share.environment(engine, {})},
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, done.stdout + done.stderr
        shared = [(c.engine, c.how) for c in share.calls()]

    assert shared == [("emulator", "real"), ("claude-code", "restored")]
    assert hows(tmp_path / "memo") == ["real", "restored"]
    assert tree(second) == tree(first) == tree(third)
