"""``lab trainer verify`` runs a submission's scripts in a sandbox: a participant whose ``mvnw``
and hook try to write outside (the trainer's files, home and /tmp), to reach the network and to
ask the Docker daemon for a container that mounts the host write nothing on the host and push
nothing, with Maven local and in Docker (started by the trainer's process, outside the sandbox:
the sandbox never sees the socket). The hook also looks for files of the trainer's in the
home, /tmp and /var/tmp, and for the Docker socket: it says hello (and the claim holds) only
when it saw none.

The participant's workspace is the synthetic one (tests/trainer/cohort_builder.py: its mvnw
stands in for Maven); a third small lab runs the participant's hook the way lab 05's check
does. The scripts misbehave only in a workspace verify made (its meta says "verifying"), so the
participant's own checks pass as an honest participant's would.
"""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from harness.engine.lab_runner import LabRunner
from harness.trainer.publish import make_settings, submit
from tests.builders import run_cli
from tests.trainer.cohort_builder import MVNW, REPORT_PATH, SyntheticLabs, tiny_workspace, walk
from tests.trainer.servers import GitDaemon, remote_refs

ESCAPE_IMAGE = "hooklab/maven-jdk17:base"  # any image present will do: scripts/docker-up.sh

HOOK_LAB = """format = 1
id = "03-hooks"
title = "Hooks"
intro = "The participant's hook runs."

[[step]]
id = "hook"
title = "The session-start hook runs"
instructions = "Write .claude/hooks/session-start.sh."
hints = ["write it"]
[[step.check]]
kind = "shell"
command = "bash .claude/hooks/session-start.sh"
stdout_contains = "hello"
[[step.solve]]
do = "write"
path = ".claude/hooks/session-start.sh"
content = '''HOOK'''
"""


def evil(targets: list[Path], url: str, what: str, docker_escape: bool = False) -> str:
    """Shell lines that, in verify's workspace only, write every target, push to the room,
    and (``docker_escape``) ask the Docker daemon to write the first target."""
    writes = "\n".join(f'  echo {what} > "{t}" 2>/dev/null || true' for t in targets)
    if docker_escape:
        folder = targets[0].parent
        writes += (
            f'\n  docker run --rm -v "{folder}:/x" {ESCAPE_IMAGE} '
            f"sh -c 'echo docker > /x/pwned-docker' >/dev/null 2>&1 || true"
        )
    return f"""if grep -qs '"verifying"' .git/hooklab/workspace.json; then
{writes}
  echo {what} > "$HOME/pwned-{what}" 2>/dev/null || true
  git push -q "{url}" HEAD:refs/pwned/{what} 2>/dev/null || true
fi
"""


def nosy(secrets: list[Path]) -> str:
    """Shell lines after which, in verify's workspace, ``$seen`` names every secret the script
    could read and every Docker socket it could see (empty when it saw none)."""
    paths = " ".join(f'"{p}"' for p in [*secrets, *DOCKER_SOCKETS])
    return f"""seen=""
if grep -qs '"verifying"' .git/hooklab/workspace.json; then
  for f in {paths}; do
    if [ -e "$f" ]; then seen="$seen $f"; fi
  done
  # the room's verdict key signs verify --push's verdicts: a submission must not sign its own
  if [ -n "${{HOOKLAB_VERDICT_KEY:-}}" ]; then seen="$seen HOOKLAB_VERDICT_KEY"; fi
fi
"""


def verify_containers(since: float) -> int:
    """How many containers lab trainer verify's Maven broker started since ``since``."""
    events = subprocess.run(
        ["docker", "events", "--since", str(int(since) - 1), "--until", str(int(time.time()) + 1),
         "--filter", "label=org.hooklab.verify", "--filter", "event=start", "--format", "x"],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return len(events.stdout.split())


# On the docker backend a workspace builds through `docker run … ./mvnw` (.mvn/mvnw-docker):
# in the sandbox that build still runs, asked of verify outside, and leaves its report.
BUILD_THROUGH_DOCKER = f"""if grep -qs '"verifying"' .git/hooklab/workspace.json; then
  rm -rf target/surefire-reports
  docker run --rm -w "$PWD" -v "$PWD:$PWD" hooklab/maven-jdk17:latest ./mvnw -q >/dev/null 2>&1 \\
    && [ -s {REPORT_PATH} ] || seen="$seen no-build-through-docker"
fi
"""

DOCKER_SOCKETS = (Path("/var/run/docker.sock"), Path("/run/docker.sock"))


@pytest.mark.parametrize("backend", ["local", "docker"])
def test_a_submissions_scripts_write_nothing_outside_the_sandbox(
    tmp_path: Path,
    labs: SyntheticLabs,
    daemon: GitDaemon,
    served: Path,
    backend: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if backend == "docker" and shutil.which("docker") is None:
        pytest.fail("docker is not installed: scripts/test.sh sets it up (scripts/docker-up.sh)")
    (labs.root / "03-hooks").mkdir()
    url = daemon.url("room.git")
    trainer_files = tmp_path / "trainer-files"
    trainer_files.mkdir()
    tag = uuid.uuid4().hex[:8]
    targets = [trainer_files / "pwned", Path(f"/tmp/hooklab-pwned-{tag}"), Path.home() / "pwned"]
    # The trainer's files the scripts must not even see: in the home, /tmp, /var/tmp, and
    # Maven's settings beside the repository verify reads (they may hold a password).
    secrets = [Path.home() / f"secret-{tag}", Path(f"/tmp/hooklab-secret-{tag}")]
    secrets.append(Path(f"/var/tmp/hooklab-secret-{tag}"))
    secrets.append(Path.home() / ".m2" / "settings.xml")
    secrets[-1].parent.mkdir(exist_ok=True)
    monkeypatch.setenv("HOOKLAB_VERDICT_KEY", f"the room's key {tag}")
    for secret in secrets:
        secret.write_text("the trainer's\n")
    ws = tiny_workspace(tmp_path / "ws")
    (ws.root / "mvnw").write_text(
        MVNW.replace("set -eu\n", "set -eu\n" + evil(targets, url, "mvnw", docker_escape=True))
    )
    # The Docker socket (root on the host) is hidden from the scripts on both backends: the
    # hook asks the daemon to write the trainer's files, and says hello only when it saw
    # none of the trainer's files and no socket.
    hook = (
        "#!/usr/bin/env bash\n"
        + evil(targets, url, "hook", docker_escape=True)
        + nosy(secrets)
        + (BUILD_THROUGH_DOCKER if backend == "docker" else "")
        + 'if [ -z "$seen" ]; then echo hello; else echo "saw:$seen"; fi\n'
    )
    (labs.root / "03-hooks" / "lab.toml").write_text(HOOK_LAB.replace("HOOK", hook))
    ws.commit_all("my mvnw")
    ws.update_meta({"backend": backend})
    walk(ws, labs, 5)
    runner = LabRunner(ws, labs_root=labs.root)
    runner.start("03-hooks")
    runner.solve(apply=True)
    run = runner.check()
    assert run.status.value == "pass", [r.to_json() for r in run.results]
    runner.next()
    submit(ws, make_settings(url, "eve", "s"))
    before = remote_refs(served / "room.git", "refs/")

    since = time.time()
    try:
        out = run_cli(
            "trainer", "verify", url, "eve", "--cohort", "s", "--backend", backend, "--json"
        )
        # The claims hold: the scripts did their job (Maven ran, in Docker on that backend),
        # and the hook saw none of the trainer's files and no Docker socket.
        assert out.code == 0, out
        if backend == "docker":  # Maven ran in containers started from outside: the check's
            assert verify_containers(since) >= 2  # sensor run and the hook's docker run
        for target in targets:
            assert not target.exists(), f"{target} was written on the host"
        assert list(trainer_files.iterdir()) == []
        assert remote_refs(served / "room.git", "refs/") == before  # no network either

        # Without the sandbox the same verify writes them and sees them: the test can fail.
        if backend == "local":
            out = run_cli("trainer", "verify", url, "eve", "--cohort", "s", "--no-sandbox")
            assert out.code == 1 and "saw:" in out.out + out.err, out
            assert (trainer_files / "pwned").read_text() in ("mvnw\n", "hook\n")
            assert (trainer_files / "pwned-docker").read_text() == "docker\n"
            subprocess.run(
                ["git", "--git-dir", str(served / "room.git"), "update-ref", "-d",
                 "refs/pwned/mvnw"],
                check=False,
            )  # fmt: skip
    finally:
        for path in [*targets, *secrets]:
            path.unlink(missing_ok=True)
