"""A stdio MCP server standing in for one the project does not have (standard library only).

Run by the real client from the ``--mcp-config`` Hook Lab gives it:
``python mcp_stub.py SERVER ANSWER_FILE TOOL...``. It offers the tools a scenario calls on
SERVER (``mcp__SERVER__TOOL``) and answers every call with the text in ANSWER_FILE, which
the session writes before each tool step (the step's ``result``): nothing else is done.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _result(
    method: str, params: dict[str, Any], server: str, answer: Path, tools: list[str]
) -> dict[str, Any] | None:
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2024-11-05"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": server, "version": "1"},
        }
    if method == "tools/list":
        schema = {"type": "object", "additionalProperties": True}
        return {
            "tools": [
                {"name": t, "description": f"{t}, played by Hook Lab", "inputSchema": schema}
                for t in tools
            ]
        }
    if method == "tools/call":
        text = answer.read_text(encoding="utf-8") if answer.is_file() else ""
        return {"content": [{"type": "text", "text": text}]}
    if method == "ping":
        return {}
    return None


def main(argv: list[str]) -> int:
    server, answer, tools = argv[0], Path(argv[1]), argv[2:]
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or message.get("id") is None:
            continue  # a notification: nothing to answer
        params = message.get("params") or {}
        result = _result(str(message.get("method")), params, server, answer, tools)
        if result is None:
            error = {"code": -32601, "message": f"no method {message.get('method')}"}
            _send({"jsonrpc": "2.0", "id": message["id"], "error": error})
        else:
            _send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
