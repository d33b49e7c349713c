"""Grading a guard: a PreToolUse, PermissionRequest or UserPromptSubmit hook, against the
case table its author writes (harness/grading/cases.py) and the contract every guard owes.

Each case is played twice. Through a scripted session on each engine asked for, so the
verdict is the client's (the real, pinned client on ``claude-code``); and by hand, the case's
JSON fed to the hook's command as the client would send it, which is what the contract is
judged on: it fails open on bad input, prints only JSON on stdout (or nothing), gives a reason
with every refusal, stays quiet on tools its matcher does not name, keeps to its timeout, and
never crashes on its own cases (an exit that is neither 0 nor 2 is a crash: the client shows a
hook error and lets the call through).

In the sessions the guard is registered alone, with its matchers and timeout, and every tool a
case calls is allowed by a permission rule: what stops a call is the guard, never a prompt the
grade did not ask for. A PermissionRequest guard gets no such rule: it answers the prompt.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.claude.dispatch import DENIED_BY_HOOK, hook_env, route
from harness.claude.engines import ScriptedSession, open_session
from harness.claude.events import Event
from harness.claude.matchers import matches
from harness.claude.runner import HookRun, run_command_hook
from harness.claude.scripted import StepOutcome
from harness.claude.settings import Settings, parse_settings
from harness.claude.vocabulary import Outcome, Permission, PermissionDecision
from harness.grading.cases import ALLOWED, ASKED, BLOCKED, Case
from harness.grading.junit import JUnitCase, junit_xml
from harness.grading.registration import Registered
from harness.jail import Confinement
from harness.results import Status
from harness.schema import pick

GUARD_EVENTS = (Event.PRE_TOOL_USE, Event.PERMISSION_REQUEST, Event.USER_PROMPT_SUBMIT)
SETTINGS_LABEL = "verify-hook guard settings"

# The contract's clauses, in the order the grade lists them.
NO_CRASH = "no-crash"
FAILS_OPEN = "fails-open"
ONLY_JSON = "only-json"
REASON = "reason-with-refusal"
QUIET = "quiet-on-other-tools"
IN_TIME = "within-timeout"
ENGINES_AGREE = "engines-agree"
# Tools fed to a guard to see it stay quiet, the first its matchers do not name.
_OTHER_TOOLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Read", {"file_path": "README.md"}),
    ("Glob", {"pattern": "**/*.md"}),
    ("WebSearch", {"query": "hook lab"}),
    ("Bash", {"command": "ls"}),
    ("Write", {"file_path": "notes.txt", "content": "a note\n"}),
)

Progress = Callable[[str], None]
# How a call that went through got there when the person was asked first.
_ASKED_FIRST = frozenset(
    {
        Permission.PROMPTED,
        Permission.ASK,
        Permission.DEFER,
        Permission.ASK_RULE,
        Permission.ASK_SENSITIVE,
    }
)


@dataclass
class Check:
    """One clause of the contract, or one engine's cases."""

    name: str
    title: str
    passed: bool
    found: str
    rows: list[str] = field(default_factory=list)  # the rows that fail it, one line each
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "status": (Status.PASS if self.passed else Status.FAIL).value,
            "passed": self.passed,
            "found": self.found,
            "rows": self.rows,
            "fix": self.fix,
        }


@dataclass
class CaseRow:
    """One case on one engine (``by hand``: fed to the command directly)."""

    case: Case
    engine: str
    got: str  # blocked | allowed | asked | error
    said: str = ""  # the reason the client (or the hook) gave
    exit_code: int | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.got == self.case.want

    def line(self) -> str:
        why = f" ({self.said})" if self.said else ""
        want = f"wanted {self.case.want}, got {self.got}"
        return f"case {self.case.number} {self.case.label!r}: {want}{why}"

    def to_json(self) -> dict[str, Any]:
        return {
            **self.case.to_json(),
            **pick(self, "engine got passed said exit_code"),
            "seconds": round(self.seconds, 4),
        }


@dataclass
class GuardGrade:
    script: Path
    project_dir: Path
    events: tuple[str, ...]
    engines: tuple[str, ...]
    timeout: float
    rows: list[CaseRow] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    hand_rows: list[CaseRow] = field(default_factory=list)  # each case fed to the command

    @property
    def tests(self) -> list[tuple[str, bool]]:
        """Every row and clause as one test: what ``N passed, M failed`` counts."""
        return [(f"{r.engine}: {r.case.label}", r.passed) for r in self.rows] + [
            (c.title, c.passed) for c in self.checks
        ]

    @property
    def passed(self) -> bool:
        return all(ok for _, ok in self.tests)

    def summary(self) -> str:
        tests = self.tests
        failed = sum(1 for _, ok in tests if not ok)
        return f"{len(tests) - failed} passed, {failed} failed"

    def seconds(self, engine: str) -> float:
        return sum(r.seconds for r in self.rows if r.engine == engine)

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "summary": self.summary(),
            "kind": "guard",
            "script": str(self.script),
            "project_dir": str(self.project_dir),
            "events": list(self.events),
            "engines": list(self.engines),
            "timeout": self.timeout,
            "checks": [c.to_json() for c in self.checks],
            "cases": [r.to_json() for r in self.rows],
            "by_hand": [r.to_json() for r in self.hand_rows],
            "seconds": {
                **{e: round(self.seconds(e), 3) for e in self.engines},
                BY_HAND: round(sum(r.seconds for r in self.hand_rows), 3),
            },
        }

    def junit_xml(self) -> str:
        """The grade as JUnit XML: one testcase per case and engine, and per clause."""
        name = self.script.name
        tests = [
            JUnitCase(
                f"{name}.{r.engine}",
                f"case {r.case.number}: {r.case.label}",
                r.passed,
                r.line(),
                seconds=r.seconds,
            )
            for r in self.rows
        ] + [
            JUnitCase(f"{name}.contract", c.title, c.passed, c.found, "\n".join(c.rows))
            for c in self.checks
        ]
        return junit_xml(f"verify-hook {name}", tests)


BY_HAND = "by-hand"


# -- settings --------------------------------------------------------------------------------


def guard_settings(entries: Sequence[Registered], cases: Sequence[Case]) -> dict[str, Any]:
    """The guard alone, as registered, and an allow rule for every tool a case calls (unless
    it answers permission prompts, which a rule would never show)."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        handler: dict[str, Any] = {
            "type": "command",
            "command": entry.hook.command,
            "timeout": entry.hook.timeout,
        }
        if entry.hook.args is not None:
            handler["args"] = list(entry.hook.args)
        group: dict[str, Any] = {"hooks": [handler]}
        if entry.matcher is not None:
            group["matcher"] = entry.matcher
        hooks.setdefault(entry.event, []).append(group)
    data: dict[str, Any] = {"hooks": hooks}
    if Event.PERMISSION_REQUEST.value not in hooks:
        tools = sorted({c.tool for c in cases if c.tool is not None})
        data["permissions"] = {"allow": tools}
    return data


# -- by hand ---------------------------------------------------------------------------------


class _ByHand:
    """The guard's command fed JSON directly, as the client would send it."""

    def __init__(
        self, project: Path, entries: Sequence[Registered], jail: Confinement | None
    ) -> None:
        self.project = project
        self.entries = entries
        self.session = str(uuid.uuid4())  # shaped as the client's, as is every variable
        self.env = hook_env(
            project, None, None if jail is None else jail.environment(), self.session
        )
        self.transcript = project / ".hooklab-verify-transcript.jsonl"
        self.runs: list[tuple[str, HookRun]] = []  # (what was fed, the run)

    def payload(self, event: str, tool: str | None, tool_input: dict[str, Any] | None) -> bytes:
        body: dict[str, Any] = {
            "session_id": self.session,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "permission_mode": "default",
            "hook_event_name": event,
        }
        if tool is None:
            body["prompt"] = (tool_input or {}).get("prompt", "")
        else:
            body["tool_name"] = tool
            body["tool_input"] = _absolute(tool_input or {}, self.project)
            if event == Event.PRE_TOOL_USE.value:
                body["tool_use_id"] = "toolu_" + secrets.token_hex(12)
        return json.dumps(body, separators=(",", ":")).encode()

    def feed(self, entry: Registered, stdin: bytes, what: str) -> HookRun:
        run = run_command_hook(entry.event, entry.hook, stdin, cwd=self.project, env=self.env)
        self.runs.append((what, run))
        return run

    def case(self, case: Case) -> CaseRow:
        """The case fed to every entry that the client would run for it."""
        started = time.monotonic()
        event, tool = _case_event(case, self.entries), case.tool
        chosen = [e for e in self.entries if e.event == event and _covers(e, tool)]
        given = {"prompt": case.prompt} if case.prompt is not None else case.tool_input
        stdin = self.payload(event, tool, given)
        runs = [self.feed(e, stdin, f"case {case.number}") for e in chosen]
        got, said = _verdict_of(Event(event), runs, tool)
        code = runs[0].exit_code if runs else None
        return CaseRow(case, BY_HAND, got, said, code, time.monotonic() - started)


def _absolute(tool_input: dict[str, Any], project: Path) -> dict[str, Any]:
    """The client sends file paths absolute."""
    given = dict(tool_input)
    path = given.get("file_path")
    if isinstance(path, str) and not Path(path).is_absolute():
        given["file_path"] = str(project / path)
    return given


def _case_event(case: Case, entries: Sequence[Registered]) -> str:
    if case.prompt is not None:
        return Event.USER_PROMPT_SUBMIT.value
    events = {e.event for e in entries}
    if Event.PERMISSION_REQUEST.value in events and Event.PRE_TOOL_USE.value not in events:
        return Event.PERMISSION_REQUEST.value
    return Event.PRE_TOOL_USE.value


def _covers(entry: Registered, tool: str | None) -> bool:
    return tool is None or matches(entry.matcher, tool)


def _verdict_of(event: Event, runs: list[HookRun], tool: str | None) -> tuple[str, str]:
    """What the client makes of the runs: blocked, asked or allowed, and the reason given."""
    out = route(event, runs, tool)
    if out.blocked or out.stopped or out.permission_decision == PermissionDecision.DENY:
        # The client's stand-in for a deny without a message is no reason from the hook.
        given = "" if out.permission_reason == DENIED_BY_HOOK else out.permission_reason
        return BLOCKED, _first_line(out.reason or given or out.stop_reason)
    if out.permission_decision in (PermissionDecision.ASK, PermissionDecision.DEFER):
        return ASKED, _first_line(out.permission_reason)
    if event == Event.PERMISSION_REQUEST and out.permission_decision != PermissionDecision.ALLOW:
        return ASKED, ""  # nobody answered the prompt: the user is asked
    crashed = [r for r in runs if r.exit_code not in (0, 2)]
    return ALLOWED, _first_line(crashed[0].stderr) if crashed else ""


def _first_line(text: str, limit: int = 120) -> str:
    """The first line said; a long one keeps its end, where a shell puts the error
    (``/long/path/hook.sh: line 7: X: unbound variable``)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    return lines[0] if len(lines[0]) <= limit else "…" + lines[0][-(limit - 1) :]


# -- sessions --------------------------------------------------------------------------------


def _play(session: ScriptedSession, case: Case) -> StepOutcome:
    given = case.tool_input or {}
    if case.prompt is not None:
        return session.prompt(case.prompt)
    if case.tool == "Bash":
        return session.bash(given["command"], description=case.label)
    if case.tool == "Write":
        return session.write(given["file_path"], given["content"])
    if case.tool == "Edit":
        return session.edit(
            given["file_path"],
            given["old_string"],
            given["new_string"],
            bool(given.get("replace_all", False)),
        )
    return session.tool(str(case.tool), given)


def _session_row(session: ScriptedSession, engine: str, case: Case) -> CaseRow:
    started = time.monotonic()
    step = _play(session, case)
    got = {
        Outcome.BLOCKED: BLOCKED,
        Outcome.STOPPED: BLOCKED,
        Outcome.ASKED: ASKED,
        Outcome.ALLOWED: ALLOWED,
    }.get(step.outcome, "error")
    if got == ALLOWED and step.permission in _ASKED_FIRST and not _answered(step):
        got = ASKED  # the person was shown the prompt (the scripted one says yes)
    said = step.feedback or step.user_message or "; ".join(step.errors) or "; ".join(step.notes)
    runs = step.hooks
    code = runs[0].exit_code if runs else None
    return CaseRow(case, engine, got, _first_line(said), code, time.monotonic() - started)


def _answered(step: StepOutcome) -> bool:
    """Whether a PermissionRequest hook answered the prompt with allow: the client then
    withdraws it, though the emulator still labels the call ``prompted``."""
    runs = [r for r in step.hooks if r.event == Event.PERMISSION_REQUEST.value]
    decided = route(Event.PERMISSION_REQUEST, runs).permission_decision if runs else None
    return decided == PermissionDecision.ALLOW


def play_cases(
    engine: str,
    project: Path,
    settings: Settings,
    cases: Sequence[Case],
    jail: Confinement | None,
    progress: Progress,
) -> list[CaseRow]:
    """Every case on ``engine``, in one session (a prompt case ends its turn; the next
    starts a new one, as a person's next message would)."""
    rows: list[CaseRow] = []
    with open_session(engine, project, settings, confinement=jail) as session:
        for case in cases:
            progress(f"{engine}: case {case.number} of {len(cases)}")
            rows.append(_session_row(session, engine, case))
    return rows


# -- the contract ----------------------------------------------------------------------------


def _check(name: str, title: str, bad: list[str], good: str, fix: str) -> Check:
    if not bad:
        return Check(name, title, True, good)
    return Check(name, title, False, f"{len(bad)} fail{'s' if len(bad) == 1 else ''}", bad, fix)


def _no_crash(hand: list[CaseRow], by_hand: _ByHand) -> Check:
    bad = []
    for what, run in by_hand.runs:
        if what.startswith("case ") and not run.timed_out and run.exit_code not in (0, 2):
            bad.append(f"{what}: exit {run.exit_code}: {_first_line(run.stderr) or 'no stderr'}")
    return _check(
        NO_CRASH,
        "runs its own cases without crashing",
        bad,
        f"exit 0 or 2 on all {len(hand)} cases",
        "an exit other than 0 or 2 is a hook error the client shows, and the call goes "
        "through: run the case by hand (the JSON in --json) and mend what its stderr names",
    )


def _fails_open(by_hand: _ByHand) -> Check:
    bad = []
    for entry in by_hand.entries:
        for label, stdin in (("garbage on stdin", b"this is not JSON {"), ("empty stdin", b"")):
            run = by_hand.feed(entry, stdin, label)
            verdict, _ = _verdict_of(Event(entry.event), [run], None)
            if run.exit_code != 0 or verdict == BLOCKED:
                said = _first_line(run.stderr) or _first_line(run.stdout)
                bad.append(f"{label} ({entry.event}): exit {run.exit_code}: {said or '-'}")
    return _check(
        FAILS_OPEN,
        "fails open on bad input",
        bad,
        "exit 0, nothing blocked, on garbage and on empty stdin",
        "when the JSON cannot be read, exit 0 without a decision (e.g. `input=$(cat) || "
        "exit 0`, `jq ... || exit 0`), so a broken event lets the call go",
    )


def _only_json(by_hand: _ByHand) -> Check:
    bad = []
    for what, run in by_hand.runs:
        text = run.stdout.strip()
        plain_ok = run.event == Event.USER_PROMPT_SUBMIT.value and not text.startswith("{")
        if text and not plain_ok and not _is_json_object(text):
            bad.append(f"{what}: stdout {text[:60]!r}")
    return _check(
        ONLY_JSON,
        "only JSON on stdout (or nothing)",
        bad,
        f"{len(by_hand.runs)} runs: stdout empty or one JSON object",
        "print the decision as one JSON object and everything else to stderr: the client "
        "ignores a stdout that is not valid JSON, and with it the decision",
    )


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _reason(hand: list[CaseRow]) -> Check:
    refused = [r for r in hand if r.got == BLOCKED]
    bad = [
        f"case {r.case.number} {r.case.label!r}: refused with no reason"
        for r in refused
        if not r.said
    ]
    return _check(
        REASON,
        "a reason with every refusal",
        bad,
        f"{len(refused)} refusals, each with a reason" if refused else "no refusal to judge",
        "on exit 2 write the reason to stderr; with JSON give permissionDecisionReason "
        "(or reason): it is all Claude is told",
    )


def _quiet(by_hand: _ByHand) -> Check:
    bad, fed = [], 0
    tool_entries = [e for e in by_hand.entries if e.event != Event.USER_PROMPT_SUBMIT.value]
    for entry in tool_entries:
        others = [(t, i) for t, i in _OTHER_TOOLS if not matches(entry.matcher, t)][:2]
        for tool, tool_input in others:
            fed += 1
            run = by_hand.feed(entry, by_hand.payload(entry.event, tool, tool_input), tool)
            if run.exit_code != 0 or run.stdout.strip():
                said = _first_line(run.stdout) or _first_line(run.stderr) or "-"
                bad.append(f"{tool} ({entry.event}): exit {run.exit_code}: {said}")
    good = f"exit 0 and no output on {fed} calls of other tools"
    if not tool_entries:
        good = "on no tool event: no tool call to stay quiet on"
    elif not fed:
        good = "registered on every tool: no other tool to stay quiet on"
    return _check(
        QUIET,
        "quiet on tools it does not match",
        bad,
        good,
        "read tool_name first and exit 0 with no output for a tool the guard is not about",
    )


def _in_time(by_hand: _ByHand, timeout: float) -> Check:
    runs = by_hand.runs
    bad = [f"{what}: killed after {run.duration:.1f} s" for what, run in runs if run.timed_out]
    slowest = max((run.duration for _, run in by_hand.runs), default=0.0)
    return _check(
        IN_TIME,
        "within its timeout",
        bad,
        f"slowest run {slowest:.2f} s of {timeout:g} s",
        "make the check cheaper, or raise the entry's timeout in .claude/settings.json",
    )


def _agree(rows: list[CaseRow], hand: list[CaseRow]) -> Check:
    by_case: dict[int, dict[str, str]] = {}
    for row in [*rows, *hand]:
        by_case.setdefault(row.case.number, {})[row.engine] = row.got
    bad = []
    for number, got in by_case.items():
        if len(set(got.values())) > 1:
            label = next(r.case.label for r in hand if r.case.number == number)
            said = ", ".join(f"{e} {v}" for e, v in got.items())
            bad.append(f"case {number} {label!r}: {said}")
    sources = ", ".join(dict.fromkeys(r.engine for r in [*rows, *hand]))
    return _check(
        ENGINES_AGREE,
        f"the same verdict on {sources}",
        bad,
        f"{len(by_case)} cases, one verdict each",
        "read the row's reasons: a hook that behaves differently under the client (its "
        "environment, its working folder, ${CLAUDE_PLUGIN_ROOT}) is named there",
    )


def grade_guard(
    project: Path,
    script: Path,
    entries: Sequence[Registered],
    cases: Sequence[Case],
    *,
    engines: Sequence[str],
    confinement: Confinement | None = None,
    progress: Progress | None = None,
) -> GuardGrade:
    """Grade ``script`` (registered as ``entries``) against ``cases`` on each of ``engines``
    in ``project``, a throwaway copy: its settings are replaced by the guard's alone, and
    allowed Writes and commands change it."""
    say = progress or (lambda _: None)
    timeout = max(e.hook.timeout for e in entries)
    events = tuple(dict.fromkeys(e.event for e in entries))
    grade = GuardGrade(script, project, events, tuple(engines), timeout)
    by_hand = _ByHand(project, entries, confinement)
    hand = []
    for case in cases:
        say(f"by hand: case {case.number} of {len(cases)}")
        hand.append(by_hand.case(case))
    data = guard_settings(entries, cases)
    settings = load_guard_settings(data)
    register_alone(project, data)
    for engine in engines:
        grade.rows += play_cases(engine, project, settings, cases, confinement, say)
    grade.hand_rows = hand
    grade.checks = [
        _no_crash(hand, by_hand),
        _fails_open(by_hand),
        _reason(hand),
        _quiet(by_hand),
        _only_json(by_hand),
        _in_time(by_hand, timeout),
        _agree(grade.rows, hand),
    ]
    return grade


def register_alone(project: Path, data: dict[str, Any]) -> None:
    """Make ``data`` the project's only settings: the real client reads the project's own
    files, not the settings object a session is given. ``project`` is a throwaway copy."""
    folder = project / ".claude"
    folder.mkdir(exist_ok=True)
    (folder / "settings.local.json").unlink(missing_ok=True)
    (folder / "settings.json").write_text(json.dumps(data, indent=2) + "\n")


def load_guard_settings(data: dict[str, Any]) -> Settings:
    return parse_settings(data, SETTINGS_LABEL)
