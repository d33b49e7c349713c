"""Where ``lab trainer verify`` runs a participant's submission: inside bubblewrap.

A submission is the participant's files, its ``mvnw`` and hook scripts included, and verify
runs them. Outside a sandbox they would run as the trainer, with the trainer's files and
network. In the sandbox (``bwrap``, Debian's bubblewrap) the whole judgement of one
participant runs with: the machine's programs read-only, no network (a fresh network
namespace: loopback only), a private ``/tmp`` and an empty home, and nothing writable but
the folder holding that participant's submission, which verify removes afterwards. From the
trainer's home only what verify needs is visible, read-only: Maven's repository (~/.m2),
Hook Lab's cache (the pinned client, compiled fixtures) and Hook Lab itself. With
``--backend docker`` Maven runs in its container as before, the hooks in the sandbox.

The fetch happens outside, before: the sandbox has no network to fetch with.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from harness.errors import HarnessError
from harness.paths import CHECKOUT_ROOT, cache_home

INSIDE_ENV = "HOOKLAB_VERIFY_SANDBOXED"  # set inside: never nest a second sandbox


def bwrap() -> str | None:
    return shutil.which("bwrap")


def inside() -> bool:
    return os.environ.get(INSIDE_ENV) == "1"


def missing_sandbox() -> HarnessError:
    return HarnessError(
        "lab trainer verify runs the participants' scripts (mvnw, hooks) only in a sandbox, "
        "and bubblewrap (bwrap) is not installed here",
        fix="install it (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf "
        "install bubblewrap), or, on a machine you can afford to lose, --no-sandbox",
    )


def _under(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def command(holder: Path, argv: list[str], *, docker: bool = False) -> list[str]:
    """``argv`` run in the sandbox, ``holder`` its only writable folder. The Docker socket
    (root on the host to whoever speaks to it) is hidden unless Maven runs in Docker."""
    program = bwrap()
    if program is None:
        raise missing_sandbox()
    home = Path.home()
    args = [
        program,
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--die-with-parent",
        "--new-session",
        "--tmpfs", str(home),
    ]  # fmt: skip
    # What verify reads from the trainer's home, read-only (when it lives there at all).
    for needed in (home / ".m2", cache_home(), CHECKOUT_ROOT, Path(sys.prefix)):
        if needed.exists() and _under(needed, home):
            args += ["--ro-bind", str(needed), str(needed)]
    # A lab catalogue or cache named in the environment may sit in /tmp, which is private here.
    for name in ("HOOKLAB_LABS", "HOOKLAB_CACHE"):
        given = os.environ.get(name)
        if (
            given
            and Path(given).exists()
            and (_under(Path(given), home) or _under(Path(given), Path("/tmp")))
        ):
            args += ["--ro-bind", given, given]
    if not docker:
        sockets = {p.resolve() for p in (Path("/run/docker.sock"), Path("/var/run/docker.sock"))}
        for socket in sorted(sockets):
            if socket.exists():
                args += ["--ro-bind", "/dev/null", str(socket)]
    args += ["--bind", str(holder), str(holder), "--chdir", str(holder)]
    args += ["--setenv", INSIDE_ENV, "1", "--setenv", "HOOKLAB_SCRATCH", str(holder / "scratch")]
    args += ["--setenv", "TMPDIR", str(holder / "scratch")]
    return [*args, "--", *argv]
