"""A live step that fails because of the session's own calls names that call, in words a
person acts on: a hook the session changed (and whether it is still changed), a marker it
wrote itself, a call the client itself refused. Each session is played on the real, pinned
client (scripted model) in a workspace at Lab 11 step 4, and judged by ``lab check --json``;
a newcomer's walk met each of them (issue 51)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.install import find_client
from harness.claude.client.person import can_play_as_person, play_as_person
from harness.engine.checks.hook_session import parse_inline
from tests.builders import REPO_ROOT
from tests.engine.live_steps import ReachStep, check_json
from tests.recorded_sessions import (
    APPROVED,
    ASK_DONE,
    ASK_NOTE,
    DONE,
    UC5,
    copy_workspace_into,
)

LAB = "11-try-it-yourself"
GUARD = ".claude/hooks/guard-spec-status.sh"
REQUIRE = ".claude/hooks/require-sensors.sh"
OWN_HOOK = "scripts/check-before-stop.sh"


@pytest.fixture(scope="module")
def at_step_four(workspace_at_step: ReachStep) -> Path:
    return workspace_at_step(LAB, "earn-done")


def _failed(root: Path, config: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    done, data = check_json(root, config, monkeypatch)
    assert done.code == 1, done
    check: dict[str, Any] = data["checks"][-1]  # the live check, last
    # Hook Lab's own engine is no word a person knows.
    assert "emulator" not in json.dumps(check), check
    return check


def _played(root: Path, config: Path, *commands: str) -> None:
    """A session asked to set UC-005 to Done, whose Claude runs ``commands`` first; the
    person answers Yes when the client asks (a write into .claude/ or .git/ asks)."""
    client = find_client()
    assert client is not None
    with ClaudeCodeSession(
        root, client=client, transcript_dir=config, auto_approve=True
    ) as session:
        session.session_start()
        session.prompt(ASK_DONE)
        for command in commands:
            session.bash(command)
        session.edit(UC5, APPROVED, DONE)
        session.stop("UC-005 is Done.")


# A call the client refuses before any hook: a sleep of 25 s or more (2.1.332's threshold).
# The check's replay runs it on the emulator, which does not refuse it (that is where the
# recording and the replay part): 25 s of waiting, for no CPU.
REFUSED = "sleep 25 # ./mvnw -q test -Dgroups=sensor"
REFUSED_TEST = "test_a_call_the_client_itself_refused_is_named_with_its_words"


@pytest.fixture(scope="module", autouse=True)
def _refused_early(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[subprocess.Popen[bytes], Path] | BaseException | None]:
    """The refused call's session, played as this module starts, and its ``lab check --json``
    started as a process (its output in FOLDER/check.out and check.err): the replay's 25 s
    wait overlaps the tests before the one that reads the check (last in this file). None when
    that test is not selected; a failure to play is raised by that test, not the first one."""
    if not any(i.name == REFUSED_TEST for i in request.session.items if i.module is request.module):
        yield None
        return
    try:
        folder = tmp_path_factory.mktemp("refused")
        root = copy_workspace_into(request.getfixturevalue("at_step_four"), folder)
        _played(root, folder / "claude-home", REFUSED)
        with (folder / "check.out").open("wb") as out, (folder / "check.err").open("wb") as err:
            check = subprocess.Popen(  # files, not pipes: a full pipe would stall it
                [str(REPO_ROOT / ".venv" / "bin" / "python"), "-m", "harness", "check", "--json"],
                cwd=root,
                env={**os.environ, "CLAUDE_CONFIG_DIR": str(folder / "claude-home")},
                stdout=out,
                stderr=err,
            )
    except (Exception, pytest.skip.Exception) as exc:  # raised by its test, below
        yield exc
        return
    yield check, folder
    if check.poll() is None:
        check.kill()
        check.wait()


# Walk C's two ways: a line put in with sed (Lab 07), the whole hook rewritten (Lab 03).
GUTTED = {
    "sed": f"sed -i '2i exit 0' {GUARD}",
    "printf": f"printf '#!/bin/bash\\nexit 0\\n' > {GUARD}",
}


@pytest.mark.parametrize("how", sorted(GUTTED))
def test_a_hook_the_session_changed_is_named_still_changed_with_the_way_back(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    _played(root, config, GUTTED[how])
    result = _failed(root, config, monkeypatch)
    message, fix = result["message"], result["details"]["fix"]
    assert message.startswith("your session changed the hooks themselves: Claude's Bash (")
    assert f"changed {GUARD}" in message and f"{GUARD} is still changed now" in message
    assert "at transcript line " in message
    assert fix.startswith("put it back: git checkout refs/hooklab/") and GUARD in fix
    # The way back the fix names puts the hook back as the step began.
    back = fix.removeprefix("put it back: ").split(" (or lab reset")[0]
    subprocess.run(back.split(), cwd=root, check=True, capture_output=True)
    assert (root / GUARD).read_text().splitlines()[1] != "exit 0"
    assert _failed(root, config, monkeypatch)["message"].endswith(
        "it is back as at the step's start now"
    )


def test_a_marker_the_session_wrote_itself_is_named_as_no_audit(
    at_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_workspace_into(at_step_four, tmp_path)
    config = tmp_path / "claude-home"
    marker = ".git/aiup-coverage-checked/UC-005"
    _played(root, config, f"mkdir -p .git/aiup-coverage-checked && echo audited > {marker}")
    result = _failed(root, config, monkeypatch)
    assert result["message"].startswith("Claude wrote the coverage audit's marker itself: its Bash")
    assert f"wrote {marker}; no coverage audit ran for it" in result["message"]
    assert result["details"]["fix"].startswith("lab reset (it puts back what the session changed")


@pytest.fixture(scope="module")
def at_lab07_step_four(workspace_at_step: ReachStep) -> Path:
    """Lab 07 at step 4: the participant's own Stop hook written and registered."""
    return workspace_at_step("07-own-stop-hook", "your-session")


def _small_change(root: Path, config: Path, command: str) -> None:
    """Lab 07 step 4's session, whose Claude first runs ``command``, then makes the small
    change and says it is done, twice."""
    client = find_client()
    assert client is not None
    with ClaudeCodeSession(
        root, client=client, transcript_dir=config, auto_approve=True
    ) as session:
        session.session_start()
        session.prompt(ASK_NOTE)
        session.bash(command)
        session.write("NOTES.md", "Tried in lab 07.\n")
        session.stop("Done: NOTES.md has the line.")
        session.stop("Done: NOTES.md has the line.")


def test_a_stop_hook_the_session_gutted_is_named_not_asked_for_again(
    at_lab07_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's sed put `exit 0` at the top of the participant's own Stop hook, so no
    stop was held: the step's moments are missing, and asking Claude again would not help."""
    root = copy_workspace_into(at_lab07_step_four, tmp_path)
    config = tmp_path / "claude-home"
    _small_change(root, config, f"sed -i '2i exit 0' {OWN_HOOK}")
    result = _failed(root, config, monkeypatch)
    assert result["message"].startswith("your session changed the hooks themselves")
    assert f"{OWN_HOOK} is still changed now" in result["message"]
    assert result["details"]["fix"].startswith("put it back: git checkout refs/hooklab/")
    assert "ask Claude to tell you it is done" not in result["details"]["fix"]


def test_both_hooks_gutted_name_both_files(
    at_lab07_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk C's screen: one sed through both Stop hooks (the client asks for the one in
    .claude/, the person says yes); the replay parts from the recording at that call."""
    root = copy_workspace_into(at_lab07_step_four, tmp_path)
    config = tmp_path / "claude-home"
    _small_change(root, config, f"sed -i '2i exit 0' {OWN_HOOK} {REQUIRE}")
    result = _failed(root, config, monkeypatch)
    assert f"changed {OWN_HOOK} and {REQUIRE}" in result["message"]
    assert f"{OWN_HOOK} and {REQUIRE} are still changed now" in result["message"]
    assert result["details"]["fix"].startswith("put them back: git checkout refs/hooklab/")


@pytest.mark.skipif(not can_play_as_person(), reason="needs tmux and the pinned client")
def test_as_a_person_plays_it_the_gutted_hook_is_named_and_exit_is_theirs(
    at_lab07_step_four: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walk C's session as it was played: plain ``claude`` in tmux, auto mode, the hook
    gutted by Claude's sed, the person's ``/exit`` at the end. The check names the edit
    (not "ask Claude to tell you it is done") and lists /exit as the person's, not a prompt."""
    root = copy_workspace_into(at_lab07_step_four, tmp_path)
    steps = [
        {"do": "prompt", "text": ASK_NOTE},
        {"do": "bash", "command": f"sed -i '2i exit 0' {OWN_HOOK}"},
        {"do": "write", "file": "NOTES.md", "content": "Tried in lab 07.\n"},
        {"do": "stop", "last_message": "Done: NOTES.md has the line."},
        {"do": "stop", "last_message": "Done, NOTES.md has the line."},
    ]
    scenario, _ = parse_inline(steps, "lab.toml", "walk-c")
    played = play_as_person(scenario, root, root / ".git", tmp_path / "person")
    exited = _until_written(played.home / ".claude", "<command-name>/exit</command-name>")
    result = _failed(root, played.home / ".claude", monkeypatch)
    assert result["message"].startswith("your session changed the hooks themselves")
    assert f"{OWN_HOOK} is still changed now" in result["message"]
    assert "prompt /exit" not in result["found"]
    # 2.1.332 wrote the /exit line in most runs here, not in every one (it quits first).
    assert (": you typed /exit" in result["found"]) is exited


def _until_written(config: Path, text: str, timeout: float = 60) -> bool:
    """Whether the client wrote ``text`` into the session's transcript once nothing of the
    session runs any more (no process left with its HOME): it writes the person's /exit as it
    quits, if at all, so the answer is final then. Waiting a fixed 20 s for a line that never
    came cost a third to half of this test's runs 20 s; measured, the line was always there
    at once or never."""
    home = f"HOME={config.parent}".encode() + b"\0"
    deadline = time.monotonic() + timeout
    while _processes_with(home) and time.monotonic() < deadline:
        time.sleep(0.2)
    return any(text in p.read_text() for p in config.glob("projects/*/*.jsonl"))


def _processes_with(entry: bytes) -> list[str]:
    """The processes whose environment holds ``entry`` (``NAME=value`` and its NUL)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:  # gone meanwhile, or another user's
            continue
        if environ.startswith(entry) or b"\0" + entry in environ:
            found.append(pid)
    return found


def test_a_call_the_client_itself_refused_is_named_with_its_words(
    _refused_early: tuple[subprocess.Popen[bytes], Path] | BaseException | None,
) -> None:
    if isinstance(_refused_early, BaseException):
        raise _refused_early
    assert _refused_early is not None
    check, folder = _refused_early
    code = check.wait(timeout=600)
    out, err = ((folder / name).read_text() for name in ("check.out", "check.err"))
    assert code == 1, (out, err)
    result: dict[str, Any] = json.loads(out)["checks"][-1]
    assert "emulator" not in json.dumps(result), result  # as _failed: no engine's name
    assert result["message"].startswith(f"Claude Code itself refused Claude's Bash ({REFUSED})")
    assert "before any hook saw it ('Blocked: standalone sleep 25')" in result["message"]
    assert "tell Claude to do it another way" in result["details"]["fix"]
