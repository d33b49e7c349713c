"""The scripted Messages API stand-in, spoken to over real HTTP on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any

from harness.claude.client.api import Reply, ScriptedApi


def post(port: int, body: dict[str, Any], path: str = "/v1/messages?beta=true") -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", path, json.dumps(body), {"content-type": "application/json"})
    response = connection.getresponse()
    return response.status, response.read().decode()


def events(stream: str) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for chunk in stream.strip().split("\n\n"):
        name, data = chunk.split("\n", 1)
        found.append((name.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return found


def test_a_conversation_request_waits_for_the_driver_and_streams_its_tool_use() -> None:
    with ScriptedApi() as api:
        answer: dict[str, Any] = {}
        body = {
            "model": "m",
            "stream": True,
            "tools": [{"name": "Bash"}],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "ctx"},
                        {"type": "text", "text": "fix it"},
                    ],
                }
            ],
        }
        client = threading.Thread(target=lambda: answer.update(result=post(api.port, body)))
        client.start()
        request = api.next_request(timeout=10)
        assert request is not None and request.is_conversation
        assert request.opening_prompt() == "fix it"
        api.answer(request, Reply.tool_use("toolu_1", "Bash", {"command": "ls"}))
        client.join(10)
    status, stream = answer["result"]
    names = [name for name, _ in events(stream)]
    assert status == 200
    assert names == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start, delta = events(stream)[1][1], events(stream)[2][1]
    assert start["content_block"] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Bash",
        "input": {},
    }
    assert json.loads(delta["delta"]["partial_json"]) == {"command": "ls"}
    assert events(stream)[4][1]["delta"]["stop_reason"] == "tool_use"
    assert api.port != 0 and api.requests == [request]


def test_requests_without_tools_are_answered_at_once_and_all_are_kept() -> None:
    with ScriptedApi(auxiliary_text="A title") as api:
        status, stream = post(api.port, {"model": "m", "stream": True, "messages": []})
        count_status, count = post(api.port, {"messages": []}, "/v1/messages/count_tokens")
        assert api.next_request(timeout=0.2) is None
    text = next(d for n, d in events(stream) if n == "content_block_delta")["delta"]["text"]
    assert (status, text) == (200, "A title")
    assert count_status == 200 and json.loads(count)["input_tokens"] >= 1
    assert len(api.requests) == 1 and not api.requests[0].is_conversation


def test_a_request_that_does_not_ask_for_a_stream_gets_one_json_message() -> None:
    # Auto mode's action check on 2.1.332 asks without "stream" and reads a single message.
    with ScriptedApi(auxiliary_text="A title") as api:
        status, body = post(api.port, {"model": "m", "messages": []})
    message = json.loads(body)
    assert status == 200 and message["type"] == "message"
    assert [block["text"] for block in message["content"]] == ["A title"]


def test_two_servers_take_different_free_ports() -> None:
    with ScriptedApi() as one, ScriptedApi() as two:
        assert one.port != two.port
        assert one.base_url.startswith("http://127.0.0.1:")
