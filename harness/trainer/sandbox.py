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
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from harness.errors import HarnessError
from harness.maven import BROKER_ENV
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


# The system: programs, libraries, and the files of /etc they read. Each is bound only
# when it exists; a top-level link (/bin -> usr/bin on merged-/usr systems) stays a link.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = (
    "alternatives", "passwd", "group", "nsswitch.conf", "hosts", "host.conf",
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "ssl",
    "ca-certificates", "ca-certificates.conf", "maven", "gitconfig", "bash.bashrc",
    "profile", "profile.d", "inputrc", "environment", "os-release", "debian_version",
    "mime.types", "magic", "terminfo",
)  # fmt: skip
PROGRAMS = ("bash", "git", "jq", "java", "mvn", "node")  # found on PATH, wherever installed


def _etc() -> list[Path]:
    """The /etc entries above, and each Java's settings (/etc/java-17-openjdk: its conf/
    links there)."""
    etc = Path("/etc")
    found = [etc / name for name in ETC]
    found += sorted(etc.glob("java-*"))
    return [p for p in found if p.exists()]


def _installs() -> list[Path]:
    """Where the programs verify runs are installed, when that is outside /usr: the folder
    above the bin/ that holds each (an /opt/jdk, a nvm node)."""
    found = []
    for name in PROGRAMS:
        where = shutil.which(name)
        if where is None:
            continue
        real = Path(where).resolve()
        if not any(_under(real, Path(root)) for root in SYSTEM):
            found.append(real.parent.parent if real.parent.name == "bin" else real.parent)
    return found


def _trainer_paths() -> tuple[list[Path], list[tuple[Path, Path]]]:
    """What verify reads of the trainer's own files, bound where they resolve to, and the
    links to them (named, target) to make again where no bound folder holds them (a venv's
    python leads to its base install; a catalogue may be named through a link)."""
    named = [
        Path.home() / ".m2" / "repository",  # never settings.xml beside it: it may hold secrets
        cache_home(),
        CHECKOUT_ROOT,
        Path(sys.prefix),
        Path(sys.base_prefix),
    ]
    for name in ("HOOKLAB_LABS", "HOOKLAB_FIXTURE", "HOOKLAB_CLAUDE_CODE"):
        given = os.environ.get(name)
        if given:
            named.append(Path(given))
    paths: list[Path] = []
    for path in named:
        real = path.resolve()
        if real.exists() and real not in paths:
            paths.append(real)
    links = [
        (path.absolute(), path.resolve())
        for path in named
        if path.absolute() != path.resolve()
        and path.resolve() in paths
        and not any(_under(path.absolute().parent, bound) for bound in paths)
    ]
    return paths, links


def _depth(path: Path) -> int:
    return len(path.parts)


def _bind(args: list[str], path: Path, option: str = "--ro-bind") -> None:
    if path.is_symlink() and path.parent == Path("/"):
        args += ["--symlink", os.readlink(path), str(path)]
    else:
        args += [option, str(path), str(path)]


def command(
    holder: Path, argv: list[str], *, broker: Path | None = None, extra: Sequence[Path] = ()
) -> list[str]:
    """``argv`` run in the sandbox, ``holder`` its only writable folder; ``broker``: the
    socket through which it asks for Maven in Docker; ``extra``: more folders it reads."""
    program = bwrap()
    if program is None:
        raise missing_sandbox()
    args = [
        program,
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ]  # fmt: skip
    for root in SYSTEM:
        if Path(root).exists():
            _bind(args, Path(root))
    for path in _etc():
        _bind(args, path)
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    # An empty home: the trainer's own is not there, only what is bound into it below.
    args += ["--tmpfs", str(Path.home())]
    paths, links = _trainer_paths()
    # Folders before what lies in them: a later bind would hide an earlier one inside it.
    for path in sorted({*_installs(), *paths, *(p.resolve() for p in extra)}, key=_depth):
        _bind(args, path)
    for named, target in links:
        args += ["--symlink", str(target), str(named)]
    args += ["--bind", str(holder), str(holder), "--chdir", str(holder)]
    for name, value in _environment(holder, broker).items():
        args += ["--setenv", name, value]
    return [*args, "--", *argv]


# The environment inside: only these of the trainer's (a token in the environment, the
# remote's URL, a Docker host stay outside), plus the sandbox's own settings.
KEPT_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR",
    "JAVA_HOME", "MAVEN_OPTS", "PYTHONPATH", "VIRTUAL_ENV", "XDG_CACHE_HOME",
    "HOOKLAB_CACHE", "HOOKLAB_LABS", "HOOKLAB_FIXTURE", "HOOKLAB_CLAUDE_CODE",
    "HOOKLAB_CLAUDE_CODE_VERSION", "HOOKLAB_DOCKER_IMAGE", "HOOKLAB_JOBS", "HOOKLAB_MAVEN_CDS",
)  # fmt: skip


def _environment(holder: Path, broker: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in KEPT_ENV or k.startswith("LC_")}
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
