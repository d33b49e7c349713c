"""The variables and the Stop event a hook gets, on the real pinned client and from Hook Lab.

A plain ``claude`` session in a terminal (the scripted model on 127.0.0.1) runs a Bash call and
stops; a hook on each writes its environment and stdin. Hook Lab's own hook runs (the emulator,
a check's ``as_client``) must give the same names, or a hook can tell them apart (walk-n,
walk-p: a Stop hook that checked nothing when ``CLAUDECODE`` or ``AI_AGENT`` was set).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.install import find_client
from harness.claude.client.person import AUTO_MODE_NOTICES
from harness.claude.client.terminal import Terminal, fresh_home
from harness.claude.client_env import client_hook_variables

DUMP = """#!/bin/bash
n=$(date +%s%N)
cat > "$DUMPS/stdin-$hook_name-$n.json"
env > "$DUMPS/env-$hook_name-$n.txt"
"""
# Variables of the hook's environment that are the client's own (not inherited from the shell).
OWN = ("CLAUDE", "AI_AGENT", "COREPACK_", "NoDefaultCurrentDirectoryInExePath")


def _project(root: Path, dumps: Path) -> Path:
    project = root / "proj"
    (project / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    hook = project / ".claude" / "dump.sh"
    hook.write_text(DUMP.replace("$DUMPS", str(dumps)))
    hook.chmod(0o755)

    def entry(name: str) -> list[dict[str, object]]:
        command = f'hook_name={name} "$CLAUDE_PROJECT_DIR"/.claude/dump.sh'
        return [{"hooks": [{"type": "command", "command": command}]}]

    settings = {"hooks": {"Stop": entry("stop"), "PreToolUse": entry("pre")}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return project


def _names(env_file: Path) -> set[str]:
    lines = env_file.read_text().splitlines()
    return {line.split("=", 1)[0] for line in lines if line.startswith(OWN)}


def _played_on_the_client(tmp_path: Path) -> tuple[set[str], dict[str, object]]:
    client = find_client()
    if client is None:
        pytest.skip("the pinned Claude Code client is not installed (lab init fetches it)")
    dumps = tmp_path / "dumps"
    dumps.mkdir(parents=True)
    project = _project(tmp_path, dumps)
    replies = [Reply.tool_use("toolu_1", "Bash", {"command": "echo hi"}), Reply.text("Done.")]

    def answer(request: ApiRequest) -> None:
        reply = replies.pop(0) if replies else Reply.text("Done.")
        threading.Thread(target=ScriptedApi.answer, args=(request, reply), daemon=True).start()

    with ScriptedApi(on_request=answer) as api:
        home = fresh_home(tmp_path / "home")
        env = {
            "HOME": str(home),
            "PATH": os.pathsep.join([str(client.path.parent), "/usr/bin", "/bin"]),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "ANTHROPIC_BASE_URL": api.base_url,
            "ANTHROPIC_API_KEY": "hooklab-dummy-key",
        }
        terminal = Terminal(project, env, tmp_path / "term")
        try:
            terminal.claude("Say hi with echo.")
            terminal.wait("Done.", timeout=180, enter_on=AUTO_MODE_NOTICES)
            terminal.quit_claude()
        finally:
            terminal.close()
    stops = sorted(dumps.glob("stdin-stop-*.json"))
    assert stops, sorted(p.name for p in dumps.iterdir())
    env_file = dumps / stops[-1].name.replace("stdin-", "env-").replace(".json", ".txt")
    return _names(env_file), json.loads(stops[-1].read_text())


def _played_by_hook_lab(tmp_path: Path) -> tuple[set[str], dict[str, object]]:
    dumps = tmp_path / "ours"
    dumps.mkdir(parents=True)
    project = _project(tmp_path / "lab", dumps)
    command = f'hook_name=stop "{project}/.claude/dump.sh"'
    done = subprocess.run(
        [sys.executable, "-m", "harness.claude.as_client", "stop", str(project), command],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith(OWN)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (stdin,) = dumps.glob("stdin-stop-*.json")
    env_file = dumps / stdin.name.replace("stdin-", "env-").replace(".json", ".txt")
    return _names(env_file), json.loads(stdin.read_text())


def test_every_client_variable_has_its_shape() -> None:
    made = client_hook_variables(Path("/tmp/a b/ws"), "1f0e-id")
    assert made["CLAUDE_PROJECT_DIR"] == "/tmp/a b/ws"
    assert made["CLAUDE_CODE_SESSION_ID"] == "1f0e-id"
    assert made["CLAUDE_CODE_CHILD_NOTES_DIR"].endswith("/-tmp-a-b-ws/1f0e-id/started")
    assert made["CLAUDECODE"] == "1"
    assert (
        made["CLAUDE_CODE_MESSAGING_TOKEN"]
        != client_hook_variables(Path("/"), "x")["CLAUDE_CODE_MESSAGING_TOKEN"]
    )


@pytest.mark.slow
def test_a_stop_hook_sees_the_same_names_from_hook_lab_as_from_the_real_client(
    tmp_path: Path,
) -> None:
    real_names, real_stop = _played_on_the_client(tmp_path / "real")
    our_names, our_stop = _played_by_hook_lab(tmp_path / "ours")

    assert our_names == real_names
    assert list(our_stop) == list(real_stop)  # the same fields, in the client's order
    transcript = Path(str(our_stop["transcript_path"]))
    assert transcript.parent.parent.name == "projects", transcript
    assert transcript.parent.parent.parent.name == ".claude", transcript
