"""What several free-pass tests write into a workspace as a person would: a solved contract with
one line changed (Labs 07 and 12), Lab 10's judge prompt in the Stop hooks."""

from __future__ import annotations

import json

from harness.workspace import Workspace
from tests.labs.test_free_passes import LABS

HONEST_07 = (LABS / "07-own-stop-hook" / "solution" / "stop-hook-contract.md").read_text()
HONEST_12 = (LABS / "12-stop-contract" / "solution" / "stop-hook-contract.md").read_text()


def with_line(honest: str, line: str) -> str:
    """``honest`` with its line labelled as ``line`` is (``Check: …``) replaced by ``line``."""
    part = line.split(":", 1)[0]
    lines = honest.splitlines()
    at = next(i for i, text in enumerate(lines) if text.startswith(f"{part}:"))
    lines[at] = line
    return "\n".join(lines) + "\n"


def judge_prompt(ws: Workspace, prompt: str) -> None:
    """Lab 10's prompt hook, last of the Stop hooks, asks ``prompt`` (replacing one there)."""
    path = ws.root / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    hooks = settings["hooks"]["Stop"][0]["hooks"]
    judge = {"type": "prompt", "prompt": prompt, "timeout": 30}
    if hooks[-1].get("type") == "prompt":
        hooks[-1] = judge
    else:
        hooks.append(judge)
    path.write_text(json.dumps(settings, indent=2))
