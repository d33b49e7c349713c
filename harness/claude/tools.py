"""The scripted agent's tools, acting on the real workspace: Edit, Write, Bash, Read.

Edit checks its input before any hook runs (as Claude Code validates tool input before
PreToolUse), so an edit whose ``old_string`` is missing or ambiguous fails without hooks and
without touching the file; the messages follow Claude Code's wording.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from harness.proc import kill_group

if TYPE_CHECKING:
    from harness.jail import Confinement

DEFAULT_BASH_TIMEOUT = 120.0  # seconds; Claude Code's default of two minutes
MAX_BASH_TIMEOUT = 600.0
BASH_OUTPUT_CAP = 30_000


class ToolError(Exception):
    """The tool refused its input or failed; the message is the tool result Claude sees."""


def edit_input(path: Path, old: str, new: str, replace_all: bool) -> dict[str, Any]:
    """The Edit tool's input, in the keys and order Claude Code sends it."""
    return {
        "file_path": str(path),
        "old_string": old,
        "new_string": new,
        "replace_all": replace_all,
    }


def check_edit(path: Path, old: str, new: str, replace_all: bool) -> None:
    if old == new:
        raise ToolError("No changes to make: old_string and new_string are exactly the same.")
    if not path.exists():
        if old == "":
            return  # Edit with an empty old_string creates the file
        raise ToolError(f"File does not exist: {path}")
    if path.is_dir():
        raise ToolError(f"{path} is a directory, not a file.")
    if old == "":
        raise ToolError("Cannot create new file - file already exists.")
    content = path.read_text(encoding="utf-8", errors="surrogateescape")
    count = content.count(old)
    if count == 0:
        raise ToolError(f"String to replace not found in file.\nString: {old}")
    if count > 1 and not replace_all:
        raise ToolError(
            f"Found {count} matches of the string to replace, but replace_all is false. To "
            "replace all occurrences, set replace_all to true. To replace only one occurrence, "
            f"please provide more context to uniquely identify the instance.\nString: {old}"
        )


def apply_edit(path: Path, old: str, new: str, replace_all: bool) -> dict[str, Any]:
    check_edit(path, old, new, replace_all)  # the file may have changed since the check
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        original = ""
        updated = new
    else:
        original = path.read_text(encoding="utf-8", errors="surrogateescape")
        updated = original.replace(old, new) if replace_all else original.replace(old, new, 1)
    path.write_text(updated, encoding="utf-8", errors="surrogateescape")
    return {
        "filePath": str(path),
        "oldString": old,
        "newString": new,
        "originalFile": original,
        "replaceAll": replace_all,
        "userModified": False,
        "structuredPatch": [],
    }


def apply_write(path: Path, content: str) -> dict[str, Any]:
    existed = path.exists()
    if path.is_dir():
        raise ToolError(f"{path} is a directory, not a file.")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return {
        "type": "update" if existed else "create",
        "filePath": str(path),
        "content": content,
        "structuredPatch": [],
    }


# The tools the pinned client (2.1.332) offers the model, as its API requests list them (with
# the deferred ones). Asked for another, such as Grep, Glob or MultiEdit, it answers "No such
# tool available" and runs no hook (observed with the scripted model, tests/recorded_sessions).
CLIENT_TOOLS = frozenset(
    {
        "Agent",
        "AskUserQuestion",
        "Bash",
        "Edit",
        "ListAgents",
        "Read",
        "ReportFindings",
        "ScheduleWakeup",
        "Skill",
        "ToolSearch",
        "Workflow",
        "Write",
        "CronCreate",
        "CronDelete",
        "CronList",
        "EnterPlanMode",
        "EnterWorktree",
        "ExitPlanMode",
        "ExitWorktree",
        "Monitor",
        "NotebookEdit",
        "SendMessage",
        "TaskStop",
        "WebFetch",
        "WebSearch",
    }
)
# The tools a scenario's ``tool`` step plays on the emulator, each checked against the client
# (tests/differential/cases/any-tool-plays.toml), besides MCP tools and the tools the client
# does not offer (refused before any hook).
EMULATED_TOOLS = frozenset({"Read", "WebFetch", "WebSearch"})
# The pinned client's hint after "No such tool available: NAME." for the tools it points to Bash.
_NO_TOOL_HINTS = {
    "Grep": "Grep is not available in this session \u2014 search file contents with `grep` "
    "via the Bash tool instead.",
    "Glob": "Glob is not available in this session \u2014 find files with `find` via the Bash "
    "tool instead.",
}


def with_absolute_path(tool_input: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
    """The input with a relative ``file_path`` made absolute from ``cwd``, as the model sends
    it (a scenario names files from the project)."""
    given = dict(tool_input)
    if isinstance(given.get("file_path"), str):
        given["file_path"] = os.path.abspath(cwd / given["file_path"])
    return given


# Bash commands the pinned client runs without a prompt when a call is made of them alone
# (observed on 2.1.332 with the scripted model: ``ls``, ``cat``, ``grep``, ``echo``, ``head``,
# ``wc``, ``pwd``; tests/differential/cases/read-only-commands-run-unasked.toml).
READ_ONLY_COMMANDS = frozenset({"ls", "cat", "grep", "echo", "head", "wc", "pwd"})
_SHELL_ACTIVE = ("`", "$(", ">", "<", "&", ";", "|", "\n")


def read_only_command(command: str) -> bool:
    """A lone read-only command, no redirection, substitution or chaining: the client asks
    nothing for it (a longer command line gets the usual prompt here)."""
    if any(mark in command for mark in _SHELL_ACTIVE):
        return False
    words = command.split()
    return bool(words) and words[0] in READ_ONLY_COMMANDS


def is_mcp_tool(name: str) -> bool:
    """``mcp__server__tool``: a tool an MCP server offers."""
    parts = name.split("__")
    return len(parts) >= 3 and parts[0] == "mcp" and all(parts[1:])


# What WebFetch answers on the pinned client offline (the jail has no network): it cannot
# reach claude.ai to check the domain, so it fails before fetching (observed, PostToolUseFailure).
def webfetch_offline(url: str) -> str:
    host = urllib.parse.urlsplit(url).hostname or url
    return (
        f"Unable to verify if domain {host} is safe to fetch. This may be due to network "
        "restrictions or enterprise security policies blocking claude.ai."
    )


def played_tool(name: str, given: Mapping[str, Any], result: str | None) -> tuple[Any, str, bool]:
    """A tool Hook Lab does not carry out, answered as the client answers it here: the
    response PostToolUse is given, the text Claude reads, and whether the call failed.
    WebFetch fails offline; WebSearch and MCP tools answer with the scenario's ``result``
    (``EMULATED_TOOLS``: the session plays no other)."""
    if name == "WebFetch":
        return {}, webfetch_offline(str(given.get("url", ""))), True
    text = result or ""
    if name == "WebSearch":  # keys in the client's order (observed)
        found = [text] if text else []
        query = given.get("query", "")
        response = {"query": query, "results": found, "durationSeconds": 0.0, "searchCount": 0}
        said = (
            f'Web search results for query: "{query}"\n\n{text}\n\n\nREMINDER: You MUST '
            "include the sources above in your response to the user using markdown hyperlinks."
        )
        return response, said, False
    # an MCP tool's response is its content blocks
    return [{"type": "text", "text": text}], text, False


def project_mcp_servers(project_dir: Path) -> set[str]:
    """The MCP servers the project's ``.mcp.json`` names (none when it is missing or bad:
    the client then has none of them either)."""
    try:
        data = json.loads((project_dir / ".mcp.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return set(servers) if isinstance(servers, dict) else set()


def stub_servers(names: Iterable[str], project_dir: Path) -> dict[str, list[str]]:
    """The MCP servers Hook Lab stands in for, each with its tools: those of ``names``
    (``mcp__server__tool``) whose server the project does not have."""
    own = project_mcp_servers(project_dir)
    servers: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        if is_mcp_tool(name):
            server, tool = name.split("__", 2)[1:]
            if server not in own:
                servers.setdefault(server, []).append(tool)
    return servers


def mcp_server(name: str, project_dir: Path) -> dict[str, Any]:
    """What the client adds to an MCP tool's PreToolUse and PostToolUse payloads (observed):
    the server's source is ``project`` for one of the project's ``.mcp.json``, ``dynamic``
    for one given with ``--mcp-config`` (Hook Lab's stand-in)."""
    if not is_mcp_tool(name):
        return {}
    server = name.split("__")[1]
    source = "project" if server in project_mcp_servers(project_dir) else "dynamic"
    return {"mcp_server": {"name": server, "source": source}}


def no_such_tool(name: str) -> str:
    """The pinned client's answer to a tool it does not offer (the tool_use_error's text)."""
    hint = _NO_TOOL_HINTS.get(name)
    return f"Error: No such tool available: {name}" + (f". {hint}" if hint else "")


def apply_read(
    path: Path, cwd: Path, offset: int | None = None, limit: int | None = None
) -> tuple[dict[str, Any], str, bool]:
    """Read as the pinned client answers it: each line numbered (``N\\tLINE``), and the
    response PostToolUse is given; a missing file is a failed call (PostToolUseFailure)."""
    if not path.is_file():
        text = f"File does not exist. Note: your current working directory is {cwd}."
        return {}, text, True
    content = path.read_text(encoding="utf-8", errors="replace")
    lines = content.split("\n")
    start = max(offset or 1, 1)
    shown = lines[start - 1 : start - 1 + limit if limit else None]
    numbered = "\n".join(f"{start + n}\t{line}" for n, line in enumerate(shown))
    response = {
        "type": "text",
        "file": {
            "filePath": str(path),
            "content": "\n".join(shown),
            "numLines": len(shown),
            "startLine": start,
            "totalLines": len(lines),
        },
    }
    return response, numbered, False


@dataclass(frozen=True)
class BashResult:
    stdout: str
    stderr: str
    exit_code: int | None  # None when interrupted by the timeout
    interrupted: bool

    def response(self) -> dict[str, Any]:
        return {
            "stdout": self.stdout,
            "stderr": self.stderr,
            "interrupted": self.interrupted,
            "isImage": False,
        }

    def result_text(self) -> str:
        parts = [p for p in (self.stdout.rstrip("\n"), self.stderr.rstrip("\n")) if p]
        if self.interrupted:
            parts.append("Command timed out")
        elif self.exit_code:  # the client puts the exit code first (observed on 2.1.332)
            parts.insert(0, f"Exit code {self.exit_code}")
        return "\n".join(parts)


def _clip(text: str) -> str:
    if len(text) <= BASH_OUTPUT_CAP:
        return text
    return text[:BASH_OUTPUT_CAP] + f"\n... [{len(text) - BASH_OUTPUT_CAP} characters truncated]"


def _start_bash(
    command: str,
    cwd: Path,
    env: Mapping[str, str],
    jail: Confinement | None,
    *,
    stdout: int | IO[bytes],
    stderr: int,
) -> subprocess.Popen[bytes]:
    """``bash -c command`` in a process group of its own, so a timeout or a kill ends all it
    started; in ``jail`` when there is one (the jail is given exactly ``env``; bubblewrap
    itself needs none)."""
    argv, environment = ["bash", "-c", command], dict(env)
    if jail is not None:
        argv, environment = jail.wrap(argv, cwd=cwd, env=env), {}
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
    )


def run_bash(
    command: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    jail: Confinement | None = None,
) -> BashResult:
    proc = _start_bash(command, cwd, env, jail, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
        return BashResult(
            _clip(out.decode(errors="replace")), _clip(err.decode(errors="replace")), None, True
        )
    return BashResult(
        _clip(out.decode(errors="replace")),
        _clip(err.decode(errors="replace")),
        proc.returncode,
        False,
    )


@dataclass
class BackgroundShell:
    """A ``run_in_background`` command: detached, output in ``log``."""

    shell_id: str
    command: str
    process: subprocess.Popen[bytes]
    log: Path

    def __repr__(self) -> str:
        state = "running" if self.process.poll() is None else f"exit {self.process.returncode}"
        return f"<BackgroundShell {self.shell_id} {self.command!r} {state}>"

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def wait(self, timeout: float | None = None) -> int:
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            kill_group(self.process)
            self.process.wait()


def start_background(
    shell_id: str,
    command: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    jail: Confinement | None = None,
) -> BackgroundShell:
    log.parent.mkdir(parents=True, exist_ok=True)
    sink: IO[bytes]
    with log.open("wb") as sink:
        proc = _start_bash(command, cwd, env, jail, stdout=sink, stderr=subprocess.STDOUT)
    return BackgroundShell(shell_id, command, proc, log)
