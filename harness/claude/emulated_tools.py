"""The emulator's tool calls: each tool acts for real, inside Claude Code's permission ladder.

Order inside a tool call, as in Claude Code: the tool validates its input,
``permissions.deny`` refuses before any hook, PreToolUse decides (deny > defer > ask > allow),
``permissions.ask`` still asks after a hook's allow, the tool runs, PostToolUse (or
PostToolUseFailure) reports, then PostToolBatch. ``ToolPlay`` plays one call for
``EmulatedSession`` (emulator.py); the runners below are what each tool does.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.claude.dispatch import EventOutcome
from harness.claude.events import Event
from harness.claude.ladder import FILE_TOOLS, CallFacts, Decision, HookSay, decide, input_rejected
from harness.claude.runner import cap
from harness.claude.scripted import StepOutcome
from harness.claude.sensitive import is_sensitive, sensitive_write
from harness.claude.tools import (
    DEFAULT_BASH_TIMEOUT,
    ToolError,
    apply_edit,
    apply_read,
    apply_write,
    check_edit,
    mcp_server,
    played_tool,
    read_only_command,
    run_bash,
    start_background,
)
from harness.claude.vocabulary import Outcome, Permission, PermissionDecision
from harness.paths import inside

if TYPE_CHECKING:
    from harness.claude.emulator import EmulatedSession

# The permissions at which the client shows its permission prompt (and so fires
# PermissionRequest first).
PROMPTING = frozenset(
    {
        Permission.ASK,
        Permission.DEFER,
        Permission.ASK_RULE,
        Permission.ASK_SENSITIVE,
        Permission.PROMPTED,
    }
)
# A tool's own input check (raises ToolError), and the tool itself: (response, text, failed).
Check = Callable[[dict[str, Any]], None]
Run = Callable[[dict[str, Any]], tuple[Any, str, bool]]


def collect(step: StepOutcome, *events: EventOutcome) -> StepOutcome:
    """Fold the messages of ``events`` into ``step``."""
    step.events.extend(events)
    system = [m for ev in events for m in ev.system_messages]
    context = [c for ev in events for c in ev.additional_context]
    users = [m for ev in events for m in ev.user_messages if m]
    stops = [ev.stop_reason for ev in events if ev.stopped and ev.stop_reason]
    step.system_message = cap("\n".join(system))
    step.additional_context = cap("\n".join(context))
    step.user_message = cap(
        "\n".join([*stops, *users, *([step.user_message] if step.user_message else [])])
    )
    step.errors.extend(e for ev in events for e in ev.errors)
    step.notes.extend(n for ev in events for n in ev.notes)
    return step


def _answered_by_hook(decision: Decision, asked: EventOutcome) -> Decision:
    """A PermissionRequest hook's allow or deny answers the prompt before the user does
    (observed on 2.1.332); without one, the user answers it as ``decision`` says."""
    if asked.permission_decision == PermissionDecision.ALLOW:
        return replace(decision, runs=True, outcome=Outcome.ALLOWED, prompt="", asked=False)
    if asked.permission_decision == PermissionDecision.DENY:
        return replace(
            decision,
            runs=False,
            outcome=Outcome.BLOCKED,
            feedback=asked.permission_reason,
            prompt="",
            asked=False,
            auto_approved=False,
        )
    return decision


class ToolPlay:
    """One tool call of the model on the emulator, from its ``tool_use`` to PostToolBatch.
    Its steps are returned unrecorded: the session records them."""

    def __init__(self, session: EmulatedSession, do: str, detail: str, name: str) -> None:
        self.session = session
        self.do, self.detail, self.name = do, detail, name
        self.use_id = "toolu_" + secrets.token_hex(12)

    def refused(self, tool_input: dict[str, Any], problem: str) -> StepOutcome:
        """A call the tool refuses before any hook (e.g. a tool the client does not offer)."""
        self.session.transcript.tool_use(self.use_id, self.name, tool_input)
        return self._refuse(input_rejected(problem))

    def play(self, tool_input: dict[str, Any], check: Check | None, run: Run) -> StepOutcome:
        """The call: its input check, the permission ladder (``ladder.decide``) around the
        PreToolUse hooks, the tool itself, then PostToolUse or PostToolUseFailure."""
        session, name = self.session, self.name
        session.transcript.tool_use(self.use_id, name, tool_input)
        if check is not None:
            problem = _input_error(check, tool_input)
            if problem:
                return self._refuse(input_rejected(problem))

        rule, _ = session.settings.permissions.check(
            name, tool_input, session.project_dir, session.cwd
        )
        call = CallFacts(name, self.detail, str(tool_input.get("command", "")), rule)
        early = decide(call, None)
        if early is not None:  # a denied path refuses a file tool before any hook
            return self._refuse(early)

        pre = session._dispatch(
            Event.PRE_TOOL_USE,
            tool_name=name,
            tool_input=tool_input,
            tool_use_id=self.use_id,
            **mcp_server(name, session.project_dir),
        )
        rewritten = pre.updated_input  # a hook's updatedInput replaces the input whole
        problems = tuple(input_problems(name, rewritten)) if rewritten is not None else ()
        error = ""
        if rewritten is not None and not problems:
            tool_input = schema_keys(name, rewritten)
            error = _input_error(check, tool_input) if check is not None else ""
        said = HookSay(
            pre.stopped,
            pre.permission_decision,
            pre.message,
            pre.permission_reason,
            problems,
            error,
        )
        call = replace(
            call,
            sensitive=self._sensitive_target(tool_input) if not problems else None,
            auto_approve=session.auto_approve,
            unasked=self._unasked(tool_input),
        )
        decision = decide(call, said)
        assert decision is not None  # the ladder always ends once the hooks have spoken
        before = [pre]
        if decision.permission in PROMPTING:  # the client is about to show its prompt
            decision, shown = self._prompt_shown(tool_input, decision)
            before += shown
        if not decision.runs:
            return collect(self._refuse(decision), *before)
        return self._run(tool_input, decision, before, run)

    def _unasked(self, tool_input: dict[str, Any]) -> bool:
        """A read-only call the client makes without asking: Read inside the project, a lone
        read-only Bash command."""
        if self.name == "Read":
            path = self.session.cwd / str(tool_input.get("file_path", ""))
            try:
                inside(self.session.project_dir, path)
            except ValueError:
                return False
            return True
        return self.name == "Bash" and read_only_command(str(tool_input.get("command", "")))

    def _prompt_shown(
        self, tool_input: dict[str, Any], decision: Decision
    ) -> tuple[Decision, list[EventOutcome]]:
        """The permission prompt: PermissionRequest first, whose decision may answer it. Left
        up while the project has Notification hooks, the simulated user (a person away from
        the terminal) answers it late, and observed on 2.1.332 a prompt unanswered for 6 s
        fires Notification in the client's words (the client drops that hook's answer)."""
        session = self.session
        asked = session._dispatch(
            Event.PERMISSION_REQUEST,
            tool_name=self.name,
            tool_input=tool_input,
            permission_suggestions=[],
        )
        if asked.permission_decision in (PermissionDecision.ALLOW, PermissionDecision.DENY):
            return _answered_by_hook(decision, asked), [asked]
        if not session.settings.hooks.get(Event.NOTIFICATION.value):
            return decision, [asked]  # no one to tell: the user answers at once
        waited = session._dispatch(
            Event.NOTIFICATION,
            message=f"Claude needs your permission to use {self.name}",
            notification_type="permission_prompt",
        )
        return decision, [asked, waited]

    def _refuse(self, decision: Decision) -> StepOutcome:
        """A call that did not run: Claude reads why as the tool's error result."""
        transcript = self.session.transcript
        if decision.asked:
            transcript.hook_note("PreToolUse", "user", decision.prompt)
        elif decision.permission is Permission.HOOK_DENY:
            transcript.hook_note("PreToolUse", "claude", decision.feedback)
        transcript.tool_result(self.use_id, decision.feedback, is_error=True)
        return self.session._step(
            self.do,
            self.detail,
            decision.outcome,
            tool_ran=False,
            permission=decision.permission,
            # A turn that ends here sends Claude nothing more (the claude-code engine reads
            # the same); the refusal stays in the transcript for the next turn.
            feedback="" if decision.turn_ended else decision.feedback,
            user_message=decision.prompt,
            turn_ended=decision.turn_ended,
        )

    def _run(
        self,
        tool_input: dict[str, Any],
        decision: Decision,
        before: list[EventOutcome],
        run: Run,
    ) -> StepOutcome:
        session = self.session
        permission, approved = decision.permission, decision.auto_approved
        started = time.monotonic()
        try:
            response, text, is_error = run(tool_input)
        except ToolError as exc:
            step = self._refuse(input_rejected(str(exc), permission))
            step.auto_approved = approved
            return collect(step, *before)
        session.transcript.tool_result(self.use_id, text, is_error=is_error)

        took_ms = int((time.monotonic() - started) * 1000)
        post = self._after(tool_input, response, text, is_error, took_ms)
        step = session._step(
            self.do,
            self.detail,
            decision.outcome,
            tool_ran=True,
            permission=permission,
            auto_approved=approved,
            tool_response=response,
            tool_result=cap(text),
        )
        if post.stopped:
            step.outcome, step.turn_ended = Outcome.STOPPED, True
        elif post.messages:
            step.feedback = post.message
            session.transcript.hook_note(post.event.value, "claude", post.message)
            if post.blocked:
                step.outcome = Outcome.BLOCKED
        batch = session._tool_batch(self.name, tool_input, self.use_id, text)
        if batch.stopped:  # a PostToolBatch hook stopped the agentic loop
            step.outcome, step.turn_ended = Outcome.STOPPED, True
        return collect(step, *before, post, batch)

    def _after(
        self,
        tool_input: dict[str, Any],
        response: Any,
        text: str,
        is_error: bool,
        took_ms: int,
    ) -> EventOutcome:
        """The event after a tool ran. A tool that failed (a Bash command exiting non-zero, or
        cut off by its timeout) fires PostToolUseFailure with the error, not PostToolUse with
        the response; keys in the client's order (the response before the call's id)."""
        if is_error:
            return self.session._dispatch(
                Event.POST_TOOL_USE_FAILURE,
                tool_name=self.name,
                tool_input=tool_input,
                tool_use_id=self.use_id,
                error=cap(text),
                is_interrupt=isinstance(response, dict) and bool(response.get("interrupted")),
                duration_ms=took_ms,
            )
        return self.session._dispatch(
            Event.POST_TOOL_USE,
            tool_name=self.name,
            tool_input=tool_input,
            tool_response=response,
            tool_use_id=self.use_id,
            duration_ms=took_ms,
            **mcp_server(self.name, self.session.project_dir),
        )

    def _sensitive_target(self, tool_input: dict[str, Any]) -> Path | None:
        session = self.session
        folders = list(session.plugin_dirs)
        if self.name in FILE_TOOLS:
            path = tool_input.get("file_path")
            if isinstance(path, str) and is_sensitive(Path(path), session.project_dir, folders):
                return Path(os.path.normpath(path))
            return None
        if self.name == "Bash":
            command = str(tool_input.get("command", ""))
            return sensitive_write(command, session.cwd, session.project_dir, folders)
        return None


# -- what each tool does -----------------------------------------------------------------------


def edit_runners(session: EmulatedSession) -> tuple[Check, Run]:
    """Edit: its check (old_string in the file, once unless replace_all), then the edit."""

    def check(given: dict[str, Any]) -> None:
        check_edit(
            session._target(given["file_path"]),
            given["old_string"],
            given["new_string"],
            bool(given.get("replace_all", False)),
        )

    def run(given: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
        target = session._target(given["file_path"])
        response = apply_edit(
            target,
            given["old_string"],
            given["new_string"],
            bool(given.get("replace_all", False)),
        )
        return response, f"The file {target} has been updated.", False

    return check, run


def write_run(session: EmulatedSession) -> Run:
    def run(given: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
        target = session._target(given["file_path"])
        response = apply_write(target, given["content"])
        verb = "created" if response["type"] == "create" else "updated"
        return response, f"File {verb} successfully at: {target}", False

    return run


def bash_run(session: EmulatedSession, asked: dict[str, Any]) -> Run:
    """Bash as the model ``asked`` it: in the background, or within its timeout (a hook's
    rewrite changes the command, not how it runs)."""
    background = bool(asked.get("run_in_background"))
    given_ms = asked.get("timeout")
    limit = given_ms / 1000 if isinstance(given_ms, int) else DEFAULT_BASH_TIMEOUT

    def run(given: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
        command = given["command"]
        if background:
            shell_id = f"bash_{len(session.background) + 1}"
            log = session.transcript_dir / session.session_id / "background" / f"{shell_id}.log"
            session.background[shell_id] = start_background(
                shell_id,
                command,
                cwd=session.cwd,
                env=session._tool_env(),
                log=log,
                jail=session.confinement,
            )
            response = {
                "stdout": "",
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "backgroundTaskId": shell_id,
            }
            return response, f"Command running in background with ID: {shell_id}", False
        result = run_bash(
            command,
            cwd=session.cwd,
            env=session._tool_env(),
            timeout=limit,
            jail=session.confinement,
        )
        failed = result.interrupted or bool(result.exit_code)
        return result.response(), result.result_text(), failed

    return run


def other_run(session: EmulatedSession, name: str, result: str | None) -> Run:
    """Read runs; WebFetch fails as it does offline on the client; WebSearch and MCP tools
    answer ``result``."""

    def run(given: dict[str, Any]) -> tuple[Any, str, bool]:
        if name == "Read":
            offset, limit = given.get("offset"), given.get("limit")
            return apply_read(
                session._target(str(given.get("file_path", ""))),
                session.cwd,
                offset if isinstance(offset, int) else None,
                limit if isinstance(limit, int) else None,
            )
        return played_tool(name, given, result)

    return run


def _input_error(check: Callable[[dict[str, Any]], None], tool_input: dict[str, Any]) -> str:
    """What the tool's own input check says is wrong ("" when nothing is)."""
    try:
        check(tool_input)
    except ToolError as exc:
        return str(exc)
    return ""


# The parameters of each simulated tool, their JSON types and whether they are required: the
# input schemas the pinned client (2.1.332) sends the model (its api-request-shape lines).
TOOL_SCHEMAS: dict[str, dict[str, tuple[type, bool]]] = {
    "Write": {"file_path": (str, True), "content": (str, True)},
    "Edit": {
        "file_path": (str, True),
        "old_string": (str, True),
        "new_string": (str, True),
        "replace_all": (bool, False),
    },
    "Bash": {
        "command": (str, True),
        "description": (str, False),
        "run_in_background": (bool, False),
        "timeout": (int, False),
        "dangerouslyDisableSandbox": (bool, False),
    },
    "Read": {
        "file_path": (str, True),
        "offset": (int, False),
        "limit": (int, False),
        "pages": (str, False),
        "allow_large": (bool, False),
    },
}
_JSON_TYPE_NAMES = {str: "string", bool: "boolean", int: "number", float: "number"}


def schema_keys(tool: str, given: dict[str, Any]) -> dict[str, Any]:
    """A valid rewritten input as the tool runs with it: only the parameters its schema
    declares. The pinned client drops the others (a hook's updatedInput with an extra field,
    even one nested 20,000 levels deep, runs without it: PostToolUse does not see it;
    tests/differential/cases/updated-input-deep-*.toml), so nothing deep is passed on."""
    schema = TOOL_SCHEMAS.get(tool)
    if schema is None:
        return given
    return {key: value for key, value in given.items() if key in schema}


def input_problems(tool: str, given: dict[str, Any]) -> list[str]:
    """What is wrong with a tool input, worded as the client words it ([] when it is valid)."""
    problems = []
    for param, (kind, required) in TOOL_SCHEMAS.get(tool, {}).items():
        if param not in given:
            if required:
                problems.append(f"The required parameter `{param}` is missing")
            continue
        value = given[param]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            provided = _JSON_TYPE_NAMES.get(type(value), "null" if value is None else "object")
            if isinstance(value, list):
                provided = "array"
            problems.append(
                f"The parameter `{param}` type is expected as `{_JSON_TYPE_NAMES[kind]}` "
                f"but provided as `{provided}`"
            )
    return problems
