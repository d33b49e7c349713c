"""Mutation test of smoke.sh: every deliberately broken copy of the hooks must fail it.

Each mutation patches a copy of the fixture's .claude/ and first asserts that the patch really
changed the text, so a renamed line cannot make a case pass for nothing.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hooks.conftest import ProvedHooks
from tests.hooks.hookrepo import project_with_hooks, run_smoke

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")


@dataclass(frozen=True)
class Mutation:
    """A broken copy of one file: the smoke groups that must catch it and the check that fails."""

    name: str
    path: str
    edits: tuple[tuple[str, str], ...]
    groups: tuple[str, ...]
    failing_check: str

    def apply(self, root: Path) -> None:
        target = root / ".claude" / self.path
        text = target.read_text()
        for old, new in self.edits:
            assert old in text, f"{self.name}: the text to mutate is gone from {self.path}"
            text = text.replace(old, new)
        assert text != target.read_text()
        target.write_text(text)


def _drop_status_check_registration(root: Path) -> None:
    settings_path = root / ".claude/settings.json"
    settings = json.loads(settings_path.read_text())
    post = settings["hooks"]["PostToolUse"]
    kept = [
        group
        for group in post
        if not any("check-spec-status.sh" in h["command"] for h in group["hooks"])
    ]
    assert len(kept) < len(post), "check-spec-status.sh was not registered to begin with"
    settings["hooks"]["PostToolUse"] = kept
    settings_path.write_text(json.dumps(settings, indent=2))


LIB = "hooks/lib.sh"
STOP = "hooks/require-sensors.sh"
AUDIT = "hooks/record-coverage-check.sh"

MUTATIONS: list[Mutation] = [
    Mutation(
        "stdin read the way that fails on Claude Code's socket",
        LIB,
        (("AIUP_INPUT=$(cat) || exit 0", "AIUP_INPUT=$(</dev/stdin) || exit 0"),),
        ("stdin",),
        "require-sensors.sh blocks an unproven change, event on a socket",
    ),
    Mutation(
        "a block exits 1 instead of 2",
        LIB,
        (("    AIUP_BLOCKING=1\n    exit 2", "    AIUP_BLOCKING=1\n    exit 1"),),
        ("evidence",),
        "a change without a sensor run blocks",
    ),
    Mutation(
        "stop_hook_active ignored",
        STOP,
        (('if [ "$(aiup_field stop_hook_active)" = true ]; then', "if false; then"),),
        ("evidence",),
        "stop_hook_active lets the second stop through",
    ),
    Mutation(
        "freshness against changed files dropped",
        LIB,
        (('if [ "$changed_ns" -ge "$ref_ns" ]; then', "if false; then"),),
        ("evidence",),
        "a change after the last green run blocks",
    ),
    Mutation(
        "session start no longer bounds evidence",
        LIB,
        (('    [ "$1" -nt "$start" ]\n', "    true\n"),),
        ("evidence",),
        "reports from before the session do not count",
    ),
    Mutation(
        "test-count check dropped",
        LIB,
        (('if [ "$tests" -lt 1 ]; then', "if false; then"),),
        ("reports",),
        "a report that counts no test blocks",
    ),
    Mutation(
        "a report with a NUL byte read up to the NUL",
        LIB,
        (
            (
                "    ! IFS= read -r -d '' AIUP_REPORT <\"$1\"",
                "    IFS= read -r -d '' AIUP_REPORT <\"$1\"; true",
            ),
        ),
        ("reports",),
        "a report with a NUL byte is no Surefire report and blocks",
    ),
    Mutation(
        "failures check dropped",
        LIB,
        (('if [ "$failures" -gt 0 ]; then', "if false; then"),),
        ("reports",),
        "a failed sensor blocks",
    ),
    Mutation(
        "errors check dropped",
        LIB,
        (('if [ "$errors" -gt 0 ]; then', "if false; then"),),
        ("reports",),
        "an errored sensor blocks",
    ),
    Mutation(
        "Stop trusts the aiup-sensors-ran marker",
        STOP,
        (
            (
                "changed=$(aiup_changed_paths)\n",
                '[ -f "$(aiup_state sensors-ran)" ] && exit 0\nchanged=$(aiup_changed_paths)\n',
            ),
        ),
        ("evidence",),
        "a touched aiup-sensors-ran proves nothing",
    ),
    Mutation(
        "commits since the session base ignored",
        LIB,
        (
            (
                'if [ -n "$base" ]; then\n            git diff',
                "if false; then\n            git diff",
            ),
        ),
        ("changes",),
        "a commit does not lift the guard",
    ),
    Mutation(
        "deleted paths ignored",
        LIB,
        (('while [ ! -e "$path" ] && [ "$path" != . ]; do', "while false; do"),),
        ("changes",),
        "a deletion after the green run blocks",
    ),
    Mutation(
        "a touched smoke record trusted",
        LIB,
        (('|| ! grep -qxF -- "$line" "$record"; then', "; then"),),
        ("self",),
        "a touched aiup-smoke-ran proves nothing",
    ),
    Mutation(
        "replace_all ignored by the status guard",
        "hooks/guard-spec-status.sh",
        (("elif $all then", "elif false then"),),
        ("guard",),
        "replace_all Draft -> Automated on a test case is refused",
    ),
    Mutation(
        "stale audits accepted",
        LIB,
        (
            (
                'aiup_first_change_since "$marker"); then',
                'aiup_first_change_since "$marker") && false; then',
            ),
        ),
        ("guard",),
        "an audit older than a src/ change is stale",
    ),
    Mutation(
        "status check script neutered",
        "hooks/check-spec-status.sh",
        (("aiup_fail_open\n", "exit 0\naiup_fail_open\n"),),
        ("check",),
        "a sed to Done is reported",
    ),
    Mutation(
        "a cut-off coverage agent is recorded",
        AUDIT,
        (('[ "$(transcript_stop_reason "$transcript")" != end_turn ]', "false"),),
        ("audit",),
        "a cut-off agent records nothing",
    ),
    Mutation(
        "a shell call without a tool_name is ignored",
        "hooks/record-sensor-run.sh",
        (
            (
                '[ "$(aiup_tool_name)" = Bash ] || exit 0',
                '[ "$(aiup_field tool_name)" = Bash ] || exit 0',
            ),
        ),
        ("clients",),
        "a command without a tool_name is taken for Bash",
    ),
    Mutation(
        "every tool with a command taken for Bash",
        LIB,
        (
            (
                'if [ -z "$name" ] && [ -n "$(aiup_field tool_input.command)" ]; then',
                "if true; then",
            ),
        ),
        ("clients",),
        "a named tool with a command is not taken for Bash",
    ),
    Mutation(
        "the event's stop_reason ignored",
        AUDIT,
        (('    [ "$event_reason" = end_turn ] || exit 0\n', "    :\n"),),
        ("clients",),
        "an event stop_reason max_tokens records nothing",
    ),
    Mutation(
        "a readable transcript overrules the event's stop_reason",
        AUDIT,
        (('if [ -n "$event_reason" ]; then', 'if [ -n "$event_reason" ] && ! $readable; then'),),
        ("clients",),
        "an event end_turn records the audit when the transcript's entry has no stop_reason",
    ),
    Mutation(
        "a namespaced coverage agent type is ignored",
        LIB,
        (('[[ $1 == *"$AIUP_COVERAGE_AGENT" ]]', '[ "$1" = "$AIUP_COVERAGE_AGENT" ]'),),
        ("clients",),
        "a namespaced type the matcher selects (plugin:aiup-vaadin-jooq:uc-coverage) records",
    ),
    Mutation(
        "an empty last message records nothing again",
        AUDIT,
        (
            (
                "event_reason=$(aiup_field stop_reason)\n",
                'event_reason=$(aiup_field stop_reason)\n[ -n "$last" ] || exit 0\n',
            ),
        ),
        ("clients",),
        "an empty last message still records the assignment's id",
    ),
    Mutation(
        "without a transcript no stop_reason is needed",
        AUDIT,
        (("elif ! $readable || [", "elif [ -z x ] && ["),),
        ("clients",),
        "without a readable transcript and without a stop_reason nothing is recorded",
    ),
    Mutation(
        "without a transcript the whole report counts, not its headings",
        AUDIT,
        (("    grep -E '^[[:space:]]*#' <<<\"$last\"\n", "    printf '%s\\n' \"$last\"\n"),),
        ("clients",),
        "but not an id the report only mentions",
    ),
    Mutation(
        "the evidence reads only the first two sensors' reports",
        LIB,
        (('for name in "${AIUP_SENSORS[@]}"; do', 'for name in "${AIUP_SENSORS[@]:0:2}"; do'),),
        ("reports",),
        "a run without the BusinessRuleTraceabilityTest report blocks",
    ),
    Mutation(
        "ids not padded (UC-7)",
        LIB,
        (("printf '%s-%03d", "printf '%s-%d"),),
        ("audit",),
        "'uc 7' is normalised to UC-007",
    ),
    Mutation(
        "input fail-open removed: no jq and garbage stdin go on",
        LIB,
        (
            ("    command -v jq >/dev/null 2>&1 || exit 0\n", ""),
            ('    [ "$count" = "${#AIUP_EVENT_FIELDS[@]}" ] || exit 0\n', ""),
        ),
        ("failopen",),
        "without jq the Stop hook lets go silently",
    ),
    Mutation(
        "markers written to the work tree instead of the git dir",
        LIB,
        (("AIUP_STATE_DIR=$AIUP_GIT_DIR", "AIUP_STATE_DIR=$PWD"),),
        ("worktree",),
        "its session base lives in the worktree's git dir",
    ),
]


def _failing_checks(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("FAIL")]


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_smoke_fails_for_a_mutated_hook(tmp_path: Path, mutation: Mutation) -> None:
    root = project_with_hooks(tmp_path)
    mutation.apply(root)
    smoke = run_smoke(root, *mutation.groups)
    assert smoke.returncode != 0, smoke.stdout
    failing = _failing_checks(smoke.stdout)
    assert any(mutation.failing_check in line for line in failing), smoke.stdout


def test_smoke_fails_when_the_status_check_is_unregistered(tmp_path: Path) -> None:
    root = project_with_hooks(tmp_path)
    _drop_status_check_registration(root)
    smoke = run_smoke(root, "settings", "check")
    assert smoke.returncode != 0, smoke.stdout
    failing = _failing_checks(smoke.stdout)
    assert any("runs check-spec-status.sh" in line for line in failing), smoke.stdout
    assert any("a sed to Done is reported" in line for line in failing), smoke.stdout


def test_the_unmutated_groups_pass(proved_hooks: ProvedHooks) -> None:
    """The cases above fail for their mutation, not because a group fails anyway: each group
    they run passes on the hooks as shipped (run once per test run, tests/hooks/conftest.py)."""
    groups = sorted({group for m in MUTATIONS for group in m.groups} | {"settings", "check"})
    for group in groups:
        smoke = proved_hooks.alone[group]
        assert smoke.returncode == 0, smoke.stdout
        assert "nothing recorded" in smoke.stdout
