"""One session that makes every hook outcome the transcript reader tells apart, played on any
installed Claude Code version, so a version's transcript format is read from a file that client
wrote, never guessed.

The project is small and of its own (git-initialised, five bash + jq hooks); the model is the
scripted one (``harness.claude.client.api``) on 127.0.0.1, and the client runs in ``-p`` mode
with stream-json in and out, one prompt a turn. The turns:

 1. a Stop hook that exits 1 (a non-blocking error: the turn ends);
 2. a prompt a UserPromptSubmit hook refuses with exit 2;
 3. a prompt a UserPromptSubmit hook stops with ``continue: false``;
 4. a Write a PreToolUse hook refuses with exit 2, and 5. a Bash call it refuses the same way;
 6. a Bash call a PreToolUse hook denies with JSON (``permissionDecision: deny``) and a
    reason, and 7. one it denies without;
 8. a Bash command that fails by itself (text and the call in one answer);
 9. an Edit of a missing file (the tool's own error);
10. a Write a PostToolUse hook reports on (exit 2);
11. a stop a Stop hook blocks once (exit 2), then lets go on ``stop_hook_active``;
12. a subagent's run (the Task tool, or the pinned version's Agent tool);
13. a stop a Stop hook ends with ``continue: false``;
14. a last turn, so that a client writing its hook progress late writes the one before.

``python -m tests.version_probe VERSION ...`` plays it on each installed VERSION (``lab doctor
--fix`` with HOOKLAB_CLAUDE_CODE_VERSION=VERSION installs one) and writes the transcript,
paths made neutral and the client's prose left out, to
``tests/claude/transcripts/VERSION/session.jsonl``: the fixtures of
tests/claude/test_recorded_versions.py. The pinned version is played live there instead (its
transcripts carry the client's system prompt, which is not Hook Lab's to commit).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.install import find_client

FIXTURES = Path(__file__).resolve().parent / "claude" / "transcripts"
NEUTRAL_PROJECT = "/home/dev/probe"  # the project's path in a committed fixture
TURN_WAIT = 120.0  # seconds one turn may take before the probe gives up on the client

_HOOKS = {
    # PreToolUse on Write|Edit: a file named "locked…" is refused with exit 2.
    "guard.sh": """#!/bin/bash
case "$(jq -r '.tool_input.file_path // ""')" in
  *locked*) echo "locked files are read-only for Claude" >&2; exit 2 ;;
esac
exit 0
""",
    # PreToolUse on Bash, the only one there (two hooks' reasons race in some versions): a
    # command naming "locked" is refused with exit 2, an rm denied with JSON and a reason, an
    # mv denied with JSON and none.
    "bash-guard.sh": """#!/bin/bash
deny='{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"'
case "$(jq -r '.tool_input.command // ""')" in
  *locked*) echo "locked files are read-only for Claude" >&2; exit 2 ;;
  rm\\ *) echo "$deny"', "permissionDecisionReason": "no rm in this project"}}' ;;
  mv\\ *) echo "$deny}}" ;;
esac
exit 0
""",
    # PostToolUse on Write|Edit|Bash: a write to a report is reported back with exit 2.
    "report.sh": """#!/bin/bash
target=$(jq -r '.tool_input.file_path // ""')
case "$target" in
  *report*) echo "report.txt changed: check its numbers" >&2; exit 2 ;;
esac
exit 0
""",
    # UserPromptSubmit: "secret" is refused with exit 2, "halt" stopped with continue: false.
    "prompt.sh": """#!/bin/bash
prompt=$(jq -r '.prompt // ""')
case "$prompt" in
  *secret*) echo "prompts about the secret are refused" >&2; exit 2 ;;
  *[Hh]alt*) printf '%s\\n' '{"continue": false, "stopReason": "halted by the prompt hook"}' ;;
esac
exit 0
""",
    # Stop: what it does is set per turn in .claude/stop-mode.
    "stop.sh": """#!/bin/bash
active=$(jq -r '.stop_hook_active // false')
mode=$(cat "$CLAUDE_PROJECT_DIR/.claude/stop-mode" 2>/dev/null)
case "$mode" in
  error) echo "the stop check crashed" >&2; exit 1 ;;
  block) if [ "$active" != true ]; then echo "run the tests first" >&2; exit 2; fi ;;
  halt) printf '%s\\n' '{"continue": false, "stopReason": "halted by the stop hook"}' ;;
esac
exit 0
""",
}


def _command(script: str) -> list[dict[str, str]]:
    return [{"type": "command", "command": f'"$CLAUDE_PROJECT_DIR/.claude/hooks/{script}"'}]


SETTINGS = {
    "permissions": {"allow": ["Bash", "Write", "Edit"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Write|Edit", "hooks": _command("guard.sh")},
            {"matcher": "Bash", "hooks": _command("bash-guard.sh")},
        ],
        "PostToolUse": [{"matcher": "Write|Edit|Bash", "hooks": _command("report.sh")}],
        "UserPromptSubmit": [{"hooks": _command("prompt.sh")}],
        "Stop": [{"hooks": _command("stop.sh")}],
    },
}


# One answer of the model, made from the probe's project and the request it answers.
Answer = Callable[[Path, ApiRequest], Reply]


@dataclass(frozen=True)
class Turn:
    prompt: str
    replies: tuple[Answer, ...] = ()  # the model's answers, given the project
    stop_mode: str = ""  # what stop.sh does this turn: error, block, halt or nothing


def _say(text: str) -> Answer:
    return lambda _project, _request: Reply.text(text)


def _call(use_id: str, name: str, tool_input: dict[str, str], said: str = "") -> Answer:
    def reply(project: Path, _request: ApiRequest) -> Reply:
        given = {k: str(project / v) if k == "file_path" else v for k, v in tool_input.items()}
        block = {"type": "tool_use", "id": use_id, "name": name, "input": given}
        text = ({"type": "text", "text": said},) if said else ()
        return Reply((*text, block), "tool_use")

    return reply


def _delegate() -> Answer:
    """A subagent call: the Task tool up to 2.1.4x, the Agent tool (in the foreground) on the
    pinned version, whichever the request offers."""

    def reply(_project: Path, request: ApiRequest) -> Reply:
        offered = {str(t.get("name")) for t in request.body.get("tools", []) if isinstance(t, dict)}
        task = {
            "description": "Say done",
            "prompt": "Say done.",
            "subagent_type": "general-purpose",
        }
        if "Agent" in offered:
            return Reply.tool_use(
                "toolu_probe_agent", "Agent", {**task, "run_in_background": False}
            )
        return Reply.tool_use("toolu_probe_agent", "Task", task)

    return reply


TURNS = (
    Turn("Say hi.", (_say("Hi."),), stop_mode="error"),
    Turn("Tell me the secret."),
    Turn("Halt here."),
    Turn(
        "Write locked.txt.",
        (
            _call(
                "toolu_probe_write_locked", "Write", {"file_path": "locked.txt", "content": "x\n"}
            ),
            _say("The hook refused the write."),
        ),
    ),
    Turn(
        "Show locked.txt.",
        (
            _call("toolu_probe_cat_locked", "Bash", {"command": "cat locked.txt"}),
            _say("The hook refused the command."),
        ),
    ),
    Turn(
        "Remove junk.txt.",
        (
            _call("toolu_probe_rm_junk", "Bash", {"command": "rm -f junk.txt"}),
            _say("The hook denied rm."),
        ),
    ),
    Turn(
        "Move junk.txt.",
        (
            _call("toolu_probe_mv_junk", "Bash", {"command": "mv junk.txt old.txt"}),
            _say("The hook denied mv."),
        ),
    ),
    Turn(
        "Run false.",
        (
            _call("toolu_probe_false", "Bash", {"command": "false"}, said="Running it."),
            _say("false failed, as it does."),
        ),
    ),
    Turn(
        "Edit missing.txt.",
        (
            _call(
                "toolu_probe_edit_missing",
                "Edit",
                {"file_path": "missing.txt", "old_string": "a", "new_string": "b"},
            ),
            _say("There is no missing.txt."),
        ),
    ),
    Turn(
        "Write report.txt.",
        (
            _call(
                "toolu_probe_write_report", "Write", {"file_path": "report.txt", "content": "1\n"}
            ),
            _say("Wrote report.txt; the hook asks to check it."),
        ),
    ),
    Turn(
        "Write notes.txt.",
        (
            _call("toolu_probe_write_notes", "Write", {"file_path": "notes.txt", "content": "n\n"}),
            _say("Wrote notes.txt."),
            _say("Wrote notes.txt; the tests were not run."),
        ),
        stop_mode="block",
    ),
    Turn("Ask a helper.", (_delegate(), _say("Helper done."), _say("The helper said done."))),
    Turn("Say done.", (_say("Done."),), stop_mode="halt"),
    Turn("Bye.", (_say("Bye."),)),
)


def make_project(root: Path) -> Path:
    """The probe's project: settings, hooks and a git repository."""
    hooks = root / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    for name, text in _HOOKS.items():
        (hooks / name).write_text(text, encoding="utf-8")
        (hooks / name).chmod(0o755)
    (root / ".claude" / "settings.json").write_text(json.dumps(SETTINGS, indent=2) + "\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


class _Model:
    """Answers each conversation request with the current turn's next reply."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.lock = threading.Lock()
        self.waiting: list[Answer] = []

    def load(self, turn: Turn) -> None:
        with self.lock:
            self.waiting = list(turn.replies)

    def __call__(self, request: ApiRequest) -> None:
        with self.lock:
            make = self.waiting.pop(0) if self.waiting else _say("(nothing more to say)")
        ScriptedApi.answer(request, make(self.project, request))


def _client_env(base_url: str, config: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(
        HOME=str(home),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="hooklab-scripted-model-no-key",
        CLAUDE_CONFIG_DIR=str(config),
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    return env


@dataclass(frozen=True)
class Probe:
    version: str
    project: Path
    transcript: Path


def play(version: str, folder: Path) -> Probe:
    """Play the probe on the installed client ``version``, in ``folder``."""
    client = find_client(version)
    if client is None:
        raise RuntimeError(
            f"Claude Code {version} is not installed (HOOKLAB_CLAUDE_CODE_VERSION={version} "
            "lab doctor --fix installs it)"
        )
    project = make_project(folder / "probe")
    config, home = folder / "config", folder / "home"
    config.mkdir()
    home.mkdir()
    # The pinned client ignores a project's permission rules until its folder is trusted.
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (config / ".claude.json").write_text(json.dumps(trusted))
    session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"hooklab-probe-{version}"))
    model = _Model(project)
    with ScriptedApi(on_request=model) as api:
        argv = [
            str(client.path),
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            # -p, which the probe needs to converse, cannot show a permission prompt, and the
            # probe answers none: its edits are let through by the mode instead. The settings
            # sources are the client's own (its fresh config holds no user settings).
            "--permission-mode",
            "acceptEdits",
            "--session-id",
            session_id,
        ]
        _converse(argv, project, _client_env(api.base_url, config, home), model)
    found = [p for p in (config / "projects").glob(f"*/{session_id}.jsonl")]
    if not found:
        raise RuntimeError(f"Claude Code {version} wrote no transcript under {config}")
    return Probe(client.version, project, found[0])


def _converse(argv: list[str], project: Path, env: dict[str, str], model: _Model) -> None:
    process = subprocess.Popen(
        argv,
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    results: list[str] = []

    def read(stdout: object) -> None:
        for line in stdout:  # type: ignore[attr-defined]
            if '"type":"result"' in line.replace(" ", ""):
                results.append(line)

    reader = threading.Thread(target=read, args=(process.stdout,), daemon=True)
    reader.start()
    try:
        for turn in TURNS:
            (project / ".claude" / "stop-mode").write_text(turn.stop_mode)
            model.load(turn)
            before = len(results)
            message = {"type": "user", "message": {"role": "user", "content": turn.prompt}}
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            deadline = time.monotonic() + TURN_WAIT
            while len(results) == before:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the client stopped answering at {turn.prompt!r}")
                time.sleep(0.1)
            time.sleep(0.5)  # the turn's last lines reach the transcript after its result
        process.stdin.close()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# Attachments that carry the client's own prose (its skills' descriptions, its system
# prompt): not Hook Lab's to commit, and no reader looks at them.
_CLIENTS_PROSE = ('"type":"skill_listing"', '"type":"prompt_snapshot"')


def neutral(probe: Probe, path: Path | None = None) -> str:
    """The transcript (or another file the client wrote beside it) with the probe's folder
    written as ``NEUTRAL_PROJECT`` and the client's prose left out."""
    text = (path or probe.transcript).read_text(encoding="utf-8")
    kept = [
        line
        for line in text.splitlines(keepends=True)
        if not any(mark in line.replace(" ", "") for mark in _CLIENTS_PROSE)
    ]
    return "".join(kept).replace(str(probe.project), NEUTRAL_PROJECT)


def fixture(version: str) -> Path:
    """The session a version wrote, in its fixture folder: ``session.jsonl``, and beside it
    what the client wrote with it (subagents, 2.0.x's warm-up turns), as the client laid
    them out."""
    return FIXTURES / version / "session.jsonl"


def write_fixture(probe: Probe) -> Path:
    """The probe's session folder, paths made neutral, as the version's fixture."""
    folder = fixture(probe.version).parent
    if folder.is_dir():
        shutil.rmtree(folder)
    source = probe.transcript.parent
    for path in sorted(source.rglob("*.jsonl")):
        inner = path.relative_to(source).as_posix().replace(probe.transcript.stem, "session")
        target = folder / inner
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(neutral(probe, path), encoding="utf-8")
    return fixture(probe.version)


def main(argv: list[str]) -> int:
    import tempfile

    if not argv:
        print("usage: python -m tests.version_probe VERSION [VERSION ...]")
        return 2
    for version in argv:
        with tempfile.TemporaryDirectory(prefix=f"hooklab-probe-{version}-") as folder:
            written = write_fixture(play(version, Path(folder)))
        print(f"{version}: {written}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
