from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from harness import doctor
from harness.engine.throwaway import path_without
from harness.workspace import Workspace
from tests.builders import REPO_ROOT, run_lab_process


def test_doctor_json_on_this_machine() -> None:
    done = run_lab_process("doctor", "--json", cwd=REPO_ROOT)
    data = json.loads(done.stdout)
    by_name = {c["name"]: c for c in data["checks"]}
    assert {"python", "git", "bash", "jq", "java", "maven", "docker", "sensors can run"} <= set(
        by_name
    )
    assert by_name["jq"]["state"] == "ok" and by_name["jq"]["found"].startswith("jq-")
    assert data["ready"] is (done.returncode == 0)


def test_missing_jq_is_named_with_its_fix_and_exit_1() -> None:
    with path_without(["jq"]) as path:
        done = run_lab_process("doctor", "--json", cwd=REPO_ROOT, env={"PATH": path})
    assert done.returncode == 1, done.stderr
    jq = next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "jq")
    assert jq["state"] == "missing"
    assert jq["fix"] == "apt-get install jq"


def test_human_table_shows_the_fix() -> None:
    with path_without(["jq"]) as path:
        done = run_lab_process("doctor", cwd=REPO_ROOT, env={"PATH": path})
    assert done.returncode == 1
    assert "apt-get install jq" in done.stdout
    assert "Not ready" in done.stdout


def test_no_local_maven_but_docker_still_lets_the_sensors_run() -> None:
    ok = doctor.Finding("x", doctor.OK, "")
    missing = doctor.Finding("x", doctor.MISSING, "")
    findings = [
        doctor.Finding("java", doctor.MISSING, ""),
        doctor.Finding("maven", doctor.MISSING, ""),
        doctor.Finding("offline maven repo", doctor.WARN, ""),
        doctor.Finding("maven central", doctor.WARN, ""),
        doctor.Finding("docker", ok.state, "engine 28"),
    ]
    assert "container" in doctor.maven_verdict(findings).found
    findings[-1] = doctor.Finding("docker", missing.state, "")
    verdict = doctor.maven_verdict(findings)
    assert verdict.state == doctor.MISSING and "scripts/docker-up.sh" in verdict.fix


def test_offline_repo_check(tmp_path: Path) -> None:
    assert doctor.check_offline_repo(tmp_path / "absent").state == doctor.WARN
    assert doctor.check_offline_repo(Path("/usr/share/maven-repo")).state == doctor.OK


def test_network_check_asks_mavens_own_central_url() -> None:
    asked: list[tuple[str, int]] = []

    def connect(host: str, port: int) -> bool:
        asked.append((host, port))
        return False

    finding = doctor.check_network(connect)
    assert shutil.which("mvn") and asked and asked[0][1] == 443
    assert finding.state == doctor.WARN and "offline" in finding.found


def test_no_color_is_respected(tmp_path: Path) -> None:
    coloured = run_lab_process("doctor", cwd=REPO_ROOT, env={"FORCE_COLOR": "1"})
    assert "\x1b[" in coloured.stdout
    plain = run_lab_process("doctor", cwd=REPO_ROOT, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    # Bold and the like may stay; colour codes (3x/9x foreground) must go.
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*9[0-7]m", plain.stdout)


def test_lab_on_path_is_reported_with_the_bootstrap_fix(tmp_path: Path) -> None:
    with path_without(["lab"]) as path:
        done = run_lab_process("doctor", "--json", cwd=REPO_ROOT, env={"PATH": path})
    finding = next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "lab on PATH")
    assert finding["state"] == "warn" and finding["required"] is False
    assert finding["fix"].endswith("scripts/bootstrap.sh: it puts lab on your PATH")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "lab").symlink_to(REPO_ROOT / ".venv" / "bin" / "lab")
    with path_without(["lab"]) as path:
        env = {"PATH": f"{bin_dir}:{path}"}
        done = run_lab_process("doctor", "--json", cwd=REPO_ROOT, env=env)
    finding = next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "lab on PATH")
    assert finding["state"] == "ok" and finding["found"] == str(bin_dir / "lab")


def test_the_participants_own_claude_is_named_beside_the_pinned_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.claude.client.install import PINNED_VERSION, find_client
    from tests.conftest import require_real_client

    require_real_client()
    client = find_client()
    assert client is not None
    # The participant's own claude here is the real pinned client, linked onto PATH.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(client.path)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    config = Path(os.environ["CLAUDE_CONFIG_DIR"])
    before = sorted(config.rglob("*")) if config.exists() else []
    finding = doctor.check_own_claude()
    assert finding.state == "ok"
    assert finding.found.startswith(f"{PINNED_VERSION} (the pinned one) at {bin_dir}")
    # asking it for its version touched nothing in the (test's) Claude Code config root
    assert (sorted(config.rglob("*")) if config.exists() else []) == before


def test_no_own_claude_says_how_to_pass_live_steps_anyway() -> None:
    with path_without(["claude"]) as path:
        done = run_lab_process("doctor", "--json", cwd=REPO_ROOT, env={"PATH": path})
    mine = next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "your claude")
    assert mine["state"] == "warn" and "--scripted" in mine["fix"]


def test_the_audit_agent_row_says_to_trust_the_folder_then_holds(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lab 11's audit agent: an untrusted workspace is named with the fix; once the folder is
    trusted and a session there registered its marketplace (the real client's own launch),
    the row holds. The participant's config is the test's throwaway HOME."""
    from harness.claude.client.install import find_client
    from harness.claude.client.trust import accept_trust, register_marketplaces
    from harness.doctor import OK, WARN, check_audit_agent
    from tests.conftest import require_real_client

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert check_audit_agent(tmp_path) is None  # outside a workspace: no row
    untrusted = check_audit_agent(workspace.root)
    assert untrusted is not None and untrusted.state == WARN
    assert untrusted.found == (
        f"{workspace.root} is not trusted yet in {home / '.claude.json'}: Claude Code loads "
        "no plugin there"
    )
    assert "answer 'Yes, I trust this folder'" in untrusted.fix
    require_real_client()
    client = find_client()
    assert client is not None
    config = home / ".claude"
    config.mkdir()
    # What the trust dialog writes (into HOME/.claude.json without CLAUDE_CONFIG_DIR).
    accept_trust(home, workspace.root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(HOME=str(home), ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x")
    env["CLAUDE_CONFIG_DIR"] = str(config)
    # the client keeps .claude.json beside its config when CLAUDE_CONFIG_DIR is set
    accept_trust(config, workspace.root)
    assert register_marketplaces(client.path, workspace.root, config, env) == set()
    ready = check_audit_agent(workspace.root)
    assert ready is not None and ready.state == OK, ready


def test_maven_central_offline_is_no_warning_when_the_offline_repo_serves() -> None:
    """This machine builds offline from Debian's repository: Central's absence is nothing to
    fix, so lab doctor neither warns nor offers a fix for it."""
    assert doctor.check_offline_repo(Path("/usr/share/maven-repo")).state == doctor.OK
    done = run_lab_process("doctor", "--json", cwd=REPO_ROOT)
    central = next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "maven central")
    assert central["state"] == "ok" and central["fix"] == "", central
    offline = doctor.check_network(lambda _host, _port: False, offline_repo=True)
    assert offline.found == (
        "not reachable, and not needed: the offline maven repo serves every build"
    )
