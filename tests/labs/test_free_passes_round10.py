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
from typing import Any

import pytest

from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.claude.engines import Engine, open_session
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.workspace import Workspace
from tests.builders import tmux
from tests.conftest import require_real_client
from tests.labs.solved import checked, solved_at
from tests.labs.test_free_passes import LABS, at_step
from tests.labs.test_free_passes_round9 import GUARD_ITSELF


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

    # The two checks it fails, not the step's every check (two of them run the whole smoke.sh).
    results = checked(runner, "settings", GUARD_ITSELF)

    (registered,) = [r for r in results if r.name == "settings"]
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


@pytest.mark.parametrize("engine", [Engine.EMULATOR, Engine.CLAUDE_CODE])
def test_a_settings_env_reaches_every_hook_and_tool_on_both_engines(
    tmp_path: Path, engine: str
) -> None:
    """What G3 rests on, seen on the pinned client: settings.json's "env" is in every hook's
    environment (PATH included) and in the Bash tool's; the emulator does the same."""
    if engine == Engine.CLAUDE_CODE:
        require_real_client()
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    log = tmp_path / "hooks.log"
    command = f'echo "$HOOKLAB_PROBE $PATH" >> {log}'
    hook = {"hooks": [{"type": "command", "command": command}]}
    settings = {
        "env": {"HOOKLAB_PROBE": "from-settings", "PATH": f"{tmp_path}:/usr/bin:/bin"},
        "hooks": {"PreToolUse": [{"matcher": "Bash", **hook}], "Stop": [hook]},
    }
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    with open_session(engine, root, transcript_dir=tmp_path / "t") as session:
        session.session_start()
        session.prompt("say hi")
        ran = session.bash("echo tool=$HOOKLAB_PROBE")
        session.stop("done")

    assert "tool=from-settings" in ran.tool_result, ran
    assert log.read_text().splitlines() == [f"from-settings {tmp_path}:/usr/bin:/bin"] * 2


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


# ---- walk-m I3: a Stop hook that judges only where the grader keeps its transcripts ---------
# Each judges only when stdin's transcript_path looks graded: walk-m's, empty or under the
# folder Hook Lab plays in (/dev/shm for the walker; the tests' scratch folder here), and one
# that judges only off the client's own transcript folder.
TELLS = {
    "under the scratch folder": '""|"${HOOKLAB_SCRATCH:-/dev/shm}"/*) ;; *) exit 0 ;;',
    "not where the client keeps transcripts": "*/.claude/projects/*) exit 0 ;;",
}


@pytest.mark.maven
@pytest.mark.parametrize("tell", list(TELLS))
def test_lab07_step2_a_hook_that_judges_only_graded_transcripts_does_not_pass(
    workspace: Workspace, tell: str
) -> None:
    """walk-m I3 (l07-tp-hook.sh): the honest hook, its body run only when the transcript
    path is one the grader gave. Seen on 2.1.332: a real Stop hook's transcript_path is
    ~/.claude/projects/<project slug>/<session id>.jsonl; the graded runs now look the same,
    under a HOME of their own."""
    runner = solved_at(workspace, "7", "write-hook")
    hook = workspace.root / "scripts" / "check-before-stop.sh"
    text = hook.read_text()
    anchor = "set -u\n"
    assert text.count(anchor) == 1
    gate = (
        'inp=$(cat); case "$(jq -r \'.transcript_path // ""\' <<<"$inp" 2>/dev/null)" in '
        f"{TELLS[tell]} esac\nprintf '%s' \"$inp\" | {{\n"
    )
    hook.write_text(text.replace(anchor, anchor + gate) + "}\n")

    result = _named(runner.check(every=True).results, "verify-hook scripts/check-before-stop.sh")

    assert result.status is Status.FAIL, result
    assert "the session is not held" in result.message, result.message


# ---- walk-n, Lab 08 step 1: the new rule spares one more ending --------------------------
@pytest.mark.maven
def test_lab08_step1_a_rule_that_spares_another_ending_does_not_pass(workspace: Workspace) -> None:
    """walk-n (screen-l08s1-FREEPASS-dao.txt): the solution's rule with
    `&& !type.simpleName().endsWith("Dao")`: OwnerStore, a made-up name and *RepositoryHelper
    are all caught, while repository/OwnerDao.java passes the sensor."""
    runner = solved_at(workspace, "8", "rule-as-test")
    test = workspace.root / "src/test/java/ai/unifiedprocess/petclinic/ArchitectureTest.java"
    text = test.read_text()
    honest = '.filter(type -> !type.simpleName().endsWith("Repository"))'
    assert text.count(honest) == 1
    spared = honest[:-1] + ' && !type.simpleName().endsWith("Dao"))'
    test.write_text(text.replace(honest, spared))
    subprocess.run(["./mvnw", "-q", "test", "-Dgroups=sensor"], cwd=workspace.root, check=True)

    # The check of the other endings alone: the step's other five sensor runs (each a Maven
    # run on a copy), which the walk's rule passed, are the labs session's to prove on the solve.
    (endings,) = checked(runner, "with repository/{random}Dao.java")

    assert endings.status is Status.FAIL, endings
    assert "Gateway" in (endings.expected or ""), endings.expected
    assert "it spares no other ending" in endings.message, endings.message
    unnamed = [line for line in (endings.found or "").splitlines() if "names no" in line]
    assert len(unnamed) == 1 and unnamed[0].startswith("ArchitectureTest names no "), unnamed
    assert unnamed[0].endswith("Dao"), unnamed


# ---- walk-n, Lab 13 step 3 live: no change made, or held for another reason ----------------
LIVE = "your session: Claude's stop held by the hook"
README_LINE = "printf '%s\\n' 'Run npm start to see the total.' >> README.md"


def _lab13_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, *, point_back: bool = False
) -> dict[str, Any]:
    """Lab 13 step 3 walked as test_node_live_step walks it (plain `claude` in tmux, the
    scripted model), Claude's one tool call ``command``; ``point_back``: the hook pointed back
    at dist/app.js first. The live check's result of `lab check --json`."""
    from tests.labs import test_node_live_step as walk
    from tests.labs.test_node_live_step import (
        LAB,
        STEP,
        _at_step_three,
        _env,
        _lab_check,
        _person,
        _session,
    )

    answer = walk._answer_menus

    def past_notices(socket: Path) -> str:
        """Also past auto mode's notice, which a change to a test file brings up (2.1.332)."""
        screen = answer(socket)
        if any(notice in screen for notice in AUTO_MODE_NOTICES):
            tmux(socket, "send-keys", "-t", "claude", "Enter")
        return screen

    monkeypatch.setattr(walk, "_answer_menus", past_notices)

    home, bin_dir = _person(tmp_path)
    env = _env(home, bin_dir)
    ws = _at_step_three(tmp_path, env)
    if point_back:
        hook = ws / "scripts" / "check-before-stop.sh"
        hook.write_text(hook.read_text().replace("dist/missing.js", "dist/app.js"))
    live = next(c for c in find_lab(LAB).step(STEP).checks if c.name == "live_session")
    _session(ws, env, tmp_path / "tmux.sock", live.typed.prompt, command)
    done = _lab_check(ws, env)
    assert done.returncode == 1, done.stdout[-3000:]
    checks = json.loads(done.stdout)["checks"]
    return next(c for c in checks if c["name"] == LIVE)


@pytest.mark.slow
def test_lab13_step3_a_read_only_grep_of_the_line_is_no_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-n (l13-grep.json): Claude only counts the line in README.md (`grep -c … || true`);
    its input carries the line, the hook holds the stop, and the step passed."""
    grep = "grep -c 'Run npm start to see the total.' README.md || true"
    said = _lab13_live(tmp_path, monkeypatch, grep)

    assert said["status"] == "fail", said
    assert said["message"].startswith("your session made no change to README.md: replayed from"), (
        said["message"]
    )
    assert "a command that only reads the file, such as grep, changes nothing" in said["message"]
    assert said["found"] == (
        "README.md after the session's tool calls, replayed: no 'Run npm start to see the total.'"
    )


@pytest.mark.slow
def test_lab13_step3_a_stop_held_for_a_test_claude_broke_does_not_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """walk-n (l13-testfail.json): the hook pointed back at dist/app.js; Claude adds the line
    and breaks a test; check-before-stop.sh holds the stop, for the failing test."""
    breaks = "sed -i 's/900);/901);/' test/cart.test.js"
    said = _lab13_live(tmp_path, monkeypatch, f"{README_LINE} && {breaks}", point_back=True)

    assert said["status"] == "fail", said
    assert "Stop check blocked: rebuild" in said["expected"], said
    assert "for the missing artefact" in said["details"]["fix"], said
    assert "not for a failing test" in said["details"]["fix"], said
