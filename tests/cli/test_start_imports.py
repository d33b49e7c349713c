"""A command's start loads what the command uses, no more: the suite starts hundreds of
``lab`` processes, and a participant waits for each. markdown-it (the lab text's parser) and
dulwich's porcelain (git work) are about 200 modules; ``lab status`` and ``lab list`` print
no lab text and change no files, so their parsers must come up without them."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("markdown_it", "dulwich.porcelain")


@pytest.mark.parametrize("command", ["status", "list"])
def test_a_commands_parser_comes_up_without_the_heavy_modules(command: str) -> None:
    probe = (
        "import sys\n"
        "from harness.cli.main import build_parser\n"
        f"build_parser({command!r})\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert not [m for m in HEAVY if m in loaded]
