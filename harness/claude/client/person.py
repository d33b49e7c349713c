"""A live step's session played the way a person plays it: plain ``claude`` typed in a
terminal (harness/claude/client/terminal.py) in the workspace root, a HOME holding only what a
first run leaves, the folder's trust and the key accepted on screen, the step's prompt typed
into the box. The model is Hook Lab's scripted one on 127.0.0.1 (``ANTHROPIC_BASE_URL``),
answering each of the client's requests with the scenario's next turn.

The scenario is the one a ``play_session`` solve plays with ``-p``; here it becomes what the
model says, in order: a tool call for each write, edit, bash or other tool; a closing text
for each stop (a blocked stop makes the client ask again, with the hook's reason); for a
subagent, the main loop's Agent call and, in the agent's own requests, its report.

Seen on 2.1.332 in an interactive session: through a base URL of one's own, auto mode asks
that model to check actions (the scripted server allows them) and a notice about it may need
an Enter. An Agent call runs in the background: the client answers it at once, and the agent's
report comes back later as a message (SubagentHandback). A model that ends its turn there
("I wait for the report") met a report that arrived during that very request, and the client
then waited for the person (seen twice under load). So the scripted model goes on in the same
turn, as a model that does other work meanwhile, once the agent's SubagentStop hook has
written the marker the scenario names (a real model takes seconds there too); the report's
message rides on a later request, or wakes the model once more after the last turn.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.client.api import ApiRequest, Reply, ScriptedApi
from harness.claude.client.install import find_client
from harness.claude.client.terminal import Terminal, TerminalError, fresh_home, tmux_missing
from harness.claude.scenario import Scenario, ScenarioStep
from harness.claude.tools import edit_input, with_absolute_path
from harness.claude.vocabulary import StepKind
from harness.errors import HarnessError

# Notices of auto mode that Enter goes past (the check through a base URL of one's own).
AUTO_MODE_NOTICES = ("Enter to stay in auto mode", "Enter to continue · Esc to cancel")
SCREEN_LINES = 24  # of a screen that did not show what was waited for, the last ones
MARKER_WAIT = 15.0  # seconds at most the model waits for an agent's SubagentStop marker


@dataclass
class _PersonTurn:
    reply: Reply
    agent_prompt: str = ""  # an Agent call: the prompt its own requests open with
    agent_report: str = ""  # what the agent hands back
    marker: Path | None = None  # a file the agent's SubagentStop hook writes


@dataclass
class ScenarioModel:
    """The scripted model of one interactive session: the main loop's turns in order."""

    turns: list[_PersonTurn]
    finished: threading.Event = field(default_factory=threading.Event)
    extra_requests: int = 0
    _after_agent: _PersonTurn | None = None
    agents: dict[str, str] = field(init=False)  # an agent's prompt -> its report

    def __post_init__(self) -> None:
        self.agents = {t.agent_prompt: t.agent_report for t in self.turns if t.agent_prompt}

    def answer(self, request: ApiRequest) -> None:
        opening = json.dumps(request.messages[:1])
        for prompt, report in self.agents.items():
            if json.dumps(prompt)[1:-1] in opening:
                handback = {"message": report}
                ScriptedApi.answer(request, Reply.tool_use("toolu_h", "SubagentHandback", handback))
                return
        agent, self._after_agent = self._after_agent, None
        if agent is not None and agent.marker is not None:
            _wait_for(agent.marker)
        if not self.turns:
            self.extra_requests += 1
            ScriptedApi.answer(request, Reply.text("Done."))
            return
        turn = self.turns.pop(0)
        if turn.agent_prompt:
            self._after_agent = turn
        if not self.turns:
            self.finished.set()
        ScriptedApi.answer(request, turn.reply)


def _wait_for(marker: Path) -> None:
    deadline = time.monotonic() + MARKER_WAIT
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


@dataclass(frozen=True)
class PersonScript:
    """What the person types (the prompt) and what the model answers, in order."""

    prompt: str
    turns: tuple[_PersonTurn, ...]
    closing: str  # the last stop's text: the session is over once it shows
    plugin: str = ""  # a plugin whose agent the session calls: wait until it has loaded


def person_script(
    scenario: Scenario, root: Path, git_dir: Path, markers: Sequence[str | None] = ()
) -> PersonScript:
    """The scenario as one interactive session: a prompt first, then the model's turns.
    ``markers``: per step of the scenario, a file in the git directory the step's hooks
    write (``marker_exists``), which the model waits for as a person's model thinks."""
    written = {step.number: m for step, m in zip(scenario.steps, markers, strict=False) if m}
    steps = [s for s in scenario.steps if s.do != StepKind.SESSION_START]
    if not steps or steps[0].do != StepKind.PROMPT:
        raise HarnessError(
            f"{scenario.path}: a session played as a person begins with a prompt",
            fix='make the first step { do = "prompt", text = "…" }',
        )
    if any(s.do == StepKind.PROMPT for s in steps[1:]):
        raise HarnessError(
            f"{scenario.path}: a session played as a person has one prompt, typed first",
            fix="play the later prompts as a session of their own",
        )
    turns = tuple(
        _turn(step, root, git_dir / written[step.number] if step.number in written else None, n)
        for n, step in enumerate(steps[1:], 1)
    )
    stops = [s for s in steps if s.do == StepKind.STOP]
    if not stops or steps[-1].do != StepKind.STOP:
        raise HarnessError(
            f"{scenario.path}: a session played as a person ends with a stop",
            fix='end the steps with { do = "stop", last_message = "…" }',
        )
    plugins = [
        str(s.args["agent_type"]).split(":")[0]
        for s in steps
        if s.do == StepKind.SUBAGENT_STOP and ":" in str(s.args["agent_type"])
    ]
    closing = str(stops[-1].args.get("last_message") or "Done.")
    return PersonScript(str(steps[0].args["text"]), turns, closing, plugins[0] if plugins else "")


def _turn(step: ScenarioStep, root: Path, marker: Path | None, n: int) -> _PersonTurn:
    a = step.args
    use_id = f"toolu_person_{n:02d}"
    if step.do == StepKind.STOP:
        return _PersonTurn(Reply.text(str(a.get("last_message") or "Done.")))
    if step.do == StepKind.WRITE:
        tool_input = {"file_path": str(root / a["file"]), "content": a["content"]}
        return _PersonTurn(Reply.tool_use(use_id, "Write", tool_input))
    if step.do == StepKind.EDIT:
        edit = edit_input(root / a["file"], a["old"], a["new"], a.get("replace_all", False))
        return _PersonTurn(Reply.tool_use(use_id, "Edit", edit))
    if step.do == StepKind.BASH:
        bash: dict[str, Any] = {
            "command": a["command"],
            "description": a.get("description") or a["command"],
            "timeout": int(min(a.get("timeout") or 300, 600) * 1000),
        }
        if a.get("background"):
            bash["run_in_background"] = True
        return _PersonTurn(Reply.tool_use(use_id, "Bash", bash))
    if step.do == StepKind.TOOL:
        tool_input = with_absolute_path(a.get("input", {}), root)
        return _PersonTurn(Reply.tool_use(use_id, str(a[StepKind.TOOL]), tool_input))
    if step.do == StepKind.SUBAGENT_STOP:
        agent = {
            "description": f"{a['agent_type']}",
            "prompt": a["prompt"],
            "subagent_type": a["agent_type"],
        }
        return _PersonTurn(
            Reply.tool_use(use_id, "Agent", agent),
            agent_prompt=str(a["prompt"]),
            agent_report=str(a["last_message"]),
            marker=marker,
        )
    raise HarnessError(
        f"a session played as a person cannot take the step {step.do!r}",
        fix="play it with -p (lab solve) instead",
    )


@dataclass
class PersonSession:
    """What the person saw: every screen, in order, and the HOME the session used."""

    home: Path
    screens: str
    extra_requests: int


def can_play_as_person() -> bool:
    """tmux and the pinned client are here: a session can be played as a person."""
    return not tmux_missing() and find_client() is not None


def client_env(home: Path, base_url: str) -> dict[str, str]:
    """A participant's environment: their HOME, a PATH with the pinned ``claude`` on it, the
    model's address and a key. Nothing of Hook Lab's own."""
    client = find_client()
    if client is None:
        raise HarnessError(
            "the pinned Claude Code client is not installed",
            fix="lab doctor --install-client",
        )
    return {
        "HOME": str(home),
        "PATH": f"{client.path.parent}:/usr/local/bin:/usr/bin:/bin",
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "hooklab-dummy-key",
    }


def play_as_person(
    scenario: Scenario,
    root: Path,
    git_dir: Path,
    folder: Path,
    *,
    markers: Sequence[str | None] = (),
    timeout: float = 300,
) -> PersonSession:
    """Play ``scenario`` as a person in ``root``: a fresh HOME in ``folder``, ``claude``
    typed at a shell's prompt, the session left with ``/exit`` once its turn is over."""
    script = person_script(scenario, root, git_dir, markers)
    model = ScenarioModel(list(script.turns))
    home = fresh_home(folder)
    with ScriptedApi(on_request=model.answer) as api:
        terminal = Terminal(root, client_env(home, api.base_url), folder / "terminal")
        try:
            ready = f"/{script.plugin}:" if script.plugin else None
            terminal.claude(script.prompt, ready=ready)
            closing = script.closing[:40]
            terminal.wait_until(
                lambda shown: model.finished.is_set() and closing in shown,
                f"the session's last words ({closing!r})",
                timeout,
                AUTO_MODE_NOTICES,
            )
            terminal.quit_claude()
        except TerminalError as exc:
            said = "\n".join(line for line in str(exc).splitlines() if line.strip())
            raise HarnessError(
                "the session played as a person did not end as the scenario says: "
                + "\n".join(said.splitlines()[-SCREEN_LINES:]),
                fix="read the screens above; the step's scenario or its hooks disagree",
            ) from None
        finally:
            terminal.close()
    return PersonSession(home, terminal.transcript(), model.extra_requests)
