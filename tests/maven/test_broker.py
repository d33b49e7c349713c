"""The Maven broker of ``lab trainer verify`` (harness/maven/broker.py) runs Maven only in the
folder it confines the sandbox to: a request for any other folder is refused before Docker is
asked, whatever the path's text or links say."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.maven.broker import BrokerBackend, MavenBroker, confined_dir


def test_a_folder_is_judged_by_its_text_inside_the_confine(tmp_path: Path) -> None:
    confine = tmp_path / "holder"
    assert confined_dir(confine, f"{confine}/ws/copy") == f"{confine}/ws/copy"
    for outside in ("/", "/etc", f"{confine}/../x", f"{confine}x", "relative/ws"):
        with pytest.raises(ValueError):
            confined_dir(confine, outside)


def test_the_broker_refuses_a_folder_outside_its_confine(tmp_path: Path) -> None:
    confine = tmp_path / "holder"
    confine.mkdir()
    (confine / "up").symlink_to("/")  # a link is followed in the container, never here
    with MavenBroker(confine) as broker:
        client = BrokerBackend(str(broker.path))
        for asked in (Path("/etc"), confine / ".." / "elsewhere"):
            with pytest.raises(HarnessError, match="outside"):
                client.run(asked, ["-v"])
    assert not broker.path.exists()
