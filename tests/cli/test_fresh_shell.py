"""A participant's first commands, exactly as docs/participant-guide.md prints them, in a new
login shell after ``./scripts/bootstrap.sh`` on a fresh copy of the checkout.

"Fresh machine" here: a copy of the working tree without ``.venv`` (bootstrap creates it and
installs from the package index), an empty home made from /etc/skel, and nothing inherited
from this process's environment (``env -i``). The machine's own /usr/local/bin is never
touched: root's run happens in a private mount namespace with an empty tmpfs there, so only
that namespace sees the link bootstrap makes.
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders import REPO_ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.getuid() != 0, reason="needs root for a private mount namespace"),
    pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare(1)"),
]

NOBODY = 65534


def guide_commands() -> list[str]:
    """The "Getting going" block of the participant guide, comments dropped."""
    guide = (REPO_ROOT / "docs" / "participant-guide.md").read_text()
    section = guide.split("## Getting going", 1)[1]
    block = section.split("```", 2)[1]
    lines = [line.split("  #", 1)[0].strip() for line in block.splitlines()[1:]]
    return [line for line in lines if line]


def fresh_home(root: Path, owner: int = 0) -> Path:
    home = root / "home"
    shutil.copytree("/etc/skel", home)
    if owner:
        for path in [home, *home.rglob("*")]:
            os.chown(path, owner, owner)
    return home


# Bootstrap also installs the pinned Claude Code client from npm (384 MB) for the other
# engine; that is not what these tests are about. Root's run shares this machine's cache of it;
# the unprivileged user's download is refused at once (no registry), which bootstrap reports
# and gets past.
REAL_CACHE = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "hooklab"
NO_REGISTRY = ("npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0")


def login_shell(home: Path, script: str, *extra: str) -> list[str]:
    """A new terminal: bash -l with only HOME (and TERM) set, running ``script``."""
    return ["env", "-i", f"HOME={home}", "TERM=dumb", *extra, "bash", "-lc", script]


@pytest.fixture(scope="module")
def checkout() -> Iterator[Path]:
    """The working tree copied without .venv or build output, readable by everyone."""
    top = Path(tempfile.mkdtemp(prefix="hooklab-fresh-"))
    top.chmod(0o755)
    copy = top / "hooklab"
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = REPO_ROOT / name.decode()
        if source.is_file():
            target = copy / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    yield copy
    shutil.rmtree(top, ignore_errors=True)


@pytest.mark.maven
def test_guide_commands_work_as_printed_after_bootstrap_as_root(checkout: Path) -> None:
    home = fresh_home(checkout.parent / "root")
    commands = guide_commands()
    assert commands[0].startswith("lab init "), commands
    # One new terminal runs bootstrap (as the README says), a second one the guide, line by
    # line, stopping at the first failure, and a third the command `lab init` printed as
    # "Next:", taken from its output as it is.
    out_dir = home.parent
    guide = "set -e\n" + "\n".join(f"echo '$ {c}'\n{c}" for c in commands)
    boot = f"cd {shlex.quote(str(checkout))} && ./scripts/bootstrap.sh"
    printed = 'eval "$(cat next.txt)"'  # the "Next:" command, run as typed
    script = f"""
set -e
mount -t tmpfs tmpfs /usr/local/bin
cd {shlex.quote(str(out_dir))}
{shlex.join(login_shell(home, boot, f"HOOKLAB_CACHE={REAL_CACHE}"))}
{shlex.join(login_shell(home, guide))} > guide.out 2>&1
sed -n 's/^Next: *//p' guide.out > next.txt
{shlex.join(login_shell(home, printed))} > next.out 2>&1
"""
    done = subprocess.run(
        ["unshare", "--mount", "bash", "-c", script],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )

    def read(name: str) -> str:
        path = out_dir / name
        return path.read_text() if path.exists() else ""

    shown = done.stdout[-3000:] + done.stderr[-2000:] + read("guide.out")[-3000:]
    assert done.returncode == 0, shown + read("next.out")[-3000:]
    assert "lab is /usr/local/bin/lab" in done.stdout
    out = read("guide.out")
    assert "Workspace ready" in out and "Ready for the workshop" in out
    assert "01-sensor-reports · step 1/3" in out  # lab start 1 showed its first step
    assert read("next.txt").strip() == f"cd {home}/hooklab-ws && lab doctor"
    doctor = read("next.out")
    assert "Ready for the workshop" in doctor, doctor


def test_a_user_without_root_gets_lab_in_new_terminals(checkout: Path) -> None:
    """Not root: the link goes to ~/.local/bin, which Debian's ~/.profile puts on PATH."""
    if not (checkout / ".venv" / "bin" / "lab").exists():
        pytest.skip("runs after the root test has bootstrapped this copy")
    home = fresh_home(checkout.parent / "user", owner=NOBODY)
    as_user = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "TERM": "dumb"}
    env.update(item.split("=", 1) for item in NO_REGISTRY)
    boot = subprocess.run(
        [*as_user, "./scripts/bootstrap.sh"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert boot.returncode == 0, boot.stdout + boot.stderr
    link = home / ".local" / "bin" / "lab"
    assert f"lab is {link}" in boot.stdout
    # This shell started before ~/.local/bin existed: bootstrap says exactly what to run.
    assert f'export PATH="{home}/.local/bin:$PATH"' in boot.stdout
    shell = subprocess.run(
        [*as_user, *login_shell(home, "command -v lab && lab list")],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shell.returncode == 0, shell.stdout + shell.stderr
    assert shell.stdout.splitlines()[0] == str(link)
    assert "03-stop-hook" in shell.stdout
