"""Where ``lab trainer verify`` runs a participant's submission: inside bubblewrap.

A submission is the participant's files, its ``mvnw`` and hook scripts included, and verify
runs them. Outside a sandbox they would run as the trainer, with the trainer's files and
network. In the sandbox (``bwrap``, Debian's bubblewrap) the whole judgement of one
participant runs in a root of its own, built from an explicit list and nothing else: the
machine's programs and libraries (/usr and its links), the few files of /etc that programs
read (the alternatives, Java's and Maven's settings, the user database, certificates), and
from the trainer's files only what verify reads, read-only: Hook Lab itself and its Python,
Maven's repository (~/.m2/repository, not ~/.m2: its settings.xml may hold a repository's
password), Hook Lab's cache (the pinned client, compiled fixtures) and a lab
catalogue or fixture named in the environment. It has no network (a fresh network namespace:
loopback only), a private /tmp, a fresh /dev and /proc, an empty home, and nothing writable
but the folder holding that participant's submission, which verify removes afterwards.
Nothing else of the host is there: not the trainer's home, /tmp, /srv, /run (the Docker
socket), a second checkout.

With ``--backend docker`` Maven runs in its container, which the trainer's process starts
outside the sandbox when the sandbox asks (harness/maven/broker.py): the sandbox never sees
the Docker socket. A ``docker`` of the broker's stands first on the sandbox's PATH, so a
workspace on the docker backend still builds (``docker run … ./mvnw``) and does nothing else.

The fetch happens outside, before: the sandbox has no network to fetch with.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from harness import jail
from harness.errors import HarnessError
from harness.maven import BROKER_ENV

INSIDE_ENV = "HOOKLAB_VERIFY_SANDBOXED"  # set inside: never nest a second sandbox


def bwrap() -> str | None:
    return jail.bwrap()


def inside() -> bool:
    return os.environ.get(INSIDE_ENV) == "1"


def missing_sandbox() -> HarnessError:
    return HarnessError(
        "lab trainer verify runs the participants' scripts (mvnw, hooks) only in a sandbox, "
        "and bubblewrap (bwrap) is not installed here",
        fix=f"{jail.INSTALL_FIX}, or, on a machine you can afford to lose, --no-sandbox",
    )


def command(
    holder: Path, argv: list[str], *, broker: Path | None = None, extra: Sequence[Path] = ()
) -> list[str]:
    """``argv`` run in the sandbox (harness/jail.py), ``holder`` its only writable folder;
    ``broker``: the socket through which it asks for Maven in Docker; ``extra``: more
    folders it reads."""
    if bwrap() is None:
        raise missing_sandbox()
    return jail.jail_argv(
        argv, writable=[holder], chdir=holder, env=_environment(holder, broker), extra=extra
    )


def _environment(holder: Path, broker: Path | None) -> dict[str, str]:
    env = jail.kept_environment()
    env[INSIDE_ENV] = "1"
    env["HOOKLAB_SCRATCH"] = env["TMPDIR"] = str(holder / "scratch")
    if broker is not None:
        env[BROKER_ENV] = str(broker)
        env["PATH"] = f"{_docker_shim(holder)}:{env.get('PATH', os.defpath)}"
    return env


def _docker_shim(holder: Path) -> Path:
    """A folder holding a ``docker`` that asks the broker for Maven builds (and refuses
    anything else): a workspace on the docker backend runs ./mvnw through it."""
    folder = holder / "bin"
    folder.mkdir(exist_ok=True)
    shim = folder / "docker"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m harness.maven.broker "$@"\n')
    shim.chmod(0o755)
    return folder
