"""The fixture's real guard hooks driven through an EmulatedSession, in a throwaway git copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.claude import EmulatedSession
from tests.builders import REPO_ROOT, git

FIXTURE = REPO_ROOT / "petclinic_fixture"
SPEC = "docs/use_cases/UC-005-add-visit.md"
COVERAGE_AGENT = "aiup-vaadin-jooq:uc-coverage"

pytestmark = pytest.mark.skipif(
    not (FIXTURE / ".claude" / "settings.json").is_file() or shutil.which("jq") is None,
    reason="needs petclinic_fixture/.claude and jq",
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "petclinic"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("target"))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture")
    return root


def test_status_done_refused_until_the_coverage_agent_audited(repo: Path, tmp_path: Path) -> None:
    spec = repo / SPEC
    before = spec.read_text()
    assert "**Status:** Approved" in before
    with EmulatedSession(repo, transcript_dir=tmp_path / "transcripts") as session:
        assert session.session_start("startup").outcome == "allowed"
        refused = session.edit(SPEC, "**Status:** Approved", "**Status:** Done")
        assert (refused.outcome, refused.tool_ran) == ("blocked", False), refused
        assert "UC-005" in refused.feedback and "coverage" in refused.feedback
        assert spec.read_text() == before

        # A cut-off audit (max_tokens) is no audit: still refused.
        session.subagent_stop(
            COVERAGE_AGENT, "coverage-check UC-005", "# UC-005\npartial", stop_reason="max_tokens"
        )
        assert session.edit(SPEC, "**Status:** Approved", "**Status:** Done").outcome == "blocked"

        audit = session.subagent_stop(
            COVERAGE_AGENT,
            "coverage-check UC-005",
            "# UC-005 Add Visit\nAll scenarios and rules covered.",
        )
        assert audit.outcome == "allowed"
        assert [h.event for h in audit.hooks].count("SubagentStop") == 1
        accepted = session.edit(SPEC, "**Status:** Approved", "**Status:** Done")
    assert (accepted.outcome, accepted.tool_ran) == ("allowed", True), accepted
    assert "**Status:** Done" in spec.read_text()


def test_evidence_under_target_is_refused_by_the_deny_rule(repo: Path, tmp_path: Path) -> None:
    with EmulatedSession(repo, transcript_dir=tmp_path / "t") as session:
        step = session.write("target/surefire-reports/TEST-x.xml", "<testsuite/>")
    assert (step.outcome, step.permission, step.hooks) == ("blocked", "deny-rule", [])
    assert not (repo / "target" / "surefire-reports" / "TEST-x.xml").exists()


@pytest.mark.parametrize("tail", ["", "; exit 1"], ids=["succeeds", "then-fails"])
def test_a_sed_to_done_through_bash_is_reported_whether_the_command_fails_or_not(
    repo: Path, tmp_path: Path, tail: str
) -> None:
    """The Edit guard never sees Bash; the status check after every tool (PostToolUse, or
    PostToolUseFailure when the command exits non-zero) reads the files instead."""
    with EmulatedSession(repo, transcript_dir=tmp_path / "t") as session:
        session.session_start("startup")
        step = session.bash(
            f"sed -i 's/^\\*\\*Status:\\*\\* Approved/**Status:** Done/' {SPEC}{tail}"
        )
    assert (step.outcome, step.tool_ran) == ("blocked", True), step
    assert "UC-005" in step.feedback
    expected_event = "PostToolUseFailure" if tail else "PostToolUse"
    assert expected_event in [h.event for h in step.hooks]
