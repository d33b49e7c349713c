"""Issue 51 items 2 and 4, the screens walks g and h found: ``found:`` dumping a one-line
settings.json of 1,600 characters, a command in a FAIL headline broken over three lines, long
waits without a progress line, step numbers counted from 0 and a missing ``[[step]]`` said in a
parser's words.

Real: the labs' own lab.toml and checks, provisioned workspaces, screens at 80, 100 and 120
columns.
"""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from harness.engine.context import CheckContext
from harness.engine.manifest import find_lab
from harness.excerpt import excerpt
from harness.results import CheckResult, Status
from harness.ui.lab_view import result_renderable
from harness.ui.prose import print_prose
from harness.workspace import Workspace

WIDTHS = (80, 100, 120)


def shown(renderable: object, width: int) -> str:
    out = io.StringIO()
    print_prose(Console(file=out, width=width, no_color=True, color_system=None), renderable)
    return out.getvalue()


def row(screen: str, label: str) -> str:
    """The text of an ``expected:``/``found:`` row, its wrapped lines joined."""
    lines = screen.splitlines()
    first = next(n for n, ln in enumerate(lines) if ln.lstrip().startswith(label))
    taken = [lines[first].split(label, 1)[1].strip()]
    for line in lines[first + 1 :]:
        if not line.startswith(" " * 4) or line.lstrip().endswith(":") or ":  " in line[:12]:
            break
        taken.append(line.strip())
    return " ".join(taken)


# ---- 1. found: shows the matching entry, never a whole long line ----------------------------

PROMPT_HOOK = {
    "type": "prompt",
    "prompt": "Did the tests run and pass after the last change? $ARGUMENTS",
    "timeout": 30,
}


@pytest.mark.parametrize("width", WIDTHS)
def test_lab10_step3_found_is_the_prompt_entry_of_a_one_line_settings(
    workspace: Workspace, width: int
) -> None:
    """Walk h's worst screen: settings.json compacted to one line (``"type":"prompt"``), the
    file check of Lab 10 step 3 said ``found:`` and the whole 1,600-character line."""
    path = workspace.root / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    settings["hooks"]["Stop"][0]["hooks"].append(PROMPT_HOOK)
    path.write_text(json.dumps(settings, separators=(",", ":")))
    assert len(path.read_text()) > 1000
    lab = find_lab("10")
    spec = next(c for c in lab.step("evidence").checks if c.name == "file")
    result = spec.kind.run(CheckContext(workspace, lab.dir), spec.typed)
    assert result.status is Status.FAIL, result
    assert result.found == json.dumps(PROMPT_HOOK, separators=(",", ":")), result.found
    screen = shown(result_renderable(result), width)
    assert "extraKnownMarketplaces" not in screen and "permissions" not in screen, screen
    entry = result.found
    assert any(entry in line for line in screen.splitlines()), screen  # whole, to copy
    assert all(len(line) <= width for line in screen.splitlines() if entry not in line), screen


def test_a_long_line_without_an_entry_that_fits_is_a_window_marked_cut() -> None:
    """No object around the match fits: a window around it, cut at a space or a comma (no
    word split), ``…`` on each side cut; a short line is whole; no match: no whole line."""
    words = " ".join(f"word{n}" for n in range(400))
    shown_ = excerpt(words, "word200")
    assert shown_.startswith("…") and shown_.endswith("…") and len(shown_) <= 100, shown_
    assert "word200" in shown_
    assert all(piece.startswith("word") for piece in shown_.strip("…").split()), shown_
    assert excerpt("a short line", "short") == "a short line"
    assert len(excerpt(words, "absent")) <= 100
    entry = '{"a":"' + "x" * 200 + '","type":"prompt"}'
    compact = '{"hooks":{"Stop":[' + entry + '],"other":"' + "y " * 100 + '"}}'
    cut = excerpt(compact, '"prompt"')
    assert '"type":"prompt"' in cut and len(cut) <= 100 and cut.startswith("…"), cut
    assert excerpt(compact.replace("x" * 200, "x"), '"prompt"') == entry.replace("x" * 200, "x")
