"""A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for the real Claude Code.

The real client is pointed at it with ``ANTHROPIC_BASE_URL``. Every conversation request (one
that offers tools: the main loop or a subagent) waits until the driver answers it, so the
driver plays the model one turn at a time and sees exactly what the client sent in between:
tool results, hook feedback, system reminders. Requests that offer no tools (titles, summaries)
get a short canned answer at once. Every request is kept as evidence.

Answers are streamed as server-sent events, the way the real API streams: ``message_start``,
one ``content_block_*`` run per block (text deltas, or ``input_json_delta`` for a tool use),
``message_delta`` with the stop reason, ``message_stop``.
"""

from __future__ import annotations

import contextlib
import http.server
import itertools
import json
import queue
import socketserver
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.judge import Judgement
from harness.claude.settings import AGENT_TYPE, PROMPT_TYPE

ANSWER_WAIT = 900.0  # seconds a request waits for the driver before it fails the client


@dataclass(frozen=True)
class Reply:
    """One model message: content blocks (``{"type": "text", ...}`` or ``tool_use``) and why
    it stopped (``end_turn``, ``tool_use``, ``max_tokens``)."""

    content: tuple[dict[str, Any], ...]
    stop_reason: str

    @classmethod
    def text(cls, text: str, stop_reason: str = "end_turn") -> Reply:
        return cls(({"type": "text", "text": text},), stop_reason)

    @classmethod
    def tool_use(cls, tool_use_id: str, name: str, tool_input: dict[str, Any]) -> Reply:
        block = {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}
        return cls((block,), "tool_use")


@dataclass
class ApiRequest:
    """One request the client made, as received."""

    seq: int
    path: str
    body: dict[str, Any]
    received: float
    answered: threading.Event = field(default_factory=threading.Event, repr=False)
    reply: Reply | None = None

    def __repr__(self) -> str:
        kind = "conversation" if self.is_conversation else "auxiliary"
        return f"<ApiRequest {self.seq} {kind} messages={len(self.messages)}>"

    @property
    def is_conversation(self) -> bool:
        return bool(self.body.get("tools"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        value = self.body.get("messages")
        return value if isinstance(value, list) else []

    def opening_prompt(self) -> str:
        """The last text block of the first user message: the prompt that opened this
        conversation (the client puts its own context blocks before it)."""
        for message in self.messages:
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                return content
            texts = [
                str(b.get("text", ""))
                for b in content or []
                if isinstance(b, dict) and b.get("type") == "text"
            ]
            return texts[-1] if texts else ""
        return ""

    def last_user_blocks(self) -> list[dict[str, Any]]:
        """The content blocks of the newest user message: what the client sent since the
        model last spoke."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return [{"type": "text", "text": content}]
                return [b for b in content or [] if isinstance(b, dict)]
            if message.get("role") == "assistant":
                break
        return []


def blocks_text(content: Any) -> str:
    """The text of a message's content, whether a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "tool_result":
            parts.append(blocks_text(block.get("content")))
    return "\n".join(parts)


def hook_judge_kind(body: dict[str, Any]) -> str | None:
    """``prompt`` or ``agent`` when the client asks the model to judge for such a hook, else
    None. Observed on 2.1.332: a prompt hook's request offers no tools and asks for JSON with
    ``ok`` (its ``output_config.format`` schema); an agent hook's offers a ``StructuredOutput``
    tool whose input has ``ok``."""
    tools = body.get("tools") or []
    names = {t.get("name") for t in tools if isinstance(t, dict)}
    if "StructuredOutput" in names:
        return AGENT_TYPE
    output = body.get("output_config")
    schema = output.get("format", {}).get("schema", {}) if isinstance(output, dict) else {}
    if not tools and isinstance(schema, dict) and "ok" in (schema.get("properties") or {}):
        return PROMPT_TYPE
    return None


# Auto mode's safety check, seen on 2.1.332 when the model is reached through a base URL of
# one's own (a gateway, this stand-in): the client asks that model, as "a security monitor",
# to answer "<block>no</block>" (allow) or "<block>yes</block>…" (block), stopping at
# "</block>". A person's own model answers it; the scripted one allows every action (what the
# labs' sessions do is safe), so a session here runs as one through a gateway does. A gateway
# whose check gives no usable answer (any other text) is played with ``ScriptedApi.
# auto_mode_answer``: 2.1.332 asks again a few times, then refuses the action ("Not run · auto
# mode's check had no usable answer").
AUTO_MODE_CHECK = "You are a security monitor for autonomous AI coding agents"
AUTO_MODE_ALLOWS = "<block>no</block>"


def is_web_search(body: dict[str, Any]) -> bool:
    """The WebSearch tool's own request: the client asks the model with the API's server
    tool ``web_search_*`` (observed on 2.1.332; unanswered, it waits 30 s and finds nothing)."""
    tools = body.get("tools") or []
    return any(
        isinstance(t, dict) and str(t.get("type", "")).startswith("web_search") for t in tools
    )


def is_auto_mode_check(body: dict[str, Any]) -> bool:
    """Whether the request is auto mode's check of an action (see ``AUTO_MODE_CHECK``)."""
    return not body.get("tools") and AUTO_MODE_CHECK in json.dumps(body.get("system") or "")


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server | _UnixServer

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _json(self, status: int, data: object) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": ""}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        if "count_tokens" in self.path:
            self._json(200, {"input_tokens": max(1, len(raw) // 4)})
            return
        if not self.path.startswith("/v1/messages"):
            self._json(404, {"type": "error", "error": {"type": "not_found_error"}})
            return
        request = self.server.api.receive(self.path, body if isinstance(body, dict) else {})
        if not request.answered.wait(ANSWER_WAIT) or request.reply is None:
            self._json(
                500, {"type": "error", "error": {"type": "api_error", "message": "unanswered"}}
            )
            return
        model = str(body.get("model", "scripted"))
        if body.get("stream") is True:
            self._stream(request.reply, model)
        else:  # auto mode's check asks without streaming (2.1.332) and reads one JSON message
            self._json(200, self._message(request.reply, model, reply_content=True))
        self.close_connection = True

    def _message(self, reply: Reply, model: str, *, reply_content: bool) -> dict[str, Any]:
        """The message object: empty and unfinished to start a stream, else the whole reply."""
        return {
            "id": f"msg_scripted_{next(self.server.api.ids)}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": list(reply.content) if reply_content else [],
            "stop_reason": reply.stop_reason if reply_content else None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }

    def _stream(self, reply: Reply, model: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        events: list[tuple[str, dict[str, Any]]] = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": self._message(reply, model, reply_content=False),
                },
            )
        ]
        for index, block in enumerate(reply.content):
            if block["type"] == "tool_use":
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            events += [
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        with contextlib.suppress(OSError):  # the client may hang up; that is its business
            for name, data in events:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, api: ScriptedApi) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.api = api


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The same API on a Unix socket: a client in a jail with no network reaches it there,
    through a forwarder on 127.0.0.1 inside (harness/jail_forward.py)."""

    daemon_threads = True

    def __init__(self, api: ScriptedApi, path: Path) -> None:
        super().__init__(str(path), _Handler)
        self.api = api

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client ended with its jail mid-answer (the session closing) is no error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ScriptedApi:
    """The stand-in server. Use as a context manager; ``base_url`` goes to the client."""

    def __init__(
        self,
        auxiliary_text: str = "Scripted session",
        on_request: Callable[[ApiRequest], None] | None = None,
    ) -> None:
        """``on_request`` receives each conversation request as it arrives (instead of the
        server's own queue that ``next_request`` reads). A hook's request to judge is answered
        at once with ``judgement``, and kept in ``judged``."""
        self.auxiliary_text = auxiliary_text
        self.judgement = Judgement()
        self.auto_mode_answer = AUTO_MODE_ALLOWS  # what auto mode's check is answered
        self.judged: list[tuple[str, ApiRequest, Judgement]] = []
        self.search_result = ""  # what a WebSearch call finds: the scenario step's result
        self.on_request = on_request
        self.requests: list[ApiRequest] = []
        self.ids = itertools.count(1)
        self._seq = itertools.count(1)
        self._pending: queue.Queue[ApiRequest] = queue.Queue()
        self._lock = threading.Lock()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._unix: _UnixServer | None = None

    def __enter__(self) -> ScriptedApi:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        # Release every request still waiting, so no handler thread outlives the server.
        with self._lock:
            waiting = [r for r in self.requests if not r.answered.is_set()]
        for request in waiting:
            request.reply = Reply.text("(the scripted session is over)")
            request.answered.set()
        self._server.shutdown()
        self._server.server_close()
        if self._unix is not None:
            self._unix.shutdown()
            self._unix.server_close()

    def listen_on(self, path: Path) -> None:
        """Answer on the Unix socket ``path`` too (made here), as on 127.0.0.1."""
        if self._unix is None:
            self._unix = _UnixServer(self, path)
            threading.Thread(target=self._unix.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def receive(self, path: str, body: dict[str, Any]) -> ApiRequest:
        request = ApiRequest(next(self._seq), path, body, time.monotonic())
        with self._lock:
            self.requests.append(request)
        judge = hook_judge_kind(body)
        if judge is not None:
            self.judged.append((judge, request, self.judgement))
            request.reply = self._judge_reply(judge, request)
            request.answered.set()
        elif is_auto_mode_check(body):
            request.reply = Reply.text(self.auto_mode_answer)
            request.answered.set()
        elif is_web_search(body):  # nothing is searched: the step's result is what it finds
            request.reply = Reply.text(self.search_result)
            request.answered.set()
        elif request.is_conversation:
            if self.on_request is not None:
                self.on_request(request)
            else:
                self._pending.put(request)
        else:
            request.reply = Reply.text(self.auxiliary_text)
            request.answered.set()
        return request

    def _judge_reply(self, kind: str, request: ApiRequest) -> Reply:
        if kind == PROMPT_TYPE:
            return Reply.text(self.judgement.text())
        answered = any(b.get("type") == "tool_result" for b in request.last_user_blocks())
        if answered:  # the verifier has called StructuredOutput: it ends its turn
            return Reply.text("Verified.")
        call = f"toolu_judge_{request.seq:03d}"
        return Reply.tool_use(call, "StructuredOutput", self.judgement.tool_input())

    def next_request(self, timeout: float) -> ApiRequest | None:
        """The next conversation request waiting for an answer, or None after ``timeout``."""
        try:
            return self._pending.get(timeout=timeout)
        except queue.Empty:
            return None

    @staticmethod
    def answer(request: ApiRequest, reply: Reply) -> None:
        request.reply = reply
        request.answered.set()
