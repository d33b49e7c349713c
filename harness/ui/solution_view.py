"""``lab solve`` without --apply: what solves a step, in words a person can act on.

Each action kind of a lab's ``[[step.solve]]`` has a renderer here: the command to run, the
file to write with its content, a replace as the lines it takes away and puts in, a session as
the prompt to type and the turns that follow. A file of the lab folder (``solution/…``) is
not in the workspace, so its content is shown, never its path. Commands and content are code
blocks: never wrapped, so what is copied runs (``--json`` keeps the machine data).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from harness.claude.vocabulary import StepKind
from harness.engine.manifest import Spec, Step
from harness.maven.backend import SENSOR_GOALS
from harness.ui.prose import CODE_STYLE, Block, Prose, backticked, print_prose
from harness.userfiles import read_text

SENSORS = "./mvnw " + " ".join(SENSOR_GOALS)
BULLET = "  • "
CODE = " " * 6  # a code block sits under its bullet's text, two spaces in


@dataclass(frozen=True)
class Sources:
    """Where the content a solve names is read: the lab folder's files (``solution/…``, which
    the person cannot open) and the workspace's (a replace shown as whole lines)."""

    asset: Callable[[str], str]
    workspace: Callable[[str], str | None] = lambda rel: None


def _words(text: str, first: str = BULLET, rest: str | None = None) -> Block:
    """A paragraph of words; backticks mark a path or command, kept whole and styled."""
    marked, spans = backticked(Text(text))
    return Block(marked, Text(first), None if rest is None else Text(rest), protected=spans)


def _code(content: str, style: str = CODE_STYLE) -> Block:
    """Content as it is, never wrapped nor reflowed: what is copied is the file's own text.
    Blank lines at its ends are not shown (nothing to copy there)."""
    body = content.strip("\n") or "(empty)"
    return Block(Text(body, style=style), Text(CODE), wrap=False, verbatim=True)


def _hunks(before: list[str], after: list[str]) -> Text:
    """A small diff: ``-`` the lines taken away, ``+`` those put in, one line around each
    change for where it is (dim), ``…`` between changes far apart."""
    text = Text()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for n, group in enumerate(matcher.get_grouped_opcodes(1)):
        if n:
            text.append("  …\n", style="dim")
        for tag, a0, a1, b0, b1 in group:
            if tag == "equal":
                for line in before[a0:a1]:
                    text.append(f"  {line}\n", style="dim")
                continue
            for line in before[a0:a1]:
                text.append(f"- {line}\n", style="red")
            for line in after[b0:b1]:
                text.append(f"+ {line}\n", style="green")
    text.rstrip()
    return text


def _diff(path: str, old: str, new: str, every: bool, sources: Sources) -> Block:
    """A replace as whole lines of the file when the workspace still has the text (a part of
    a line, ``,`` then a new entry, reads as nothing); else the two texts themselves."""
    current = sources.workspace(path)
    if current is not None and old and old in current:
        changed = current.replace(old, new, -1 if every else 1)
        text = _hunks(current.splitlines(), changed.splitlines())
    else:
        text = _hunks(old.strip("\n").splitlines(), new.strip("\n").splitlines())
    return Block(text, Text(CODE), wrap=False, verbatim=True)


# ---- the actions of [[step.solve]] ----------------------------------------------------------
Params = Mapping[str, Any]
_SPLIT = "take away the lines marked - and put in those marked +"


def _write(p: Params, sources: Sources) -> list[Block]:
    # copy's source is in the lab folder, which the person cannot open: its content instead.
    path = p.get("to") or p["path"]
    source = p.get("from")
    content = sources.asset(source) if source else str(p.get("content") or "")
    blocks = [_words(f"Write `{path}` with this content:"), _code(content)]
    if p.get("executable"):
        blocks.append(_words(f"and make it executable: `chmod +x {path}`", " " * 4))
    return blocks


def _append(p: Params, sources: Sources) -> list[Block]:
    source = p.get("from")
    content = sources.asset(source) if source else str(p.get("content") or "")
    return [_words(f"Add at the end of `{p['path']}`:"), _code(content)]


def _replace(p: Params, sources: Sources) -> list[Block]:
    where = ", everywhere it occurs," if p.get("all") else ","
    head = f"In `{p['path']}`{where} {_SPLIT}:"
    return [_words(head), _diff(p["path"], p["old"], p["new"], bool(p.get("all")), sources)]


def _delete(p: Params, sources: Sources) -> list[Block]:
    return [_words(f"Delete `{p['path']}`:"), _code(f"rm -r {p['path']}")]


def _patch(p: Params, sources: Sources) -> list[Block]:
    return [
        _words(f"Change the files as this diff shows ({_SPLIT}):"),
        _code(sources.asset(p["from"])),
    ]


def _run(p: Params, sources: Sources) -> list[Block]:
    return [_words("Run in the workspace:"), _code(p["command"])]


def _sensors(p: Params, sources: Sources) -> list[Block]:
    return [_words("Run the sensors in the workspace:"), _code(SENSORS)]


def _compile(p: Params, sources: Sources) -> list[Block]:
    return [_words("Compile the workspace (no test runs):"), _code("./mvnw -q test-compile")]


def _commit(p: Params, sources: Sources) -> list[Block]:
    message = str(p["message"]).replace("'", "'\\''")
    return [_words("Commit every change:"), _code(f"git add -A && git commit -m '{message}'")]


def _play_session(p: Params, sources: Sources) -> list[Block]:
    blocks = [_words("Start `claude` in the workspace, then:")]
    for turn in p.get("steps", []):
        blocks.extend(session_turn(turn, sources))
    return blocks


SOLVE_RENDERERS: dict[str, Callable[[Params, Sources], list[Block]]] = {
    "write": _write,
    "append": _append,
    "replace": _replace,
    "copy": _write,
    "delete": _delete,
    "patch": _patch,
    "run": _run,
    "sensors": _sensors,
    "compile": _compile,
    "play_session": _play_session,
    "commit": _commit,
}


# ---- the turns of a session ---------------------------------------------------------------
TURN = "    – "
TURN_REST = " " * len(TURN)
_OUTCOME = {
    "allowed": "it goes through",
    "blocked": "a hook refuses it",
    "asked": "Claude Code asks you first",
    "stopped": "a hook ends the session",
    "error": "the tool rejects it",
}
_STOP_OUTCOME = {
    "allowed": "the turn ends",
    "blocked": "the Stop hook holds it, Claude goes on",
    "stopped": "a hook ends the session",
}


def _then(turn: Params, *, stop: bool = False) -> str:
    said = (_STOP_OUTCOME if stop else _OUTCOME).get(str(turn.get("expect")), "")
    return f" → {said}" if said else ""


def _turn(text: str) -> Block:
    return _words(text, TURN, TURN_REST)


def _quoted(text: str) -> str:
    return "“" + " ".join(text.split()) + "”"


def _turn_prompt(t: Params, sources: Sources) -> list[Block]:
    return [_turn("type this prompt:"), _code(t["text"])]


def _turn_write(t: Params, sources: Sources) -> list[Block]:
    return [_turn(f"Claude writes `{t['file']}`{_then(t)}; its content:"), _code(t["content"])]


def _turn_edit(t: Params, sources: Sources) -> list[Block]:
    every = bool(t.get("replace_all"))
    return [
        _turn(f"Claude edits `{t['file']}` (- taken away, + put in){_then(t)}:"),
        _diff(t["file"], t["old"], t["new"], every, sources),
    ]


def _turn_bash(t: Params, sources: Sources) -> list[Block]:
    where = " in the background" if t.get("background") else ""
    return [_turn(f"Claude runs this{where}{_then(t)}:"), _code(t["command"])]


def _turn_tool(t: Params, sources: Sources) -> list[Block]:
    shown = ", ".join(f"{k} = {v}" for k, v in dict(t.get("input") or {}).items())
    return [_turn(f"Claude uses its {t['tool']} tool{_then(t)}" + (f": {shown}" if shown else ""))]


def _turn_subagent(t: Params, sources: Sources) -> list[Block]:
    return [
        _turn(f"Claude's agent {t['agent_type']} is asked {_quoted(t['prompt'])}"),
        _words(f"and answers{_then(t, stop=True)}:", TURN_REST),
        # Words to read, not to copy: wrapped, each line keeping the indent.
        Block(Text(str(t["last_message"]).strip("\n"), style="italic"), Text(CODE)),
    ]


def _turn_stop(t: Params, sources: Sources) -> list[Block]:
    said = t.get("last_message")
    says = f"Claude says {_quoted(said)} and stops" if said else "Claude stops"
    return [_turn(says + _then(t, stop=True))]


def _turn_start(t: Params, sources: Sources) -> list[Block]:
    return [_turn(f"the session starts ({t.get('source') or 'startup'})")]


TURN_RENDERERS: dict[str, Callable[[Params, Sources], list[Block]]] = {
    StepKind.SESSION_START: _turn_start,
    StepKind.PROMPT: _turn_prompt,
    StepKind.EDIT: _turn_edit,
    StepKind.WRITE: _turn_write,
    StepKind.BASH: _turn_bash,
    StepKind.TOOL: _turn_tool,
    StepKind.SUBAGENT_STOP: _turn_subagent,
    StepKind.STOP: _turn_stop,
}


def session_turn(turn: Params, sources: Sources) -> list[Block]:
    render = TURN_RENDERERS.get(str(turn.get("do")))
    if render is None:  # a kind added without its words: still no raw dict on the screen
        return [_turn(f"then: {turn.get('do')}")]
    return render(turn, sources)


def action_blocks(spec: Spec, sources: Sources) -> list[Block]:
    render = SOLVE_RENDERERS.get(spec.name)
    if render is None:  # a kind added without its words: its summary, never a raw dict
        return [_words(f"{spec.kind.summary}")]
    return render(spec.params, sources)


def solution_renderable(step: Step, sources: Sources) -> Prose:
    blocks = [Block(Text(f"The solution of step {step.index + 1} ({step.id}):", style="bold"))]
    for spec in step.solve:
        blocks.extend(action_blocks(spec, sources))
    tail = "Apply it with `lab solve --apply` (your files are backed up first), then `lab check`."
    if any(spec.name == "play_session" for spec in step.solve):
        tail = (
            "Do it with `claude` as above: a live step wants your own session. `lab solve"
            " --apply` plays it with Hook Lab's scripted model instead (your files are backed up"
            " first); then `lab check`."
        )
    blocks.append(_words(tail, ""))
    return Prose(blocks)


def file_sources(lab_dir: Path, root: Path | None) -> Sources:
    """The lab folder's files and, when there is one, the workspace's as they are now."""

    def asset(rel: str) -> str:
        return read_text(lab_dir / rel, rel)

    def workspace(rel: str) -> str | None:
        if root is None or not (root / rel).is_file():
            return None
        try:
            return (root / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None  # the texts themselves are shown instead

    return Sources(asset, workspace)


def print_solution(console: Console, step: Step, sources: Sources) -> None:
    print_prose(console, solution_renderable(step, sources))
