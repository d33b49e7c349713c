"""walk-r's findings (issue 51), second set: each played as the walker did it, each failing
with a message that names its cause (Labs 04, 06, 07 and 10, and the fixture's words)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.results import CheckResult, Status
from harness.workspace import Workspace
from tests.labs.test_failures_name_cause import WIDTHS, assert_whole_lines, screen
from tests.labs.test_free_passes import at_step

OWN_ENTRY = {
    "type": "command",
    "command": '"$CLAUDE_PROJECT_DIR/scripts/check-before-stop.sh"',
    "timeout": 10,
}
SETTINGS = Path(".claude") / "settings.json"
LOCAL = Path(".claude") / "settings.local.json"


def _stop_hooks(ws: Workspace, entries: list[dict[str, object]]) -> None:
    """The Stop group of .claude/settings.json holding ``entries`` and nothing else."""
    path = ws.root / SETTINGS
    data = json.loads(path.read_text())
    data["hooks"]["Stop"][0]["hooks"] = entries
    path.write_text(json.dumps(data, indent=2))


def _settings_results(runner: LabRunner) -> list[CheckResult]:
    """The step's settings checks, run as lab check runs them (no session, no Maven)."""
    lab, step = runner.current()
    return [
        spec.kind.run(runner.context(lab), spec.typed)
        for spec in step.checks
        if spec.kind.name == "settings"
    ]


# ---- F12: Lab 07 step 3, require-sensors.sh replaced, its name kept in a text field ---------
def test_lab07_step3_the_workshop_stop_hook_replaced_and_only_named_does_not_pass(
    workspace: Workspace,
) -> None:
    """walk-r F12: the person's hook in place of require-sensors.sh, whose name stayed only
    in a "statusMessage", passed every check of the step ("keep" was a substring)."""
    runner = at_step(workspace, "7", "register")
    _stop_hooks(workspace, [{**OWN_ENTRY, "statusMessage": "replaces require-sensors.sh"}])

    results = _settings_results(runner)

    refused = [r for r in results if r.status is Status.FAIL]
    assert refused, [r.message for r in results]
    said = refused[0]
    assert said.message.startswith(
        "no command hook on Stop runs .claude/hooks/require-sensors.sh: keep its entry"
    ), said.message
    assert said.found == "no hook on Stop names require-sensors.sh", said.found
    # Kept next to the person's, both pass.
    _stop_hooks(
        workspace,
        [
            {
                "type": "command",
                "command": '"$CLAUDE_PROJECT_DIR/.claude/hooks/require-sensors.sh"',
                "timeout": 15,
            },
            OWN_ENTRY,
        ],
    )
    assert all(r.status is Status.PASS for r in _settings_results(runner))


@pytest.mark.maven
@pytest.mark.slow
def test_lab07_step3_a_workshop_hook_that_never_holds_fails_the_session(
    workspace: Workspace,
) -> None:
    """The entry kept, its command made to let every stop go: the settings read it as
    require-sensors.sh, and the session wants its reason too (the step promises two)."""
    runner = at_step(workspace, "7", "register")
    _stop_hooks(
        workspace,
        [
            {
                "type": "command",
                "command": '"$CLAUDE_PROJECT_DIR/.claude/hooks/require-sensors.sh" '
                ">/dev/null 2>&1; exit 0",
                "timeout": 15,
            },
            OWN_ENTRY,
        ],
    )

    run = runner.check(every=True)

    session = next(r for r in run.results if r.name.startswith("no sensor reports"))
    assert session.status is Status.FAIL, session.message
    assert "nothing said contains '.claude/hooks/require-sensors.sh'" in (session.found or ""), (
        session.found
    )
    assert run.status is Status.FAIL


def test_lab07_step4_refuses_a_session_without_the_workshop_stop_hook(
    workspace: Workspace,
) -> None:
    """Step 4 (live) with F12's settings: its guard names the missing workshop hook before
    any session is read."""
    runner = at_step(workspace, "7", "your-session")
    _stop_hooks(workspace, [{**OWN_ENTRY, "statusMessage": "replaces require-sensors.sh"}])

    refused = [r for r in _settings_results(runner) if r.status is Status.FAIL]

    assert refused and "require-sensors.sh" in refused[0].message, refused
    _lab, step = runner.current()
    live = next(spec for spec in step.checks if spec.kind.name == "live_session")
    held = next(item for item in live.typed.expect if item.get("outcome") == "blocked")
    assert held.get("message_contains") == ".claude/hooks/require-sensors.sh", held


# ---- F13: Lab 07 step 3, the hook registered in .claude/settings.local.json ----------------
def test_lab07_step3_a_hook_in_the_local_settings_is_named_there(workspace: Workspace) -> None:
    """walk-r F13: registered in .claude/settings.local.json (which Claude Code runs too), the
    screen said only "no line with 'check-before-stop'" of .claude/settings.json."""
    runner = at_step(workspace, "7", "register")
    local = {"hooks": {"Stop": [{"hooks": [OWN_ENTRY]}]}}
    (workspace.root / LOCAL).write_text(json.dumps(local, indent=2))

    lab, step = runner.current()
    spec = step.checks[0]
    assert spec.kind.name == "file"
    said = spec.kind.run(runner.context(lab), spec.typed)

    assert said.status is Status.FAIL
    assert ".claude/settings.local.json has it (hooks.Stop[0].hooks[0])" in (said.found or ""), (
        said.found
    )
    fix = said.details["fix"]
    assert fix.startswith(
        "move that entry from .claude/settings.local.json into .claude/settings.json"
    ), fix
    assert "committed and shared with your team" in fix, fix
    assert re.search(r"not committed", fix), fix
    for width in WIDTHS:
        shown = screen(said, width)
        assert_whole_lines(shown, width)
        assert ".claude/settings.local.json has it" in " ".join(shown.split()), shown


# ---- walk-s F3: Lab 10 step 2, a switch before a redirection --------------------------------
@pytest.mark.parametrize(
    ("name", "command", "drop"),
    [
        ("> /dev/null", "./mvnw -q -v > /dev/null", "-v"),  # the walker's
        ("> /dev/null", "./mvnw -q -v >/dev/null", "-v"),
        ("> /dev/null", "./mvnw -q --version test -Dgroups=sensor > /dev/null 2>&1", "--version"),
        ("| tail", "./mvnw -q test -Dgroups=sensor -l 2> /dev/null | tail -3", "-l"),
        ("|| true", "./mvnw -q -v >> log.txt || true", "-v"),
        # A switch that takes a value keeps it: the value is the setup to drop.
        ("> /dev/null", "./mvnw -q -P quiet test -Dgroups=sensor > /dev/null", "-P quiet"),
    ],
)
def test_lab10_step2_a_switch_before_a_redirection_is_dropped_alone(
    name: str, command: str, drop: str
) -> None:
    """walk-s F3: `./mvnw -q -v > /dev/null` was told "drop `-v >`", which would leave
    `./mvnw -q /dev/null`: the redirection belongs to the trick."""
    from types import SimpleNamespace

    from harness.engine.checks import tricks
    from harness.engine.manifest import find_lab

    spec = next(c for c in find_lab("10").step("words").checks if c.name == "hook_session")
    trick = next(t for t in spec.params["tricks"] if t["name"] == name)
    step = SimpleNamespace(args={"command": command})

    said = tricks._not_the_trick(trick, step)  # type: ignore[arg-type]

    assert said is not None and said.endswith(f"drop `{drop}`"), said


# ---- F8: the fixture names the audit by the command the client knows ----------------------
FIXTURE = Path(__file__).resolve().parents[2] / "petclinic_fixture"
# What names the audit's command: a bare coverage-check, not a hook's file or a marker's folder.
_COMMAND_NAMED = re.compile(r"(?<![\w-])(?:/|\b)(?<!record-)(?<!aiup-)coverage-check(?![\w-])")


def test_the_fixture_names_the_audit_by_the_command_the_client_knows() -> None:
    """walk-r F8: the workspace's CLAUDE.md told the agent `/coverage-check UC-###`, which the
    client does not know (the plugin's command is aiup-vaadin-jooq:coverage-check); the hooks
    and the guide name the plugin's."""
    plugin = FIXTURE / ".claude" / "plugins" / "aiup-vaadin-jooq"
    known = f"{plugin.name}:{(plugin / 'commands' / 'coverage-check.md').stem}"
    assert (plugin / "commands" / "coverage-check.md").is_file()
    lib = (FIXTURE / ".claude" / "hooks" / "lib.sh").read_text()
    assert f'AIUP_AUDIT_COMMAND="{known}"' in lib  # what the guard's refusal names
    bare = []
    for path in sorted(FIXTURE.rglob("*")):
        if not path.is_file() or {"target", ".git"} & set(path.parts):
            continue
        if path.suffix not in (".md", ".json", ".sh", ".toml"):
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            for hit in _COMMAND_NAMED.finditer(line):
                if not line[: hit.start()].endswith(f"{plugin.name}:"):
                    bare.append(f"{path.relative_to(FIXTURE)}:{n}: {line.strip()}")
    assert bare == [], bare
    claude_md = (FIXTURE / "CLAUDE.md").read_text()
    assert f"`/{known} UC-###`" in claude_md


# ---- F11: Lab 06 step 2, step 1's hook change kept and staged ------------------------------
def _git(ws: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=P", "-c", "user.email=p@localhost", *args],
        cwd=ws.root,
        capture_output=True,
        text=True,
    )


def test_lab06_step2_says_step_1s_change_is_kept_and_how_to_revert_past_it(
    workspace: Workspace,
) -> None:
    """walk-r F11: entering step 2 said only "Your files were backed up first"; step 1's hook
    change stayed (staged, after the walker's own reset --soft), `git revert --no-edit HEAD`
    failed on it, and the Stop hook named session-start.sh, not the guard. The step now says
    the change is kept, what the Stop hook will name, and the command that lets the revert
    through; played here as the walker did."""
    from harness.engine.manifest import find_lab

    at_step(workspace, "6", "broken-hook")
    hook = ".claude/hooks/session-start.sh"
    assert _git(workspace, "diff", "--quiet", "HEAD", "--", hook).returncode == 1  # kept
    _git(workspace, "add", hook)
    assert _git(workspace, "revert", "--no-edit", "HEAD").returncode != 0

    said = " ".join(find_lab("6").step("broken-hook").instructions.split())
    assert "Your hook change of step 1 is still there: `lab next` keeps it" in said
    assert "the Stop hook names that change" in said and "not the guard" in said
    told = re.search(r"`(git restore --staged [^`]+)` unstages your change", said)
    assert told is not None, said
    assert _git(workspace, *told.group(1).split()[1:]).returncode == 0
    reverted = _git(workspace, "revert", "--no-edit", "HEAD")
    assert reverted.returncode == 0, reverted.stderr
    guard = (workspace.root / ".claude" / "hooks" / "guard-spec-status.sh").read_text()
    assert '[ -n "$problem" ] || exit 0' in guard
    assert _git(workspace, "diff", "--quiet", "HEAD", "--", hook).returncode == 1  # still yours


# ---- F7 and F10: a hand-made marker or record fools the hook, and the lab says so ----------
def _hook(ws: Workspace, name: str, event: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """A fixture hook fed its event as Claude Code feeds it."""
    return subprocess.run(
        ["bash", str(ws.root / ".claude" / "hooks" / name)],
        input=json.dumps({"session_id": "walk-r", "cwd": str(ws.root), **event}),
        capture_output=True,
        text=True,
        cwd=ws.root,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(ws.root)},
    )


def _said(lab: str, step: str) -> str:
    from harness.engine.manifest import find_lab

    return " ".join(find_lab(lab).step(step).instructions.split())


def test_lab04_step2_a_touched_marker_fools_the_guard_and_the_lab_says_so(
    workspace: Workspace,
) -> None:
    """walk-r F7: `touch .git/aiup-coverage-checked/UC-005` let guard-spec-status.sh allow
    Done; the lab's check refuses the session, and the step's text now says what the marker
    proves and what it does not."""
    at_step(workspace, "4", "audit")
    _hook(workspace, "session-start.sh", {"hook_event_name": "SessionStart", "source": "startup"})
    done = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(workspace.root / "docs/use_cases/UC-005-add-visit.md"),
            "old_string": "**Status:** Approved",
            "new_string": "**Status:** Done",
        },
    }
    assert _hook(workspace, "guard-spec-status.sh", done).returncode == 2
    marker = workspace.root / ".git" / "aiup-coverage-checked" / "UC-005"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    assert _hook(workspace, "guard-spec-status.sh", done).returncode == 0  # fooled

    said = _said("4", "audit")
    assert "What the marker proves, and what it does not." in said
    assert "`touch .git/aiup-coverage-checked/UC-005`" in said
    assert "`lab check` is not fooled" in said


def test_lab06_a_hand_written_smoke_record_fools_the_stop_hook_and_the_lab_says_so(
    workspace: Workspace,
) -> None:
    """walk-r F10: after a hook change, `.git/aiup-smoke-ran` written by hand with
    `git hash-object` of each hook let require-sensors.sh end the turn without smoke.sh."""
    at_step(workspace, "6", "hook-change-held")
    _hook(workspace, "session-start.sh", {"hook_event_name": "SessionStart", "source": "startup"})
    with (workspace.root / ".claude" / "hooks" / "session-start.sh").open("a") as hook:
        hook.write("# touched in lab 06\n")
    stop = {"hook_event_name": "Stop", "stop_hook_active": False}
    held = _hook(workspace, "require-sensors.sh", stop)
    assert held.returncode == 2 and "smoke.sh" in held.stderr, held
    forge = (
        "for f in $(find .claude/hooks -type f | sort) .claude/settings.json; do "
        'echo "$(git hash-object $f) $f"; done > .git/aiup-smoke-ran'
    )
    subprocess.run(["bash", "-c", forge], cwd=workspace.root, check=True)
    assert _hook(workspace, "require-sensors.sh", stop).returncode == 0  # fooled

    said = _said("6", "hook-change-held")
    assert "What smoke.sh's record proves, and what it does not." in said
    assert "written there by hand, end the turn without any smoke.sh run" in said
    assert "`lab check` is not fooled" in said


# ---- F9: long commands in a scenario's step list, one indent ----------------------------
@pytest.mark.parametrize("width", [80, 100, 120])
def test_long_commands_in_the_step_list_share_one_indent(width: int) -> None:
    """walk-r F9: Lab 04 step 3's bash rows too wide to sit under the row's column sat at 6,
    10 or 11 spaces on a line of their own (moved left just enough to end at the edge). Each
    now starts at column 6, where the hooks' words go, whole."""
    from harness.ui.hook_event_view import hook_event_renderable
    from tests.ui.test_screens_round7 import _bash_row, shown

    head = "sed -i 's/Approved/Done/' docs/use_cases/"
    columns = {}
    # Wider than what the row's column (18) leaves, narrower than what 6 leaves.
    for length in (width - 17, width - 12, width - 7):
        command = head + "U" * (length - len(head) - 3) + ".md"
        assert len(command) == length
        lines = shown(hook_event_renderable(_bash_row(command)), width).splitlines()
        row = next(ln for ln in lines if command in ln)
        columns[length] = len(row) - len(row.lstrip(" "))
        assert len(row) <= width, lines
    assert set(columns.values()) == {6}, columns
