"""The fix between breaks is the first real fix's outputs put back (harness/grading/fix_replay):
the grade is the same as when the fix command runs every time, the command runs twice (the
first fix and the one after the last break), and a hook sees a replayed fix as a fresh one.

Real bash hooks, a real fix command (bash writing files and counting its own runs outside the
project), the hook runtime and the emulated session; nothing is faked."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.grading import HookGrade, fix_replay, grade_stop_hook
from harness.grading.fix_replay import FixRecord, listing
from tests.grading.stop_hooks import write_hook

BREAK = "rm -rf build"
STALE = "touch src/app.src"
# A claim over two artefacts, a status line and every source: one break per way to make it false.
OTHER_BREAKS = (
    "echo FAILED > build/status",
    "rm build/lib.txt",
    "touch src/lib.src",
    "touch docs/README.md",
    "touch build/lib.failed",
)

_HEAD = """#!/usr/bin/env bash
# Claim: build/app.txt and build/lib.txt are built after the last change to src/ and docs/,
# and the build says ok.
set -u
active=$(jq -r '.stop_hook_active // false' 2>/dev/null || echo false)
cd "$CLAUDE_PROJECT_DIR" || exit 0
block() {
  if [ "$active" = "true" ]; then
    printf '{"systemMessage": "Stop check still fails: %s."}\\n' "$1"
    exit 0
  fi
  echo "Stop check blocked: $1" >&2
  exit 2
}
"""

WHOLE = (
    _HEAD
    + """for f in build/app.txt build/lib.txt; do
  [ -s "$f" ] || block "$f is missing: run the build"
  for s in src/* docs/*; do [ "$f" -nt "$s" ] || block "$f is older than $s: rebuild"; done
done
[ "$(cat build/status 2>/dev/null)" = ok ] || block "build/status does not say ok"
for x in build/*.failed; do [ -e "$x" ] && block "$x says a part failed"; done
exit 0
"""
)

# Checks only the one file the break command removes: every other break gets through.
ONE_FILE = (
    _HEAD
    + """[ -s build/app.txt ] || block "build/app.txt is missing: run the build"
[ build/app.txt -nt src/app.src ] || block "build/app.txt is older than src/app.src"
exit 0
"""
)


def fix_command(runs: Path) -> str:
    """Builds both artefacts and the status; counts its runs in a file outside the project."""
    return (
        f"echo run >> {runs} && mkdir -p build && cp src/app.src build/app.txt && "
        "cp src/lib.src build/lib.txt && echo ok > build/status"
    )


def make_project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.src").write_text("print('app')\n")
    (root / "src" / "lib.src").write_text("print('lib')\n")
    (root / "docs").mkdir()
    (root / "docs" / "README.md").write_text("a project\n")
    return root


def graded(tmp_path: Path, hook: str, name: str) -> tuple[HookGrade, int, Path]:
    root = make_project(tmp_path / name)
    runs = tmp_path / f"{name}-runs.log"
    script = write_hook(root, hook)
    lines: list[str] = []
    grade = grade_stop_hook(
        root,
        script,
        break_cmd=BREAK,
        fix_cmd=fix_command(runs),
        stale_cmd=STALE,
        other_breaks=OTHER_BREAKS,
        timeout=5,
        progress=lines.append,
    )
    runs_seen = len(runs.read_text().splitlines())
    # The progress lines name a real run only where one happened.
    assert sum(line.startswith("running --fix") for line in lines) == runs_seen, lines
    put_back = sum("fixed again (the fix's output put back)" in line for line in lines)
    assert put_back == 2 + len(OTHER_BREAKS) - runs_seen, lines
    return grade, runs_seen, root


def summary(grade: HookGrade) -> list[tuple[str, str, str]]:
    """What a person reads of each check, less the run times that differ between runs."""
    return [
        (c.name, c.status.value, "" if c.name == "within-timeout" else c.found)
        for c in grade.checks
    ]


@pytest.mark.parametrize("hook", ["whole", "one-file"])
def test_replay_grades_as_running_the_fix_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hook: str
) -> None:
    text = WHOLE if hook == "whole" else ONE_FILE
    replayed, replayed_runs, root = graded(tmp_path, text, "replayed")
    # A record over the size limit is not kept: the fix command runs every time, as before
    # (the limit set to 0 so that this real fallback path runs: no part of it is faked).
    monkeypatch.setattr(fix_replay, "MAX_RECORDED_BYTES", 0)
    ran, ran_runs, _ = graded(tmp_path, text, "ran")

    assert summary(replayed) == summary(ran)
    assert (replayed_runs, ran_runs) == (2, 2 + len(OTHER_BREAKS))  # first fix + the last
    failed = [c.name for c in replayed.failures]
    if hook == "whole":
        assert failed == []
    else:  # the first other break it lets through is named, as it was
        assert failed == ["blocks-every-break"]
        assert "after `echo FAILED > build/status`" in replayed.check("blocks-every-break").found
    # left fixed by the real command after the last break (which removes no *.failed)
    assert (root / "build" / "status").read_text() == "ok\n"
    assert (root / "build" / "lib.failed").exists()


def hook_exit(root: Path, text: str) -> int:
    script = write_hook(root, text, "scripts/whole.sh")
    return subprocess.run(
        [str(script)],
        input='{"stop_hook_active": false}',
        text=True,
        capture_output=True,
        env={"CLAUDE_PROJECT_DIR": str(root), "PATH": "/usr/bin:/bin"},
        check=False,
    ).returncode


@pytest.mark.parametrize("break_cmd", [*OTHER_BREAKS, STALE])
def test_a_replayed_fix_passes_the_whole_hook_after_each_break(
    tmp_path: Path, break_cmd: str
) -> None:
    root = make_project(tmp_path / "proj")
    runs = tmp_path / "runs.log"
    before = listing(root)
    subprocess.run(["bash", "-c", fix_command(runs)], cwd=root, check=True)
    record = FixRecord.take(root, tmp_path / "store", before)
    assert record is not None
    assert record.written == ["build/app.txt", "build/lib.txt", "build/status"]
    subprocess.run(["bash", "-c", break_cmd], cwd=root, check=True)
    assert hook_exit(root, WHOLE) == 2  # the break makes the claim false

    record.replay()
    assert hook_exit(root, WHOLE) == 0  # the outputs put back: fresh and whole again
    assert not (root / "build" / "lib.failed").exists()  # a break's addition is gone
    assert (root / "src" / "lib.src").exists() and (root / "docs" / "README.md").exists()
    assert len(runs.read_text().splitlines()) == 1


def test_a_fix_that_writes_nothing_is_not_recorded(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    before = listing(root)
    assert FixRecord.take(root, tmp_path / "store", before) is None
