"""Transcripts that are not what a reader hopes for, through the real ``lab replay``: each gets
a clear result (a replay with a note, or exit 1 naming the file), never a traceback. Every
transcript starts as one the real client wrote in the test (tests/recorded_sessions.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.recorded_sessions import Played, copy_session, lines, write_lines
from tests.reliability.cli import assert_clean_error, lab
from tests.reliability.plugin import fault

Recorded = Callable[[str], Played]


def _broken(kind: str, path: Path) -> None:
    if kind == "empty":
        path.write_text("")
    elif kind == "not JSON":
        path.write_bytes(b"\x89PNG\r\n\x1a\n not a transcript \xff\xfe\n" * 20)
    elif kind == "a directory":
        path.unlink()
        path.mkdir()


@pytest.mark.parametrize("kind", ["empty", "not JSON", "a directory"])
@fault(
    "bad input",
    "a session transcript that is {kind}",
    tried="lab replay FILE in the session's workspace",
    held="exit 1, no traceback; the message names the file and what to give instead",
)
def test_an_unreadable_transcript_is_refused_by_name(
    recorded: Recorded, tmp_path: Path, kind: str
) -> None:
    played = recorded("no-audit")
    path = copy_session(played, tmp_path)
    _broken(kind, path)
    done = lab(played.workspace, "replay", str(path))
    assert_clean_error(done, str(path))


def _cut_off(path: Path) -> str:
    text = path.read_text()
    path.write_text(text + text.splitlines()[-1][: len(text.splitlines()[-1]) // 2])
    return "is cut off"


def _other_version(path: Path) -> str:
    entries = lines(path)
    for entry in entries:
        if "version" in entry:
            entry["version"] = "2.0.99"
    write_lines(path, entries)
    return "2.0.99"


def _fifty_megabytes(path: Path) -> str:
    entries = lines(path)
    blob = next(e for e in entries if e.get("type") == "api-request-blob")
    padding = dict(blob, message={"role": "user", "content": "x" * 1_000_000})
    with path.open("w") as fh:
        for _ in range(52):
            fh.write(json.dumps(padding) + "\n")
        for entry in entries:
            fh.write(json.dumps(entry) + "\n")
    assert path.stat().st_size > 50_000_000
    return "refused by guard-spec-status.sh"


def _unknown_types(path: Path) -> str:
    entries = lines(path)
    for n, entry in enumerate(entries):
        entry["type"] = f"kind-{n % 7}"
    write_lines(path, entries)
    return "Nothing to replay"


DAMAGE: dict[str, Callable[[Path], str]] = {
    "truncated": _cut_off,
    "of another client version": _other_version,
    "50 MB": _fifty_megabytes,
    "full of unknown line types": _unknown_types,
}
# A replay that compared nothing says so and exits 1 (issue 50): it proved nothing.
EXIT = {"full of unknown line types": 1}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
@fault(
    "bad input",
    "a session transcript that is {kind}",
    tried="lab replay FILE in the session's workspace (a real client's transcript, damaged)",
    held="read as far as it goes, what was skipped named in a note; the replay's verdict "
    "(exit 1 when nothing could be compared), no traceback",
)
def test_a_damaged_transcript_is_read_as_far_as_it_goes(
    recorded: Recorded, tmp_path: Path, kind: str
) -> None:
    played = recorded("no-audit")
    path = copy_session(played, tmp_path)
    said = DAMAGE[kind](path)
    done = lab(played.workspace, "replay", str(path), timeout=600)
    out = done.stdout + done.stderr
    assert "Traceback" not in out
    assert done.returncode == EXIT.get(kind, 0), out[-3000:]
    assert said in " ".join(out.split()), out[-3000:]
    if EXIT.get(kind):
        assert "replay: nothing was compared" in done.stderr
