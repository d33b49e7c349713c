"""Why a recorded session does not replay, or misses a moment, read from its own tool calls.

A live step's check replays the participant's session against the hooks as they were when the
step began. When the session itself changed what the hooks are, or forged what they trust, or
the client refused a call on its own, the replay and the recording part, and "the hooks do not
give a verdict it records" names no cause. Each cause here was seen on the real client
(2.1.332) in a newcomer's walk:
- a Write, Edit or Bash call that changed a hook script or the settings (``sed -i '2i exit 0'
  scripts/check-before-stop.sh``): the hooks that should have held the session did not, and
  the file stays changed in the workspace until it is put back;
- a Bash or Write call that wrote a marker or a report the hooks trust (the coverage audit's
  ``.git/aiup-coverage-checked/UC-005``, ``target/surefire-reports``) instead of the agent or
  the sensors that write it;
- a call the client refused itself, before any hook (``Blocked: standalone sleep 25``).
"""

from __future__ import annotations

import re
from pathlib import Path

from harness import proc
from harness.claude.recorded import Timeline, ToolCall
from harness.claude.sensitive import bash_write_targets
from harness.claude.settings import load_settings
from harness.engine.checks.live_causes import LiveCause, diagnose
from harness.engine.context import CheckContext
from harness.errors import HarnessError

REPLAY = "Hook Lab's replay"
FILE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
# Files that are the hooks (or decide which hooks run), whoever registered them.
HOOK_FILES = re.compile(r"(\.claude/hooks/[\w./-]+|\.claude/settings(?:\.local)?\.json)")
SCRIPT = re.compile(r"[\w./-]+\.(?:sh|py|js|mjs|ts)")  # a hook command that starts a file
# What the hooks trust as done by someone else: the audit agent's marker, the sensors' reports.
TRUSTED = (
    (
        re.compile(r"\.git/(aiup-coverage-checked)(?:/[\w.-]+)?"),
        "the coverage audit's marker",
        "no coverage audit ran for it: the marker is what the audit agent's SubagentStop hook "
        "writes when the agent ends",
        # walk-s: the guard took the marker, so the spec reads Done now; rm alone left that.
        "lab reset (it puts back what the session changed, the Status too, and removes the "
        "marker; your files are backed up first), start claude again and ask it to run the "
        "audit agent (aiup-vaadin-jooq:uc-coverage); its hook writes the marker",
    ),
    (
        re.compile(r"target/surefire-reports(?:/[\w.*-]+)?"),
        "the sensors' reports",
        "no sensor run wrote them: the hooks trust target/surefire-reports as Maven's own",
        "start claude again and ask it to run ./mvnw -q test -Dgroups=sensor on its own, "
        "nothing after it, and to write nothing into target/surefire-reports",
    ),
)
TOOL_USE_ERROR = "<tool_use_error>"


def session_cause(
    ctx: CheckContext, timeline: Timeline, divergence: str, *, matched: int
) -> LiveCause | None:
    """Why a participant's own session fails, when a cause is known: first what its own
    calls did (here), then how it was started (live_causes.diagnose: wrong folder, agent not
    loaded, no hook ran, the permission mode's refusal, a client Hook Lab does not know)."""
    root = ctx.workspace.root
    return replay_cause(timeline, root, ctx.step.start_ref, divergence) or diagnose(
        timeline, root, matched=matched
    )


def replay_cause(
    timeline: Timeline, root: Path, start: str | None, divergence: str = ""
) -> LiveCause | None:
    """The first cause in the session's own tool calls that explains why it fails: a hook
    changed, a trusted file written by hand, or (at the line the replay parts from the
    recording) the client's own refusal. ``root``: the workspace as it is now; ``start``: the
    git ref of the step's start (None: HEAD)."""
    parted = re.search(r"transcript line (\d+)", divergence)
    line = int(parted.group(1)) if parted else None
    scripts = registered_scripts(root)
    for call in timeline.tool_calls:
        changed = hook_files_changed(call, timeline.cwd, scripts)
        if changed and call.ran:
            return _hooks_changed(call, changed, timeline.cwd, root, start)
        trusted = _trusted_written(call, timeline.cwd)
        if trusted is not None:
            return trusted
        if line == call.line and _client_refused(call):
            return _already_done(call, timeline.cwd) or _refused_by_client(call, timeline.cwd)
    return _marker_from_outside(timeline, root, divergence, line)


AUDIT_MARKERS = ".git/aiup-coverage-checked"
AUDITOR = "uc-coverage"


def _marker_from_outside(
    timeline: Timeline, root: Path, divergence: str, line: int | None
) -> LiveCause | None:
    """The replay refuses a call the recording let run, and the audit's marker is in the
    workspace though no audit agent ran in the session and no call of it wrote the
    marker: it came from outside the session (walk h wrote it by hand in another
    terminal mid-session; the check said only "recorded 'ran', … gave 'refused by …'")."""
    refused = re.search(r"recorded 'ran', .*? gave 'refused by ([\w.-]+)'", divergence)
    folder = root / AUDIT_MARKERS
    markers = sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    if line is None or refused is None or not markers:
        return None
    # Any audit of the session, before or after: with one, the marker may be its own and the
    # transcript the thing that changed (a refusal edited to look accepted).
    audits = [
        c
        for c in timeline.tool_calls
        if c.subagent is not None and AUDITOR in c.subagent.agent_type
    ]
    call = next((c for c in timeline.tool_calls if c.line == line), None)
    if audits or call is None:
        return None
    marker = f"{AUDIT_MARKERS}/{markers[0]}"
    return LiveCause(
        f"the coverage audit's marker {marker} is in the workspace, but no coverage audit of "
        f"this session wrote it: Claude's {_called(call, timeline.cwd)} call at transcript line "
        f"{line} went through only because of it (without it {refused.group(1)} refuses the "
        f"call, as {REPLAY} did); was it made by hand, or by another session?",
        f"remove it (rm -r {AUDIT_MARKERS}), start claude again and let the audit agent "
        "(aiup-vaadin-jooq:uc-coverage) run; its hook writes the marker; then do the step again",
    )


def _written_paths(call: ToolCall, cwd: str, *, removals: bool = True) -> list[str]:
    """The workspace paths a call writes: a file tool's file; a Bash command's write targets
    as the client reads them (redirections, sed -i, cp, mv, rm, …). Running a hook, or
    reading one, writes none of it. ``removals``: whether an rm counts (it changes a hook;
    it forges no report)."""
    if call.name in FILE_TOOLS:
        path = str(call.input.get("file_path") or call.input.get("notebook_path") or "")
        return [_inside(path, cwd)] if path else []
    command = str(call.input.get("command") or "") if call.name == "Bash" else ""
    if not removals:
        parts = re.split(r"&&|\|\||;|\n", command)
        command = " ; ".join(p for p in parts if p.split()[:1] not in (["rm"], ["rmdir"]))
    return [_inside(t, cwd).removeprefix("./") for t in bash_write_targets(command)]


def _inside(path: str, cwd: str) -> str:
    base = cwd.rstrip("/") + "/"
    return path[len(base) :] if cwd and path.startswith(base) else path


def registered_scripts(root: Path) -> set[str]:
    """Scripts outside .claude/hooks that the workspace's settings start as hooks
    (``scripts/check-before-stop.sh``), relative to the workspace."""
    try:
        settings = load_settings(root)
    except HarnessError:  # no settings, or ones the client would refuse: no scripts of theirs
        return set()
    started = (
        hook.started_script
        for groups in settings.hooks.values()
        for group in groups
        for hook in group.hooks
    )
    return {
        script
        for script in started
        if script and SCRIPT.fullmatch(script) and not script.startswith(".claude/hooks/")
    }


def hook_files_changed(call: ToolCall, cwd: str, scripts: set[str]) -> list[str]:
    """The hook scripts and settings files a call changed, in the order it names them;
    ``scripts``: those the settings register outside .claude/hooks."""
    changed: list[str] = []
    for path in _written_paths(call, cwd):
        hit = HOOK_FILES.search(path)
        name = hit.group(1) if hit else path
        if (hit or name in scripts) and name not in changed:
            changed.append(name)
    return changed


def hooks_changed_since(root: Path, start: str | None) -> bool:
    """Whether the hooks (.claude/, the scripts the settings register) differ now from the
    step's start: if not, a replay that parts from the recording means the transcript itself
    was changed, not the hooks."""
    return _differs(root, start, [".claude", *sorted(registered_scripts(root))])


def hooks_changed_after(root: Path, when: float) -> list[str]:
    """The hook files (.claude/, the scripts the settings register) changed after ``when``
    (a session's end, as a time stamp), relative to the workspace."""
    files = [f for f in (root / ".claude").rglob("*") if f.is_file()]
    files += [root / name for name in registered_scripts(root)]
    changed = []
    for path in files:
        try:
            if path.stat().st_mtime > when:
                changed.append(path.relative_to(root).as_posix())
        except OSError:
            continue
    return sorted(changed)


def still_changed(root: Path, start: str | None, files: list[str]) -> list[str]:
    """Those of ``files`` that differ now from the step's start."""
    return [name for name in files if _differs(root, start, [name])]


def _differs(root: Path, start: str | None, paths: list[str]) -> bool:
    """Whether any of ``paths`` differs now from the step's start (git diff against it; a
    diff git cannot make counts as a difference)."""
    done = proc.run(["git", "-C", str(root), "diff", "--quiet", start or "HEAD", "--", *paths])
    return done.returncode != 0


def _called(call: ToolCall, cwd: str) -> str:
    """``Bash (sed -i '2i exit 0' scripts/check-before-stop.sh)``, the detail cut at 70."""
    i = call.input
    detail = str(i.get("command") or i.get("file_path") or "")
    detail = " ".join(_inside(detail, cwd).split())
    return f"{call.name} ({detail[:70]}{'…' if len(detail) > 70 else ''})"


def _hooks_changed(
    call: ToolCall, files: list[str], cwd: str, root: Path, start: str | None
) -> LiveCause:
    named = " and ".join(files)
    now = still_changed(root, start, files)
    them = "it" if len(files) == 1 else "them"
    if now:
        state = f"; {' and '.join(now)} {'is' if len(now) == 1 else 'are'} still changed now"
    else:
        state = f"; {them} {'is' if len(files) == 1 else 'are'} back as at the step's start now"
    headline = (
        f"your session changed the hooks themselves: Claude's {_called(call, cwd)} call at "
        f"transcript line {call.line} changed {named}, so the hooks that should judge the "
        f"session were not the step's ({REPLAY} plays them as they were){state}"
    )
    back = f"git checkout {start} -- {' '.join(now)}" if start else f"git checkout -- {named}"
    fix = (
        (
            f"put {them} back: {back} (or lab reset, which backs up your work first); then "
            if now
            else ""
        )
        + "start claude again and do the step without changing the hooks (tell Claude "
        "not to edit them)"
    )
    return LiveCause(headline, fix)


def _trusted_written(call: ToolCall, cwd: str) -> LiveCause | None:
    """A call that ran and wrote what the hooks trust as another's work."""
    if not call.ran:
        return None
    for pattern, what, why, fix in TRUSTED:
        written = _written_paths(call, cwd, removals=False)
        hits = [h.group(0) for h in map(pattern.search, written) if h]
        if hits:
            return LiveCause(
                f"Claude wrote {what} itself: its {_called(call, cwd)} call at transcript "
                f"line {call.line} wrote {max(hits, key=len)}; {why}",
                fix + "; then do the step again",
            )
    return None


def _client_refused(call: ToolCall) -> bool:
    """The client answered the call with an error of its own: no hook refused it, no
    permission rule or person denied it (``<tool_use_error>Blocked: standalone sleep 25``)."""
    return (
        call.is_error
        and not call.refused_by
        and not call.denied
        and call.result_text.startswith(TOOL_USE_ERROR)
    )


def _refused_by_client(call: ToolCall, cwd: str) -> LiveCause:
    said = call.result_text.removeprefix(TOOL_USE_ERROR).split("</tool_use_error>")[0]
    sentences = [f"{x.strip().rstrip('.')}." for x in " ".join(said.split()).split(". ")]
    kept = [x for n, x in enumerate(sentences) if len(" ".join(sentences[: n + 1])) <= 240]
    return LiveCause(
        f"Claude Code itself refused Claude's {_called(call, cwd)} call at transcript line "
        f"{call.line} before any hook saw it ('{sentences[0].rstrip('.')}'); {REPLAY} does "
        "not refuse such a call, so the recording and the replay differ there",
        "start claude again and do the step; if Claude Code refuses a call again, tell Claude "
        "to do it another way. Claude Code said: " + " ".join(kept or sentences[:1]),
    )


def _already_done(call: ToolCall, cwd: str) -> LiveCause | None:
    """An edit the client refused because its file already reads what it writes (walk-s: a
    Status left at Done by an earlier session; "start claude again" looped for ever)."""
    i = call.input
    new, path = str(i.get("new_string") or ""), Path(str(i.get("file_path") or ""))
    if call.name not in FILE_TOOLS or not new or "not found" not in call.result_text:
        return None
    try:
        now = path.read_text(errors="replace")
    except OSError:
        return None
    if new not in now:
        return None
    return LiveCause(
        f"Claude Code itself refused Claude's {_called(call, cwd)} call at transcript line "
        f"{call.line}: {_inside(str(path), cwd)} already reads what the edit writes "
        f"({' '.join(new.split())[:60]}), left by an earlier session, so there was nothing "
        "to replace",
        "lab reset (it puts the step's files back; yours are backed up first), then start "
        "claude again and do the step",
    )
