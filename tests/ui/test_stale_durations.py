"""What the labs and guides say about how long ``lab verify-hook`` takes: no figure that goes
stale. Lab 07 step 2 and the participant guide said "about half a minute"; it takes ~5 s
(walk41: 4.6 s and 5.5 s). How long it takes is benchmarks/' to measure, not the prose's.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.builders import REPO_ROOT

TEXTS = [*sorted((REPO_ROOT / "labs").glob("*/lab.toml")), REPO_ROOT / "README.md"]
TEXTS += sorted((REPO_ROOT / "docs").glob("*.md"))


def paragraphs(path: Path) -> list[str]:
    """A guide's paragraphs; a lab's steps (a step's command block and its prose go together)."""
    apart = r"\n\[\[step\]\]\n" if path.suffix == ".toml" else r"\n\s*\n"
    return [" ".join(p.split()) for p in re.split(apart, path.read_text())]


CLAIM = re.compile(r".{0,80}\b(?:half a|a|\d+) minutes?\b")


def test_no_text_says_verify_hook_takes_minutes() -> None:
    claims = [
        f"{path.relative_to(REPO_ROOT)}: {claim[0]}"
        for path in TEXTS
        for p in paragraphs(path)
        if "verify-hook" in p and (claim := CLAIM.search(p))
    ]
    assert not claims, "\n".join(claims)
