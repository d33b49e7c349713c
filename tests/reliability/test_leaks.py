"""Nothing leaks: every command runs with canary secrets in its environment, and no output of
it (stdout, stderr, --json) contains one. The hooks are called one by one as well.

A new command is one line in COMMANDS: a name, its `lab` arguments, what it needs set up first
and any file it writes. The control test shows the canaries reach the hooks, so their absence
means something.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.workspace import Workspace
from tests.builders import REPO_ROOT
from tests.reliability.cli import lab
from tests.reliability.hookcalls import call_all, env_with
from tests.reliability.plugin import fault

CANARY = "canary-5e1f-do-not-print"
SECRETS = {
    "HOOKLAB_CANARY_TOKEN": CANARY,
    "ANTHROPIC_API_KEY": f"sk-ant-{CANARY}",
    "AWS_SECRET_ACCESS_KEY": f"aws-{CANARY}",
    "GITHUB_TOKEN": f"ghp_{CANARY}",
}
SESSION = """\
[[step]]
do = "session_start"
[[step]]
do = "edit"
file = "docs/use_cases/UC-005-add-visit.md"
old = "**Status:** Approved"
new = "**Status:** Done"
expect = "blocked"
[[step]]
do = "bash"
command = "sed -i 's/Approved/Done/' docs/use_cases/UC-005-add-visit.md"
[[step]]
do = "bash"
command = "./mvnw -q test -Dgroups=sensor > /dev/null 2>&1 || true"
timeout = 1
[[step]]
do = "stop"
expect = "blocked"
[[step]]
do = "stop"
"""
SENSOR_REPORT = (
    '<?xml version="1.0" encoding="UTF-8"?>\\n<testsuite name="ai.unifiedprocess.petclinic.{s}" '
    'tests="2" errors="0" skipped="0" failures="0"><testcase name="t"/></testsuite>'
)
WRITE_REPORTS = "mkdir -p target/surefire-reports && " + " && ".join(
    f"printf '{SENSOR_REPORT.format(s=s)}' > target/surefire-reports/"
    f"TEST-ai.unifiedprocess.petclinic.{s}.xml"
    for s in ("ArchitectureTest", "UseCaseTraceabilityTest")
)


def _nothing(ws: Workspace, tmp: Path) -> None:
    return None


def _scenario(ws: Workspace, tmp: Path) -> None:
    (tmp / "session.toml").write_text(SESSION)


def _lab_03_with_a_change(ws: Workspace, tmp: Path) -> None:
    assert lab(ws.root, "start", "3").returncode == 0
    spec = ws.root / "docs/use_cases/UC-002-edit-owner.md"
    spec.write_text(spec.read_text() + "\nA change that holds the turn.\n")


def _stop_hook(ws: Workspace, tmp: Path) -> None:
    hook = ws.root / "scripts" / "check-before-stop.sh"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text((REPO_ROOT / "labs/07-own-stop-hook/solution/check-before-stop.sh").read_text())
    hook.chmod(0o755)


COHORT = "{tmp}/cohort.git"  # a trainer's cohort remote: a bare repository on disk
PAGE = "{tmp}/room.html"


def _cohort(ws: Workspace, tmp: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp / "cohort.git")], check=True)


def _submitted(ws: Workspace, tmp: Path) -> None:
    _cohort(ws, tmp)
    done = lab(ws.root, "submit", "--remote", str(tmp / "cohort.git"), "--participant", "al")
    assert done.returncode == 0, done.stdout + done.stderr


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...]  # "{tmp}" is the test's scratch folder
    prepare: Callable[[Workspace, Path], None] = _nothing
    writes: tuple[str, ...] = ()  # files the command writes, read like its output

    def __str__(self) -> str:  # the name in test ids and in docs/reliability.md
        return self.name


COMMANDS = [
    Command("lab simulate --json", ("simulate", "{tmp}/session.toml", "--json"), _scenario),
    Command("lab simulate", ("simulate", "{tmp}/session.toml"), _scenario),
    Command("lab check --json (a hook session)", ("check", "--json"), _lab_03_with_a_change),
    Command("lab check (a hook session)", ("check",), _lab_03_with_a_change),
    Command(
        "lab verify-hook --json (the grader)",
        ("verify-hook", "scripts/check-before-stop.sh", "--json", "--break",
         "rm -rf target/surefire-reports", "--fix", WRITE_REPORTS),
        _stop_hook,
    ),
    Command(
        "lab verify-hook (the grader)",
        ("verify-hook", "scripts/check-before-stop.sh", "--break",
         "rm -rf target/surefire-reports", "--fix", WRITE_REPORTS),
        _stop_hook,
    ),
    Command("lab status", ("status",)),
    Command("lab hint", ("hint",)),
    Command("lab sensors --no-run --json", ("sensors", "--no-run", "--json")),
    Command("lab doctor --json", ("doctor", "--json")),
    Command("lab backups --json", ("backups", "--json")),
    Command("lab submit --json", ("submit", "--json", "--remote", COHORT, "--participant", "al"),
            _cohort),
    Command("lab trainer status --json", ("trainer", "status", COHORT, "--json"), _submitted),
    Command("lab trainer status", ("trainer", "status", COHORT), _submitted),
    Command("lab trainer report", ("trainer", "report", COHORT, "--html", PAGE), _submitted,
            writes=(PAGE,)),
    Command("lab trainer verify --json", ("trainer", "verify", COHORT, "al", "--json"), _submitted),
]  # fmt: skip


def leaked(text: str) -> list[str]:
    return [name for name, value in SECRETS.items() if value in text or CANARY in text]


@fault(
    "nothing leaks",
    "secrets in the environment of {command}",
    tried="{command} in the participant's workspace with four canary secrets (an API key, "
    "a cloud key, a token) in its environment",
    held="no canary in stdout, stderr, the JSON or a file it writes",
)
@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_no_command_prints_a_secret(
    participant: Workspace, tmp_path: Path, command: Command
) -> None:
    command.prepare(participant, tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in command.args]
    done = lab(participant.root, *args, env=SECRETS)
    said = done.stdout + done.stderr
    for written in command.writes:
        said += Path(written.replace("{tmp}", str(tmp_path))).read_text()
    assert said, f"{command.name} said nothing: the test would prove nothing"
    assert not leaked(said), said[-3000:]


@fault(
    "nothing leaks",
    "secrets in the environment of the hooks",
    tried="the six fixture hooks, each with an event that makes it act (block, report, write "
    "state), with the canary secrets in their environment",
    held="every hook acts, and no canary in any hook's stdout or stderr",
)
def test_no_hook_prints_a_secret(participant: Workspace) -> None:
    root = participant.root
    results = list(call_all(root, env=env_with(root, **SECRETS)))
    assert all(r.acted for r in results), [r.script for r in results if not r.acted]
    for result in results:
        assert not leaked(result.stdout + result.stderr), result


@fault(
    "nothing leaks",
    "the canary check itself",
    tried="lab simulate --json with a hook that prints its environment",
    held="the canary shows up: the secrets reach the hooks, so the tests above can fail",
)
def test_a_leaky_hook_is_caught(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    command = {"type": "command", "command": "env >&2; exit 2"}
    settings = {"hooks": {"Stop": [{"hooks": [command]}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "stop.toml").write_text('[[step]]\ndo = "stop"\n')
    # Unconfined, the hook sees the person's whole environment, and the check catches it.
    scenario = str(tmp_path / "stop.toml")
    done = lab(root, "simulate", scenario, "--json", "--unconfined", env=SECRETS)
    assert leaked(done.stdout), done.stdout[-2000:]
    assert os.environ.get("HOOKLAB_CANARY_TOKEN") is None
    # Confined (the default), its environment is the jail's allow-list: nothing to leak.
    done = lab(root, "simulate", scenario, "--json", env=SECRETS)
    assert done.returncode == 0 and not leaked(done.stdout), done.stdout[-2000:]
