"""``lab doctor --prove-client``: do the fixture's hooks hold on the participant's own client?

The ``claude`` on the participant's PATH plays five short sessions with Hook Lab's scripted
model (the driver of the claude-code engine, harness/claude/client/), each in a throwaway copy
of a freshly provisioned workspace, offline: the model is a server on 127.0.0.1 and the key is
a dummy. Each session proves one behaviour the workshop relies on, from what the client did:

- an edit, then a stop: the Stop hook holds the turn until fresh, green sensor reports;
- setting UC-005's Status to Done: the status guard refuses the edit, the file is unchanged;
- a ``sed`` through Bash that sets UC-002 to Done: the status check reports it to Claude;
- a change to a hook, then a stop: the turn is held until smoke.sh is green (self-guarding);
- the coverage audit agent of the workspace's plugin runs and its end is recorded.

Each client starts as a person's does: plain, in the workspace root, the folder trusted (what
the trust dialog leaves; harness/claude/client/trust.py), no --plugin-dir.

The client runs with a throwaway HOME, XDG directories and CLAUDE_CONFIG_DIR, and with the
project's settings only: the participant's own ~/.claude, login and settings are never read
or changed.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.install import ClientInstall
from harness.claude.scripted import StepOutcome
from harness.claude.vocabulary import Outcome
from harness.errors import HarnessError
from harness.workspace import provision

UC5 = "docs/use_cases/UC-005-add-visit.md"
UC2 = "docs/use_cases/UC-002-edit-owner.md"
APPROVED, DONE = "**Status:** Approved", "**Status:** Done"
SENSORS = "./mvnw -q test -Dgroups=sensor"
SMOKE = "./.claude/hooks/smoke.sh"
AUDIT_AGENT = "aiup-vaadin-jooq:uc-coverage"
# A session start ends when the client answers the opening handshake (see the client session).
# A client that never answers it is waited for this long once, then briefly (the proofs
# themselves say what holds).
FIRST_STARTUP_WAIT = 15.0
LATER_STARTUP_WAIT = 3.0


@dataclass(frozen=True)
class ProofResult:
    id: str
    behaviour: str  # what must hold, in the participant's words
    hook: str  # the fixture hook that makes it hold
    holds: bool
    found: str  # what the client did
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "seconds": round(self.seconds, 1)}


@dataclass(frozen=True)
class _Proof:
    id: str
    behaviour: str
    hook: str
    play: Callable[[ClaudeCodeSession, Path], tuple[bool, str]]


def _said(step: StepOutcome) -> str:
    text = " ".join((step.feedback or step.system_message or "").split())
    return f": {text[:160]}" if text else ""


def _stop_held_by(step: StepOutcome, hook: str, wanted: str) -> tuple[bool, str]:
    if step.outcome != Outcome.BLOCKED:
        return False, f"the stop was {step.outcome}: the turn ended{_said(step)}"
    if hook not in step.feedback or wanted not in step.feedback:
        return False, f"the stop was held, but not by {hook} asking for {wanted}{_said(step)}"
    return True, f"the stop was held by {hook}, which asks for {wanted}"


def _stop_after_edit(session: ClaudeCodeSession, root: Path) -> tuple[bool, str]:
    session.prompt("Add a note to the docs, then tell me you are done.")
    wrote = session.write("docs/notes.md", "A note from lab doctor --prove-client.\n")
    if not wrote.tool_ran:
        return False, f"the Write did not run ({wrote.outcome}){_said(wrote)}"
    return _stop_held_by(session.stop("Done."), "require-sensors.sh", SENSORS)


def _done_refused(session: ClaudeCodeSession, root: Path) -> tuple[bool, str]:
    session.prompt("UC-005 (Add Visit) is implemented and tested. Set it to Done.")
    edit = session.edit(UC5, APPROVED, DONE)
    still = APPROVED in (root / UC5).read_text(encoding="utf-8")
    if edit.tool_ran or not still:
        return False, f"the edit went through: {UC5} now reads {DONE!r}"
    if "guard-spec-status.sh" not in edit.feedback or "coverage-check UC-005" not in edit.feedback:
        return False, f"the edit did not run, but no status guard said why{_said(edit)}"
    return True, "guard-spec-status.sh refused it, asking for coverage-check UC-005"


def _sed_reported(session: ClaudeCodeSession, root: Path) -> tuple[bool, str]:
    session.prompt("Mark UC-002 as done quickly.")
    bash = session.bash(f"sed -i 's/Status:\\*\\* Approved/Status:** Done/' {UC2}")
    if not bash.tool_ran:
        return False, f"the sed did not run ({bash.outcome}){_said(bash)}"
    if bash.outcome != Outcome.BLOCKED or "check-spec-status.sh" not in bash.feedback:
        return False, f"the sed set {UC2} to Done and no hook told Claude{_said(bash)}"
    return True, "the sed ran and check-spec-status.sh reported the Status it set"


def _hook_change_held(session: ClaudeCodeSession, root: Path) -> tuple[bool, str]:
    session.prompt("Add a comment to the hooks' shared library, then tell me you are done.")
    lib = ".claude/hooks/lib.sh"
    first = (root / lib).read_text(encoding="utf-8").splitlines()[0]
    edit = session.edit(lib, first, f"{first}\n# a comment from lab doctor --prove-client")
    if not edit.tool_ran:
        return False, f"the edit of {lib} did not run ({edit.outcome}){_said(edit)}"
    return _stop_held_by(session.stop("Done."), "require-sensors.sh", SMOKE)


def _audit_agent_runs(session: ClaudeCodeSession, root: Path) -> tuple[bool, str]:
    """Lab 11 step 4's audit in a plain session (no --plugin-dir: the workspace's settings
    enable the plugin from its own marketplace, loaded once the folder is trusted)."""
    session.prompt("Audit the coverage of UC-005.")
    try:
        audit = session.subagent_stop(
            AUDIT_AGENT,
            "Audit the coverage of UC-005 (docs/use_cases/UC-005-add-visit.md).",
            "# Coverage report: UC-005\nVerdict: covered",
        )
    except HarnessError as exc:
        return False, f"no audit agent in the session: {exc.message[:200]}"
    marker = Path(session.project_dir, ".git", "aiup-coverage-checked", "UC-005")
    if audit.outcome != Outcome.ALLOWED or not marker.is_file():
        return False, f"the agent ran, but record-coverage-check.sh wrote no marker{_said(audit)}"
    return True, f"{AUDIT_AGENT} ran and record-coverage-check.sh recorded the audit"


PROOFS = (
    _Proof(
        "stop-after-edit",
        "an edit, then a stop: held until fresh, green sensor reports",
        "require-sensors.sh",
        _stop_after_edit,
    ),
    _Proof(
        "done-refused",
        "UC-005's Status set to Done without an audit: refused",
        "guard-spec-status.sh",
        _done_refused,
    ),
    _Proof(
        "sed-reported",
        "a sed that sets UC-002 to Done: reported to Claude",
        "check-spec-status.sh",
        _sed_reported,
    ),
    _Proof(
        "hook-change-held",
        "a hook changed, then a stop: held until smoke.sh is green",
        "require-sensors.sh",
        _hook_change_held,
    ),
    _Proof(
        "audit-agent",
        "the coverage audit agent runs in a plain session of the trusted folder",
        "record-coverage-check.sh",
        _audit_agent_runs,
    ),
)


def isolated_env(home: Path) -> dict[str, str]:
    """The client's environment apart from the participant's own: a throwaway HOME and XDG
    directories (CLAUDE_CONFIG_DIR is the session's own throwaway directory)."""
    for name in ("config", "cache", "data", "state"):
        (home / f".{name}").mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".data"),
        "XDG_STATE_HOME": str(home / ".state"),
    }


def prove_client(
    client: ClientInstall,
    *,
    on_status: Callable[[str], None] = lambda _: None,
    on_result: Callable[[ProofResult], None] = lambda _: None,
) -> list[ProofResult]:
    """Each proof on ``client``, in a throwaway workspace, HOME and config directory."""
    results: list[ProofResult] = []
    with tempfile.TemporaryDirectory(prefix="hooklab-prove-client-") as holder:
        base = Path(holder)
        on_status("provisioning a throwaway workspace with the fixture's hooks")
        template = provision(base / "template").workspace.root
        startup_wait = FIRST_STARTUP_WAIT
        for n, proof in enumerate(PROOFS, start=1):
            on_status(f"{n}/{len(PROOFS)} on Claude Code {client.version}: {proof.behaviour}")
            root = base / proof.id
            shutil.copytree(template, root, symlinks=True)
            started = time.monotonic()
            try:
                with ClaudeCodeSession(
                    root,
                    client=client,
                    auto_approve=True,
                    env=isolated_env(base / f"home-{proof.id}"),
                    startup_wait=startup_wait,
                ) as session:
                    opened = session.session_start()
                    if not opened.hooks:
                        startup_wait = LATER_STARTUP_WAIT
                    holds, found = proof.play(session, root)
            except HarnessError as exc:
                holds, found = False, f"the session could not be played: {exc.message}"
            result = ProofResult(
                proof.id, proof.behaviour, proof.hook, holds, found, time.monotonic() - started
            )
            results.append(result)
            on_result(result)
    return results


__all__ = ["PROOFS", "ProofResult", "isolated_env", "prove_client"]
