"""The coverage audit agent in a plain session, on the real client (Lab 11 step 4).

The PetClinic ships its plugin as a directory marketplace (``.claude/plugins``) that its
settings declare (``extraKnownMarketplaces``) and enable (``enabledPlugins``). Observed on
2.1.332: a person who accepts the folder's trust gets ``aiup-vaadin-jooq:uc-coverage`` with no
install command and no flag; an untrusted folder does not load it. The proofs start the client
with no ``--plugin-dir``: only the trust a person gives.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.install import find_client
from harness.claude.client.trust import enabled_plugins, project_marketplaces
from harness.errors import HarnessError
from harness.workspace import Workspace
from tests.conftest import require_real_client

AGENT = "aiup-vaadin-jooq:uc-coverage"
PROMPT = "Audit the coverage of UC-005."
REPORT = "# Coverage report: UC-005\nVerdict: covered"

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the hooks need jq")


def test_the_fixture_declares_its_marketplace_and_enables_the_plugin(
    workspace: Workspace,
) -> None:
    assert project_marketplaces(workspace.root) == {"hooklab"}
    assert enabled_plugins(workspace.root) == ["aiup-vaadin-jooq@hooklab"]
    market = json.loads(
        (workspace.root / ".claude/plugins/.claude-plugin/marketplace.json").read_text()
    )
    assert market["name"] == "hooklab"
    assert [p["name"] for p in market["plugins"]] == ["aiup-vaadin-jooq"]
    agent = workspace.root / ".claude/plugins/aiup-vaadin-jooq/agents/uc-coverage.md"
    assert agent.is_file()


def test_a_trusted_plain_session_runs_the_audit_agent(workspace: Workspace, tmp_path: Path) -> None:
    require_real_client()
    client = find_client()
    assert client is not None
    marker = workspace.git_dir / "aiup-coverage-checked" / "UC-005"
    with ClaudeCodeSession(workspace.root, client=client, transcript_dir=tmp_path / "t") as s:
        s.session_start()
        s.prompt("Audit UC-005.")
        audit = s.subagent_stop(AGENT, PROMPT, REPORT)
    assert audit.outcome == "allowed", audit
    assert marker.is_file()


def test_an_untrusted_folder_does_not_load_the_agent(workspace: Workspace, tmp_path: Path) -> None:
    require_real_client()
    client = find_client()
    assert client is not None
    with ClaudeCodeSession(
        workspace.root, client=client, transcript_dir=tmp_path / "t", trusted=False
    ) as s:
        s.session_start()
        s.prompt("Audit UC-005.")
        with pytest.raises(HarnessError) as raised:
            s.subagent_stop(AGENT, PROMPT, REPORT)
    assert f"Agent type '{AGENT}' not found" in raised.value.message
    assert not (workspace.git_dir / "aiup-coverage-checked" / "UC-005").exists()


def test_a_confined_session_registers_the_marketplace_and_runs_the_agent(
    workspace: Workspace, tmp_path: Path
) -> None:
    """In the jail lab simulate plays in, the trust launch that registers the project's
    marketplace runs confined too, and the agent still loads."""
    from harness.jail import confined, unavailable

    require_real_client()
    if unavailable() is not None:
        pytest.skip(str(unavailable()))
    client = find_client()
    assert client is not None
    marker = workspace.git_dir / "aiup-coverage-checked" / "UC-005"
    with (
        confined(workspace.root) as jail,
        ClaudeCodeSession(
            workspace.root, client=client, transcript_dir=tmp_path / "t", confinement=jail
        ) as s,
    ):
        s.session_start()
        s.prompt("Audit UC-005.")
        audit = s.subagent_stop(AGENT, PROMPT, REPORT)
        assert not any("were not registered" in line for line in s.stderr_lines)
    assert audit.outcome == "allowed", audit
    assert marker.is_file()
