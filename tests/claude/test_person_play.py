"""A session played as a person plays it (harness/claude/client/person.py): plain ``claude``
typed in a tmux terminal, a fresh HOME, the scenario's steps as the scripted model's turns.

``lab dev check`` proves the live steps of Labs 03, 07, 10, 11 and 13 this way (``nox -s
labs``); here the pieces: how a lab's scenario becomes the model's turns, the scenarios that
cannot be played so, and one whole session on the real client in a project of a few files,
whose transcript ``find_sessions`` then reads from that person's HOME.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest

from harness.claude.client.api import ApiRequest
from harness.claude.client.person import (
    PersonScript,
    ScenarioModel,
    person_script,
    play_as_person,
)
from harness.claude.recorded import config_root, find_sessions, read_session
from harness.claude.scenario import Scenario
from harness.engine.checks.hook_session import parse_inline
from harness.engine.manifest import find_lab
from harness.errors import HarnessError
from tests.builders import project_held_once
from tests.conftest import require_real_client


def _lab_scenario(lab: str, step: str) -> tuple[Scenario, list[str | None]]:
    """The scenario a live step's ``play_session`` solve plays, and its markers."""
    (found,) = [s for s in find_lab(lab).steps if s.id == step]
    (play,) = [a for a in found.solve if a.name == "play_session"]
    scenario, asserts = parse_inline(play.params["steps"], "lab.toml", "solve")
    return scenario, [a.marker_exists for a in asserts]


def _calls(script: PersonScript) -> list[tuple[str, str]]:
    said = []
    for turn in script.turns:
        block = turn.reply.content[0]
        said.append((block.get("name", "text"), block.get("text", "")[:20]))
    return said


def test_lab_11s_session_becomes_the_models_turns(tmp_path: Path) -> None:
    """The Done edit, the audit agent (its prompt, its report, the marker its SubagentStop
    hook writes), the edit again, the sensors, the closing text; the plugin to wait for."""
    scenario, markers = _lab_scenario("11", "earn-done")
    script = person_script(scenario, tmp_path, tmp_path / ".git", markers)
    assert script.prompt == "UC-005 (Add Visit) is implemented and tested. Set it to Done."
    assert [name for name, _ in _calls(script)] == ["Edit", "Agent", "Edit", "Bash", "text"]
    agent = script.turns[1]
    assert agent.reply.content[0]["input"]["subagent_type"] == "aiup-vaadin-jooq:uc-coverage"
    assert agent.agent_report.startswith("# Coverage report: UC-005")
    assert agent.marker == tmp_path / ".git" / "aiup-coverage-checked" / "UC-005"
    assert script.plugin == "aiup-vaadin-jooq"
    assert script.closing == "UC-005 is Done: audited, and all five sensors are green."
    edit = script.turns[0].reply.content[0]["input"]
    assert edit["file_path"] == str(tmp_path / "docs/use_cases/UC-005-add-visit.md")


def test_lab_03s_held_stop_is_a_closing_text_the_client_asks_again_after(
    tmp_path: Path,
) -> None:
    scenario, markers = _lab_scenario("03", "your-session")
    script = person_script(scenario, tmp_path, tmp_path / ".git", markers)
    assert [name for name, _ in _calls(script)] == ["Write", "text", "Bash", "text"]
    bash = script.turns[2].reply.content[0]["input"]
    assert bash["command"] == "./mvnw -q test -Dgroups=sensor" and bash["timeout"] == 300_000
    assert script.plugin == ""


@pytest.mark.parametrize(
    ("steps", "said"),
    [
        ([{"do": "stop"}], "begins with a prompt"),
        (
            [{"do": "prompt", "text": "a"}, {"do": "prompt", "text": "b"}, {"do": "stop"}],
            "has one prompt",
        ),
        ([{"do": "prompt", "text": "a"}, {"do": "bash", "command": "true"}], "ends with a stop"),
        ([{"do": "prompt", "text": "a"}, {"do": "session_start"}, {"do": "stop"}], None),
    ],
)
def test_a_scenario_a_person_cannot_play_is_named_with_the_fix(
    tmp_path: Path, steps: list[dict[str, str]], said: str | None
) -> None:
    scenario, _ = parse_inline(steps, "lab.toml", "solve")
    if said is None:  # a session start is the client's own: nothing for the model to say
        assert [n for n, _ in _calls(person_script(scenario, tmp_path, tmp_path))] == ["text"]
        return
    with pytest.raises(HarnessError) as caught:
        person_script(scenario, tmp_path, tmp_path)
    assert said in caught.value.message and caught.value.fix


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_a_person_session_on_the_real_client_is_read_from_that_persons_home(
    tmp_path: Path,
) -> None:
    """Plain ``claude`` in a project whose Stop hook holds the first stop: the write, the held
    stop, the second stop let go; the transcript is under the person's HOME, nowhere else."""
    require_real_client()
    root = tmp_path / "project"
    project_held_once(root)
    steps = [
        {"do": "prompt", "text": "Add a note to NOTES.md, then tell me you are done."},
        {"do": "write", "file": "NOTES.md", "content": "A note.\n"},
        {"do": "stop", "last_message": "Done: the note is there."},
        {"do": "stop", "last_message": "Done, and said again."},
    ]
    scenario, _ = parse_inline(steps, "lab.toml", "solve")
    played = play_as_person(scenario, root, root / ".git", tmp_path / "person")
    assert played.extra_requests == 0, played.screens
    assert "held once: say it again" in played.screens
    assert (root / "NOTES.md").read_text() == "A note.\n"
    (found,) = find_sessions(root, root=config_root({"HOME": str(played.home)}))
    timeline = read_session(found.path)
    said = json.dumps([str(entry) for entry in timeline.entries])
    assert "Write" in said and "held once" in said, said


def _request(seq: int, *blocks: dict[str, object]) -> ApiRequest:
    """A main-loop request as the client sends it: the prompt, then the newest blocks."""
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "UC-005 … Set it to Done."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "…"}]},
        {"role": "user", "content": list(blocks)},
    ]
    return ApiRequest(seq, "/v1/messages", {"messages": messages, "tools": [{}]}, 0.0)


def _launched(use_id: str) -> dict[str, object]:
    text = "Async agent launched successfully. The agent is working in the background."
    return {
        "type": "tool_result",
        "tool_use_id": use_id,
        "content": [{"type": "text", "text": text}],
    }


def _handback(report: str) -> dict[str, object]:
    indented = "\n".join("  " + line for line in report.splitlines())
    return {"type": "text", "text": f"[Subagent hand-back] The report follows:\n{indented}"}


@pytest.mark.parametrize("report_rides_along", [False, True])
def test_after_a_background_agent_the_model_goes_on_once_its_marker_is_written(
    tmp_path: Path, report_rides_along: bool
) -> None:
    """The request that answers the Agent call (its report on it or not: seen both ways on
    2.1.332) gets the next step, once the agent's SubagentStop hook has written the marker:
    a model that ended its turn there met a report that came during that request, and the
    client then waited for the person."""
    scenario, markers = _lab_scenario("11", "earn-done")
    script = person_script(scenario, tmp_path, tmp_path / ".git", markers)
    model = ScenarioModel(list(script.turns))
    agent = script.turns[1]
    assert agent.marker is not None
    launched = [_launched(agent.reply.content[0]["id"])]
    if report_rides_along:
        launched.append(_handback(agent.agent_report))
    replies = []
    marker_written = threading.Timer(0.5, _touch, [agent.marker])
    for n, blocks in enumerate(
        [
            [{"type": "text", "text": script.prompt}],
            [{"type": "tool_result", "tool_use_id": "toolu_person_01", "content": "Refused"}],
            launched,
        ]
    ):
        if n == 2:
            marker_written.start()
        request = _request(n, *blocks)
        model.answer(request)
        assert request.reply is not None
        block = request.reply.content[0]
        replies.append(block.get("name") or block["text"])
    assert replies == ["Edit", "Agent", "Edit"]
    assert agent.marker.is_file()  # the model answered only once the marker was there


def _touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("audited")
