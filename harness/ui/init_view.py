"""What ``lab init`` says in a workspace that already is one."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text

from harness.ui.prose import Prose, prose

_PATH = re.compile(r"/[^\s,()]+")


def maven_again_notice(changes: Sequence[str]) -> Prose:
    """The Maven the checks trust, recorded again, with what changed (``what_changed``: a
    program with new content at the same path is named with its sha256 before and after, where
    "now X, no longer X" said nothing), in whole lines (a path is never broken)."""
    body = Text.assemble(
        ("! ", "yellow"),
        f"The Maven the checks trust is now the one lab init found here: {'; '.join(changes)}. "
        "Every sensor run from here on is that program's. If you did not install or change it "
        "on purpose, put it back and run `lab init` here again.",
    )
    paths = [m.span() for m in _PATH.finditer(body.plain)]
    return prose(body, hanging=2, protected=paths)
