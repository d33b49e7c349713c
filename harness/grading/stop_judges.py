"""The judges of a Stop hook's grade: each clause of the contract (lab 07's, SPEC §5) judged
from the Stops the grader observed, a failure named with what happened and the fix."""

from __future__ import annotations

from dataclasses import dataclass

from harness.claude import HookRun, StepOutcome
from harness.claude.scripted import STOP_BLOCK_CAP
from harness.claude.vocabulary import Outcome
from harness.grading.registration import FailingCommand
from harness.grading.stop_grade import (
    BLOCKS,
    IN_TIME,
    LETS_GO,
    NO_LEAK,
    OTHER_BREAKS,
    PASSES,
    REASON,
    SESSION_ENDS,
    SESSION_HELD,
    STALE,
    Canary,
    GradeCheck,
    Phase,
    grade_check,
)
from harness.results import Status

REASON_MAX_LINES = 10
REASON_MAX_CHARS = 1000

_TIMED_OUT_SKIP = f"not judged: the hook was killed at its timeout (see {IN_TIME})"


def _first_line(text: str, limit: int = 120) -> str:
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            if len(line) <= limit:
                return line
            # Cut between words, so a path or option is never shown broken.
            return line[:limit].rsplit(" ", 1)[0] + " …"
    return ""


def _said(run: HookRun) -> str:
    """``exit 1: <first stderr line>``: what a run did, in one line."""
    if run.timed_out:
        return f"killed after {run.duration:.1f} s (timeout)"
    line = _first_line(run.stderr, 200) or _first_line(run.stdout, 200)
    return f"exit {run.exit_code}" + (f": {line}" if line else "")


def _no_run(name: str, expected: str) -> GradeCheck:
    # The hook is the only Stop hook registered, so it always runs; guard anyway.
    return grade_check(
        name,
        Status.FAIL,
        expected,
        "the hook did not run",
        "did not run",
        fix="check the script path",
    )


def _run_to_judge(name: str, expected: str, p: Phase) -> HookRun | GradeCheck:
    """The hook's run in ``p``, or the check's verdict when there is no run to judge: the hook
    did not run, or it was killed at its timeout."""
    if p.run is None:
        return _no_run(name, expected)
    if p.timed_out:
        return grade_check(name, Status.SKIP, expected, _said(p.run), detail=_TIMED_OUT_SKIP)
    return p.run


_SET_E_HINT = (
    "With `set -e`, a failing test command ends the script with its own code "
    "before your `exit 2`: wrap it in `if ! …; then … exit 2; fi`."
)


@dataclass(frozen=True)
class Miss:
    """One way a hook fails a clause: the problem in a few words, why it matters and the fix;
    a ``{field}`` is filled in from what happened."""

    problem: str
    detail: str = ""
    fix: str = ""


# The ways each clause is failed, by clause and a name of the way.
MISSES = {
    (BLOCKS, "json"): Miss(
        "blocks through JSON, not exit 2",
        "Claude Code accepts this, but the contract is exit 2 with the reason on stderr, "
        "which works the same for every event.",
        "print the reason to stderr (`>&2`) and `exit 2`",
    ),
    (BLOCKS, "exit 0"): Miss(
        "never blocks",
        "After `{break_cmd}` the claim is false, yet the hook exited 0: Claude ends the turn "
        "on a false claim.",
        "test the claim and, when it does not hold, print why on stderr and `exit 2`",
    ),
    (BLOCKS, "repaired"): Miss(
        "never blocks: its own build repaired the break",
        "After `{break_cmd}` the hook wrote {file}{more} again itself (a build it runs) and "
        "exited 0: the break it should report is gone before it looks, and every stop pays "
        "for a build.",
        "read what the last run left (the reports) instead of running the build; when they "
        "show a failure, print why on stderr and `exit 2`",
    ),
    (BLOCKS, "other exit"): Miss(
        "exits {code} instead of 2",
        "Exit {code} is a non-blocking error: Claude Code shows the first stderr line and "
        "ends the turn anyway. " + _SET_E_HINT,
        "end the failing branch with `exit 2`",
    ),
    (REASON, "stdout"): Miss(
        "reason on stdout",
        "On exit 2 Claude Code ignores stdout: Claude is told nothing and cannot act on the block.",
        "print the reason to stderr: `echo '…' >&2`",
    ),
    (REASON, "none"): Miss(
        "no reason",
        "Claude is held but not told why.",
        "print one line on stderr: the failed check and the command to run",
    ),
    (REASON, "long"): Miss(
        "reason too long",
        "A Stop reason is an instruction for Claude, not a log: a long one buries the point "
        "and may carry secrets.",
        "name the failed check and the command to run; leave the log in its file",
    ),
    (PASSES, "stopped"): Miss(
        "stops Claude although fixed", fix='drop "continue": false; exit 0 when the claim holds'
    ),
    (PASSES, "json"): Miss(
        "blocks although fixed", fix="exit 0 without a block decision when the claim holds"
    ),
    (PASSES, "other exit"): Miss(
        "exits {code} when fixed",
        "A non-blocking error: the turn ends, but every stop shows a hook error. " + _SET_E_HINT,
        "exit 0 when the claim holds",
    ),
    (SESSION_HELD, "stopped"): Miss(
        "stops Claude instead of holding the turn",
        fix="exit 2 with a reason; `continue: false` ends the session's work",
    ),
    (SESSION_HELD, "ended"): Miss(
        "the session is not held",
        "Claude said done with the artefact broken and the turn ended.",
        "exit 2 with the reason on stderr when the claim does not hold",
    ),
    (SESSION_HELD, "untold"): Miss(
        "Claude is not told why",
        "The turn is held but stderr was empty, so Claude gets no instruction.",
        "print the reason to stderr (`>&2`)",
    ),
    (SESSION_HELD, "misshown"): Miss(
        "feedback differs from the stderr reason",
        "The simulator showed Claude something other than the hook's stderr; please report this.",
    ),
    (LETS_GO, "blocks"): Miss(
        "ignores stop_hook_active",
        "With stop_hook_active: true and the artefact still broken the hook blocks again, so "
        f"the turn only ends when Claude Code overrides it after {STOP_BLOCK_CAP} consecutive "
        "blocks.",
        "read it first: `active=$(jq -r '.stop_hook_active // false')`; when true, print "
        '\'{{"systemMessage": "…still fails…"}}\' and exit 0',
    ),
    (LETS_GO, "other exit"): Miss(
        "exits {code} on stop_hook_active",
        "The turn ends, but with a hook error instead of a message to the user.",
        "print a systemMessage JSON and exit 0",
    ),
    (SESSION_ENDS, "blocks"): Miss("blocks although fixed", fix="exit 0 when the claim holds"),
    (SESSION_ENDS, "stopped"): Miss("stops Claude although fixed", fix='drop "continue": false'),
    (SESSION_ENDS, "error"): Miss("exits {code} when fixed", fix="exit 0 when the claim holds"),
    (STALE, "exit 0"): Miss(
        "trusts a stale artefact",
        "After `{fix_cmd}` and then `{stale_cmd}` the artefact exists but is out of date, and "
        "the hook let the turn end: it proves that a build once ran, not that it ran after "
        "the last change.",
        "compare mtimes: the artefact must be newer than what it is built from "
        "(`find src -newer ARTEFACT`) or than the session start",
    ),
    (STALE, "other exit"): Miss(
        "exits {code} on a stale artefact",
        "Non-blocking: the turn ends on an out-of-date artefact.",
        "exit 2 when the artefact is older than its sources",
    ),
    (OTHER_BREAKS, "lets go"): Miss(
        "lets the turn end after `{command}`",
        "After `{command}` the claim is false in another way than the break command makes it, "
        "and the hook did not block: it checks less than its claim.",
        "check every artefact the claim names, and what it says (a report with failures or "
        "errors is no proof), not only that one file exists",
    ),
    (OTHER_BREAKS, "repaired"): Miss(
        "its own build repaired `{command}`",
        "After `{command}` the hook wrote {file}{more} again itself (a build it runs) and "
        "exited 0: it never sees the break it should report.",
        "read what the last run left (the reports) instead of running the build; when they "
        "show a failure, print why on stderr and `exit 2`",
    ),
    (IN_TIME, "killed"): Miss(
        "too slow for its timeout",
        "A Stop hook that runs past its timeout is cancelled: its output is thrown away and "
        "it does not block.",
        "check what the build left behind (reports, files) instead of running the build, or "
        "raise the timeout (now {timeout:g} s)",
    ),
    (NO_LEAK, "leaks"): Miss(
        "leaks the environment",
        "The hook printed an environment variable holding a secret. Its output goes to "
        "Claude, the transcript and the screen.",
        "never print env, set, keys, .env or whole logs; print only the failed check and the "
        "command to run",
    ),
}


def _miss(name: str, way: str, expected: str, found: str, **happened: object) -> GradeCheck:
    """The clause ``name`` failed in the ``way`` MISSES names, ``found`` what the hook did."""
    miss = MISSES[name, way]
    return grade_check(
        name,
        Status.FAIL,
        expected,
        found,
        miss.problem.format(**happened),
        detail=miss.detail.format(**happened),
        fix=miss.fix.format(**happened),
    )


def _repaired(p: Phase) -> dict[str, str]:
    """The files the break changed that the hook's own run wrote again (its own build), as
    a Miss fills them in; empty when it wrote none of them."""
    repaired = sorted(p.broke & p.rewrote)
    if p.code != 0 or not repaired:
        return {}
    return {"file": repaired[0], "more": f" and {len(repaired) - 1} more" * (len(repaired) > 1)}


def judge_blocks(p: Phase, break_cmd: str) -> GradeCheck:
    """A hook that wrote the broken files again itself and exited 0 is told so, not only
    "never blocks"."""
    expected = "exit 2"
    run = _run_to_judge(BLOCKS, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if p.code == 2:
        return grade_check(BLOCKS, Status.PASS, expected, _said(run))
    if p.code == 0 and p.blocked:
        return _miss(BLOCKS, "json", expected, 'exit 0 with {"decision": "block"}')
    repaired = _repaired(p)
    if repaired:
        return _miss(BLOCKS, "repaired", expected, _said(run), break_cmd=break_cmd, **repaired)
    if p.code == 0:
        return _miss(BLOCKS, "exit 0", expected, _said(run), break_cmd=break_cmd)
    return _miss(BLOCKS, "other exit", expected, _said(run), code=p.code)


def judge_reason(p: Phase) -> GradeCheck:
    expected = f"non-empty, ≤ {REASON_MAX_LINES} lines and ≤ {REASON_MAX_CHARS} characters"
    run = _run_to_judge(REASON, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if p.code == 0:
        return grade_check(
            REASON,
            Status.SKIP,
            expected,
            "the hook did not block",
            detail=f"not judged: the hook gave no exit-2 reason (see {BLOCKS})",
        )
    reason = run.stderr.strip()
    if not reason and run.stdout.strip():
        found = f"stderr empty; stdout: {_first_line(run.stdout)!r}"
        return _miss(REASON, "stdout", expected, found)
    if not reason:
        return _miss(REASON, "none", expected, "stderr and stdout empty")
    lines = len(reason.splitlines())
    if lines > REASON_MAX_LINES or len(reason) > REASON_MAX_CHARS:
        return _miss(REASON, "long", expected, f"{lines} lines, {len(reason)} characters")
    return grade_check(
        REASON,
        Status.PASS,
        expected,
        repr(_first_line(reason)) + (f" (+{lines - 1} lines)" if lines > 1 else ""),
    )


def _still_blocks(fix_cmd: str, active: Phase, failing: FailingCommand | None) -> str:
    """Why a hook that blocks although fixed matters, in terms of its stop_hook_active branch,
    and which of its commands fails."""
    fix = fix_cmd  # whole: it is the command a person runs again
    if failing is not None:
        why = f"its check `{failing.command}` fails after `{fix}` ({failing.said})"
    else:
        why = f"after `{fix}` the claim holds, yet the hook refuses the stop"
    if active.code == 0 and not active.blocked:
        return (
            f"{why[0].upper()}{why[1:]}. In a session Claude is held once with that reason, "
            "then the hook lets go on stop_hook_active: every turn ends with its "
            "still-fails message, whatever Claude does."
        )
    return (
        f"{why[0].upper()}{why[1:]}. The hook also blocks on stop_hook_active, so every turn "
        f"is held until Claude Code's cap of {STOP_BLOCK_CAP} blocks in a row ends it."
    )


def judge_passes(
    p: Phase, fix_cmd: str, active: Phase, failing: FailingCommand | None = None
) -> GradeCheck:
    expected = "exit 0, no block"
    run = _run_to_judge(PASSES, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if p.code == 0 and p.outcome is not None and p.outcome.stopped:
        return _miss(PASSES, "stopped", expected, 'exit 0 with {"continue": false}')
    if p.code == 0 and p.blocked:
        return _miss(PASSES, "json", expected, 'exit 0 with {"decision": "block"}')
    if p.code == 0:
        return grade_check(PASSES, Status.PASS, expected, _said(run))
    if p.code != 2:
        return _miss(PASSES, "other exit", expected, _said(run), code=p.code)
    return grade_check(
        PASSES,
        Status.FAIL,
        expected,
        _said(run) + (f"; `{failing.command}` fails" if failing is not None else ""),
        "blocks although fixed",
        detail=_still_blocks(fix_cmd, active, failing),
        fix=f"run `{failing.command}` by hand after `{fix_cmd}`, and make the hook's check "
        "one that passes when the claim holds"
        if failing is not None
        else f"run `{fix_cmd}`, then the hook by hand, and see which test fails",
    )


def _step_to_judge(name: str, expected: str, p: Phase, timed_out: str) -> StepOutcome | GradeCheck:
    """The session step of ``p``, or the check's verdict when there is none to judge: the hook
    did not run, or it was killed at its timeout (``timed_out``: what is found then)."""
    if p.run is None or p.step is None:
        return _no_run(name, expected)
    if p.timed_out:
        return grade_check(name, Status.SKIP, expected, timed_out, detail=_TIMED_OUT_SKIP)
    return p.step


def judge_session_held(p: Phase) -> GradeCheck:
    expected = "stop blocked; Claude is shown the stderr reason"
    step = _step_to_judge(SESSION_HELD, expected, p, "the hook timed out; the turn ended")
    if isinstance(step, GradeCheck):
        return step
    if step.outcome == Outcome.STOPPED:
        return _miss(SESSION_HELD, "stopped", expected, "Claude stopped (continue: false)")
    if step.outcome != Outcome.BLOCKED:
        why = (
            "the hook exited 0"
            if p.code == 0
            else f"exit {p.code} is a non-blocking error, shown as {step.errors[0]!r}"
            if step.errors
            else f"the hook exited {p.code}"
        )
        return _miss(SESSION_HELD, "ended", expected, f"turn ended: {why}")
    return _judge_reason_shown(p.code, p.run.stderr if p.run else "", step, expected)


def _judge_reason_shown(
    code: int | None, stderr: str, step: StepOutcome, expected: str
) -> GradeCheck:
    """The stop was held: Claude must be shown the hook's stderr reason, whole."""
    shown = step.feedback.strip()
    # Claude is sent "Stop hook feedback:\n[COMMAND]: STDERR": the reason, whole, in a frame.
    reason = stderr.strip() if code == 2 else ""
    if code == 2 and not reason:
        return _miss(SESSION_HELD, "untold", expected, f"blocked; Claude was shown {shown!r}")
    if code == 2 and reason not in shown:
        return _miss(SESSION_HELD, "misshown", expected, f"Claude was shown {shown[:120]!r}")
    said = _first_line(reason) if reason else _first_line(shown)
    return grade_check(SESSION_HELD, Status.PASS, expected, f"blocked; Claude was shown {said!r}")


def judge_lets_go(p: Phase) -> GradeCheck:
    expected = "exit 0 (ideally a systemMessage)"
    run = _run_to_judge(LETS_GO, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if p.blocked or p.code == 2:
        blocks = 1 + sum(1 for r in p.extra_runs if r.exit_code == 2)
        capped = p.step is not None and p.step.turn_ended
        found = f"{_said(run)} — blocked {blocks} more time{'s' if blocks > 1 else ''}" + (
            f"; Claude Code's cap of {STOP_BLOCK_CAP} ended the turn" if capped else ""
        )
        return _miss(LETS_GO, "blocks", expected, found)
    if p.code != 0:
        return _miss(LETS_GO, "other exit", expected, _said(run), code=p.code)
    message = (
        p.step.system_message
        if p.step is not None
        else p.outcome.system_message
        if p.outcome is not None
        else ""
    )
    if message:
        return grade_check(
            LETS_GO, Status.PASS, expected, f"exit 0, systemMessage {_first_line(message, 200)!r}"
        )
    return grade_check(
        LETS_GO,
        Status.PASS,
        expected,
        "exit 0, no systemMessage",
        detail="Lets go silently: a systemMessage would tell the user the check still fails.",
    )


def judge_session_ends(p: Phase) -> GradeCheck:
    expected = "stop allowed, turn ends, no hook error"
    said = _said(p.run) if p.run is not None else ""
    step = _step_to_judge(SESSION_ENDS, expected, p, said)
    if isinstance(step, GradeCheck):
        return step
    if step.outcome == Outcome.BLOCKED:
        # The hook's own reason: the feedback's first line is the client's frame ("Stop hook
        # feedback:"), which says nothing.
        return _miss(SESSION_ENDS, "blocks", expected, f"blocked ({said})")
    if step.outcome == Outcome.STOPPED:
        return _miss(SESSION_ENDS, "stopped", expected, "Claude stopped (continue: false)")
    if step.errors:
        found = f"turn ended with {step.errors[0]!r}"
        return _miss(SESSION_ENDS, "error", expected, found, code=p.code)
    return grade_check(SESSION_ENDS, Status.PASS, expected, "turn ended, no block")


def judge_stale(
    p: Phase | None,
    broken: Phase,
    fix_cmd: str,
    stale_cmd: str | None,
    source: str = "SOURCE",
) -> GradeCheck:
    """``source``: a file of the project the artefact is built from, for the example a person
    copies (walk-j: "--stale 'touch src/…'" cut the command it offered)."""
    expected = "exit 2"
    if p is None or stale_cmd is None:
        return grade_check(
            STALE,
            Status.SKIP,
            expected,
            "no stale command given",
            detail="Not judged: without a command that makes the artefact stale, "
            "freshness cannot be tested.",
            fix=f"give --stale CMD, a command that makes a source newer than the artefact, e.g. "
            f"`--stale 'touch {source}'`",
        )
    run = _run_to_judge(STALE, expected, p)
    if isinstance(run, GradeCheck):
        return run
    if broken.code != 2:
        return grade_check(
            STALE,
            Status.SKIP,
            expected,
            _said(run),
            detail=f"not judged: the hook does not block a missing artefact either (see {BLOCKS})",
        )
    if p.code == 2:
        return grade_check(STALE, Status.PASS, expected, _said(run))
    if p.code == 0:
        return _miss(STALE, "exit 0", expected, _said(run), fix_cmd=fix_cmd, stale_cmd=stale_cmd)
    return _miss(STALE, "other exit", expected, _said(run), code=p.code)


def judge_other_breaks(phases: list[Phase], commands: tuple[str, ...]) -> GradeCheck:
    """Every other way the claim is false (a red report, a missing one) is blocked too."""
    expected = "exit 2 after each"
    for p, command in zip(phases, commands, strict=True):
        run = _run_to_judge(OTHER_BREAKS, expected, p)
        if isinstance(run, GradeCheck):
            return run
        if p.code != 2:
            found = f"after `{command}`: {_said(run)}"
            repaired = _repaired(p)
            way = "repaired" if repaired else "lets go"
            return _miss(OTHER_BREAKS, way, expected, found, command=command, **repaired)
    blocked = f"{len(commands)} of {len(commands)} blocked"
    return grade_check(OTHER_BREAKS, Status.PASS, expected, blocked)


def judge_timeout(runs: list[tuple[str, HookRun]], timeout: float) -> GradeCheck:
    expected = f"every run under {timeout:g} s"
    slow = [(label, run) for label, run in runs if run.timed_out]
    if slow:
        where = ", ".join(dict.fromkeys(label for label, _ in slow))
        found = (
            f"killed after {slow[0][1].duration:.1f} s in {len(slow)} of {len(runs)} runs ({where})"
        )
        return _miss(IN_TIME, "killed", expected, found, timeout=timeout)
    longest = max((run.duration for _, run in runs), default=0.0)
    return grade_check(
        IN_TIME, Status.PASS, expected, f"slowest of {len(runs)} runs: {longest:.1f} s"
    )


def judge_leak(runs: list[tuple[str, HookRun]], canary: Canary) -> GradeCheck:
    expected = "no planted secret in stdout or stderr"
    for label, run in runs:
        for stream, text in (("stderr", run.stderr), ("stdout", run.stdout)):
            names = canary.found_in(text)
            if names:
                found = f"the value of {', '.join(names)} on {stream} ({label})"
                return _miss(NO_LEAK, "leaks", expected, found)
    return grade_check(NO_LEAK, Status.PASS, expected, f"no secret in {len(runs)} runs")
