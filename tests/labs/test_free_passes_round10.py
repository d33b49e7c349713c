"""Free passes of issue 51 still open after round 9, each tried as the walker (walk-m, walk-n)
wrote it.

Real: the shipped labs' setup and checks on a provisioned workspace, the workspace's bash
hooks fed real JSON, real Maven where a step runs it. What the pinned client does, that these
checks now do too, was seen on the client itself (each test says what).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from harness.results import CheckResult, Status
from harness.workspace import Workspace
from tests.labs.test_free_passes import LABS, at_step


def _named(results: list[CheckResult], name: str, part: str = "") -> CheckResult:
    """The result of the check called ``name`` (whose expected line holds ``part``)."""
    return next(r for r in results if r.name == name and part in (r.expected or ""))


# ---- walk-m G3: settings.json's "env" gives every hook a PATH without jq -------------------
def _path_without(program: str, folder: Path) -> Path:
    """A folder of links to every program of /usr/bin and /bin but ``program``, built in a
    temporary folder (never a link into /usr/bin or /bin themselves)."""
    folder.mkdir(parents=True)
    for source in (Path("/usr/bin"), Path("/bin")):
        for found in sorted(source.iterdir()):
            if found.is_dir() or found.name == program or (folder / found.name).exists():
                continue
            (folder / found.name).symlink_to(found)
    return folder


def test_lab06_step2_a_settings_env_whose_path_hides_jq_does_not_pass(
    workspace: Workspace, tmp_path: Path
) -> None:
    """walk-m G3: the guard fixed in its file and registered as shipped, but settings.json's
    "env" gives every hook a PATH without jq. Seen on 2.1.332 (a hook logging `env`): the
    client runs every hook, and the Bash tool, with that PATH, so a real session's guard lets
    Done through; the checks' sessions now do the same, and the settings check names it."""
    runner = at_step(workspace, "6", "broken-hook")
    guard = workspace.root / ".claude" / "hooks" / "guard-spec-status.sh"
    planted = '[ -n "$problem" ] && exit 0'
    guard.write_text(guard.read_text().replace(planted, '[ -n "$problem" ] || exit 0'))
    farm = _path_without("jq", tmp_path / "nojq")
    settings = workspace.root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["env"] = {"PATH": str(farm)}
    settings.write_text(json.dumps(data, indent=2))
    smoke = workspace.root / ".claude" / "hooks" / "smoke.sh"
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    ran = subprocess.run([smoke], cwd=workspace.root, env=env, capture_output=True, check=False)
    assert ran.returncode == 0, ran.stdout  # the walker's green run, jq on their own PATH

    results = runner.check(every=True).results

    registered = _named(results, "settings", "environment Claude Code starts with")
    assert registered.status is Status.FAIL, registered
    assert registered.message.startswith(
        '.claude/settings.json sets "env" (PATH): Claude Code runs every hook and tool with '
        "it, so your hooks run with a PATH without jq"
    ), registered.message
    assert registered.details["fix"] == (
        'remove "env" from .claude/settings.json (the hooks need the environment they had)'
    )
    guarded = next(r for r in results if r.name.startswith("the status guard itself"))
    assert guarded.status is Status.FAIL, guarded  # the emulator's guard finds no jq either
    assert '.claude/settings.json sets "env" (PATH)' in guarded.message, guarded.message


# ---- walk-m H3: a contract part whose text a sentence after it takes back -------------------
HONEST_07 = (LABS / "07-own-stop-hook" / "solution" / "stop-hook-contract.md").read_text()
CHECK_07 = next(line for line in HONEST_07.splitlines() if line.startswith("Check: "))
TAKEN_BACK = [
    (f"{CHECK_07} Nothing is checked.", "takes itself back (“Nothing is checked”)"),
    (
        f"{CHECK_07} None of this is implemented; ignore it.",
        "takes itself back (“None of this is implemented”)",
    ),
    (f"{CHECK_07} Not really.", "takes itself back (“Not really”)"),
    # struck through: not said at all, so the evidence is missing (refused on main already)
    (
        f"Check: ~~{CHECK_07.removeprefix('Check: ')}~~ Nothing is checked.",
        "the Check: names the evidence",
    ),
]


@pytest.mark.parametrize(("line", "said"), TAKEN_BACK)
def test_lab07_step1_a_part_taken_back_by_a_sentence_after_it_does_not_pass(
    workspace: Workspace, line: str, said: str
) -> None:
    """walk-m H3: the right Check: text, then a sentence that takes it back."""
    runner = at_step(workspace, "7", "contract")
    contract = workspace.root / "docs" / "stop-hook-contract.md"
    contract.write_text(HONEST_07.replace(CHECK_07, line))

    result = _named(runner.check(every=True).results, "contract docs/stop-hook-contract.md")

    assert result.status is Status.FAIL, result
    assert "do not hold yet (Check:)" in result.message, result.message
    assert said in result.message, result.message


def test_lab07_step1_sentences_that_say_what_the_hook_leaves_out_still_pass(
    workspace: Workspace,
) -> None:
    runner = at_step(workspace, "7", "contract")
    said = HONEST_07.replace(CHECK_07, f"{CHECK_07} Nothing older than src/ counts.")
    said = said.replace("no secrets, no log.", "no secrets. Never the full log.")
    assert said.count("Never the full log") == 1
    (workspace.root / "docs" / "stop-hook-contract.md").write_text(said)

    result = _named(runner.check(every=True).results, "contract docs/stop-hook-contract.md")

    assert result.status is Status.PASS, result
