"""The base package of a fixture, read once and kept: a change of the fixture's sources is
still seen (a trainer's own fixture, edited while ``lab watch`` runs)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from harness.engine.checks.build_output import base_package


def _source(root: Path, rel: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("class X {}\n")
    _aged(root)


def _aged(root: Path) -> None:
    """Every folder of ``root`` a minute old, as a fixture on disk is: only then is it kept
    (a folder changed within the last second is read again each time)."""
    old = time.time() - 60
    for top, _dirs, _files in os.walk(root):
        os.utime(top, (old, old))


def test_a_source_added_or_removed_in_the_fixture_is_seen_by_the_next_call(
    tmp_path: Path,
) -> None:
    _source(tmp_path, "src/main/java/org/shop/App.java")
    _source(tmp_path, "src/test/java/org/shop/web/AppTest.java")
    assert base_package(tmp_path) == "org/shop"
    assert base_package(tmp_path) == "org/shop"  # kept

    _source(tmp_path, "src/test/java/org/extra/Helper.java")
    assert base_package(tmp_path) == "org"

    shutil.rmtree(tmp_path / "src" / "test" / "java" / "org" / "extra")
    _aged(tmp_path)
    assert base_package(tmp_path) == "org/shop"
    (tmp_path / "src" / "main" / "java" / "org" / "shop" / "App.java").unlink()
    (tmp_path / "src" / "test" / "java" / "org" / "shop" / "web" / "AppTest.java").rename(
        tmp_path / "src" / "test" / "java" / "org" / "shop" / "web" / "Other.java"
    )
    _aged(tmp_path)
    assert base_package(tmp_path) == "org/shop/web"


def test_a_fixture_without_java_sources_has_none(tmp_path: Path) -> None:
    assert base_package(tmp_path) is None
    _source(tmp_path, "src/main/java/app/Main.java")
    assert base_package(tmp_path) == "app"
