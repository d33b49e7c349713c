"""One bubblewrap jail builder, for everything Hook Lab runs of someone else's.

``lab trainer verify`` judges a participant's submission in it (harness/trainer/verify_jail.py),
and ``lab simulate``, ``lab replay`` and ``lab verify-hook`` run every tool call of their
sessions in it, the real client included (:class:`Confinement`). A jail is a root of its own
built from an explicit list and nothing else: the machine's programs and libraries (/usr and
its links), the few files of /etc that programs read, and from the user's files only what
Hook Lab itself reads, read-only (Hook Lab and its Python, Maven's repository, Hook Lab's
cache: the pinned client, compiled fixtures). It has no network (a fresh network namespace:
loopback only), a private /tmp, a fresh /dev and /proc, an empty home, and nothing writable
but the folders the caller names. The environment is an allow-list.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from harness import proc
from harness.errors import HarnessError
from harness.jail_forward import pump
from harness.paths import CHECKOUT_ROOT, cache_home, scratch_mkdtemp

INSTALL_FIX = (
    "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf "
    "install bubblewrap)"
)


def bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.cache
def _why_not(program: str) -> str | None:
    """Why ``program`` cannot make a jail here (no user namespaces, a container that forbids
    them), or None when it can. Asked once a process: it costs one jail's start."""
    try:
        done = subprocess.run(
            [program, "--ro-bind", "/", "/", "--unshare-net", "--dev", "/dev", "true"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if done.returncode == 0 else (done.stderr.strip() or f"exit {done.returncode}")


def unavailable() -> str | None:
    """Why no jail can be made here, or None when one can."""
    program = bwrap()
    if program is None:
        return "bubblewrap (bwrap) is not installed"
    problem = _why_not(program)
    return None if problem is None else f"bubblewrap cannot make a jail here ({problem})"


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

# The environment inside: only these of the caller's (a token in the environment, a remote's
# URL, a Docker host stay outside), plus what the caller sets.
KEPT_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR",
    "JAVA_HOME", "MAVEN_OPTS", "PYTHONPATH", "VIRTUAL_ENV", "XDG_CACHE_HOME",
    "HOOKLAB_CACHE", "HOOKLAB_LABS", "HOOKLAB_FIXTURE", "HOOKLAB_CLAUDE_CODE",
    "HOOKLAB_CLAUDE_CODE_VERSION", "HOOKLAB_DOCKER_IMAGE", "HOOKLAB_JOBS", "HOOKLAB_MAVEN_CDS",
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
)  # fmt: skip


def kept_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allow-listed part of ``env`` (default: this process's environment)."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if k in KEPT_ENV or k.startswith("LC_")}


def _etc() -> list[Path]:
    """The /etc entries above, and each Java's settings (/etc/java-17-openjdk: its conf/
    links there)."""
    etc = Path("/etc")
    found = [etc / name for name in ETC]
    found += sorted(etc.glob("java-*"))
    return [p for p in found if p.exists()]


def _installs() -> list[Path]:
    """Where the programs a jail runs are installed, when that is outside /usr: the folder
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


def hooklab_paths() -> tuple[list[Path], list[tuple[Path, Path]]]:
    """What Hook Lab reads of the user's own files, bound where they resolve to, and the
    links to them (named, target) to make again where no bound folder holds them (a venv's
    python leads to its base install; a catalogue may be named through a link)."""
    named = [
        # Never settings.xml beside it: it may hold secrets. Java finds it from the password
        # database's home, which $HOME may not be.
        Path.home() / ".m2" / "repository",
        Path(pwd.getpwuid(os.getuid()).pw_dir) / ".m2" / "repository",
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


def _bind(args: list[str], path: Path, option: str = "--ro-bind") -> None:
    if path.is_symlink() and path.parent == Path("/"):
        args += ["--symlink", os.readlink(path), str(path)]
    else:
        args += [option, str(path), str(path)]


def jail_root(
    writable: Iterable[Path], extra: Iterable[Path] = (), *, new_session: bool = True
) -> list[str]:
    """bwrap and its options for a jail whose only writable folders are ``writable``;
    ``extra``: more folders it reads. ``new_session`` False keeps the jail in the caller's
    process group, so that killing the group (a tool call's timeout, a client ended like a
    closed terminal) reaches every process inside."""
    program = bwrap()
    if program is None:
        raise HarnessError(f"{unavailable()}", fix=INSTALL_FIX)
    args = [
        program, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        "--die-with-parent", "--clearenv",
    ]  # fmt: skip
    if new_session:
        args.append("--new-session")
    for root in SYSTEM:
        if Path(root).exists():
            _bind(args, Path(root))
    for path in _etc():
        _bind(args, path)
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    # An empty home: the user's own is not there, only what is bound into it below.
    args += ["--tmpfs", str(Path.home())]
    paths, links = hooklab_paths()
    rw = {p.resolve() for p in writable}
    ro = {*_installs(), *paths, *(p.resolve() for p in extra)} - rw
    # Folders before what lies in them: a later bind would hide an earlier one inside it.
    for path in sorted(ro | rw, key=lambda p: len(p.parts)):
        _bind(args, path, "--bind" if path in rw else "--ro-bind")
    for named, target in links:
        args += ["--symlink", str(target), str(named)]
    return args


def _started(
    root: list[str], argv: Sequence[str], chdir: Path, env: Mapping[str, str]
) -> list[str]:
    tail = ["--chdir", str(chdir)]
    for name, value in env.items():
        tail += ["--setenv", name, value]
    return [*root, *tail, "--", *argv]


def jail_argv(
    argv: Sequence[str],
    *,
    writable: Iterable[Path],
    chdir: Path,
    env: Mapping[str, str],
    extra: Iterable[Path] = (),
    new_session: bool = True,
) -> list[str]:
    """``argv`` run in a jail (:func:`jail_root`), started in ``chdir`` with exactly ``env``."""
    return _started(jail_root(writable, extra, new_session=new_session), argv, chdir, env)


FORWARDER = Path(__file__).with_name("jail_forward.py")


class Confinement:
    """The jail a scripted session's tool calls run in, on either engine.

    ``play_in`` (the throwaway copy, or the folder a verify grades in) is the only writable
    place, with a throwaway HOME and TMPDIR of the jail's own; there is no network, and the
    environment is :data:`KEPT_ENV` with those two set. :meth:`wrap` turns a command into
    the same command in the jail; :meth:`environment` is what it sees. The real client,
    which must still reach the scripted model, gets it on a Unix socket through a forwarder
    that listens on 127.0.0.1 inside the jail (``forward``)."""

    def __init__(self, play_in: Path) -> None:
        self.play_in = play_in.resolve()
        self.holder = scratch_mkdtemp("hooklab-confine-").resolve()
        self.home = self.holder / "home"
        self.tmp = self.holder / "tmp"
        self.home.mkdir()
        self.tmp.mkdir()
        _git_identity(self.home)
        # The jail's options, made once per set of folders: finding them costs milliseconds,
        # and the emulator starts a jail for every Bash call.
        self._roots: dict[tuple[tuple[Path, ...], tuple[Path, ...]], list[str]] = {}

    def __repr__(self) -> str:
        return f"<Confinement of {self.play_in}>"

    def close(self) -> None:
        shutil.rmtree(self.holder, ignore_errors=True)

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = kept_environment()
        env.update(HOME=str(self.home), TMPDIR=str(self.tmp))
        env.update(extra or {})
        return env

    def wrap(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        writable: Iterable[Path] = (),
        forward: Sequence[tuple[Path, int]] = (),
        readable: Iterable[Path] = (),
    ) -> list[str]:
        """``argv`` in the jail, started in ``cwd`` with ``env``; ``writable``: more folders
        it may change (the client's own state); ``forward`` [(socket, port)]: 127.0.0.1:port
        inside reaches the Unix socket outside; ``readable``: more folders it reads (plugins
        loaded from outside the copy)."""
        extra: list[Path] = [Path(folder).resolve() for folder in readable]
        if forward:
            routes = [str(part) for socket_path, port in forward for part in (socket_path, port)]
            argv = [sys.executable, "-I", "-S", str(FORWARDER), *routes, "--", *argv]
            extra += [FORWARDER.parent, *{socket_path.parent for socket_path, _ in forward}]
        key = ((self.play_in, self.home, self.tmp, *writable), tuple(extra))
        if key not in self._roots:
            self._roots[key] = jail_root(key[0], key[1], new_session=False)
        return _started(self._roots[key], argv, cwd, env)


def _git_identity(home: Path) -> None:
    """The person's git name and e-mail in the jail's HOME, and nothing else of their git
    configuration (a credential helper, a token in a remote's URL): a step that commits
    still can, as it could outside."""
    lines = []
    for key in ("name", "email"):
        done = proc.run(["git", "config", "--get", f"user.{key}"])
        value = done.stdout.strip()
        if done.ok and value:
            quoted = value.replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'\t{key} = "{quoted}"\n')
    if lines:
        (home / ".gitconfig").write_text("[user]\n" + "".join(lines), encoding="utf-8")


@contextlib.contextmanager
def confined(play_in: Path, wanted: bool = True) -> Iterator[Confinement | None]:
    """A :class:`Confinement` of ``play_in``, removed afterwards; None when not ``wanted``."""
    if not wanted:
        yield None
        return
    confinement = Confinement(play_in)
    try:
        yield confinement
    finally:
        confinement.close()


CONFINED = (
    "Tool calls ran confined (bubblewrap): only the folder played in was writable, HOME and "
    "TMPDIR were throwaway folders, there was no network, and the environment held only an "
    "allow-list of yours."
)
UNCONFINED = (
    "Tool calls ran unconfined (--unconfined): as you, with your HOME, environment and "
    "network; a command could change any file you can."
)


def describe(confinement: Confinement | None) -> str:
    """What the screen says of where a session's tool calls ran."""
    return UNCONFINED if confinement is None else CONFINED


class LoopbackBridge:
    """A Unix socket outside the jail that reaches 127.0.0.1:``port`` of this machine: an
    http hook's server on loopback, which the client in the jail reaches at the same address
    through the forwarder (the emulator, outside, posts to it directly)."""

    def __init__(self, path: Path, port: int) -> None:
        self.path, self.port = path, port
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(path))
        self._listener.listen(16)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                inside, _ = self._listener.accept()
            except OSError:
                return  # closed
            try:
                outside = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            except OSError:
                inside.close()
                continue
            outside.settimeout(None)
            threading.Thread(target=pump, args=(inside, outside), daemon=True).start()
            threading.Thread(target=pump, args=(outside, inside), daemon=True).start()

    def close(self) -> None:
        self._listener.close()


def loopback_ports(urls: Iterable[str]) -> set[int]:
    """The ports of ``urls`` on this machine's loopback (127.0.0.1, localhost, ::1)."""
    ports = set()
    for url in urls:
        parts = urllib.parse.urlsplit(url)
        if parts.hostname in ("127.0.0.1", "localhost", "::1"):
            with contextlib.suppress(ValueError):
                ports.add(parts.port or (443 if parts.scheme == "https" else 80))
    return ports


def socket_folder() -> Path:
    """A folder for a Unix socket: its path must stay under 108 bytes, which a scratch
    folder deep in a test's tmp_path may not."""
    base = "/tmp" if os.path.isdir("/tmp") else None
    return Path(tempfile.mkdtemp(prefix="hooklab-api-", dir=base))
