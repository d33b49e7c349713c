"""The differential check: one scenario on both engines, step by step, side by side.

A case is a small project (files, hook scripts, a settings file) and a scenario, written as one
TOML file. It is built twice, once per engine, in directories of the same shape, and run on
each. The steps agree when ``outcome``, ``tool_ran``, ``turn_ended`` and the normalised
``feedback`` (what the model was sent, with paths, ids and whitespace evened out) are the same.
The real client is the authority: a disagreement is the emulator's to fix.

Case file::

    rule = "pretooluse-exit2"            # the rule of docs/claude-code-semantics.md it shows
    title = "PreToolUse exit 2 refuses an Edit; Claude sees the stderr"
    [files]                              # project files; .claude/hooks/*.sh become executable
    "notes.txt" = "hello\\n"
    ".claude/hooks/deny.sh" = "#!/bin/bash\\necho no >&2\\nexit 2\\n"
    [settings]                           # .claude/settings.json, as TOML
    hooks.PreToolUse = [{matcher = "Edit", hooks = [{type = "command", command = "..."}]}]
    [[step]]                             # scenario steps, as in scenario files
    do = "edit"
    [http]                               # optional: a server on 127.0.0.1 for http hooks,
    status = 200                         # at HOOK_URL in the settings; what it answers
    body = '{"decision": "block", "reason": "held"}'
"""

from __future__ import annotations

import http.server
import json
import re
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import proc
from harness.claude.engines import CLAUDE_CODE, EMULATOR, open_session
from harness.claude.scenario import Scenario, parse_scenario, run_scenario
from harness.claude.scripted import StepOutcome
from harness.errors import ConfigError
from harness.paths import scratch_mkdtemp
from harness.userfiles import read_toml

COMPARED = ("outcome", "tool_ran", "turn_ended", "feedback")
_IDS = re.compile(
    r"\b(toolu_[A-Za-z0-9_]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|agent-?[0-9a-f]{16,})\b"
)


@dataclass(frozen=True)
class DifferentialCase:
    path: Path
    rule: str
    title: str
    files: dict[str, str]
    settings: dict[str, Any]
    scenario: Scenario
    env: dict[str, str] = field(default_factory=dict)
    http: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.stem


class HookServer:
    """A loopback server for a case's http hooks: it answers every POST with the case's
    status and body, and keeps what it was sent (path, headers, body) per project."""

    def __init__(self, status: int, body: str) -> None:
        self.posts: list[dict[str, Any]] = []
        posts, answer = self.posts, body.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                sent = self.rfile.read(length).decode("utf-8", errors="replace")
                posts.append({"path": self.path, "headers": dict(self.headers), "body": sent})
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # close() waits for the loop to look up, every 0.5 s by default: each case paid ~0.25 s.
        poll = {"poll_interval": 0.02}
        threading.Thread(target=self._server.serve_forever, kwargs=poll, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def load_case(path: Path) -> DifferentialCase:
    data = read_toml(path)
    for key in ("rule", "title"):
        if not isinstance(data.get(key), str):
            raise ConfigError(path, key, "is required (a string)", fix=f'{key} = "..."')
    files = data.get("files", {})
    settings = data.get("settings", {})
    env = data.get("env", {})
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise ConfigError(path, "files", "must map paths to text", fix='"path" = "text"')
    if not isinstance(settings, dict):
        raise ConfigError(path, "settings", "must be a table", fix="[settings]")
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise ConfigError(path, "env", "must map names to strings", fix='NAME = "value"')
    served = data.get("http", {})
    if not isinstance(served, dict) or not isinstance(served.get("body", ""), str):
        raise ConfigError(path, "http", "must be a table with a body", fix='body = "{}"')
    scenario = parse_scenario({k: v for k, v in data.items() if k in ("step", "session")}, path)
    return DifferentialCase(
        path, data["rule"], data["title"], files, settings, scenario, env, served
    )


def load_cases(folder: Path) -> list[DifferentialCase]:
    return [load_case(p) for p in sorted(folder.glob("*.toml"))]


def build_project(case: DifferentialCase, root: Path, hook_url: str = "") -> Path:
    """The case's project as a committed git repository at ``root``; ``HOOK_URL`` in its
    settings becomes ``hook_url`` (a folder of its own per project)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in case.files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        if rel.endswith(".sh"):
            target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    (root / ".claude").mkdir(exist_ok=True)
    text = json.dumps(case.settings, indent=2) + "\n"
    (root / ".claude" / "settings.json").write_text(text.replace("HOOK_URL", hook_url))
    git = ["git", "-c", "user.name=hooklab", "-c", "user.email=hooklab@example.invalid"]
    for argv in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        [*git, "commit", "-q", "-m", "case"],
    ):
        result = proc.run(argv, cwd=root, timeout=60)
        if not result.ok:
            raise RuntimeError(f"{' '.join(argv)} failed in {root}: {result.stderr}")
    return root


_HOOK_URL = re.compile(r"http://127\.0\.0\.1:\d+/(?:claude-code|emulator)")
# Where one hook's message starts inside feedback that carries several.
_MESSAGE_START = re.compile(
    r"^(?=Stop hook feedback:$|Stop hook additional context: |Stop hook blocking error |"
    r"(?:PreToolUse|PostToolUse|PostToolUseFailure):\w+ hook )",
    re.MULTILINE,
)


def normalise(text: str, project: Path) -> str:
    """Feedback as comparable text: the project path, ids and trailing spaces evened out, and
    the hooks' messages in a fixed order: hooks run in parallel and the real client lists
    their messages as they finish, so their order is the machine's, not a rule."""
    text = text.replace(str(project), "<project>")
    text = _IDS.sub("<id>", text)
    text = _HOOK_URL.sub("<hook-url>", text)  # each engine's http hooks have their own path
    messages = [m.strip() for m in _MESSAGE_START.split(text.strip()) if m.strip()]
    lines = [line.rstrip() for m in sorted(messages) for line in m.splitlines()]
    return "\n".join(lines)


@dataclass
class StepComparison:
    number: int
    do: str
    detail: str
    sides: dict[str, dict[str, Any]]  # engine -> compared field -> value

    @property
    def differing(self) -> list[str]:
        emulator, real = self.sides.get(EMULATOR, {}), self.sides.get(CLAUDE_CODE, {})
        return [name for name in COMPARED if emulator.get(name) != real.get(name)]

    @property
    def agrees(self) -> bool:
        return not self.differing


@dataclass
class CaseResult:
    case: DifferentialCase
    steps: list[StepComparison]
    seconds: dict[str, float]
    notes: dict[str, list[str]]
    posts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # http hooks' POSTs

    @property
    def agrees(self) -> bool:
        return all(s.agrees for s in self.steps)

    def explain(self) -> str:
        """Both sides of every step that differs, for a failing test."""
        lines = [f"{self.case.name} ({self.case.rule}): {self.case.title}"]
        for step in self.steps:
            if step.agrees:
                continue
            lines.append(f"  step {step.number} {step.do} {step.detail[:60]!r}:")
            for name in step.differing:
                for engine in (CLAUDE_CODE, EMULATOR):
                    value = step.sides.get(engine, {}).get(name)
                    lines.append(f"    {name:11} {engine:11} {value!r}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case.name,
            "rule": self.case.rule,
            "title": self.case.title,
            "agrees": self.agrees,
            "seconds": self.seconds,
            "steps": [
                {
                    "step": s.number,
                    "do": s.do,
                    "detail": s.detail,
                    **{e: v for e, v in s.sides.items()},
                }
                for s in self.steps
            ],
        }


def observe(outcome: StepOutcome, project: Path) -> dict[str, Any]:
    return {
        "outcome": outcome.outcome,
        "tool_ran": outcome.tool_ran,
        "turn_ended": outcome.turn_ended,
        "feedback": normalise(outcome.feedback, project),
    }


def run_on(
    case: DifferentialCase, engine: str, root: Path, hook_url: str = ""
) -> tuple[list[StepOutcome], float]:
    project = build_project(case, root, f"{hook_url}/{engine}")
    started = time.perf_counter()
    env = {**case.env}
    with open_session(
        engine, project, auto_approve=case.scenario.auto_approve, env=env or None
    ) as session:
        outcomes = [report.outcome for report in run_scenario(case.scenario, session)]
    return outcomes, time.perf_counter() - started


def compare(case: DifferentialCase, workdir: Path | None = None) -> CaseResult:
    """Run ``case`` on both engines in sibling directories of the same shape."""
    base = Path(workdir or scratch_mkdtemp("hooklab-differential-"))
    sides: dict[str, list[StepOutcome]] = {}
    seconds: dict[str, float] = {}
    projects: dict[str, Path] = {}
    engines = (CLAUDE_CODE, EMULATOR)
    for engine in engines:
        projects[engine] = base / engine / "project"
    # Side by side: each engine has its own project, and a wait a case forces (a hook that
    # outlives the 30 s UserPromptSubmit default) is then paid once, not once per engine.
    server = HookServer(int(case.http.get("status", 200)), case.http.get("body", ""))
    try:
        with ThreadPoolExecutor(max_workers=len(engines)) as pool:
            runs = {e: pool.submit(run_on, case, e, projects[e], server.url) for e in engines}
            for engine in engines:
                sides[engine], seconds[engine] = runs[engine].result()
    finally:
        server.close()
    steps = []
    for number, step in enumerate(case.scenario.steps, start=1):
        observed = {
            engine: observe(outcomes[number - 1], projects[engine])
            for engine, outcomes in sides.items()
            if len(outcomes) >= number
        }
        detail = str(
            step.args.get("command") or step.args.get("file") or step.args.get("text") or ""
        )
        steps.append(StepComparison(number, step.do, detail, observed))
    notes = {e: [n for o in outs for n in o.notes] for e, outs in sides.items()}
    posts = {str(e): [p for p in server.posts if p["path"].startswith(f"/{e}")] for e in engines}
    return CaseResult(case, steps, seconds, notes, posts)
