"""The reader of hand-written files: every way a file can be unreadable is a ConfigError naming
the file (shown as given) and what to do. Through the CLI: tests/reliability/test_bad_files.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.userfiles import MAX_DEPTH, read_json, read_text, read_toml


def test_depth_up_to_the_limit_is_read_and_one_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert read_json(path) == _nested(MAX_DEPTH)
    path.write_text("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(ConfigError, match=f"more than {MAX_DEPTH} levels"):
        read_json(path)


def test_a_wide_shallow_document_is_read(tmp_path: Path) -> None:
    path = tmp_path / "wide.toml"
    path.write_text("".join(f"k{i} = [{{ a = [1] }}]\n" for i in range(2000)))
    assert len(read_toml(path)) == 2000


def _nested(levels: int) -> list[object]:
    value: list[object] = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("data", "field", "problem"),
    [
        (b"ok\n\xc3\xa9 \xff", "line 2, column 3", "is not UTF-8 text (byte 0xff)"),
        ("a = 1".encode("utf-16"), "", "is UTF-16 text, not UTF-8"),
        (b"a = 1\0", "", "is not a text file (a NUL byte at offset 5)"),
    ],
)
def test_bytes_that_are_not_utf8_text(
    tmp_path: Path, data: bytes, field: str, problem: str
) -> None:
    path = tmp_path / "file.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        read_text(path, "shown/file.toml")
    assert (caught.value.path, caught.value.field) == ("shown/file.toml", field)
    assert caught.value.problem.startswith(problem) and caught.value.fix


def test_a_folder_or_a_missing_file_cannot_be_read(tmp_path: Path) -> None:
    for path, why in ((tmp_path, "Is a directory"), (tmp_path / "nope.toml", "No such file")):
        with pytest.raises(ConfigError, match=why) as caught:
            read_toml(path)
        assert caught.value.path == str(path)


def test_syntax_errors_name_the_line(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('a = 1\nb = "open\n')
    with pytest.raises(ConfigError, match=r"invalid TOML .*line 2"):
        read_toml(tmp_path / "a.toml")
    (tmp_path / "a.json").write_text('{\n  "a": 1,\n}')
    with pytest.raises(ConfigError) as caught:
        read_json(tmp_path / "a.json")
    assert caught.value.field == "line 3, column 1" and "invalid JSON" in caught.value.problem
