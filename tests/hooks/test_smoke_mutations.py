"""Mutation test of smoke.sh: every deliberately broken copy of the hooks must fail it.

Each mutation patches a copy of the fixture's .claude/ and first asserts that the patch really
changed the text, so a renamed line cannot make a case pass for nothing.
"""

from __future__ import annotations

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


LIB = "hooks/lib.sh"
STOP = "hooks/require-sensors.sh"
AUDIT = "hooks/record-coverage-check.sh"

MUTATIONS: list[Mutation] = [
    Mutation(
        "a block exits 1 instead of 2",
        LIB,
        (("trap - EXIT; exit 2; }", "trap - EXIT; exit 1; }"),),
        ("evidence",),
        "a change without a sensor run blocks",
    ),
    Mutation(
        "stop_hook_active ignored",
        STOP,
        (('if [ "$active" = true ]; then', "if false; then"),),
        ("evidence",),
        "the second stop (stop_hook_active) lets the turn end",
    ),
    Mutation(
        "freshness against changed files dropped",
        LIB,
        (('    [ -z "$late" ] || echo "$late changed after the last $sensor run"\n', ""),),
        ("evidence",),
        "a change after the last green run blocks",
    ),
    Mutation(
        "freshness judged by the newest report, not the oldest",
        LIB,
        (('[ "$oldest" -nt "$report" ]', '[ "$report" -nt "$oldest" ]'),),
        ("evidence",),
        "one report older than the change blocks, however new the others",
    ),
    Mutation(
        "session start no longer bounds evidence",
        LIB,
        (('[ ! -f "$AIUP_START" ] || [ "$1" -nt "$AIUP_START" ]', "true"),),
        ("evidence",),
        "reports from before the session do not count",
    ),
    Mutation(
        "test-count check dropped",
        LIB,
        (('elif [ "$tests" -lt 1 ]; then', "elif false; then"),),
        ("reports",),
        "a report that counts no test blocks",
    ),
    Mutation(
        "failures check dropped",
        LIB,
        (('elif [ "$failures" -gt 0 ]; then', "elif false; then"),),
        ("reports",),
        "a failed sensor blocks",
    ),
    Mutation(
        "errors check dropped",
        LIB,
        (('elif [ "$errors" -gt 0 ]; then', "elif false; then"),),
        ("reports",),
        "an errored sensor blocks",
    ),
    Mutation(
        "a report cut off trusted",
        LIB,
        (('elif [[ $text != *"</testsuite>"* ]]; then', "elif false; then"),),
        ("reports",),
        "a report cut off before </testsuite> blocks",
    ),
    Mutation(
        "the evidence reads only the first two sensors' reports",
        LIB,
        (('for name in "${AIUP_SENSORS[@]}"; do', 'for name in "${AIUP_SENSORS[@]:0:2}"; do'),),
        ("reports",),
        "a run without the BusinessRuleTraceabilityTest report blocks",
    ),
    Mutation(
        "Stop trusts the aiup-sensors-ran record",
        STOP,
        (
            (
                "changed=$(aiup_changed_paths)\n",
                '[ -f "$AIUP_GIT_DIR/aiup-sensors-ran" ] && exit 0\n'
                "changed=$(aiup_changed_paths)\n",
            ),
        ),
        ("evidence",),
        "reports removed (mvn clean) block again; the record proves nothing",
    ),
    Mutation(
        "commits since the session base ignored",
        LIB,
        (
            (
                'git -c core.quotePath=false diff --name-only --relative "$base"',
                "git diff --name-only --relative",
            ),
        ),
        ("changes",),
        "a commit does not lift the guard",
    ),
    Mutation(
        "deleted paths ignored",
        LIB,
        (
            (
                'while [ ! -e "$where" ]; do where=$(dirname "$where"); done',
                '[ -e "$where" ] || continue',
            ),
        ),
        ("changes",),
        "a deletion after the run blocks",
    ),
    Mutation(
        "a change's time read from its mtime, which a rename keeps",
        LIB,
        (("-cnewer", "-newer"),),
        ("changes",),
        "a rename after it blocks",
    ),
    Mutation(
        "a touched smoke record trusted",
        LIB,
        (
            (
                "aiup_hook_fingerprints | grep -vxF -f \"$record\" | cut -d ' ' -f 2-",
                "[ -s \"$record\" ] || aiup_hook_fingerprints | cut -d ' ' -f 2-",
            ),
        ),
        ("self",),
        "a touched aiup-smoke-ran proves nothing",
    ),
    Mutation(
        "settings.json left out of what smoke.sh vouches for",
        LIB,
        (("^\\.claude/(hooks/|settings\\.json$)", "^\\.claude/hooks/"),),
        ("self",),
        "a changed settings.json blocks",
    ),
    Mutation(
        "replace_all ignored by the status guard",
        "hooks/guard-spec-status.sh",
        (('elif [ "${3:-}" = true ]; then', "elif false; then"),),
        ("guard",),
        "replace_all Draft -> Automated is refused",
    ),
    Mutation(
        "the status guard lets a missing audit through (Lab 06)",
        "hooks/guard-spec-status.sh",
        (('[ -n "$problem" ] || exit 0', '[ -n "$problem" ] && exit 0'),),
        ("guard",),
        "Approved -> Done is refused",
    ),
    Mutation(
        "stale audits accepted",
        LIB,
        (
            (
                '[ -z "$late" ] || echo "the last coverage audit',
                'true || echo "the last coverage audit',
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
        (("elif [[ ! $reason =~ ^(end_turn|handback)$ ]]; then exit 0; fi", "fi"),),
        ("audit",),
        "an agent cut off (max_tokens) marks nothing",
    ),
    Mutation(
        "ids not padded (UC-7)",
        AUDIT,
        (("'%s-%03d'", "'%s-%d'"),),
        ("audit",),
        "'uc 7' is UC-007",
    ),
]
# Mutations of what smoke.sh no longer plays (session start, failing open, worktrees, rare
# report forms) fail the cases of tests/hooks/test_hook_internals.py instead.


def _failing_checks(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("  FAIL ")]


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_smoke_fails_for_a_mutated_hook(tmp_path: Path, mutation: Mutation) -> None:
    root = project_with_hooks(tmp_path)
    mutation.apply(root)
    smoke = run_smoke(root, *mutation.groups)
    assert smoke.returncode != 0, smoke.stdout
    failing = _failing_checks(smoke.stdout)
    assert any(mutation.failing_check in line for line in failing), smoke.stdout


def test_the_unmutated_groups_pass(proved_hooks: ProvedHooks) -> None:
    """The cases above fail for their mutation, not because a group fails anyway: each group
    they run passes on the hooks as shipped (run once per test run, tests/hooks/conftest.py)."""
    groups = sorted({group for m in MUTATIONS for group in m.groups})
    for group in groups:
        smoke = proved_hooks.alone[group]
        assert smoke.returncode == 0, smoke.stdout
        assert "nothing recorded" in smoke.stdout
