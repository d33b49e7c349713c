"""Every hook type the pinned client runs from settings, and the events a scripted session
reaches, played through ``lab simulate`` on both engines.

The http hooks post to a real server on 127.0.0.1 started here; the prompt and agent hooks are
answered by the scripted model (the scenario's ``judge_ok``/``judge_reason``), as they are on
the real client by the scripted Messages API.
"""

from __future__ import annotations

import http.server
import json
import shlex
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.claude.emulator import EmulatedSession
from harness.claude.judge import Judgement
from harness.claude.settings import parse_settings
from tests.builders import run_cli
from tests.claude.hookproject import HookProject

LOG_HOOK = """#!/bin/bash
input=$(cat)
printf '%s\\n' "$(jq -r .hook_event_name <<<"$input")" >> EVENTS_LOG
"""
SCENARIO = """
[[step]]
do = "session_start"
[[step]]
do = "prompt"
text = "Fix it and tell me when the tests pass."
[[step]]
do = "subagent_stop"
agent_type = "general-purpose"
prompt = "Look around."
last_message = "Looked."
[[step]]
do = "stop"
last_message = "All tests pass."
judge_ok = false
judge_reason = "insufficient evidence in transcript"
expect = "blocked"
[[step]]
do = "stop"
last_message = "All tests pass."
judge_ok = true
judge_reason = "The assistant says so."
expect = "allowed"
"""


class Posts:
    """A loopback server for http hooks: answers every POST with ``answer``, keeps each."""

    def __init__(self, answer: bytes = b"{}", status: int = 200) -> None:
        self.seen: list[dict[str, Any]] = []
        seen = self.seen

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                seen.append({"headers": dict(self.headers), "body": json.loads(body)})
                self.send_response(status)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"


@pytest.fixture
def posts() -> Iterator[Posts]:
    server = Posts()
    yield server
    server.server.shutdown()
    server.server.server_close()


def _project(root: Path, url: str) -> Path:
    project = HookProject(root)
    # lab simulate plays on a throwaway copy of the project: the log goes beside it.
    log = project.script(
        LOG_HOOK.replace("EVENTS_LOG", shlex.quote(str(root.parent / "events.log"))), "log.sh"
    )
    project.group(
        "Stop",
        [
            {"type": "prompt", "prompt": "Did the tests run? $ARGUMENTS"},
            {"type": "agent", "prompt": "Verify the reports. $ARGUMENTS"},
            {"type": "http", "url": url},
        ],
    )
    for event in ("StopFailure", "SessionEnd", "SubagentStart"):
        project.register(event, log)
    project.file("scenario.toml", SCENARIO)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return project.root


def test_prompt_agent_and_http_hooks_and_new_events_play_in_lab_simulate(
    engine: str, tmp_path: Path, posts: Posts
) -> None:
    root = _project(tmp_path / "project", posts.url)
    # The log hook writes beside the copy, which a confined run keeps its tool calls (and the
    # real client, with its hooks) from: --unconfined, as a hook author whose hook logs would.
    result = run_cli(
        "simulate", "--json", "--engine", engine, "--unconfined", "scenario.toml", cwd=root
    )
    assert result.code == 0, result.err
    steps = [json.loads(line) for line in result.out.splitlines() if line.startswith("{")]
    held, let_go = steps[3], steps[4]
    assert (held["outcome"], let_go["outcome"]) == ("blocked", "allowed")
    # Hooks run side by side: the client lists their messages as they finish, each but the
    # last followed by a line break, so the order (and where the break falls) is not compared.
    messages = sorted(m.strip() for m in held["feedback"].split("Stop hook feedback:\n"))
    assert messages == [
        "",
        "Agent hook condition was not met: insufficient evidence in transcript",
        "[Did the tests run? $ARGUMENTS]: insufficient evidence in transcript",
    ]
    # The prompt hook's run is shown on the stop, with its type and the model's "no".
    ran = {(h["type"], h["exit_code"]) for h in held["hooks"]}
    assert {("prompt", 2), ("agent", 2)} <= ran
    # The http hook was posted the Stop event, as JSON, once per stop.
    assert [p["body"]["hook_event_name"] for p in posts.seen] == ["Stop", "Stop"]
    assert {p["headers"]["Content-Type"] for p in posts.seen} == {"application/json"}
    # SubagentStart fired with the subagent, SessionEnd as the session ended; StopFailure,
    # which a scripted session does not reach, loaded and never ran.
    events = (root.parent / "events.log").read_text().split()
    assert events == ["SubagentStart", "SessionEnd"]


def test_an_answer_that_is_not_the_verdict_json_is_a_non_blocking_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Observed on 2.1.332: the scripted model's canned "Scripted session" as the answer to a
    prompt Stop hook gives "JSON validation failed" as a hook error, and the turn ends."""
    settings = parse_settings(
        {"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Ran?"}]}]}}, "s.json"
    )
    with EmulatedSession(tmp_path, settings) as session:
        session.judgement = Judgement(False, "no")  # never given: the answer below is not JSON
        monkeypatch.setattr(session, "_judge", lambda hook, condition: "Scripted session")
        session.session_start()
        stop = session.stop("Done.")
    assert (stop.outcome, stop.turn_ended) == ("allowed", True)
    assert stop.errors == ["Stop hook error (Ran?): JSON validation failed"]


def test_an_http_hook_fills_in_only_the_variables_it_lists(
    tmp_path: Path, posts: Posts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LISTED", "secret-1")
    monkeypatch.setenv("UNLISTED", "secret-2")
    hook = {
        "type": "http",
        "url": posts.url,
        "headers": {"X-Listed": "Bearer ${LISTED}", "X-Unlisted": "$UNLISTED"},
        "allowedEnvVars": ["LISTED"],
    }
    settings = parse_settings({"hooks": {"Stop": [{"hooks": [hook]}]}}, "s.json")
    with EmulatedSession(tmp_path, settings) as session:
        session.session_start()
        session.stop("Done.")
    (post,) = posts.seen
    assert post["headers"]["X-Listed"] == "Bearer secret-1"
    assert post["headers"]["X-Unlisted"] == ""
    assert post["body"]["hook_event_name"] == "Stop"


def test_an_http_hook_that_cannot_connect_is_a_non_blocking_error(tmp_path: Path) -> None:
    hook = {"type": "http", "url": "http://127.0.0.1:9/nothing-listens-here"}
    settings = parse_settings({"hooks": {"Stop": [{"hooks": [hook]}]}}, "s.json")
    with EmulatedSession(tmp_path, settings) as session:
        session.session_start()
        stop = session.stop("Done.")
    assert (stop.outcome, stop.turn_ended) == ("allowed", True)
    assert len(stop.errors) == 1 and "request failed" in stop.errors[0]
